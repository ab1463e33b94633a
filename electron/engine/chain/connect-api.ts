// Opening one @polkadot/api connection to a subtensor node, bounded in time and leaving nothing behind on failure.
import { polkadot } from '../lib/polkadot.ts';
import type { HexString } from '@polkadot/util/types';

const { ApiPromise, WsProvider } = polkadot('@polkadot/api');
type ApiPromise = InstanceType<typeof ApiPromise>;
type WsProvider = InstanceType<typeof WsProvider>;

export interface ConnectOptions {
  connectTimeoutMs?: number;
  reconnectMs?: number;
  metadataCache?: Record<string, HexString>;
}

/** The runtime's data-less transaction extensions: declared so polkadot-js does not warn about them. */
const NO_DATA = { extrinsic: {}, payload: {} };
const SUBTENSOR_EXTENSIONS = {
  SudoTransactionExtension: NO_DATA,
  CheckShieldedTxValidity: NO_DATA,
  SubtensorTransactionExtension: NO_DATA,
  DrandPriority: NO_DATA,
};

/** WebSocket failures arrive as ErrorEvents whose message may be empty: never show "[object ErrorEvent]". */
export function errorText(e: unknown): string {
  const m = e instanceof Error ? e.message : (e as { message?: unknown } | null)?.message;
  return typeof m === 'string' && m.length > 0 ? m : 'the connection was refused or closed';
}

/** One attempt on the first URL of the list (the others are the provider's reconnect rotation). */
export async function connectOnce(endpoints: string[], opts: ConnectOptions): Promise<{ api: ApiPromise; provider: WsProvider }> {
  const timeoutMs = opts.connectTimeoutMs ?? 15_000;
  const provider = new WsProvider(endpoints, opts.reconnectMs ?? 2_500);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const api = await Promise.race([
      ApiPromise.create({
        provider,
        throwOnConnect: true,
        noInitWarn: true,
        signedExtensions: SUBTENSOR_EXTENSIONS,
        ...(opts.metadataCache ? { metadata: opts.metadataCache } : {}),
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      }),
    ]);
    return { api, provider };
  } catch (e) {
    // Without this the provider would keep redialling in the background forever.
    await provider.disconnect().catch(() => undefined);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
