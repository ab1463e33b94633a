// "Sign in your browser" (CHAIN.md 5, option b): Electron cannot host the user's own wallet extension,
// so the engine serves a one-shot page on 127.0.0.1 under a random token, the app opens it in the
// user's browser, the page asks the extension (through @polkadot/extension-dapp) to sign the
// SignerPayloadJSON, and posts the signature back. The page is a Vite entry (renderer/sign.html), built by
// `npm run build:renderer` into dist-renderer/signing and shipped as extraResources/signing. The engine then submits. One request, one signature, then the server closes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { polkadot } from '../lib/polkadot.ts';
import type { BrowserSigningView } from '../../../shared/api.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { SignerPayloadJSON } from '@polkadot/types/types';

const { decodeAddress, encodeAddress } = polkadot('@polkadot/util-crypto');

/** What @polkadot/api hands a Signer; the page passes it to the extension's `signer.signPayload` unchanged. */
export type SigningPayload = SignerPayloadJSON;

export interface BrowserSigningRequest {
  address: string;
  payload: SigningPayload;
  /** One line shown on the page, e.g. "Register hotkey 5F… on subnet 53 for at most 1 τ". */
  description: string;
  /** Checks the returned signature (e.g. rebuild the ExtrinsicPayload and sr25519-verify); false refuses it. */
  verify?: (signatureHex: `0x${string}`) => boolean;
  timeoutMs?: number;
  /** Folder with sign.html / sign.js / sign.css; defaults to signingPageDir(). */
  pageDir?: string;
}

export interface BrowserSigningSession {
  /** Open this in the user's browser (Electron: shell.openExternal; headless: print it). */
  url: string;
  /** The signature (MultiSignature hex, as extensions return it), or an AppFailure. */
  result: Promise<`0x${string}`>;
  cancel(): void;
}

/** What the page shows beside an account it lists: its free balance and whether it covers the cost. */
export interface AccountFunds {
  balanceTao: string;
  /** null when the cost is not known. */
  enough: boolean | null;
}

export interface SigningPageOptions {
  description: string;
  /** The account that must sign; without it the page lists the extension's accounts and the user picks one. */
  address?: string;
  /** Pick mode: the account checked first (a pasted address, or the wallet's coldkeypub.txt). */
  preselect?: string;
  /** Pick mode: shown as "Registration costs …", e.g. "0.5 τ". */
  costTao?: string;
  /** Pick mode: the balance of a listed account; null or a throw shows "balance unknown". */
  fundsOf?: (address: string) => Promise<AccountFunds | null>;
  timeoutMs?: number;
  pageDir?: string;
  /** Called whenever the request moves (account chosen, payload ready, closed): the engine republishes its view. */
  onChange?: () => void;
}

/**
 * A one-shot signing page in two phases: the account (fixed, or picked on the page), then one payload
 * for that account. The payload can only be built once the account is known (its nonce, its address),
 * so the caller awaits `account`, builds the transaction, and hands the payload to `sign`.
 */
export interface SigningPage {
  url: string;
  /** The signing account, SS58 with prefix 42; rejects if the page is cancelled or times out first. */
  account: Promise<string>;
  /** Shows the payload on the page and resolves with the extension's signature (once per page). */
  sign(payload: SigningPayload, verify?: (signatureHex: `0x${string}`) => boolean): Promise<`0x${string}`>;
  /** Ends the page with a sentence it shows (e.g. the coldkey cannot pay); pending promises reject with it. */
  fail(error: AppFailure): void;
  cancel(): void;
  /** The request as a UI that signs in place sees it; null once closed. */
  view(): BrowserSigningView | null;
  /** In-process answers, checked exactly as the page's POSTs are (a refusal throws an AppFailure). */
  choose(address: string): void;
  submit(signature: string): void;
  decline(message: string): void;
}

/** The three files the signing page build emits (vite.config.ts, signingPageConfig), by the path the page asks. */
const PAGE_FILES: Record<string, string> = { '': 'sign.html', 'sign.js': 'sign.js', 'sign.css': 'sign.css' };
const PAGE_NAMES = Object.values(PAGE_FILES);
const TYPES: Record<string, string> = { 'sign.html': 'text/html; charset=utf-8', 'sign.js': 'text/javascript; charset=utf-8', 'sign.css': 'text/css; charset=utf-8' };
const MAX_BODY = 16 * 1024;

/** The built signing page's folder: sign.html, sign.js and sign.css. */
export function signingPageDir(): string {
  // The packaged app: extraResources put signing/ in process.resourcesPath (ENGY_RESOURCES_DIR).
  // A checkout: `npm run build:renderer` writes dist-renderer/signing (from electron/engine/wallet up to
  // the repo root; a tsc build adds dist/ in front).
  const env = process.env.ENGY_RESOURCES_DIR;
  const candidates = [...(env ? [join(env, 'signing')] : []), ...['../../../dist-renderer/signing', '../../../../dist-renderer/signing'].map((up) => fileURLToPath(new URL(up, import.meta.url)))];
  for (const dir of candidates) if (PAGE_NAMES.every((f) => existsSync(join(dir, f)))) return dir;
  throw new AppFailure('internal', "The browser signing page is not built: run `npm run build:renderer` in the panel's folder (an installed app carries it in resources/signing).");
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // Extensions inject their own script into the page; ours comes only from this origin.
    'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** SS58 (any prefix) to the prefix-42 form the engine uses; null when it is not an account address. */
function normalAccount(value: unknown): string | null {
  if (typeof value !== 'string' || value.length < 40 || value.length > 60) return null;
  try {
    return encodeAddress(decodeAddress(value), 42);
  } catch {
    return null;
  }
}

const MAX_FUNDS_LOOKUPS = 64;
const FAILURE_GRACE_MS = 15_000;

export async function openSigningPage(o: SigningPageOptions): Promise<SigningPage> {
  const fixed = o.address === undefined ? null : normalAccount(o.address);
  if (o.address !== undefined && !fixed) throw new AppFailure('bad-request', 'The account to sign with is not an SS58 address.');
  const preselect = o.preselect === undefined ? null : normalAccount(o.preselect);
  const pageDir = o.pageDir ?? signingPageDir();
  const pages = Object.fromEntries(Object.entries(PAGE_FILES).map(([k, f]) => [k, readFileSync(join(pageDir, f), 'utf8')]));
  const token = randomBytes(24).toString('base64url');
  const base = `/sign/${token}`;
  let origin = '';
  let done = false;
  let account: string | null = fixed;
  let payload: SigningPayload | null = null;
  let verify: ((sig: `0x${string}`) => boolean) | undefined;
  let failure: AppFailure | null = null;
  const payloadWaiters: ServerResponse[] = [];
  const funds = new Map<string, Promise<AccountFunds | null>>();

  let settleAccount!: { resolve: (a: string) => void; reject: (e: Error) => void };
  const accountPromise = new Promise<string>((resolve, reject) => (settleAccount = { resolve, reject }));
  accountPromise.catch(() => undefined);
  if (fixed) settleAccount.resolve(fixed);
  let settleSig: { resolve: (s: `0x${string}`) => void; reject: (e: Error) => void } | undefined;

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 400, 'bad request'));
  });
  const answerWaiters = () => {
    const body = JSON.stringify(failure ? { error: failure.message } : { address: account, payload });
    for (const w of payloadWaiters.splice(0)) send(w, 200, body, 'application/json');
  };
  const finish = (outcome: { signature: `0x${string}` } | { error: AppFailure }) => {
    if (done) return;
    if ('error' in outcome) {
      failure = outcome.error;
      answerWaiters();
    }
    done = true;
    clearTimeout(timer);
    const close = () => {
      server.close();
      server.closeAllConnections();
    };
    // After a refusal the page may still be on its way to ask for the payload: it keeps reading why for a moment.
    if ('error' in outcome) setTimeout(close, FAILURE_GRACE_MS).unref?.();
    else close();
    if ('signature' in outcome) settleSig?.resolve(outcome.signature);
    else {
      settleAccount.reject(outcome.error);
      settleSig?.reject(outcome.error);
    }
    o.onChange?.();
  };

  const lookupFunds = (address: string): Promise<AccountFunds | null> => {
    let p = funds.get(address);
    if (!p) {
      p = o.fundsOf ? o.fundsOf(address).catch(() => null) : Promise.resolve(null);
      funds.set(address, p);
    }
    return p;
  };

  // One set of answers for the page's POSTs and a UI that signs in place: each refusal has the HTTP status
  // the page gets and the sentence both get; an accepted answer is settled after the page has its reply.
  type Refusal = { status: 400 | 404 | 409 | 422; why: string } | null;
  let settle: () => void = () => undefined;
  const takeAccount = (value: unknown): Refusal => {
    if (done) return { status: 404, why: 'this signing request is closed' };
    if (account) return { status: 409, why: 'the account is already chosen' };
    const chosen = normalAccount(value);
    if (!chosen) return { status: 400, why: 'not an SS58 address' };
    account = chosen;
    settle = () => {
      settleAccount.resolve(chosen);
      o.onChange?.();
    };
    return null;
  };
  const takeDecline = (message: unknown): Refusal => {
    if (done) return { status: 404, why: 'this signing request is closed' };
    const why = typeof message === 'string' ? message.slice(0, 200) : 'cancelled';
    settle = () => finish({ error: new AppFailure('wallet-locked', `The browser wallet did not sign (${why}): nothing was sent; try again or use the btcli coldkey.`) });
    return null;
  };
  const takeSignature = (sig: unknown): Refusal => {
    if (done) return { status: 404, why: 'this signing request is closed' };
    if (!payload) return { status: 409, why: 'nothing to sign yet' };
    if (typeof sig !== 'string' || !/^0x[0-9a-fA-F]{128,200}$/.test(sig)) return { status: 400, why: 'bad signature' };
    if (verify && !verify(sig as `0x${string}`)) return { status: 422, why: 'the signature does not match the request' };
    settle = () => finish({ signature: sig as `0x${string}` });
    return null;
  };
  /** In-process answers: a refusal is thrown as an AppFailure with its sentence; an accepted one settles at once. */
  const answer = (refused: Refusal): void => {
    if (refused) throw new AppFailure(refused.status === 422 ? 'wallet-locked' : 'bad-request', `The signing request refused this answer: ${refused.why}.`);
    settle();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS-rebinding guard: only our literal loopback host:port is answered.
    if (req.headers.host !== origin.slice('http://'.length)) return send(res, 404, 'not found');
    const [path = '', query = ''] = (req.url ?? '').split('?');
    if (!path.startsWith(base) || (path.length > base.length && path[base.length] !== '/')) return send(res, 404, 'not found');
    const rest = path.slice(base.length + 1);
    if (done) {
      // Closed: only the reason stays readable (during the grace period after a refusal).
      if (req.method === 'GET' && failure && (rest === 'request' || rest === 'payload')) {
        return send(res, 200, JSON.stringify(rest === 'request' ? { phase: 'failed', error: failure.message, description: o.description } : { error: failure.message }), 'application/json');
      }
      return send(res, 404, 'not found');
    }
    if (req.method === 'GET') {
      const file = PAGE_FILES[rest];
      if (file !== undefined) return send(res, 200, pages[rest]!, TYPES[file]);
      if (rest === 'request') {
        const phase = payload ? 'sign' : account ? 'wait' : 'pick';
        return send(res, 200, JSON.stringify({ phase, address: account, payload, description: o.description, preselect, costTao: o.costTao ?? null }), 'application/json');
      }
      if (rest === 'funds') {
        const address = normalAccount(new URLSearchParams(query).get('address'));
        if (!address) return send(res, 400, 'not an SS58 address');
        // The normalized address lets the page match the preselection whatever SS58 prefix the extension shows.
        if (!funds.has(address) && funds.size >= MAX_FUNDS_LOOKUPS) return send(res, 200, JSON.stringify({ address, funds: null }), 'application/json');
        return send(res, 200, JSON.stringify({ address, funds: await lookupFunds(address) }), 'application/json');
      }
      if (rest === 'payload') {
        // Held open until the engine has built the transaction for the chosen account (or gave up).
        if (payload || failure) return send(res, 200, JSON.stringify(failure ? { error: failure.message } : { address: account, payload }), 'application/json');
        if (payloadWaiters.length >= 4) return send(res, 429, 'too many waiting');
        payloadWaiters.push(res);
        res.on('close', () => {
          const i = payloadWaiters.indexOf(res);
          if (i >= 0) payloadWaiters.splice(i, 1);
        });
        return;
      }
      return send(res, 404, 'not found');
    }
    if (req.method === 'POST' && (rest === 'signature' || rest === 'error' || rest === 'account')) {
      if (req.headers.origin !== origin) return send(res, 403, 'wrong origin');
      const body = (await readJson(req)) as { signature?: unknown; message?: unknown; address?: unknown } | null;
      if (body === null || typeof body !== 'object') return send(res, 400, 'bad request');
      const refused = rest === 'account' ? takeAccount(body.address) : rest === 'error' ? takeDecline(body.message) : takeSignature(body.signature);
      if (refused) return send(res, refused.status, refused.why);
      send(res, 200, rest === 'account' ? JSON.stringify({ address: account }) : '{}', 'application/json');
      settle();
      return;
    }
    return send(res, 405, 'method not allowed');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('signing server has no port');
  origin = `http://127.0.0.1:${address.port}`;
  const timer = setTimeout(() => finish({ error: new AppFailure('timeout', 'Nobody signed in the browser in time: nothing was sent; start the signing again.') }), o.timeoutMs ?? 10 * 60_000);
  timer.unref?.();
  return {
    url: `${origin}${base}/`,
    account: accountPromise,
    sign(p, check) {
      if (done) return Promise.reject(failure ?? new AppFailure('wallet-locked', 'The signing page is closed: start the signing again.'));
      if (settleSig) return Promise.reject(new AppFailure('bad-request', 'This signing page signs one transaction only.'));
      if (!account || normalAccount(p.address) !== account) return Promise.reject(new AppFailure('bad-request', 'The payload is for another account than the one chosen to sign.'));
      const result = new Promise<`0x${string}`>((resolve, reject) => (settleSig = { resolve, reject }));
      payload = p;
      verify = check;
      answerWaiters();
      o.onChange?.();
      return result;
    },
    fail: (error) => finish({ error }),
    cancel: () => finish({ error: new AppFailure('wallet-locked', 'Browser signing was cancelled: nothing was sent.') }),
    view: () => (done ? null : { phase: payload ? 'sign' : account ? 'wait' : 'pick', description: o.description, costTao: o.costTao ?? null, preselect, address: account, payload }),
    choose: (address) => answer(takeAccount(address)),
    submit: (signature) => answer(takeSignature(signature)),
    decline: (message) => answer(takeDecline(message)),
  };
}

/** One signature for a known account and payload (the account is fixed, the page signs at once). */
export async function startBrowserSigningSession(r: BrowserSigningRequest): Promise<BrowserSigningSession> {
  if (r.payload.address !== r.address) throw new AppFailure('bad-request', 'The payload is for another account than the one asked to sign.');
  const page = await openSigningPage({
    address: r.address,
    description: r.description,
    ...(r.timeoutMs !== undefined ? { timeoutMs: r.timeoutMs } : {}),
    ...(r.pageDir ? { pageDir: r.pageDir } : {}),
  });
  return { url: page.url, result: page.sign(r.payload, r.verify), cancel: page.cancel };
}
