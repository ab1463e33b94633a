// TEST DOUBLE, never shipped: a browser wallet extension (the polkadot{.js} extension's injected API) for
// Chromium pages driven by Playwright. An init script puts `window.injectedWeb3[source]` in every page of
// the context before the page's own scripts run, as the real extension's content script does at
// document_start: enable(origin) -> { accounts.get/subscribe, signer.signPayload/signRaw }. The keys stay
// in Node: each call crosses to Node through exposed functions, where a real sr25519 keypair
// (@polkadot/keyring) signs, so the engine and the chain verify real signatures. The "user" answers each
// popup through `answer` (approve, or reject with polkadot{.js}'s own "Cancelled").
import type { BrowserContext } from 'playwright-core';
import type { KeyringPair } from '@polkadot/keyring/types';
import { polkadot } from '../../electron/engine/lib/polkadot.ts';
import type { Registry, SignerPayloadJSON, SignerPayloadRaw } from '@polkadot/types/types';

const { TypeRegistry } = polkadot('@polkadot/types');
const { u8aToHex, u8aWrapBytes } = polkadot('@polkadot/util');
const { decodeAddress, encodeAddress } = polkadot('@polkadot/util-crypto');

export interface ExtensionAccount {
  pair: KeyringPair;
  name?: string;
  /** The SS58 prefix the extension shows the address under (polkadot{.js} set to Polkadot shows 0). */
  ss58Prefix?: number;
}

export type PopupRequest = { kind: 'payload'; address: string; payload: SignerPayloadJSON } | { kind: 'raw'; address: string; data: string };

export interface WalletExtensionOptions {
  /** The name it injects under (what extension-dapp calls the source). */
  source?: string;
  accounts: ExtensionAccount[];
  /** The user in the extension's popup; default approves everything. */
  answer?: (request: PopupRequest) => 'approve' | 'reject';
  /** The user refuses to let any page in (enable() rejects, as polkadot{.js} does for a site it was told to reject). */
  refuseEnable?: boolean;
  /**
   * Types for the payload: a chain's own registry (api.registry) signs exactly what that chain checks; the
   * default is a bare TypeRegistry with the payload's signed extensions, as extension-base does without metadata.
   */
  registry?: Registry;
}

export interface WalletExtensionDouble {
  /** Every origin that called enable(). */
  enabledBy: string[];
  /** Every popup, with the user's answer. */
  popups: Array<PopupRequest & { answer: 'approve' | 'reject' }>;
}

/** polkadot{.js} extension-base's words when the user presses Cancel in the popup. */
export const USER_REJECTION = 'Cancelled';

let installs = 0;

/** Installs the double into every page of `context` (call before the page is opened). */
export async function installWalletExtension(context: BrowserContext, o: WalletExtensionOptions): Promise<WalletExtensionDouble> {
  const source = o.source ?? 'polkadot-js';
  const state: WalletExtensionDouble = { enabledBy: [], popups: [] };
  const byKey = (address: string): KeyringPair => {
    const wanted = u8aToHex(decodeAddress(address));
    const found = o.accounts.find((a) => u8aToHex(a.pair.publicKey) === wanted);
    // The real extension refuses an address it does not hold with these words.
    if (!found) throw new Error(`Unable to find keypair for ${address}`);
    return found.pair;
  };
  const ask = (request: PopupRequest): void => {
    const answer = o.answer?.(request) ?? 'approve';
    state.popups.push({ ...request, answer });
    if (answer === 'reject') throw new Error(USER_REJECTION);
  };
  // Unique names: two installs in one test file never collide on the context's bindings.
  const fn = `__walletExtensionDouble${++installs}`;
  await context.exposeFunction(`${fn}Enable`, (origin: unknown) => {
    state.enabledBy.push(String(origin));
    if (o.refuseEnable) throw new Error(`The source ${String(origin)} is not allowed to interact with this extension`);
    return true;
  });
  await context.exposeFunction(`${fn}Accounts`, () => o.accounts.map((a) => ({ address: encodeAddress(a.pair.publicKey, a.ss58Prefix ?? 42), name: a.name ?? '', type: a.pair.type })));
  await context.exposeFunction(`${fn}SignPayload`, (payload: SignerPayloadJSON) => {
    const pair = byKey(payload.address);
    ask({ kind: 'payload', address: payload.address, payload });
    const registry = o.registry ?? new TypeRegistry();
    if (!o.registry) registry.setSignedExtensions(payload.signedExtensions);
    return registry.createType('ExtrinsicPayload', payload, { version: payload.version }).sign(pair).signature;
  });
  await context.exposeFunction(`${fn}SignRaw`, (raw: SignerPayloadRaw) => {
    const pair = byKey(raw.address);
    ask({ kind: 'raw', address: raw.address, data: raw.data });
    return u8aToHex(pair.sign(u8aWrapBytes(raw.data)));
  });
  await context.addInitScript(
    ({ source, fn }: { source: string; fn: string }) => {
      type Call = (arg?: unknown) => Promise<unknown>;
      const node = (name: string) => (window as unknown as Record<string, Call>)[`${fn}${name}`]!;
      let id = 0;
      const w = window as unknown as { injectedWeb3?: Record<string, unknown> };
      w.injectedWeb3 = w.injectedWeb3 ?? {};
      w.injectedWeb3[source] = {
        version: '0.63.1',
        enable: async (origin: string) => {
          await node('Enable')(origin);
          const accounts = { get: () => node('Accounts')(), subscribe: (cb: (list: unknown) => void) => (void node('Accounts')().then(cb), () => undefined) };
          const signer = {
            signPayload: async (payload: unknown) => ({ id: ++id, signature: await node('SignPayload')(payload) }),
            signRaw: async (raw: unknown) => ({ id: ++id, signature: await node('SignRaw')(raw) }),
          };
          return { accounts, signer };
        },
      };
    },
    { source, fn },
  );
  return state;
}
