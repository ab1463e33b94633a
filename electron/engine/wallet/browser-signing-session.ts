// "Sign in your browser" (CHAIN.md 5, option b): Electron cannot host the user's own wallet extension,
// so the engine serves a one-shot page on 127.0.0.1 under a random token, the app opens it in the
// user's browser, the page asks the extension (window.injectedWeb3) to sign the SignerPayloadJSON, and
// posts the signature back. The engine then submits. One request, one signature, then the server closes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { AppFailure } from '../../../shared/errors.ts';
import type { SignerPayloadJSON } from '@polkadot/types/types';

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
  /** Folder with sign.html / sign.js / sign.css; defaults to resources/signing. */
  pageDir?: string;
}

export interface BrowserSigningSession {
  /** Open this in the user's browser (Electron: shell.openExternal; headless: print it). */
  url: string;
  /** The signature (MultiSignature hex, as extensions return it), or an AppFailure. */
  result: Promise<`0x${string}`>;
  cancel(): void;
}

const PAGE_FILES: Record<string, string> = { '': 'sign.html', 'sign.js': 'sign.js', 'sign.css': 'sign.css' };
const TYPES: Record<string, string> = { 'sign.html': 'text/html; charset=utf-8', 'sign.js': 'text/javascript; charset=utf-8', 'sign.css': 'text/css; charset=utf-8' };
const MAX_BODY = 16 * 1024;

function defaultPageDir(): string {
  // Sources: electron/engine/wallet -> repo root; a tsc build adds dist/ in front.
  for (const up of ['../../../resources/signing', '../../../../resources/signing']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(join(dir, 'sign.html'))) return dir;
  }
  throw new Error('resources/signing is missing from this build');
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

export async function startBrowserSigningSession(r: BrowserSigningRequest): Promise<BrowserSigningSession> {
  if (r.payload.address !== r.address) throw new AppFailure('bad-request', 'The payload is for another account than the one asked to sign.');
  const pageDir = r.pageDir ?? defaultPageDir();
  const pages = Object.fromEntries(Object.entries(PAGE_FILES).map(([k, f]) => [k, readFileSync(join(pageDir, f), 'utf8')]));
  const token = randomBytes(24).toString('base64url');
  const base = `/sign/${token}`;
  let settle: { resolve: (s: `0x${string}`) => void; reject: (e: Error) => void } | undefined;
  const result = new Promise<`0x${string}`>((resolve, reject) => (settle = { resolve, reject }));
  let done = false;
  let origin = '';

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 400, 'bad request'));
  });
  const finish = (outcome: { signature: `0x${string}` } | { error: AppFailure }) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    server.close();
    server.closeAllConnections();
    if ('signature' in outcome) settle!.resolve(outcome.signature);
    else settle!.reject(outcome.error);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS-rebinding guard: only our literal loopback host:port is answered.
    if (req.headers.host !== origin.slice('http://'.length) || done) return send(res, 404, 'not found');
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (!path.startsWith(base) || (path.length > base.length && path[base.length] !== '/')) return send(res, 404, 'not found');
    const rest = path.slice(base.length + 1);
    if (req.method === 'GET') {
      const file = PAGE_FILES[rest];
      if (file !== undefined) return send(res, 200, pages[rest]!, TYPES[file]);
      if (rest === 'request') return send(res, 200, JSON.stringify({ address: r.address, payload: r.payload, description: r.description }), 'application/json');
      return send(res, 404, 'not found');
    }
    if (req.method === 'POST' && (rest === 'signature' || rest === 'error')) {
      if (req.headers.origin !== origin) return send(res, 403, 'wrong origin');
      const body = (await readJson(req)) as { signature?: unknown; message?: unknown };
      if (rest === 'error') {
        send(res, 200, '{}', 'application/json');
        const why = typeof body.message === 'string' ? body.message.slice(0, 200) : 'cancelled';
        return finish({ error: new AppFailure('wallet-locked', `The browser wallet did not sign (${why}): nothing was sent; try again or use the btcli coldkey.`) });
      }
      const sig = body.signature;
      if (typeof sig !== 'string' || !/^0x[0-9a-fA-F]{128,200}$/.test(sig)) return send(res, 400, 'bad signature');
      if (r.verify && !r.verify(sig as `0x${string}`)) return send(res, 422, 'the signature does not match the request');
      send(res, 200, '{}', 'application/json');
      return finish({ signature: sig as `0x${string}` });
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
  const timer = setTimeout(
    () => finish({ error: new AppFailure('timeout', 'Nobody signed in the browser in time: nothing was sent; start the signing again.') }),
    r.timeoutMs ?? 10 * 60_000,
  );
  timer.unref?.();
  return {
    url: `${origin}${base}/`,
    result,
    cancel: () => finish({ error: new AppFailure('wallet-locked', 'Browser signing was cancelled: nothing was sent.') }),
  };
}
