// The desktop renderer in Chromium, talking to a booted desktop main (stand-in electron) over the
// desktop transport: the page's `window.engy` forwards, through a Playwright binding, to the object
// the REAL preload exposed in main's stand-in renderer world, whose ipcRenderer reaches the relay and
// the engine process. Events the preload's `on` receives come back the same way. The built renderer
// is served over loopback HTTP (Chromium refuses module scripts from file://, which Electron allows).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';
import type { DesktopMain } from './desktop-main.ts';

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };

export async function serveRenderer(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * Bridges `page`'s window.engy to main's preload world; call before page.goto, then `reloadDesktopPage`
 * once the page is up (main sends a loaded page its snapshots, as Electron's did-finish-load does).
 */
export async function bridgeDesktopTransport(page: Page, m: DesktopMain): Promise<void> {
  await page.exposeBinding('__engyInvoke', (_src, method: string, req: unknown) => m.call('engy.invoke', { method, req }));
  await page.addInitScript(() => {
    const listeners = new Set<(e: unknown) => void>();
    const w = window as unknown as { __engyEvent: (e: unknown) => void; __engyInvoke: (m: string, r: unknown) => Promise<unknown>; engy: unknown };
    w.__engyEvent = (e) => {
      for (const l of listeners) l(e);
    };
    w.engy = Object.freeze({
      invoke: (method: string, req: unknown) => w.__engyInvoke(method, req),
      on: (l: (e: unknown) => void) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    });
  });
  // Every event main's preload world receives is delivered to the page (the harness reports them).
  m.proc.on('message', (msg: { standin?: string; type?: string; data?: { payload: unknown } }) => {
    if (msg.standin === 'event' && msg.type === 'engy' && !page.isClosed()) {
      void page.evaluate((p) => (window as unknown as { __engyEvent?: (e: unknown) => void }).__engyEvent?.(p), msg.data!.payload).catch(() => undefined);
    }
  });
}

/** Reloads main's window page: a fresh preload world, and main's replay of every snapshot to it. */
export async function reloadDesktopPage(m: DesktopMain): Promise<void> {
  await m.call('window.reload');
}
