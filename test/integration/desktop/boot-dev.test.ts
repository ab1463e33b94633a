// The desktop main as `npm start` runs it (a built source checkout), under the stand-in electron.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { desktopEnv, ensureMainBuilt, ensureRendererBuilt, REPO, startDesktopMain, type DesktopMain } from '../../helpers/desktop-main.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { assertBootedApp, assertCloseToTrayThenQuit, POLL } from './boot-checks.ts';

const MAIN = join(REPO, 'dist', 'electron', 'main.js');
const tmp = tempDirs('engy-desktop-dev-');
const running: DesktopMain[] = [];
afterEach(async () => {
  for (const m of running.splice(0)) await m.kill();
});

beforeAll(async () => {
  await ensureMainBuilt();
  await ensureRendererBuilt();
}, 600_000);

describe('desktop main, as npm start runs it', () => {
  it('boots: hardened window, CommonJS preload, resources, tray icon, every contract method over IPC; closes to tray and quits', async () => {
    const m = startDesktopMain(MAIN, desktopEnv(tmp()));
    running.push(m);
    await assertBootedApp(m, join(REPO, 'dist-renderer'));
    await assertCloseToTrayThenQuit(m);
  }, 240_000);

  it(
    'a boot that throws shows an error dialog naming the cause and exits non-zero',
    async () => {
      const root = tmp();
      const broken = join(root, 'resources-without-catalog');
      mkdirSync(broken, { recursive: true });
      writeFileSync(join(broken, 'README'), 'no models.json here');
      const m = startDesktopMain(MAIN, desktopEnv(root, { ENGY_RESOURCES_DIR: broken }));
      running.push(m);
      const code = await m.exited;
      expect(code).not.toBe(0);
      const dialogs = m.events.filter((e) => e.type === 'dialog').map((e) => e.data as { title: string; content: string });
      expect(dialogs).toHaveLength(1);
      expect(dialogs[0]!.title).toMatch(/engy panel/);
      expect(dialogs[0]!.content).toMatch(/models\.json/);
      expect(m.events.some((e) => e.type === 'exit')).toBe(true);
    },
    POLL.timeout,
  );
});
