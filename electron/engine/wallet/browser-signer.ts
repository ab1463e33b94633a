// A @polkadot/api `Signer` (structurally: signPayload -> {id, signature}) backed by the user's browser
// wallet through a one-shot signing page. The chain client passes it to `signAndSend(address, {signer})`.
import type { KeySigner } from '../chain/ports.ts';
import { startBrowserSigningSession, type SigningPage, type SigningPayload } from './browser-signing-session.ts';

export interface PayloadSigner {
  address: string;
  signPayload(payload: SigningPayload): Promise<{ id: number; signature: `0x${string}` }>;
}

export interface BrowserSignerOptions {
  address: string;
  /** What the page tells the user they are signing. */
  describe: (payload: SigningPayload) => string;
  /** Electron: shell.openExternal(url); headless/CLI: print the URL. */
  open: (url: string) => void | Promise<void>;
  verify?: (payload: SigningPayload, signature: `0x${string}`) => boolean;
  timeoutMs?: number;
  pageDir?: string;
}

export function browserPayloadSigner(opts: BrowserSignerOptions): PayloadSigner {
  let id = 0;
  return {
    address: opts.address,
    async signPayload(payload) {
      const verify = opts.verify;
      const session = await startBrowserSigningSession({
        address: opts.address,
        payload,
        description: opts.describe(payload),
        ...(verify ? { verify: (sig: `0x${string}`) => verify(payload, sig) } : {}),
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
        ...(opts.pageDir ? { pageDir: opts.pageDir } : {}),
      });
      try {
        await opts.open(session.url);
      } catch (e) {
        session.cancel();
        throw e;
      }
      return { id: ++id, signature: await session.result };
    },
  };
}

/**
 * A coldkey held by a browser extension, shaped as the KeySigner port plus `signPayload`. Extensions
 * only sign whole SignerPayloadJSON (their signRaw wraps bytes in <Bytes>…</Bytes>, which is not a
 * valid extrinsic signature), so `sign()` refuses: the chain client must hand this object to
 * `signAndSend(address, { signer })` instead of building its own Signer over `sign()`.
 */
export interface PayloadKeySigner extends KeySigner, PayloadSigner {}

export function isPayloadKeySigner(k: KeySigner): k is PayloadKeySigner {
  return typeof (k as Partial<PayloadKeySigner>).signPayload === 'function';
}

export function browserColdkeySigner(opts: BrowserSignerOptions): PayloadKeySigner {
  const payloadSigner = browserPayloadSigner(opts);
  return {
    address: opts.address,
    signPayload: (payload) => payloadSigner.signPayload(payload),
    sign(): Uint8Array {
      throw new Error('a browser-wallet key signs whole transaction payloads only (signPayload), not raw bytes');
    },
  };
}

/** The coldkey the user picked on an open signing page: signs through that same page. */
export function signingPageColdkeySigner(page: SigningPage, address: string, verify?: (payload: SigningPayload, signature: `0x${string}`) => boolean): PayloadKeySigner {
  let id = 0;
  return {
    address,
    async signPayload(payload) {
      const signature = await page.sign(payload, verify ? (sig) => verify(payload, sig) : undefined);
      return { id: ++id, signature };
    },
    sign(): Uint8Array {
      throw new Error('a browser-wallet key signs whole transaction payloads only (signPayload), not raw bytes');
    },
  };
}
