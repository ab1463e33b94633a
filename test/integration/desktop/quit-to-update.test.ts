// Quit-to-update as the installed Linux app does it, end to end: the real electron-updater (AppImage)
// under the stand-in electron checks a local generic feed, downloads 0.2.0 (sha512-checked), and
// "Restart to update" stops the engine, quits through Electron's quit path, swaps the AppImage and
// starts the new one (here a script that leaves a marker). A plain Quit installs on the app's quit
// event: the old before-quit handler ended with app.exit(), which skips that event (that case failed).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { desktopEnv, ensureMainBuilt, ensureRendererBuilt, startDesktopMain, type DesktopMain } from '../../helpers/desktop-main.ts';
import { layOutInstalledApp } from '../../helpers/packaging-layout.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { bootedState, invoke, POLL } from './boot-checks.ts';

const tmp = tempDirs('engy-desktop-update-');
const running: DesktopMain[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const m of running.splice(0)) await m.kill();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

beforeAll(async () => {
  await ensureMainBuilt();
  await ensureRendererBuilt();
}, 600_000);

function updateState(m: DesktopMain): string | null {
  let state: string | null = null;
  for (const e of m.events) {
    const p = (e.data as { payload?: { event?: string; payload?: { topic?: string; data?: { state?: string } | null } } }).payload;
    if (e.type === 'engy' && p?.event === 'snapshot' && p.payload?.topic === 'update') state = p.payload.data?.state ?? null;
  }
  return state;
}

describe('quit to update (installed Linux app, AppImage)', () => {
  for (const how of ['Restart to update', 'a plain Quit from the tray, with close-to-tray on'] as const) {
    it(`downloads from the feed, then ${how} stops the engine, quits and installs`, async () => {
      const root = tmp();
      const { resourcesPath, appDir } = layOutInstalledApp(join(root, 'install'));
      const marker = join(root, 'relaunched.txt');
      const next = Buffer.from('#!/bin/sh\nprintf "new version started" > "$ENGY_TEST_UPDATE_MARKER"\n');
      const sha512 = createHash('sha512').update(next).digest('base64');
      const feed = [
        'version: 0.2.0',
        'files:',
        '  - url: engy-panel-0.2.0.AppImage',
        `    sha512: ${sha512}`,
        `    size: ${next.length}`,
        'path: engy-panel-0.2.0.AppImage',
        `sha512: ${sha512}`,
        "releaseDate: '2026-12-01T00:00:00.000Z'",
        '',
      ].join('\n');
      const server = createServer((req, res) => {
        if (req.url?.startsWith('/latest-linux.yml')) res.writeHead(200, { 'content-type': 'text/yaml' }).end(feed);
        else if (req.url?.startsWith('/engy-panel-0.2.0.AppImage')) res.writeHead(200, { 'content-length': next.length }).end(next);
        else res.writeHead(404).end();
      });
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      // What electron-builder writes next to app.asar for a generic feed.
      writeFileSync(join(resourcesPath, 'app-update.yml'), `provider: generic\nurl: http://127.0.0.1:${port}/\nupdaterCacheDirName: engy-panel-updater\n`);
      const appImage = join(root, 'engy-panel.AppImage');
      writeFileSync(appImage, '#!/bin/sh\nexit 0\n', { mode: 0o755 });

      const m = startDesktopMain(join(appDir, 'dist', 'electron', 'main.js'), desktopEnv(root, { APPIMAGE: appImage, ENGY_TEST_UPDATE_MARKER: marker }));
      running.push(m);
      const st = await bootedState(m);
      const enginePid = st.utilityPids.find((p) => p !== null)!;
      expect(await invoke(m, 'update.check', null)).toMatchObject({ ok: true });
      await expect.poll(() => updateState(m), POLL).toBe('downloaded');

      if (how === 'Restart to update') {
        expect(await invoke(m, 'update.restart', null)).toMatchObject({ ok: true });
      } else {
        // electron-updater installs a downloaded update on the app's `quit` event (autoInstallOnAppQuit).
        expect(await invoke(m, 'settings.update', { desktop: { keepRunningOnClose: true } })).toMatchObject({ ok: true });
        await m.call('tray.click', { label: 'Quit' });
      }
      expect(await m.exited).toBe(0);
      await expect.poll(() => existsSync(marker), POLL).toBe(true);
      expect(readFileSync(marker, 'utf8')).toBe('new version started');
      expect(readFileSync(appImage).equals(next)).toBe(true);
      expect(() => process.kill(enginePid, 0)).toThrow();
    }, 300_000);
  }
});
