/** Polls `probe` until it gives a truthy value (returned), or throws after `ms` naming what it waited for. */
export async function until<T>(what: string, ms: number, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, everyMs = 250): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
