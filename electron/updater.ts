import electronUpdater from 'electron-updater';
import type { AppUpdater, ProgressInfo, UpdateInfo } from 'electron-updater';
import type { Logger } from './engine/lib/logger.ts';
import { toDisposable } from './engine/lib/disposable.ts';
import { UpdateController, type DrainGate, type DriverEvent, type UpdateDriver } from './update-controller.ts';

// The Electron side of auto-update: electron-updater behind UpdateDriver, decisions in
// UpdateController. What electron-updater verifies before installing (docs/upgrade.md):
//  - every platform: the sha512 of the downloaded file against latest*.yml from the feed;
//  - Windows: the installer's Authenticode signature, signed by `win.signtoolOptions.publisherName`;
//  - macOS: Squirrel.Mac accepts only an update signed with the running app's designated requirement;
//  - Linux AppImage/deb: the sha512 only (no OS signature check), then AppImage swap or `dpkg -i` via pkexec.

function notesText(info: UpdateInfo): string | undefined {
  const n = info.releaseNotes;
  if (typeof n === 'string') return n;
  if (Array.isArray(n))
    return (
      n
        .map((x) => x.note ?? '')
        .filter(Boolean)
        .join('\n\n') || undefined
    );
  return undefined;
}

export function electronUpdateDriver(updater: AppUpdater, log: Logger): UpdateDriver {
  // The controller decides when to download and install; electron-updater only executes.
  updater.autoDownload = false;
  updater.autoInstallOnAppQuit = true; // a normal quit already drained the miner (composition root disposes first)
  updater.allowDowngrade = false;
  updater.allowPrerelease = false;
  updater.logger = { info: (m) => log.info(String(m)), warn: (m) => log.warn(String(m)), error: (m) => log.error(String(m)), debug: (m) => log.debug(String(m)) };
  return {
    check: async () => {
      await updater.checkForUpdates();
    },
    download: async () => {
      await updater.downloadUpdate();
    },
    quitAndInstall: () => updater.quitAndInstall(false, true),
    onEvent: (listener: (e: DriverEvent) => void) => {
      const checking = (): void => listener({ type: 'checking' });
      const available = (info: UpdateInfo): void => {
        const notes = notesText(info);
        listener({ type: 'available', version: info.version, ...(notes ? { releaseNotes: notes } : {}) });
      };
      const notAvailable = (): void => listener({ type: 'not-available' });
      const progress = (p: ProgressInfo): void => listener({ type: 'progress', percent: p.percent });
      const downloaded = (info: UpdateInfo): void => listener({ type: 'downloaded', version: info.version });
      const error = (e: Error): void => listener({ type: 'error', message: e.message });
      updater.on('checking-for-update', checking);
      updater.on('update-available', available);
      updater.on('update-not-available', notAvailable);
      updater.on('download-progress', progress);
      updater.on('update-downloaded', downloaded);
      updater.on('error', error);
      return toDisposable(() => {
        updater.removeListener('checking-for-update', checking);
        updater.removeListener('update-available', available);
        updater.removeListener('update-not-available', notAvailable);
        updater.removeListener('download-progress', progress);
        updater.removeListener('update-downloaded', downloaded);
        updater.removeListener('error', error);
      });
    },
  };
}

export interface CreateUpdaterOptions {
  /** app.isPackaged: a dev run has no feed config (app-update.yml) and must not update. */
  isPackaged: boolean;
  currentVersion: string;
  autoUpdate: boolean;
  gate: DrainGate;
  log: Logger;
}

/** The app's updater, or undefined when this build cannot update itself (dev run). */
export function createUpdater(o: CreateUpdaterOptions): UpdateController | undefined {
  if (!o.isPackaged) return undefined;
  return new UpdateController({
    driver: electronUpdateDriver(electronUpdater.autoUpdater, o.log),
    currentVersion: o.currentVersion,
    autoUpdate: o.autoUpdate,
    gate: o.gate,
  });
}
