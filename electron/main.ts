// Electron main: the window, the tray, menus, dialogs, safeStorage and the updater. The engine runs in
// its own process (electron/engine-process.ts, an Electron utilityProcess) so proofs, request parsing
// and SQLite never block this thread; electron/engine-host.ts relays the contract to it and restarts
// it if it dies. The window's IPC is a relay (docs/architecture.md, "Processes").
import { app, autoUpdater, BrowserWindow, dialog, ipcMain, Menu, Notification, Tray, nativeImage, type NativeImage, powerMonitor, shell, utilityProcess } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IPC_EVENT_CHANNEL, type SnapshotTopic } from '../shared/api.ts';
import { errorMessage } from '../shared/errors.ts';
import { fleetLegs, fleetPhase } from '../shared/miner-fleet.ts';
import { resourcesDir } from './engine/lib/model-catalog.ts';
import { dataPaths } from './engine/lib/paths.ts';
import type { Logger } from './engine/lib/logger.ts';
import { EngineHost, type UtilityChild } from './engine-host.ts';
import { openEngineDataKey } from './engine-data-key.ts';
import { describeError, installProcessGuards } from './process-guards.ts';
import { electronSecretBox } from './safe-storage-box.ts';
import { bindIpcRelay } from './transport/ipc-transport.ts';
import type { UpdateController } from './update-controller.ts';
import { createUpdater } from './updater.ts';
import { createMainWindow, isTrustedRendererUrl } from './window.ts';

const here = dirname(fileURLToPath(import.meta.url));
const appRoot = join(here, '..', '..');
const rendererDir = join(appRoot, 'dist-renderer');
const preloadPath = join(here, 'preload.cjs');
// The installed app's extraResources (models.json, python/, signing/, icons/) sit directly in
// process.resourcesPath, next to app.asar (electron-builder.yml); a source checkout finds resources/.
// The engine process inherits this environment.
if (app.isPackaged) process.env.ENGY_RESOURCES_DIR ??= process.resourcesPath;
/** How long quitting waits for the engine to stop (the miner drains first) before it quits anyway. */
const STOP_LIMIT_MS = 30_000;

let host: EngineHost | null = null;
let win: BrowserWindow | null = null;
let tray: Tray | null = null;
let quitting = false;
let updater: UpdateController | undefined;

const log = (level: 'info' | 'warn' | 'error', line: string): void => {
  (level === 'info' ? console.log : level === 'warn' ? console.warn : console.error)(`[desktop] ${line}`);
};

function consoleLogger(source: string): Logger {
  return {
    debug: () => undefined,
    info: (m) => log('info', `${source}: ${m}`),
    warn: (m) => log('warn', `${source}: ${m}`),
    error: (m) => log('error', `${source}: ${m}`),
    child: (s) => consoleLogger(`${source}/${s}`),
  };
}

const desktopSettings = () => host?.snapshot('settings')?.desktop;

function sendToWindows(event: string, payload: unknown): void {
  for (const w of BrowserWindow.getAllWindows()) if (!w.webContents.isDestroyed()) w.webContents.send(IPC_EVENT_CHANNEL, { event, payload });
}

function showWindow(): void {
  if (!win || win.isDestroyed()) {
    const w = createMainWindow(rendererDir, preloadPath, windowIcon());
    win = w;
    // A page that (re)loads gets every current snapshot and the engine's state first.
    w.webContents.on('did-finish-load', () => {
      if (!host || w.webContents.isDestroyed()) return;
      for (const payload of host.current()) w.webContents.send(IPC_EVENT_CHANNEL, { event: 'snapshot', payload });
      w.webContents.send(IPC_EVENT_CHANNEL, { event: 'engine', payload: host.state() });
    });
    // Electron's types give minimize no preventable event: hide right after it instead.
    w.on('minimize', () => {
      if (desktopSettings()?.minimizeToTray && tray) w.hide();
    });
    w.on('close', (e) => {
      if (!quitting && (desktopSettings()?.keepRunningOnClose ?? false)) {
        e.preventDefault();
        w.hide();
      }
    });
  }
  win.show();
  win.focus();
}

function trayMenu(): Menu {
  const u = updater?.snapshot().state;
  return Menu.buildFromTemplate([
    { label: 'Open engy panel', click: showWindow },
    ...(u?.kind === 'downloaded' ? [{ label: `Restart to update to ${u.version} (waits for requests in flight)`, click: () => void updater?.restartToUpdate() }] : []),
    { type: 'separator' },
    {
      label: 'Quit (stops mining and validating)',
      click: () => {
        quitting = true;
        app.quit();
      },
    },
  ]);
}

/**
 * The window's icon on Linux (the taskbar and the window switcher show it; without it they show a
 * generic one). Not fatal when missing, unlike the tray's: the window works without it.
 */
function windowIcon(): NativeImage | undefined {
  if (process.platform !== 'linux') return undefined;
  const iconPath = join(resourcesDir(), 'icons', 'png', '512x512.png');
  const icon = nativeImage.createFromPath(iconPath);
  if (!icon.isEmpty()) return icon;
  log('warn', `the window icon ${iconPath} is missing or not a PNG: the window shows the desktop's default icon (reinstall engy panel to restore it)`);
  return undefined;
}

function buildTray(): void {
  const iconPath = join(resourcesDir(), 'icons', 'tray.png');
  const icon = nativeImage.createFromPath(iconPath);
  if (icon.isEmpty()) throw new Error(`the tray icon ${iconPath} is missing or not a PNG: reinstall engy panel`);
  tray = new Tray(icon);
  tray.setToolTip('engy panel');
  tray.setContextMenu(trayMenu());
  tray.on('click', showWindow);
}

/** The tray says what the miner is doing, so a glance at the panel bar answers "is it working?". */
function minerTooltip(): string {
  const all = host?.snapshot('miners') ?? [];
  if (all.length === 0) return 'engy panel: not mining';
  const legs = fleetLegs(all);
  const workers = all.length > 1 ? `${all.length} workers, ` : '';
  return `engy panel: miner ${fleetPhase(all).replace(/-/g, ' ')} (${workers}${legs.live}/${legs.planned} legs)`;
}

function forkEngine(): UtilityChild {
  return utilityProcess.fork(join(here, 'engine-process.js'), [], { serviceName: 'engy panel engine', stdio: 'inherit', env: process.env });
}

async function boot(): Promise<void> {
  const dataDir = app.getPath('userData');
  const boxKey = openEngineDataKey(dataPaths(dataDir).secrets, electronSecretBox, (line) => log('warn', line));
  const h = new EngineHost({ fork: forkEngine, dataDir, boxKey, log });
  host = h;
  // Relayed before the first window exists: a restart is said in the page, which stays up.
  h.onEvent((e) => sendToWindows(e.event, e.payload));
  await h.start();
  bindIpcRelay(
    ipcMain,
    (method, req) => h.invoke(String(method), req),
    (url) => isTrustedRendererUrl(url, rendererDir),
  );
  // Only the engine's own one-shot signing page on loopback: the browser holds the wallet extension.
  h.onOpenExternal((url) => {
    if (/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) void shell.openExternal(url);
  });
  let runAtLogin: boolean | undefined;
  const onSnapshot = (topic: SnapshotTopic): void => {
    if (topic === 'miners') tray?.setToolTip(minerTooltip());
    if (topic !== 'settings') return;
    const d = desktopSettings();
    if (!d) return;
    if (d.runAtLogin !== runAtLogin) app.setLoginItemSettings({ openAtLogin: (runAtLogin = d.runAtLogin) });
    updater?.setAutoUpdate(d.autoUpdate);
  };
  h.onSnapshot(onSnapshot);
  onSnapshot('settings');
  powerMonitor.on('resume', () => {
    log('info', 'system resumed from sleep: the engine re-checks the hardware');
    h.resumed();
  });
  if (Notification.isSupported()) {
    h.onNotification((n) => {
      const note = new Notification({ title: `engy panel: ${n.title}`, body: n.body });
      note.on('click', showWindow);
      note.show();
    });
  } else log('warn', 'desktop notifications are not supported here: alerts show inside the window');
  updater = createUpdater({
    isPackaged: app.isPackaged,
    currentVersion: app.getVersion(),
    autoUpdate: desktopSettings()?.autoUpdate ?? true,
    gate: { busy: () => h.busy(), drain: () => h.drain() },
    log: consoleLogger('updater'),
  });
  buildTray();
  tray?.setToolTip(minerTooltip());
  if (updater) {
    const u = updater;
    h.updateAction = async (op) => {
      if (op === 'check') await u.checkNow();
      else if (op === 'download') await u.download();
      else return u.restartToUpdate();
      return true;
    };
    u.onDidChange((s) => {
      h.setUpdate(s);
      tray?.setContextMenu(trayMenu());
      if (s.state.kind === 'downloaded' && Notification.isSupported())
        new Notification({ title: 'engy panel update ready', body: `Version ${s.state.version} is downloaded: restart from the tray menu. Mining drains first.` }).show();
    });
    h.setUpdate(u.snapshot());
    u.start();
  }
  showWindow();
}

/** A boot that failed: say why in a dialog (the user may have no terminal) and exit non-zero. */
function bootFailed(e: unknown): void {
  console.error(e);
  dialog.showErrorBox(
    'engy panel could not start',
    `${errorMessage(e)}\n\nNothing was started. If this names a missing file, reinstall engy panel; otherwise the log in ${app.getPath('userData')} has the details for a bug report.`,
  );
  const half = host;
  host = null;
  void (half?.stop() ?? Promise.resolve()).catch(() => undefined).finally(() => app.exit(1));
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // Guards first: anything thrown while booting must reach the user, not vanish. (The engine process
  // has its own guards, writing to the engine's log.)
  installProcessGuards({
    log: { error: (m) => log('error', m), warn: (m) => log('warn', m) },
    shutdown: async () => {
      await host?.stop();
    },
  });
  app.on('second-instance', showWindow);
  app.whenReady().then(boot).catch(bootFailed);
  app.on('window-all-closed', () => {
    if (!(desktopSettings()?.keepRunningOnClose ?? false)) {
      quitting = true;
      app.quit();
    }
  });
  // An update's quitAndInstall closes the windows before quitting: they must not hide to the tray.
  autoUpdater.on('before-quit-for-update', () => {
    quitting = true;
  });
  app.on('before-quit', (e) => {
    quitting = true;
    if (!host) return;
    // Stop the engine first, then quit again through Electron's own path (will-quit, quit): that is
    // where electron-updater installs a downloaded update, which app.exit() would skip.
    e.preventDefault();
    const stopping = host;
    host = null;
    updater?.dispose();
    const limit = new Promise((r) => setTimeout(r, STOP_LIMIT_MS).unref());
    void Promise.race([stopping.stop(), limit])
      .catch((err: unknown) => log('error', `stopping the engine failed: ${describeError(err)}`))
      .finally(() => app.quit());
  });
}
