// The desktop main as the installed app runs it: app.isPackaged, process.resourcesPath and the app
// folder laid out from electron-builder.yml's own files/asarUnpack/extraResources (computed by
// test/helpers/packaging-layout.ts, the code packaging.test.ts proves), under the stand-in electron.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { desktopEnv, ensureMainBuilt, ensureRendererBuilt, startDesktopMain, type DesktopMain } from '../../helpers/desktop-main.ts';
import { layOutInstalledApp } from '../../helpers/packaging-layout.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { assertBootedApp, assertCloseToTrayThenQuit, bootedState, POLL, type MainState } from './boot-checks.ts';

const tmp = tempDirs('engy-desktop-installed-');
const running: DesktopMain[] = [];
afterEach(async () => {
  for (const m of running.splice(0)) await m.kill();
});

beforeAll(async () => {
  await ensureMainBuilt();
  await ensureRendererBuilt();
}, 600_000);

describe('desktop main, as the installed app runs it', () => {
  it('boots from the installed layout: resources from process.resourcesPath, tray icon, contract over IPC; closes to tray and quits', async () => {
    const root = tmp();
    const { resourcesPath, appDir, files } = layOutInstalledApp(join(root, 'install'));
    expect(files).toContain('dist/electron/main.js');
    // Nothing under resources/ is inside the app folder: the app must find them next to it.
    expect(existsSync(join(appDir, 'resources'))).toBe(false);
    const m = startDesktopMain(join(appDir, 'dist', 'electron', 'main.js'), desktopEnv(root));
    running.push(m);
    await assertBootedApp(m, join(appDir, 'dist-renderer'));
    const st = await m.call<MainState & { env: { ENGY_RESOURCES_DIR: string | null } }>('state');
    expect(st.isPackaged).toBe(true);
    expect(st.resourcesPath).toBe(resourcesPath);
    expect(st.env.ENGY_RESOURCES_DIR).toBe(resourcesPath);
    expect(st.trays[0]!.iconPath).toBe(join(resourcesPath, 'icons', 'tray.png'));
    if (process.platform === 'linux') expect(st.windows[0]!.icon?.path).toBe(join(resourcesPath, 'icons', 'png', '512x512.png'));
    const python = await m.call<string>('app.resolve', { module: 'dist/electron/engine/serve/trim-module.js', fn: 'trimModuleDir' });
    expect(python).toBe(join(resourcesPath, 'python'));
    const signing = await m.call<string>('app.resolve', { module: 'dist/electron/engine/wallet/browser-signing-session.js', fn: 'signingPageDir' });
    expect(signing).toBe(join(resourcesPath, 'signing'));
    await assertCloseToTrayThenQuit(m);
  }, 300_000);

  // The window icon is cosmetic: an install without it still boots, says which file is missing, and the
  // window falls back to the desktop's default icon.
  it('boots without the shipped window icon and says which file is missing', async () => {
    const root = tmp();
    const { resourcesPath, appDir } = layOutInstalledApp(join(root, 'install'));
    const iconPath = join(resourcesPath, 'icons', 'png', '512x512.png');
    rmSync(iconPath);
    const m = startDesktopMain(join(appDir, 'dist', 'electron', 'main.js'), desktopEnv(root));
    running.push(m);
    const st = await bootedState(m);
    expect(st.windows[0]!.icon).toBeNull();
    if (process.platform === 'linux') expect(m.output()).toContain(`the window icon ${iconPath} is missing`);
    expect(m.events.filter((e) => e.type === 'dialog')).toEqual([]);
  }, 300_000);

  // An installation missing a shipped resource (a damaged or partial install): the engine process cannot
  // compose without the model catalog, main cannot build the tray without its icon. Either way the user
  // gets a dialog naming the file and the process ends non-zero, not a silent exit.
  for (const [missing, named] of [
    ['models.json', /models\.json/],
    ['icons/tray.png', /tray\.png/],
  ] as const) {
    it(
      `a boot without the shipped ${missing} shows an error dialog naming it and exits non-zero`,
      async () => {
        const root = tmp();
        const { resourcesPath, appDir } = layOutInstalledApp(join(root, 'install'));
        rmSync(join(resourcesPath, missing));
        const m = startDesktopMain(join(appDir, 'dist', 'electron', 'main.js'), desktopEnv(root));
        running.push(m);
        expect(await m.exited).not.toBe(0);
        const dialogs = m.events.filter((e) => e.type === 'dialog').map((e) => e.data as { title: string; content: string });
        expect(dialogs).toHaveLength(1);
        expect(dialogs[0]!.title).toMatch(/engy panel/);
        expect(dialogs[0]!.content).toMatch(named);
        expect(dialogs[0]!.content).toContain(resourcesPath);
      },
      POLL.timeout,
    );
  }
});
