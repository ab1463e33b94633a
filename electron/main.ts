// Electron composition root: the shared engine, the window, the tray and the IPC transport.
// Everything that does work lives in the engine (plain Node); this file only wires Electron to it.
import { app, BrowserWindow, ipcMain, Menu, Notification, Tray, nativeImage, powerMonitor, shell } from 'electron';
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

const here = dirname(fileURLToPath(import.meta.url));
const appRoot = join(here, '..', '..');
const rendererDir = join(appRoot, 'dist-renderer');
const preloadPath = join(here, 'preload.cjs');
if (app.isPackaged) process.env.ENGY_RESOURCES_DIR ??= join(process.resourcesPath, 'resources');

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
  const icon = nativeImage.createFromPath(join(appRoot, 'resources', 'icons', 'tray.png'));
  tray = new Tray(icon.isEmpty() ? nativeImage.createEmpty() : icon);
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
  const live = engine;
  installProcessGuards({ log: engine.logs.logger('process'), shutdown: () => live.dispose() });
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

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', showWindow);
  app.whenReady().then(boot, (e: unknown) => {
    console.error(e);
    app.exit(1);
  });
  app.on('window-all-closed', () => {
    if (!(engine?.settings.get().desktop.keepRunningOnClose ?? false)) {
      quitting = true;
      app.quit();
    }
  });
  app.on('before-quit', (e) => {
    if (!engine) return;
    e.preventDefault();
    const disposing = engine;
    engine = null;
    quitting = true;
    void disposing.dispose().finally(() => app.exit(0));
  });
}
