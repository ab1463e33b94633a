// The one-shot signing page the engine serves on 127.0.0.1 (electron/engine/wallet/browser-signing-session.ts)
// and opens in the user's own browser, where the wallet extension lives. Two phases: the account (fixed by
// the panel, or picked here among the extensions' accounts), then the payload the panel builds for it; the
// extension signs through @polkadot/extension-dapp (lib/wallet-extension.ts) and the signature is posted back.
import './sign.css';
import type { SignerPayloadJSON } from '@polkadot/types/types';
import { connectWalletExtensions, isUserRejection, signPayloadWith, type WalletAccount, type WalletExtensions } from '../lib/wallet-extension.ts';

interface SigningRequest {
  phase: 'pick' | 'wait' | 'sign' | 'failed';
  address: string | null;
  payload: SignerPayloadJSON | null;
  description: string;
  preselect: string | null;
  costTao: string | null;
  error?: string;
}
type PayloadAnswer = { error: string } | { address: string; payload: SignerPayloadJSON };
interface FundsAnswer {
  address: string;
  funds: { balanceTao: string; enough: boolean | null } | null;
}

const base = location.pathname.replace(/\/+$/, '');

function el(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found;
}

function status(text: string, cls = ''): void {
  const s = el('status');
  s.textContent = text;
  s.className = cls;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

async function post(path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(await res.text());
  return res.json();
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`${base}/${path}`);
  if (!res.ok) throw new Error(await res.text());
  return (await res.json()) as T;
}

function button(text: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

function clearChoices(): void {
  el('choices').textContent = '';
}

function cancelButton(): HTMLButtonElement {
  return button('Cancel', () => {
    clearChoices();
    void post('error', { message: 'cancelled on the signing page' }).then(
      () => status('Cancelled. Nothing was sent.', 'err'),
      () => status('Cancelled. Nothing was sent (the panel had already closed this page).', 'err'),
    );
  });
}

async function signWith(source: string, payload: SignerPayloadJSON): Promise<void> {
  clearChoices();
  status(`Asking ${source} to sign… check its popup.`);
  let signature: `0x${string}`;
  try {
    signature = await signPayloadWith(source, payload);
  } catch (e) {
    const message = messageOf(e);
    if (isUserRejection(message)) {
      // Told to the panel so its registration ends at once instead of waiting for the page to time out.
      await post('error', { message: `declined in ${source}` }).catch(() => undefined);
      status(`You declined in ${source}: nothing was signed or sent. Start again from the panel to retry.`, 'err');
    } else {
      status(`${source} did not sign: ${message}`, 'err');
      el('choices').append(
        button(`Try ${source} again`, () => void signWith(source, payload)),
        cancelButton(),
      );
    }
    return;
  }
  try {
    await post('signature', { signature });
  } catch (e) {
    status(`The panel refused the signature (${messageOf(e)}). Nothing was sent; start again from the panel.`, 'err');
    return;
  }
  el('accounts').textContent = '';
  status('Done: the panel has the signature and submits the transaction. You can close this page.', 'ok');
}

/** The account is known: sign with the extension that holds it; an account no extension lists is never signed for. */
function signKnown(address: string, payload: SignerPayloadJSON, ext: WalletExtensions): Promise<void> | void {
  el('account-line').hidden = false;
  el('address').textContent = address;
  const holders = [...new Set(ext.accounts.filter((a) => a.address === address).map((a) => a.source))];
  if (holders.length === 0) {
    status(`None of your wallet extensions shares ${address} with this page. Add or unlock that account in your extension and allow "engy panel", then reload; or cancel.`, 'err');
    el('choices').append(cancelButton());
    return;
  }
  if (holders.length === 1) return signWith(holders[0]!, payload);
  status('More than one extension holds this account: pick the one to sign with.');
  for (const source of holders) el('choices').append(button(`Sign with ${source}`, () => void signWith(source, payload)));
  el('choices').append(cancelButton());
}

/** Waits for the panel to build the transaction for the chosen account, then signs it. */
async function awaitPayloadAndSign(ext: WalletExtensions): Promise<void> {
  status('The panel is preparing the transaction for this account…');
  const answer = await getJson<PayloadAnswer>('payload');
  if ('error' in answer) {
    status(answer.error, 'err');
    clearChoices();
    return;
  }
  await signKnown(answer.address, answer.payload, ext);
}

function accountRow(a: WalletAccount, index: number, request: SigningRequest, radios: HTMLInputElement[]): HTMLLabelElement {
  const label = document.createElement('label');
  label.className = 'account';
  const radio = document.createElement('input');
  radio.type = 'radio';
  radio.name = 'account';
  radio.value = String(index);
  const text = document.createElement('span');
  text.textContent = `${a.name || 'Account'} (${a.source}) `;
  const code = document.createElement('code');
  code.textContent = a.address;
  const funds = document.createElement('span');
  funds.className = 'small funds';
  funds.textContent = 'balance: looking…';
  label.append(radio, text, code, document.createElement('br'), funds);
  radios.push(radio);
  getJson<FundsAnswer>(`funds?address=${encodeURIComponent(a.address)}`).then(
    (r) => {
      if (request.preselect && r.address === request.preselect && !radios.some((x) => x.checked)) radio.checked = true;
      if (!r.funds) funds.textContent = 'balance: unknown';
      else {
        funds.textContent = `balance: ${r.funds.balanceTao}${r.funds.enough === false ? ' (less than the cost)' : ''}`;
        if (r.funds.enough === false) funds.className = 'small funds err';
      }
    },
    () => (funds.textContent = 'balance: unknown'),
  );
  return label;
}

/** Pick mode: the extensions' accounts with their balance against the cost; the user picks the one that pays. */
function pick(request: SigningRequest, ext: WalletExtensions): void {
  el('account-line').hidden = true;
  if (ext.accounts.length === 0) {
    status('Your wallet extension shares no account with this page. Open it, allow "engy panel" and add or unlock the account that pays, then reload.', 'err');
    el('choices').append(cancelButton());
    return;
  }
  status('Pick the account that pays (your coldkey).');
  const radios: HTMLInputElement[] = [];
  const list = el('accounts');
  list.setAttribute('role', 'radiogroup');
  list.setAttribute('aria-label', 'Accounts of your wallet extensions');
  ext.accounts.forEach((a, i) => list.append(accountRow(a, i, request, radios)));
  if (radios.length === 1) radios[0]!.checked = true;
  const go = button('Sign with this account', () => {
    const chosen = radios.findIndex((r) => r.checked);
    if (chosen < 0) return status('Pick an account first.', 'err');
    const a = ext.accounts[chosen]!;
    go.disabled = true;
    void post('account', { address: a.address }).then(
      () => {
        radios.forEach((r) => (r.disabled = true));
        return awaitPayloadAndSign(ext);
      },
      (e: unknown) => status(`The panel did not take this account (${messageOf(e)}). Start again from the panel.`, 'err'),
    );
  });
  el('choices').append(go, cancelButton());
}

async function main(): Promise<void> {
  const request = await getJson<SigningRequest>('request');
  el('description').textContent = request.description;
  if (request.phase === 'failed') return status(request.error ?? 'This signing request has ended.', 'err');
  if (request.costTao) el('cost').textContent = `Registration costs ${request.costTao} right now (burned, not refundable), paid by the account that signs.`;
  // No account yet (pick mode): the line appears once one is fixed.
  if (request.address) el('address').textContent = request.address;
  else el('account-line').hidden = true;
  const ext = await connectWalletExtensions();
  if (ext.sources.length === 0) {
    status(
      ext.installed
        ? 'Your wallet extension did not let this page in. Open it, allow "engy panel" under its connected sites, then reload.'
        : 'No wallet extension found in this browser. Install polkadot{.js} (polkadot.js.org/extension), Talisman or SubWallet, add your coldkey account to it, then reload this page.',
      'err',
    );
    el('choices').append(cancelButton());
    return;
  }
  if (request.phase === 'pick') return pick(request, ext);
  if (request.phase === 'wait') return awaitPayloadAndSign(ext);
  if (!request.address || !request.payload) return status('The panel sent an incomplete request. Start again from the panel.', 'err');
  return signKnown(request.address, request.payload, ext);
}

main().catch((e: unknown) => status(`This signing link no longer works (${messageOf(e)}). Start again from the panel.`, 'err'));
