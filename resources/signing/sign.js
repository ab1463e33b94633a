// The one-shot signing page. It uses the extensions' injected API (window.injectedWeb3, the protocol
// @polkadot/extension-dapp's web3Enable/web3Accounts wrap) directly, so it needs no bundler:
// enable(origin) -> accounts.get() -> signer.signPayload(SignerPayloadJSON). Two phases: the account
// (fixed by the panel, or picked here from every extension's accounts), then the payload the panel
// builds for that account; the signature is posted back to the panel that served the page.
/* global window, document, location, fetch, setTimeout */
'use strict';

const base = location.pathname.replace(/\/+$/, '');
const $ = (id) => document.getElementById(id);
const DAPP = 'engy panel';

function status(text, cls) {
  const el = $('status');
  el.textContent = text;
  el.className = cls || '';
}

async function post(path, body) {
  const res = await fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(await res.text());
  return res.json();
}

async function getJson(path) {
  const res = await fetch(`${base}/${path}`);
  if (!res.ok) throw new Error(await res.text());
  return res.json();
}

// Extensions inject at document_start, but some finish a moment later.
async function injected() {
  for (let i = 0; i < 20; i++) {
    const names = Object.keys(window.injectedWeb3 || {});
    if (names.length > 0) return names;
    await new Promise((r) => setTimeout(r, 150));
  }
  return [];
}

/** Every account of every extension that lets this page in: [{ source, address, name }]. */
async function allAccounts(names) {
  const out = [];
  for (const source of names) {
    try {
      const ext = await window.injectedWeb3[source].enable(DAPP);
      const accounts = await ext.accounts.get();
      for (const a of Array.isArray(accounts) ? accounts.slice(0, 50) : []) {
        if (a && typeof a.address === 'string') out.push({ source, address: a.address, name: typeof a.name === 'string' ? a.name : '' });
      }
    } catch {
      // Refused or locked: its accounts stay hidden; the message below says what to do.
    }
  }
  return out;
}

async function signWith(source, payload) {
  status(`Asking ${source} to sign… check its popup.`);
  const ext = await window.injectedWeb3[source].enable(DAPP);
  if (!ext.signer || !ext.signer.signPayload) throw new Error(`${source} cannot sign transactions`);
  const { signature } = await ext.signer.signPayload(payload);
  await post('signature', { signature });
  status('Done: the panel has the signature and submits the transaction. You can close this page.', 'ok');
  $('choices').textContent = '';
  $('accounts').textContent = '';
}

async function run(source, payload) {
  try {
    await signWith(source, payload);
  } catch (e) {
    const message = e && e.message ? e.message : String(e);
    status(`${source} did not sign: ${message}`, 'err');
    if (/cancel|reject/i.test(message)) await post('error', { message }).catch(() => undefined);
  }
}

function cancelButton() {
  const cancel = document.createElement('button');
  cancel.textContent = 'Cancel';
  cancel.addEventListener('click', () => post('error', { message: 'cancelled on the signing page' }).then(() => status('Cancelled. Nothing was sent.', 'err')));
  return cancel;
}

/** The account is known: offer the extensions that hold it (or all of them), sign the payload. */
async function signKnown(request, names) {
  $('address').textContent = request.address;
  const accounts = await allAccounts(names);
  const holders = [...new Set(accounts.filter((a) => a.address === request.address).map((a) => a.source))];
  const offer = holders.length > 0 ? holders : names;
  if (holders.length === 0) status(`None of your extensions lists ${request.address}; pick one to try anyway.`, 'err');
  else status(holders.length === 1 ? '' : 'Pick the extension to sign with.');
  if (offer.length === 1 && holders.length === 1) return run(offer[0], request.payload);
  for (const source of offer) {
    const b = document.createElement('button');
    b.textContent = `Sign with ${source}`;
    b.addEventListener('click', () => run(source, request.payload));
    $('choices').appendChild(b);
  }
  $('choices').appendChild(cancelButton());
}

/** Waits for the panel to build the transaction for the chosen account, then signs it. */
async function awaitPayloadAndSign(source) {
  status('The panel is preparing the transaction for this account…');
  const answer = await getJson('payload');
  if (answer.error) {
    status(answer.error, 'err');
    $('choices').textContent = '';
    return;
  }
  $('address').textContent = answer.address;
  if (source) return run(source, answer.payload);
  return signKnown({ address: answer.address, payload: answer.payload }, await injected());
}

/** Pick mode: list the accounts with their balance against the cost, the user picks the one that pays. */
async function pick(request, names) {
  $('account-line').hidden = true;
  const accounts = await allAccounts(names);
  if (accounts.length === 0) {
    status('Your wallet extension shares no account with this page. Open it, allow "engy panel" and add or unlock the account that pays, then reload.', 'err');
    $('choices').appendChild(cancelButton());
    return;
  }
  status('Pick the account that pays (your coldkey).');
  const list = $('accounts');
  const radios = [];
  accounts.forEach((a, i) => {
    const label = document.createElement('label');
    label.className = 'account';
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'account';
    radio.value = String(i);
    const text = document.createElement('span');
    text.textContent = `${a.name || 'Account'} (${a.source}) `;
    const code = document.createElement('code');
    code.textContent = a.address;
    const funds = document.createElement('span');
    funds.className = 'small funds';
    funds.textContent = 'balance: looking…';
    label.append(radio, text, code, document.createElement('br'), funds);
    list.appendChild(label);
    radios.push(radio);
    getJson(`funds?address=${encodeURIComponent(a.address)}`)
      .then((r) => {
        if (request.preselect && r.address === request.preselect && !radios.some((x) => x.checked)) radio.checked = true;
        if (!r.funds) funds.textContent = 'balance: unknown';
        else {
          funds.textContent = `balance: ${r.funds.balanceTao}${r.funds.enough === false ? ' (less than the cost)' : ''}`;
          if (r.funds.enough === false) funds.className = 'small funds err';
        }
      })
      .catch(() => (funds.textContent = 'balance: unknown'));
  });
  if (accounts.length === 1) radios[0].checked = true;
  const go = document.createElement('button');
  go.textContent = 'Sign with this account';
  go.addEventListener('click', async () => {
    const chosen = radios.findIndex((r) => r.checked);
    if (chosen < 0) return status('Pick an account first.', 'err');
    const a = accounts[chosen];
    go.disabled = true;
    try {
      await post('account', { address: a.address });
      radios.forEach((r) => (r.disabled = true));
      await awaitPayloadAndSign(a.source);
    } catch (e) {
      status(`The panel did not take this account (${e && e.message ? e.message : e}). Start again from the panel.`, 'err');
    }
  });
  $('choices').append(go, cancelButton());
}

async function main() {
  const request = await getJson('request');
  $('description').textContent = request.description;
  if (request.phase === 'failed') return status(request.error, 'err');
  if (request.costTao) $('cost').textContent = `Registration costs ${request.costTao} right now (burned, not refundable), paid by the account that signs.`;
  const names = await injected();
  if (names.length === 0) {
    status('No wallet extension found in this browser. Install polkadot{.js}, Talisman or SubWallet with your coldkey account, then reload.', 'err');
    return;
  }
  if (request.phase === 'pick') return pick(request, names);
  if (request.phase === 'wait') return awaitPayloadAndSign(null);
  return signKnown(request, names);
}

main().catch((e) => status(`This signing link no longer works (${e && e.message ? e.message : e}). Start again from the panel.`, 'err'));
