// The browser wallet extensions (polkadot{.js}, Talisman, SubWallet) as @polkadot/extension-dapp sees
// them: one module for the one-shot signing page and the headless UI, so both enable, list and sign
// the same way. extension-dapp touches `window` when it loads, so it is imported on first use only.
import type { SignerPayloadJSON } from '@polkadot/types/types';

/** The name the extension shows when it asks the user to let this page in. */
export const DAPP_NAME = 'engy panel';

export interface WalletAccount {
  /** SS58 with prefix 42, as extension-dapp re-encodes it. */
  address: string;
  name: string;
  /** The extension that holds it ("polkadot-js", "talisman", "subwallet-js"...). */
  source: string;
}

export interface WalletExtensions {
  /** Some extension is installed in this browser (whether or not it let this page in). */
  installed: boolean;
  /** Extensions that let this page in (empty: none installed, or every one refused). */
  sources: string[];
  accounts: WalletAccount[];
}

const MAX_ACCOUNTS = 50;
/** Extensions inject at document_start, some a moment later: ask again a few times before saying "none". */
const ENABLE_TRIES = 4;
const ENABLE_RETRY_MS = 500;

const dapp = () => import('@polkadot/extension-dapp');
type InjectedAccountWithMeta = Awaited<ReturnType<Awaited<ReturnType<typeof dapp>>['web3Accounts']>>[number];

function toAccount(a: InjectedAccountWithMeta): WalletAccount | null {
  if (!a || typeof a.address !== 'string' || typeof a.meta?.source !== 'string') return null;
  return { address: a.address, name: typeof a.meta.name === 'string' ? a.meta.name : '', source: a.meta.source };
}

/** web3Enable then web3Accounts: every account of every extension that lets this page in. */
export async function connectWalletExtensions(wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))): Promise<WalletExtensions> {
  const lib = await dapp();
  const { web3Enable, web3Accounts } = lib;
  let enabled: Awaited<ReturnType<typeof web3Enable>> = [];
  for (let i = 0; i < ENABLE_TRIES && enabled.length === 0; i++) {
    if (i > 0) await wait(ENABLE_RETRY_MS);
    enabled = await web3Enable(DAPP_NAME);
  }
  // isWeb3Injected is a live binding web3Enable refreshes: true when an extension is there but refused us.
  if (enabled.length === 0) return { installed: lib.isWeb3Injected, sources: [], accounts: [] };
  const listed = await web3Accounts();
  const accounts = listed
    .slice(0, MAX_ACCOUNTS)
    .map(toAccount)
    .filter((a): a is WalletAccount => a !== null);
  return { installed: true, sources: enabled.map((e) => e.name), accounts };
}

/** A refusal in the extension's popup, as polkadot{.js}, Talisman and SubWallet word it. */
export function isUserRejection(message: string): boolean {
  return /cancel|reject|denied|declined/i.test(message);
}

/** web3FromSource(source).signer.signPayload: the extension's popup, then its MultiSignature hex. */
export async function signPayloadWith(source: string, payload: SignerPayloadJSON): Promise<`0x${string}`> {
  const { web3FromSource } = await dapp();
  const injected = await web3FromSource(source);
  if (!injected.signer?.signPayload) throw new Error(`${source} cannot sign transactions`);
  const { signature } = await injected.signer.signPayload(payload);
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(signature)) throw new Error(`${source} returned no signature`);
  return signature as `0x${string}`;
}
