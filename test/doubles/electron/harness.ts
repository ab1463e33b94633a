// TEST DOUBLE: the test's remote control of a main process running under the stand-in `electron`.
// Loaded with --import after register.ts in a process the test forks with an IPC channel; answers
// commands ({ standin: 'cmd', id, op, args }) and reports events ({ standin: 'event', type, data }).
// It acts only as Electron's user or OS would: clicks, closes, a page calling its preload's API.
import { app, BrowserWindow, hooks, ipcMain, record, trays, utilityChildren, type MenuItemOptions } from './electron.ts';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runPreload, type PreloadWorld } from './renderer.ts';

interface Cmd {
  standin: 'cmd';
  id: number;
  op: string;
  args: Record<string, unknown>;
}

interface EngyApi {
  invoke(method: string, req: unknown): Promise<unknown>;
  on(listener: (e: unknown) => void): () => void;
}

const send = (m: object): Promise<void> =>
  new Promise((r) => {
    if (!process.connected || !process.send) return r();
    process.send(m, undefined, {}, () => r());
  });

hooks.emit = (type, data) => void send({ standin: 'event', type, data });
hooks.beforeExit = (code) => send({ standin: 'event', type: 'exit', data: { code } });

const worlds = new Map<number, PreloadWorld>();

function win(id: unknown): BrowserWindow {
  const all = BrowserWindow.getAllWindows();
  const w = id === undefined ? all[0] : all.find((x) => x.id === id);
  if (!w) throw new Error(`no window ${String(id ?? '(any)')}`);
  return w;
}

// Each page load runs the window's preload afresh, and the "page" subscribes at once (as the renderer's
// store does on start): every event it receives is reported to the test.
hooks.pageLoading = (wc) => {
  const w = BrowserWindow.getAllWindows().find((x) => x.webContents === wc);
  const preload = w?.options.webPreferences?.preload;
  if (!w || typeof preload !== 'string') return;
  try {
    const world = runPreload(preload, wc);
    worlds.set(wc.id, world);
    (world.exposed.engy as EngyApi | undefined)?.on((payload) => void send({ standin: 'event', type: 'engy', data: { windowId: w.id, payload } }));
  } catch (e) {
    void send({ standin: 'event', type: 'preload-error', data: { windowId: w.id, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) } });
  }
};

/** The page's `window.engy`, as its preload exposed it. */
function engy(w: BrowserWindow): EngyApi {
  const world = worlds.get(w.webContents.id);
  if (!world) throw new Error(`window ${w.id} has no page loaded (its preload did not run)`);
  const api = world.exposed.engy as EngyApi | undefined;
  if (!api) throw new Error('the preload exposed no window.engy');
  return api;
}

function menuItems(items: MenuItemOptions[] | undefined): string[] {
  return (items ?? []).map((i) => (i.type === 'separator' ? '---' : String(i.label ?? '')));
}

function state(): unknown {
  return {
    windows: BrowserWindow.getAllWindows().map((w) => ({
      id: w.id,
      options: w.options,
      icon: w.icon && { path: w.icon.sourcePath, empty: w.icon.isEmpty(), size: w.icon.getSize() },
      url: w.webContents.getURL(),
      visible: w.isVisible(),
    })),
    trays: trays.map((t) => ({ iconPath: t.image.sourcePath, iconEmpty: t.image.isEmpty(), size: t.image.getSize(), tooltip: t.tooltip, menu: menuItems(t.menu?.items) })),
    ipcHandlers: [...ipcMain.handlers.keys()],
    utilityPids: utilityChildren.map((c) => c.pid ?? null),
    resourcesPath: process.resourcesPath,
    isPackaged: app.isPackaged,
    env: { ENGY_RESOURCES_DIR: process.env.ENGY_RESOURCES_DIR ?? null },
    record: { ...record, permissionHandler: record.permissionHandler !== null },
  };
}

const ops: Record<string, (a: Record<string, unknown>) => unknown> = {
  state,
  'engy.invoke': (a) => engy(win(a.windowId)).invoke(String(a.method), a.req),
  /** Calls an exported function of the app's own build (e.g. where it finds a resource), from its app folder. */
  'app.resolve': async (a) => {
    const mod = (await import(pathToFileURL(join(app.getAppPath(), String(a.module))).href)) as Record<string, (...x: unknown[]) => unknown>;
    const fn = mod[String(a.fn)];
    if (typeof fn !== 'function') throw new Error(`${String(a.module)} exports no ${String(a.fn)}`);
    return fn(...((a.args as unknown[] | undefined) ?? []));
  },
  /** The page reloads (Electron reruns the preload in a fresh world, then did-finish-load). */
  'window.reload': async (a) => {
    const w = win(a.windowId);
    await w.webContents.loadURL(w.webContents.getURL());
    return true;
  },
  'window.close': (a) => win(a.windowId).requestClose(),
  'window.minimize': (a) => win(a.windowId).minimize(),
  'window.navigate': (a) => win(a.windowId).webContents.navigate(String(a.url)),
  'window.open': (a) => win(a.windowId).webContents.windowOpenHandler?.({ url: String(a.url) }) ?? null,
  'tray.click': (a) => {
    const t = trays.at(-1);
    const item = t?.menu?.items.find((i) => typeof i.label === 'string' && i.label.startsWith(String(a.label)));
    if (!item?.click) throw new Error(`no tray menu item starting "${String(a.label)}"`);
    item.click();
    return true;
  },
  'tray.activate': () => {
    trays.at(-1)?.emit('click');
    return true;
  },
  'app.quit': () => {
    app.quit();
    return true;
  },
};

process.on('message', (m: Cmd) => {
  if (!m || m.standin !== 'cmd') return;
  const op = ops[m.op];
  Promise.resolve()
    .then(() => {
      if (!op) throw new Error(`unknown op ${m.op}`);
      return op(m.args ?? {});
    })
    .then(
      (value) => send({ standin: 'reply', id: m.id, ok: true, value }),
      (e: unknown) => send({ standin: 'reply', id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
    );
});
