// The one fetch signature the engine injects (serve probes, checkpoint downloads, the validator's
// provider calls), so tests point any service at a double without a network.

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

export const defaultFetch: FetchFn = (input, init) => fetch(input, init);

/**
 * A response body read as a stream and given up as soon as it passes `maxBytes` (the declared length is
 * checked first): a peer must not be able to make the engine buffer an unbounded body. Null when over.
 */
export async function readBodyCapped(res: Response, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
