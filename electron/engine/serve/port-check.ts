import { createServer } from 'node:net';

/**
 * True when nothing listens on host:port. sglang binds its HTTP port only after loading
 * weights (minutes in), so a clash must be caught here, before the launch.
 */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => {
      srv.close(() => resolve(true));
    });
  });
}

/** The first free port at or after `from`, skipping the ones already promised to other engines. */
export async function findFreePort(from: number, host = '127.0.0.1', taken: ReadonlySet<number> = new Set(), tries = 200): Promise<number> {
  for (let p = from; p < from + tries && p <= 65535; p++) {
    if (taken.has(p)) continue;
    if (await isPortFree(p, host)) return p;
  }
  throw new Error(`no free TCP port on ${host} between ${from} and ${Math.min(65535, from + tries - 1)}`);
}
