import { MAX_PAYLOAD_BYTES } from './constants.ts';
import { describeNetworkError } from '../lib/network-words.ts';
import { readBodyCapped, type FetchFn } from '../lib/fetch.ts';

/** `message` names the provider ("cannot reach the provider: ..."); `cause` is the same without it, for sentences that name it themselves. */
export type FetchFailure = { kind: 'http' | 'network' | 'timeout' | 'too-large' | 'not-json'; message: string; status?: number; cause?: string };
export type FetchedJson = { ok: true; value: unknown; bytes: number } | { ok: false; error: FetchFailure };

export interface CappedFetchOptions {
  fetch?: FetchFn;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * GET a JSON document, reading the body as a stream and aborting as soon as it passes the cap:
 * a hostile provider must not be able to make the validator buffer an unbounded body.
 */
export async function fetchJsonCapped(url: string, opts: CappedFetchOptions = {}): Promise<FetchedJson> {
  const doFetch = opts.fetch ?? fetch;
  const maxBytes = opts.maxBytes ?? MAX_PAYLOAD_BYTES;
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new Error('timeout')), opts.timeoutMs ?? 30_000);
  timer.unref?.();
  try {
    const res = await doFetch(url, { signal: ctl.signal, headers: { accept: 'application/json' } });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return { ok: false, error: { kind: 'http', status: res.status, message: `provider answered HTTP ${res.status}`, cause: `it answered HTTP ${res.status}` } };
    }
    const body = await readBodyCapped(res, maxBytes);
    if (body === null) {
      ctl.abort();
      return { ok: false, error: { kind: 'too-large', message: `payload passed the ${maxBytes}-byte cap` } };
    }
    const total = body.byteLength;
    const text = body.toString('utf8');
    try {
      return { ok: true, value: JSON.parse(text) as unknown, bytes: total };
    } catch {
      return { ok: false, error: { kind: 'not-json', message: 'the provider answered something that is not JSON' } };
    }
  } catch (e) {
    if (ctl.signal.aborted && ctl.signal.reason instanceof Error && ctl.signal.reason.message === 'timeout') {
      return { ok: false, error: { kind: 'timeout', message: 'the provider did not answer in time', cause: 'it did not answer in time' } };
    }
    // Words, not errno codes: "cannot reach the provider: this machine looks offline..." (never ENOTFOUND).
    const cause = describeNetworkError(e);
    return { ok: false, error: { kind: 'network', message: `cannot reach the provider: ${cause}`, cause } };
  } finally {
    clearTimeout(timer);
  }
}
