// The signed liveness heartbeat to the provider. Best effort: it never throws and never blocks the
// loop for longer than its own timeout; the provider uses it to reconcile which digest we run on chain.
import type { KeySigner } from '../chain/ports.ts';
import { HEARTBEAT_PATH } from './constants.ts';
import type { FetchFn } from '../lib/fetch.ts';
import { sha256Hex } from './digest.ts';

export function apiMessage(netuid: number, method: string, path: string, ts: number, body: Uint8Array | string): string {
  return `engy-sn53:api:v1:${netuid}:${method.toUpperCase()}:${path}:${ts}:${sha256Hex(body)}`;
}

/**
 * The heartbeat's `version`: the client's name, a space, its version, the form the reference
 * validator sends ("engy-lv 0.4.4", "engy-lv unknown" without package metadata) so the provider's
 * /admin lists the panel beside it. One home for the string: the app and the CLI both take it here.
 */
export function heartbeatVersion(appVersion: string | null | undefined): string {
  const v = typeof appVersion === 'string' ? appVersion.trim() : '';
  return `engy-panel ${v.length > 0 && !/\s/.test(v) ? v : 'unknown'}`;
}

/** `synced_epoch` only when known, `consensus` only with a digest (a standby has none to reconcile). */
export function heartbeatBody(version: string, syncedEpoch: number | null, digest: string | null): string {
  const body: Record<string, unknown> = { v: 1, version };
  if (syncedEpoch !== null) {
    body.synced_epoch = syncedEpoch;
    if (digest) body.consensus = { epoch_index: syncedEpoch, digest };
  }
  return JSON.stringify(body);
}

export function signedHeaders(signer: KeySigner, netuid: number, path: string, body: string, tsSec: number): Record<string, string> {
  const sig = signer.sign(Buffer.from(apiMessage(netuid, 'POST', path, tsSec, Buffer.from(body, 'utf8')), 'utf8'));
  return {
    'X-Validator-Hotkey': signer.address,
    'X-Validator-Ts': String(tsSec),
    'X-Validator-Sig': Buffer.from(sig).toString('hex'),
    'Content-Type': 'application/json',
  };
}

export interface HeartbeatResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

export async function postHeartbeat(opts: {
  apiBase: string;
  signer: KeySigner;
  netuid: number;
  version: string;
  syncedEpoch: number | null;
  digest: string | null;
  nowMs: number;
  fetch?: FetchFn;
  timeoutMs?: number;
}): Promise<HeartbeatResult> {
  const doFetch = opts.fetch ?? fetch;
  try {
    const body = heartbeatBody(opts.version, opts.syncedEpoch, opts.digest);
    const headers = signedHeaders(opts.signer, opts.netuid, HEARTBEAT_PATH, body, Math.floor(opts.nowMs / 1000));
    const res = await doFetch(`${opts.apiBase.replace(/\/+$/, '')}${HEARTBEAT_PATH}`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    const text = await res.text().catch(() => '');
    if (res.status !== 200) return { ok: false, status: res.status, error: `provider refused the heartbeat: HTTP ${res.status} ${text.slice(0, 120)}` };
    return { ok: true, status: 200, error: null };
  } catch (e) {
    return { ok: false, status: null, error: `heartbeat not sent: ${String((e as Error).message).slice(0, 120)}` };
  }
}
