// What every desktop boot test asserts about a booted main (dev run and installed app alike), against
// the stand-in electron: the window, the preload, the resources, the tray, the contract over IPC.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFunction } from 'node:vm';
import { expect } from 'vitest';
import { INVOKE_METHODS } from '../../../shared/api.ts';
import type { DesktopMain } from '../../helpers/desktop-main.ts';

export interface MainState {
  windows: Array<{
    id: number;
    options: { webPreferences?: Record<string, unknown> };
    icon: { path: string | null; empty: boolean; size: { width: number; height: number } } | null;
    url: string;
    visible: boolean;
  }>;
  trays: Array<{ iconPath: string | null; iconEmpty: boolean; size: { width: number; height: number }; tooltip: string; menu: string[] }>;
  ipcHandlers: string[];
  utilityPids: Array<number | null>;
  resourcesPath: string;
  isPackaged: boolean;
  record: { dialogs: Array<{ title: string; content: string }>; loadFailures: string[]; headerHooks: number; permissionHandler: boolean };
}

type Result = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const POLL = { timeout: 120_000, interval: 250 };

/** Waits for the window to be shown (ready-to-show after the page loaded). */
export async function bootedState(m: DesktopMain): Promise<MainState> {
  await expect.poll(async () => (await m.call<MainState>('state')).windows.some((w) => w.visible), POLL).toBe(true);
  return m.call<MainState>('state');
}

export async function invoke(m: DesktopMain, method: string, req: unknown): Promise<Result> {
  return m.call<Result>('engy.invoke', { method, req });
}

export async function assertBootedApp(m: DesktopMain, expectedRendererDir: string): Promise<void> {
  const st = await bootedState(m);
  expect(st.windows).toHaveLength(1);
  const w = st.windows[0]!;
  // Electron's hardened preferences, spelled out (never left to defaults).
  expect(w.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
  const preload = String(w.options.webPreferences?.preload);
  expect(existsSync(preload), preload).toBe(true);
  expect(preload.endsWith('.cjs')).toBe(true);
  // A sandboxed preload is CommonJS: it compiles as a function body (an ES module would be a SyntaxError).
  expect(() => compileFunction(readFileSync(preload, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'])).not.toThrow();
  expect(w.url).toBe(`file://${join(expectedRendererDir, 'index.html')}`);
  expect(st.record.loadFailures).toEqual([]);
  expect(st.record.headerHooks).toBeGreaterThan(0);
  expect(st.record.permissionHandler).toBe(true);
  expect(m.events.filter((e) => e.type === 'preload-error')).toEqual([]);

  // The tray shows a real image, read from a file that ships.
  expect(st.trays).toHaveLength(1);
  expect(st.trays[0]!.iconEmpty).toBe(false);
  expect(st.trays[0]!.size.width).toBeGreaterThanOrEqual(16);
  // The window has the app's own icon on Linux (a taskbar shows a generic one without it).
  if (process.platform === 'linux') {
    expect(w.icon).toMatchObject({ empty: false, size: { width: 512, height: 512 } });
    expect(existsSync(String(w.icon?.path))).toBe(true);
  }

  // Every contract method is answered by the engine behind the IPC handler: a hostile request is
  // refused by that method's own schema (bad-request), never "unknown method", and changes nothing.
  expect(st.ipcHandlers).toContain('engy:invoke');
  // The engine runs in its own (utility) process, not on main's thread.
  expect(st.utilityPids.filter((p) => p !== null)).toHaveLength(1);
  const hostile = JSON.parse('{"__proto__": {"polluted": true}, "not-a-field": [1]}') as unknown;
  for (const method of INVOKE_METHODS) {
    const r = await invoke(m, method, hostile);
    expect(r.ok, method).toBe(false);
    if (!r.ok) expect(r.error.code, `${method}: ${r.error.message}`).toBe('bad-request');
  }
  // A real round trip through the preload's window.engy, and snapshots pushed back to the page.
  const info = await invoke(m, 'app.info', null);
  expect(info).toMatchObject({ ok: true, value: { shell: 'electron' } });
  await expect.poll(() => m.events.some((e) => e.type === 'engy' && (e.data as { payload: { event: string } }).payload.event === 'snapshot'), POLL).toBe(true);
  const unknown = await invoke(m, 'no.such.method', null);
  expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown-method' } });

  // The resources the engine needs resolve from where this layout puts them.
  const models = await m.call<string>('app.resolve', { module: 'dist/electron/engine/lib/model-catalog.js', fn: 'resourcesDir' });
  expect(existsSync(join(models, 'models.json')), models).toBe(true);
  const python = await m.call<string>('app.resolve', { module: 'dist/electron/engine/serve/trim-module.js', fn: 'trimModuleDir' });
  expect(existsSync(join(python, 'engy_trim', '__init__.py')), python).toBe(true);
  const signing = await m.call<string>('app.resolve', { module: 'dist/electron/engine/wallet/browser-signing-session.js', fn: 'signingPageDir' });
  // The Vite-built page (renderer/sign.html): its script uses @polkadot/extension-dapp, not a hand-written injectedWeb3 walk.
  for (const f of ['sign.html', 'sign.js', 'sign.css']) expect(existsSync(join(signing, f)), join(signing, f)).toBe(true);
  expect(readFileSync(join(signing, 'sign.html'), 'utf8')).toMatch(/<script type="module"[^>]*src="\.\/sign\.js"/);
  expect(readFileSync(join(signing, 'sign.js'), 'utf8')).toContain('web3Enable');
}

/** Close-to-tray, reopen from the tray, then Quit from the tray: the process ends as Electron's quit does (code 0). */
export async function assertCloseToTrayThenQuit(m: DesktopMain): Promise<void> {
  expect(await invoke(m, 'settings.update', { desktop: { keepRunningOnClose: true } })).toMatchObject({ ok: true });
  expect(await m.call('window.close')).toBe(false);
  let st = await m.call<MainState>('state');
  expect(st.windows).toHaveLength(1);
  expect(st.windows[0]!.visible).toBe(false);
  await m.call('tray.click', { label: 'Open engy panel' });
  st = await m.call<MainState>('state');
  expect(st.windows[0]!.visible).toBe(true);
  const enginePid = st.utilityPids.find((p) => p !== null)!;
  await m.call('tray.click', { label: 'Quit' });
  expect(await m.exited).toBe(0);
  // Quit stopped the engine process too: nothing is left running.
  await expect.poll(() => alive(enginePid), POLL).toBe(false);
}
