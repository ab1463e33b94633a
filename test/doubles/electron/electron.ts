// TEST DOUBLE: a stand-in for the `electron` module's main-process API, for running the built main
// (dist/electron/main.js) under plain Node where the Electron binary cannot be downloaded. Only the
// surface the project (and electron-updater) uses, with Electron's documented semantics:
//  - app: paths as Electron computes them on Linux ($XDG_CONFIG_HOME or ~/.config + app name),
//    isPackaged when the app folder sits in process.resourcesPath, whenReady, the single-instance lock,
//    quit order before-quit -> close every window -> will-quit -> quit (each preventable but quit),
//    window-all-closed only when windows close outside a quit, exit() without any of those events;
//  - BrowserWindow/webContents (recorded preferences, loadURL of file:// reading the file), ipcMain,
//    Tray, Menu, nativeImage (decodes the real PNG header: isEmpty() for a missing or invalid file),
//    safeStorage (AES-GCM with a per-profile key file, standing in for the OS keyring), dialog,
//    powerMonitor, shell, session, Notification, autoUpdater (the native one's events), net.request
//    (over node:http, for electron-updater's downloads);
//  - utilityProcess: a REAL child process (child_process.fork) whose module sees `process.parentPort`.
// The renderer half (contextBridge, ipcRenderer) lives in renderer.ts and is handed to a preload run in
// a vm context. harness.ts lets a test drive all this over the fork's IPC channel. Never shipped.
import { fork, type ChildProcess } from 'node:child_process';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync, openSync, closeSync, unlinkSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Everything the double saw, for harness.ts to report; plain data only. */
export const record = {
  dialogs: [] as Array<{ kind: string; title: string; content: string }>,
  opened: [] as string[],
  notifications: [] as Array<{ title: string; body: string }>,
  loginItem: null as null | { openAtLogin: boolean },
  relaunched: false,
  headerHooks: 0,
  permissionHandler: null as null | ((wc: unknown, permission: string, allow: (ok: boolean) => void) => void),
  loadFailures: [] as string[],
};
/** Called by harness.ts to forward events (exit, dialogs) to the test before the process ends. */
export const hooks = {
  beforeExit: async (_code: number): Promise<void> => undefined,
  emit: (_type: string, _data: unknown): void => undefined,
  /** A page starts loading in `wc`: where Electron runs the window's preload, before the page's scripts. */
  pageLoading: (_wc: WebContents): void => undefined,
};

// ---------------------------------------------------------------- app

class PreventableEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

function findAppPath(): string {
  // `electron .` runs the package.json's "main": the app path is the folder holding that package.json.
  let dir = dirname(resolve(process.argv[1] ?? '.'));
  for (let i = 0; i < 10; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error('stand-in electron: no package.json above the main script');
}

const appPath = findAppPath();
const pkg = JSON.parse(readFileSync(join(appPath, 'package.json'), 'utf8')) as { name: string; productName?: string; version: string };
// Electron's isPackaged: the app is loaded from <resources>/app(.asar) next to the binary, not by a dev `electron`.
const packaged = ['app', 'app.asar'].includes(basename(appPath));
const resourcesPath = packaged ? dirname(appPath) : join(appPath, 'node_modules', 'electron', 'dist', 'resources');
Object.defineProperty(process, 'resourcesPath', { value: resourcesPath, configurable: true, enumerable: true });

const appName = pkg.productName ?? pkg.name;
const configHome = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
const paths: Record<string, string> = {
  home: homedir(),
  appData: configHome,
  userData: join(configHome, appName),
  sessionData: join(configHome, appName),
  temp: tmpdir(),
  exe: process.execPath,
  logs: join(configHome, appName, 'logs'),
};

let ready = false;
let quitting = false;
let lockPath: string | null = null;
// Electron's main process lives until quit/exit. Here the harness's IPC channel (or a utility child)
// keeps it alive; this timer is unref'd so a bench that borrows utilityProcess can still end.
const keepAlive = setInterval(() => undefined, 1 << 30);
keepAlive.unref();

async function endProcess(code: number): Promise<void> {
  clearInterval(keepAlive);
  if (lockPath) {
    try {
      unlinkSync(lockPath);
    } catch {
      // already gone
    }
  }
  await hooks.beforeExit(code);
  process.exit(code);
}

class App extends EventEmitter {
  readonly isPackaged = packaged;
  commandLine = { appendSwitch: (): void => undefined };
  getAppPath(): string {
    return appPath;
  }
  getPath(name: string): string {
    const p = paths[name];
    if (!p) throw new Error(`Failed to get '${name}' path`);
    return p;
  }
  setPath(name: string, p: string): void {
    paths[name] = p;
  }
  getName(): string {
    return appName;
  }
  getVersion(): string {
    return pkg.version;
  }
  isReady(): boolean {
    return ready;
  }
  whenReady(): Promise<void> {
    return readyPromise;
  }
  /** One instance per userData folder, as Electron's SingletonLock there. */
  requestSingleInstanceLock(): boolean {
    const dir = this.getPath('userData');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'SingletonLock');
    try {
      closeSync(openSync(file, 'wx'));
    } catch {
      const holder = Number(readFileSync(file, 'utf8'));
      if (holder > 0 && holder !== process.pid && isAlive(holder)) return false;
    }
    writeFileSync(file, String(process.pid));
    lockPath = file;
    return true;
  }
  setLoginItemSettings(s: { openAtLogin: boolean }): void {
    record.loginItem = { openAtLogin: s.openAtLogin };
  }
  setAppUserModelId(): void {}
  relaunch(): void {
    record.relaunched = true;
  }
  /** Electron's order: before-quit, then every window is asked to close, then will-quit, then quit. */
  quit(): void {
    if (quitting) return;
    const before = new PreventableEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    quitting = true;
    for (const w of BrowserWindow.getAllWindows()) {
      if (!w.requestClose()) {
        quitting = false;
        return;
      }
    }
    const will = new PreventableEvent();
    this.emit('will-quit', will);
    if (will.defaultPrevented) {
      quitting = false;
      return;
    }
    this.emit('quit', new PreventableEvent(), 0);
    void endProcess(0);
  }
  /** No before-quit, will-quit or quit: windows are destroyed and the process ends with `code`. */
  exit(code = 0): void {
    // Windows are destroyed without any app event (no window-all-closed either).
    quitting = true;
    for (const w of BrowserWindow.getAllWindows()) w.destroy();
    void endProcess(code);
  }
  /** For Electron's window bookkeeping (BrowserWindow calls it when its last window closes). */
  lastWindowClosed(): void {
    if (quitting) return;
    if (this.listenerCount('window-all-closed') > 0) this.emit('window-all-closed');
    else this.quit();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const app = new App();
const readyPromise = new Promise<void>((r) =>
  setImmediate(() => {
    ready = true;
    app.emit('ready');
    r();
  }),
);

// ---------------------------------------------------------------- windows

let nextWebContentsId = 1;

export class WebContents extends EventEmitter {
  readonly id = nextWebContentsId++;
  private url = '';
  private destroyed = false;
  windowOpenHandler: ((d: { url: string }) => { action: 'allow' | 'deny' }) | null = null;
  /** Renderer-side listeners per channel (renderer.ts registers them for the preload). */
  readonly rendererListeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  getURL(): string {
    return this.url;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  markDestroyed(): void {
    this.destroyed = true;
  }
  setWindowOpenHandler(h: (d: { url: string }) => { action: 'allow' | 'deny' }): void {
    this.windowOpenHandler = h;
  }
  /** Main -> renderer: arguments are structured-cloned, as Electron serialises them. */
  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    const copy = structuredClone(args);
    for (const l of this.rendererListeners.get(channel) ?? []) l({ sender: null }, ...copy);
  }
  /** Loads a file:// page; rejects as Electron does when the file is missing. */
  async loadURL(url: string): Promise<void> {
    if (url.startsWith('file:')) {
      const file = fileURLToPath(url);
      if (!existsSync(file)) {
        record.loadFailures.push(url);
        this.emit('did-fail-load', {}, -6, 'ERR_FILE_NOT_FOUND', url);
        throw new Error(`ERR_FILE_NOT_FOUND (-6) loading '${url}'`);
      }
    }
    this.url = url;
    // A new page: the old page's world (and every listener its preload added) is gone.
    this.rendererListeners.clear();
    hooks.pageLoading(this);
    await new Promise((r) => setImmediate(r));
    this.emit('did-finish-load');
  }
  /** A navigation the page starts: will-navigate may prevent it. */
  navigate(url: string): boolean {
    const e = new PreventableEvent();
    this.emit('will-navigate', e, url);
    if (!e.defaultPrevented) this.url = url;
    return !e.defaultPrevented;
  }
}

export interface BrowserWindowOptions {
  show?: boolean;
  webPreferences?: Record<string, unknown>;
  [k: string]: unknown;
}

const windows = new Set<BrowserWindow>();
let nextWindowId = 1;

export class BrowserWindow extends EventEmitter {
  readonly id = nextWindowId++;
  readonly webContents = new WebContents();
  readonly options: BrowserWindowOptions;
  /** The window icon (Electron takes a NativeImage or a path; a path is read as nativeImage would). */
  readonly icon: NativeImage | null;
  private visible: boolean;
  private destroyed = false;
  private minimized = false;

  constructor(options: BrowserWindowOptions = {}) {
    super();
    if (!ready) throw new Error('Cannot create BrowserWindow before app is ready');
    const { icon, ...rest } = options;
    this.icon = icon instanceof NativeImage ? icon : typeof icon === 'string' ? nativeImage.createFromPath(icon) : null;
    this.options = structuredClone(rest);
    this.visible = options.show !== false;
    windows.add(this);
    this.webContents.once('did-finish-load', () => setImmediate(() => !this.destroyed && this.emit('ready-to-show')));
  }
  static getAllWindows(): BrowserWindow[] {
    return [...windows];
  }
  loadURL(url: string): Promise<void> {
    return this.webContents.loadURL(url);
  }
  show(): void {
    this.visible = true;
    this.minimized = false;
    this.emit('show');
  }
  hide(): void {
    this.visible = false;
    this.emit('hide');
  }
  focus(): void {}
  isVisible(): boolean {
    return this.visible;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  minimize(): void {
    this.minimized = true;
    this.emit('minimize');
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** The user (or close()) asks to close: 'close' may be prevented; returns whether it closed. */
  requestClose(): boolean {
    if (this.destroyed) return true;
    const e = new PreventableEvent();
    this.emit('close', e);
    if (e.defaultPrevented) return false;
    this.destroy();
    return true;
  }
  close(): void {
    this.requestClose();
  }
  /** Closes without 'close' (Electron: destroy() skips unload handlers and the close event). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.webContents.markDestroyed();
    windows.delete(this);
    this.emit('closed');
    if (windows.size === 0) app.lastWindowClosed();
  }
}

// ---------------------------------------------------------------- ipcMain

type IpcHandler = (event: unknown, ...args: unknown[]) => unknown;

class IpcMain extends EventEmitter {
  readonly handlers = new Map<string, IpcHandler>();
  handle(channel: string, fn: IpcHandler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, fn);
  }
  handleOnce(channel: string, fn: IpcHandler): void {
    this.handle(channel, (...a) => {
      this.handlers.delete(channel);
      return fn(...a);
    });
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** What ipcRenderer.invoke does: args and the result are structured-cloned; a throw rejects with Electron's prefix. */
  async invokeFrom(wc: WebContents, channel: string, args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
    try {
      const event = { sender: wc, senderFrame: wc.isDestroyed() ? null : { url: wc.getURL() }, processId: 1, frameId: 1 };
      return structuredClone(await h(event, ...structuredClone(args)));
    } catch (e) {
      throw new Error(`Error invoking remote method '${channel}': ${String(e)}`, { cause: e });
    }
  }
}

export const ipcMain = new IpcMain();

// ---------------------------------------------------------------- images, tray, menus

export class NativeImage {
  private readonly png: Buffer | null;
  readonly size: { width: number; height: number };
  /** Where it was read from: for the harness's report only (Electron keeps no path). */
  readonly sourcePath: string | null;
  constructor(png: Buffer | null, sourcePath: string | null) {
    this.png = png;
    this.sourcePath = sourcePath;
    this.size = png ? { width: png.readUInt32BE(16), height: png.readUInt32BE(20) } : { width: 0, height: 0 };
  }
  isEmpty(): boolean {
    return this.png === null;
  }
  getSize(): { width: number; height: number } {
    return { ...this.size };
  }
  toPNG(): Buffer {
    return this.png ? Buffer.from(this.png) : Buffer.alloc(0);
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Decodes what it can check without a codec: the signature and a sane IHDR; anything else is an empty image. */
function readPng(path: string): Buffer | null {
  let b: Buffer;
  try {
    b = readFileSync(path);
  } catch {
    return null;
  }
  if (b.length < 33 || !b.subarray(0, 8).equals(PNG_SIGNATURE) || b.subarray(12, 16).toString('latin1') !== 'IHDR') return null;
  const w = b.readUInt32BE(16);
  const h = b.readUInt32BE(20);
  return w > 0 && h > 0 && w <= 16384 && h <= 16384 ? b : null;
}

export const nativeImage = {
  createFromPath: (path: string): NativeImage => {
    const png = readPng(path);
    return new NativeImage(png, png ? path : null);
  },
  createEmpty: (): NativeImage => new NativeImage(null, null),
};

export interface MenuItemOptions {
  label?: string;
  type?: string;
  click?: (...a: unknown[]) => void;
  [k: string]: unknown;
}

export class Menu {
  readonly items: MenuItemOptions[];
  constructor(items: MenuItemOptions[] = []) {
    this.items = items;
  }
  static buildFromTemplate(t: MenuItemOptions[]): Menu {
    return new Menu(t.map((i) => ({ ...i })));
  }
  static setApplicationMenu(m: Menu | null): void {
    applicationMenu = m;
  }
  static getApplicationMenu(): Menu | null {
    return applicationMenu;
  }
}
let applicationMenu: Menu | null = null;

export const trays: Tray[] = [];

export class Tray extends EventEmitter {
  readonly image: NativeImage;
  tooltip = '';
  menu: Menu | null = null;
  private destroyed = false;
  constructor(image: NativeImage | string) {
    super();
    if (!ready) throw new Error('Cannot create Tray before app is ready');
    this.image = typeof image === 'string' ? nativeImage.createFromPath(image) : image;
    trays.push(this);
  }
  setToolTip(t: string): void {
    this.tooltip = t;
  }
  setContextMenu(m: Menu | null): void {
    this.menu = m;
  }
  destroy(): void {
    this.destroyed = true;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

// ---------------------------------------------------------------- small modules

export const dialog = {
  /** Electron shows a modal error box (on Linux without a display it prints to stderr). */
  showErrorBox(title: string, content: string): void {
    record.dialogs.push({ kind: 'error', title, content });
    hooks.emit('dialog', { kind: 'error', title, content });
    process.stderr.write(`${title}\n${content}\n`);
  },
};

export const shell = {
  openExternal: async (url: string): Promise<void> => {
    record.opened.push(url);
  },
  openPath: async (p: string): Promise<string> => {
    record.opened.push(p);
    return '';
  },
  showItemInFolder: (p: string): void => {
    record.opened.push(p);
  },
};

class Session {
  readonly webRequest = {
    onHeadersReceived: (fn: unknown): void => {
      if (typeof fn === 'function') record.headerHooks++;
    },
  };
  setPermissionRequestHandler(fn: typeof record.permissionHandler): void {
    record.permissionHandler = fn;
  }
}
const partitions = new Map<string, Session>();
export const session = {
  defaultSession: new Session(),
  fromPartition: (name: string): Session => {
    let s = partitions.get(name);
    if (!s) partitions.set(name, (s = new Session()));
    return s;
  },
};

export const powerMonitor = new EventEmitter();

export class Notification extends EventEmitter {
  private readonly opts: { title: string; body: string };
  constructor(opts: { title?: string; body?: string } = {}) {
    super();
    this.opts = { title: opts.title ?? '', body: opts.body ?? '' };
  }
  static isSupported(): boolean {
    return true;
  }
  show(): void {
    record.notifications.push(this.opts);
  }
}

/** Electron's native autoUpdater: electron-updater emits `before-quit-for-update` on it. */
export const autoUpdater = new EventEmitter();

// safeStorage: the OS keyring's role is played by a 0600 key file in the profile's config folder.
function keyringKey(): Buffer {
  const file = join(configHome, '.stand-in-keyring');
  if (!existsSync(file)) {
    mkdirSync(configHome, { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32), { mode: 0o600 });
  }
  return readFileSync(file);
}

export const safeStorage = {
  isEncryptionAvailable: (): boolean => ready,
  getSelectedStorageBackend: (): string => 'gnome_libsecret',
  encryptString(plain: string): Buffer {
    if (!ready) throw new Error('safeStorage cannot be used before app is ready');
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', keyringKey(), iv);
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return Buffer.concat([Buffer.from('v11'), iv, c.getAuthTag(), body]);
  },
  decryptString(data: Buffer): string {
    if (data.subarray(0, 3).toString() !== 'v11') throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    const d = createDecipheriv('aes-256-gcm', keyringKey(), data.subarray(3, 15));
    d.setAuthTag(data.subarray(15, 31));
    return Buffer.concat([d.update(data.subarray(31)), d.final()]).toString('utf8');
  },
};

// ---------------------------------------------------------------- utilityProcess

const UTILITY_SETUP = new URL('./utility-child.ts', import.meta.url).href;
const REGISTER = new URL('./register.ts', import.meta.url).href;

/** Every utility process forked, for the harness (which reports their pids to the test). */
export const utilityChildren: UtilityProcess[] = [];

export class UtilityProcess extends EventEmitter {
  private readonly child: ChildProcess;
  pid: number | undefined;
  stdout: ChildProcess['stdout'];
  stderr: ChildProcess['stderr'];
  constructor(modulePath: string, args: string[], opts: { env?: NodeJS.ProcessEnv; execArgv?: string[]; cwd?: string; stdio?: 'pipe' | 'inherit' | 'ignore'; serviceName?: string }) {
    super();
    const stdio = opts.stdio ?? 'inherit';
    this.child = fork(modulePath, args, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      execArgv: ['--import', REGISTER, '--import', UTILITY_SETUP, ...(opts.execArgv ?? [])],
      serialization: 'advanced',
      stdio: [stdio === 'pipe' ? 'pipe' : stdio, stdio, stdio, 'ipc'],
    });
    this.pid = this.child.pid;
    this.stdout = this.child.stdout;
    this.stderr = this.child.stderr;
    this.child.once('spawn', () => this.emit('spawn'));
    this.child.on('message', (m: { parentPort?: unknown }) => {
      if (m && typeof m === 'object' && 'parentPort' in m) this.emit('message', m.parentPort);
    });
    this.child.once('exit', (code, signal) => {
      this.pid = undefined;
      // Electron reports the exit code; a signal-killed process is reported with a non-zero code.
      this.emit('exit', code ?? (signal ? 128 + 9 : 1));
    });
    this.child.on('error', (e) => this.emit('error', 'FatalError', String(e)));
  }
  postMessage(message: unknown): void {
    if (this.child.connected) this.child.send({ parentPort: message });
  }
  kill(): boolean {
    return this.child.kill();
  }
}

export const utilityProcess = {
  fork: (modulePath: string, args: string[] = [], opts: ConstructorParameters<typeof UtilityProcess>[2] = {}): UtilityProcess => {
    if (!ready) throw new Error('utilityProcess cannot be forked before app is ready');
    const child = new UtilityProcess(modulePath, args, opts);
    utilityChildren.push(child);
    return child;
  },
};

// net: electron-updater downloads through Electron's net.request (a ClientRequest emitting 'response'
// with an IncomingMessage); here that is node:http(s). The session option has no meaning here.
export const net = {
  request(options: Record<string, unknown>): ClientRequest {
    const { session: _session, redirect: _redirect, ...rest } = options;
    return (rest.protocol === 'https:' ? httpsRequest : httpRequest)(rest as RequestOptions);
  },
};

export default {
  app,
  BrowserWindow,
  ipcMain,
  nativeImage,
  Menu,
  Tray,
  dialog,
  shell,
  session,
  powerMonitor,
  Notification,
  autoUpdater,
  safeStorage,
  utilityProcess,
  net,
};
