// Electron composition root: the shared engine, the window, the tray and the IPC transport.
// Everything that does work lives in the engine (plain Node); this file only wires Electron to it.
import { app, autoUpdater, BrowserWindow, dialog, ipcMain, Menu, Notification, Tray, nativeImage, powerMonitor, shell } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeEngine, type Engine } from './compose.ts';
import { describeError, installProcessGuards } from './process-guards.ts';
import { bindIpcTransport, replaySnapshots } from './transport/ipc-transport.ts';
import { createMainWindow, isTrustedRendererUrl } from './window.ts';
import { createUpdater } from './updater.ts';
import { electronSecretBox } from './safe-storage-box.ts';
import type { UpdateController } from './update-controller.ts';
import { fleetLegs, fleetPhase } from '../shared/miner-fleet.ts';
import { resourcesDir } from './engine/lib/model-catalog.ts';
import { errorMessage } from '../shared/errors.ts';

const here = dirname(fileURLToPath(import.meta.url));
const appRoot = join(here, '..', '..');
const rendererDir = join(appRoot, 'dist-renderer');
const preloadPath = join(here, 'preload.cjs');
// The installed app's extraResources (models.json, python/, signing/, icons/) sit directly in
// process.resourcesPath, next to app.asar (electron-builder.yml); a source checkout finds resources/.
if (app.isPackaged) process.env.ENGY_RESOURCES_DIR ??= process.resourcesPath;
/** How long quitting waits for the engine to stop (the miner drains first) before it quits anyway. */
const DISPOSE_LIMIT_MS = 30_000;

let engine: Engine | null = null;
let win: BrowserWindow | null = null;
let tray: Tray | null = null;
let quitting = false;
let updater: UpdateController | undefined;

/** Waits for in-flight requests to answer (the gateway drains for up to 900 s too), then stops mining. */
async function drainMiner(e: Engine): Promise<void> {
  const deadline = Date.now() + 900_000;
  while (e.mining.busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
  await e.mining.stop();
}

function showWindow(): void {
  if (!win || win.isDestroyed()) {
    win = createMainWindow(rendererDir, preloadPath);
    win.webContents.on('did-finish-load', () => engine && win && replaySnapshots(engine.hub, win.webContents));
    // Electron's types give minimize no preventable event: hide right after it instead.
    win.on('minimize', () => {
      if (engine?.settings.get().desktop.minimizeToTray && tray) win?.hide();
    });
    win.on('close', (e) => {
      const keep = engine?.settings.get().desktop.keepRunningOnClose ?? false;
      if (!quitting && keep) {
        e.preventDefault();
        win?.hide();
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
    ...(u?.kind === 'downloaded'
      ? [{ label: `Restart to update to ${u.version} (waits for requests in flight)`, click: () => void updater?.restartToUpdate() }]
      : []),
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

function buildTray(): void {
  const iconPath = join(resourcesDir(), 'icons', 'tray.png');
  const icon = nativeImage.createFromPath(iconPath);
  if (icon.isEmpty()) throw new Error(`the tray icon ${iconPath} is missing or not a PNG: reinstall engy panel`);
  tray = new Tray(icon);
  tray.setToolTip('engy panel');
  tray.setContextMenu(trayMenu());
  tray.on('click', showWindow);
}

async function boot(): Promise<void> {
  engine = await composeEngine({
    dataDir: app.getPath('userData'),
    shell: 'electron',
    secretBox: electronSecretBox,
    // Only the engine's own one-shot signing page on loopback: the browser holds the wallet extension.
    openExternal: (url) => {
      if (/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) void shell.openExternal(url);
    },
  });
  const log = engine.logs.logger('desktop');
  // From here on the guards write to the engine's log (the Logs page, diagnostics).
  const live = engine;
  uninstallGuards();
  uninstallGuards = installProcessGuards({ log: engine.logs.logger('process'), shutdown: () => live.dispose() });
  bindIpcTransport(
    ipcMain,
    engine.table,
    engine.hub,
    () => BrowserWindow.getAllWindows().map((w) => w.webContents),
    (url) => isTrustedRendererUrl(url, rendererDir),
    (e) => log.error(`a window request failed inside the engine: ${describeError(e)}`),
  );
  const applyLoginItem = () => app.setLoginItemSettings({ openAtLogin: engine!.settings.get().desktop.runAtLogin });
  applyLoginItem();
  engine.settings.onDidChange(applyLoginItem);
  powerMonitor.on('resume', () => {
    log.info('system resumed from sleep: re-checking the hardware');
    void engine?.hardware.get(true);
  });
  if (Notification.isSupported()) {
    engine.notifications.onNotification((n) => {
      const note = new Notification({ title: `engy panel: ${n.title}`, body: n.body });
      note.on('click', showWindow);
      note.show();
    });
  } else log.warn('desktop notifications are not supported here: alerts show inside the window');
  const e = engine;
  updater = createUpdater({
    isPackaged: app.isPackaged,
    currentVersion: app.getVersion(),
    autoUpdate: e.settings.get().desktop.autoUpdate,
    gate: { busy: () => e.mining.busy(), drain: () => drainMiner(e) },
    log: e.logs.logger('updater'),
  });
  buildTray();
  // The tray says what the miner is doing, so a glance at the panel bar answers "is it working?".
  e.mining.onDidChange(() => {
    const all = e.mining.minerSnapshots();
    const legs = fleetLegs(all);
    const workers = all.length > 1 ? `${all.length} workers, ` : '';
    tray?.setToolTip(all.length > 0 ? `engy panel: miner ${fleetPhase(all).replace(/-/g, ' ')} (${workers}${legs.live}/${legs.planned} legs)` : 'engy panel: not mining');
  });
  if (updater) {
    const u = updater;
    e.settings.onDidChange((s) => u.setAutoUpdate(s.desktop.autoUpdate));
    u.onDidChange(() => {
      tray?.setContextMenu(trayMenu());
      const st = u.snapshot().state;
      if (st.kind === 'downloaded' && Notification.isSupported()) new Notification({ title: 'engy panel update ready', body: `Version ${st.version} is downloaded: restart from the tray menu. Mining drains first.` }).show();
    });
    e.updates.attach(u);
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
  const half = engine;
  engine = null;
  const limit = new Promise((r) => setTimeout(r, DISPOSE_LIMIT_MS).unref());
  void Promise.race([half?.dispose(), limit])
    .catch(() => undefined)
    .finally(() => app.exit(1));
}

let uninstallGuards = (): void => undefined;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // Guards first: anything thrown while the engine composes must reach the user, not vanish.
  uninstallGuards = installProcessGuards({
    log: { error: (m) => console.error(m), warn: (m) => console.warn(m) },
    shutdown: async () => {
      await engine?.dispose();
    },
  });
  app.on('second-instance', showWindow);
  app.whenReady().then(boot).catch(bootFailed);
  app.on('window-all-closed', () => {
    if (!(engine?.settings.get().desktop.keepRunningOnClose ?? false)) {
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
    if (!engine) return;
    // Stop the engine first, then quit again through Electron's own path (will-quit, quit): that is
    // where electron-updater installs a downloaded update, which app.exit() would skip.
    e.preventDefault();
    const disposing = engine;
    engine = null;
    const limit = new Promise((r) => setTimeout(r, DISPOSE_LIMIT_MS).unref());
    void Promise.race([disposing.dispose(), limit])
      .catch((err: unknown) => console.error(`stopping the engine failed: ${describeError(err)}`))
      .finally(() => app.quit());
  });
}
