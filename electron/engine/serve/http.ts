import type { FetchFn } from '../lib/fetch.ts';

/** GET with a deadline; resolves the status (0 when the request failed) and body text. */
export async function getText(fetchFn: FetchFn, url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  try {
    const res = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.text();
    return { status: res.status, body };
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
