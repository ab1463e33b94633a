// A @polkadot/api `Signer` (structurally: signPayload -> {id, signature}) backed by the user's browser
// wallet through a one-shot signing page. The chain client passes it to `signAndSend(address, {signer})`.
import { startBrowserSigningSession, type SigningPayload } from './browser-signing-session.ts';

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
