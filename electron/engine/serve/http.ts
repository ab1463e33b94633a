import { readBodyCapped, type FetchFn } from '../lib/fetch.ts';

/** More than any sglang route answers (a busy 8-engine /metrics is a few hundred KiB). */
export const MAX_SERVE_BODY_BYTES = 8 * 1024 * 1024;

/** GET with a deadline; resolves the status (0 when the request failed or the body passed the cap) and body text. */
export async function getText(fetchFn: FetchFn, url: string, timeoutMs: number, maxBytes = MAX_SERVE_BODY_BYTES): Promise<{ status: number; body: string }> {
  try {
    const res = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await readBodyCapped(res, maxBytes);
    if (body === null) return { status: 0, body: '' };
    return { status: res.status, body: body.toString('utf8') };
  } catch {
    return { status: 0, body: '' };
  }
}

/** sglang renamed several routes during 0.5.x (`/get_server_info` -> `/server_info`): try the new, then the old. */
export async function getJsonFirst(fetchFn: FetchFn, base: string, paths: readonly string[], timeoutMs: number): Promise<Record<string, unknown> | null> {
  for (const p of paths) {
    const r = await getText(fetchFn, `${base}${p}`, timeoutMs);
    if (r.status !== 200) continue;
    try {
      const v: unknown = JSON.parse(r.body);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // Not JSON: try the next spelling.
    }
  }
  return null;
}
