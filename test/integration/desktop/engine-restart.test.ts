// The engine process dies under a booted desktop main (stand-in electron, real utility child): the
// window stays, the page is told the engine is restarting, and calls work again once it is back.
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { desktopEnv, ensureMainBuilt, ensureRendererBuilt, REPO, startDesktopMain, type DesktopMain } from '../../helpers/desktop-main.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { bootedState, invoke, POLL, type MainState } from './boot-checks.ts';

const tmp = tempDirs('engy-desktop-restart-');
const running: DesktopMain[] = [];
afterEach(async () => {
  for (const m of running.splice(0)) await m.kill();
});

beforeAll(async () => {
  await ensureMainBuilt();
  await ensureRendererBuilt();
}, 600_000);

const engineStates = (m: DesktopMain): string[] =>
  m.events.flatMap((e) => {
    const p = (e.data as { payload?: { event?: string; payload?: { state?: string } } }).payload;
    return e.type === 'engy' && p?.event === 'engine' && p.payload?.state ? [p.payload.state] : [];
  });

describe('the desktop engine process', () => {
  it('is restarted when it dies; the window stays, the page hears it, calls work again', async () => {
    const m = startDesktopMain(join(REPO, 'dist', 'electron', 'main.js'), desktopEnv(tmp()));
    running.push(m);
    const before = await bootedState(m);
    const pid = before.utilityPids.find((p) => p !== null)!;
    expect(await invoke(m, 'app.info', null)).toMatchObject({ ok: true });
    const seen = engineStates(m).length;

    process.kill(pid, 'SIGKILL');
    await expect.poll(() => engineStates(m).slice(seen), POLL).toContain('restarting');
    const during = await m.call<MainState>('state');
    expect(during.windows).toHaveLength(1);
    expect(during.windows[0]!.visible).toBe(true);

    await expect.poll(() => engineStates(m).slice(seen), POLL).toEqual(['restarting', 'running']);
    expect(await invoke(m, 'app.info', null)).toMatchObject({ ok: true, value: { shell: 'electron' } });
    const after = await m.call<MainState>('state');
    expect(after.utilityPids.filter((p) => p !== null && p !== pid)).toHaveLength(1);
    expect(m.proc.exitCode).toBeNull();
  }, 240_000);
});
