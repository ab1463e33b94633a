// The one-shot signing page. It uses the extensions' injected API (window.injectedWeb3, the protocol
// @polkadot/extension-dapp wraps) directly, so it needs no bundler: enable(origin) -> accounts.get() ->
// signer.signPayload(SignerPayloadJSON). The signature is posted back to the panel that served the page.
/* global window, document, location, fetch, setTimeout */
'use strict';

const base = location.pathname.replace(/\/+$/, '');
const $ = (id) => document.getElementById(id);

function status(text, cls) {
  const el = $('status');
  el.textContent = text;
  el.className = cls || '';
}

async function post(path, body) {
  const res = await fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(await res.text());
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

async function signWith(name, request) {
  status(`Asking ${name} to sign… check its popup.`);
  const ext = await window.injectedWeb3[name].enable('engy panel');
  if (!ext.signer || !ext.signer.signPayload) throw new Error(`${name} cannot sign transactions`);
  const { signature } = await ext.signer.signPayload(request.payload);
  await post('signature', { signature });
  status('Done: the panel has the signature and submits the transaction. You can close this page.', 'ok');
  $('choices').textContent = '';
}

async function main() {
  const request = await (await fetch(`${base}/request`)).json();
  $('description').textContent = request.description;
  $('address').textContent = request.address;
  const names = await injected();
  if (names.length === 0) {
    status('No wallet extension found in this browser. Install polkadot{.js}, Talisman or SubWallet with this account, then reload.', 'err');
    return;
  }
  // Prefer the extensions that hold the account; list the others too (they may show it under another format).
  const holders = [];
  for (const name of names) {
    try {
      const ext = await window.injectedWeb3[name].enable('engy panel');
      const accounts = await ext.accounts.get();
      if (accounts.some((a) => a.address === request.address)) holders.push(name);
    } catch {
      // Refused or locked: still offer it below.
    }
  }
  const offer = holders.length > 0 ? holders : names;
  if (holders.length === 0) status(`None of your extensions lists ${request.address}; pick one to try anyway.`, 'err');
  else status(holders.length === 1 ? '' : 'Pick the extension to sign with.');
  if (offer.length === 1 && holders.length === 1) return run(offer[0], request);
  for (const name of offer) {
    const b = document.createElement('button');
    b.textContent = `Sign with ${name}`;
    b.addEventListener('click', () => run(name, request));
    $('choices').appendChild(b);
  }
  const cancel = document.createElement('button');
  cancel.textContent = 'Cancel';
  cancel.addEventListener('click', () => post('error', { message: 'cancelled on the signing page' }).then(() => status('Cancelled. Nothing was sent.', 'err')));
  $('choices').appendChild(cancel);
}

async function run(name, request) {
  try {
    await signWith(name, request);
  } catch (e) {
    const message = e && e.message ? e.message : String(e);
    status(`${name} did not sign: ${message}`, 'err');
    if (/cancel|reject/i.test(message)) await post('error', { message }).catch(() => undefined);
  }
}

main().catch((e) => status(`This signing link no longer works (${e && e.message ? e.message : e}). Start again from the panel.`, 'err'));
