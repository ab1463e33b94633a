import { Emitter } from './engine/lib/emitter.ts';
import { systemClock, type Clock } from './engine/lib/clock.ts';
import type { Disposable } from './engine/lib/disposable.ts';
import { errorMessage } from '../shared/errors.ts';

// The auto-update decisions, in plain Node: when to check, when to download, and above all never
// to restart while the miner is serving (a restart mid-request 504s it and costs acceptance).
// electron/updater.ts adapts electron-updater to UpdateDriver; tests drive a double.

export type DriverEvent =
  | { type: 'checking' }
  | { type: 'available'; version: string; releaseNotes?: string }
  | { type: 'not-available' }
  | { type: 'progress'; percent: number }
  | { type: 'downloaded'; version: string }
  | { type: 'error'; message: string };

export interface UpdateDriver {
  check(): Promise<void>;
  download(): Promise<void>;
  /** Quits the app and runs the installer; the composition root's quit path disposes services first. */
  quitAndInstall(): void;
  onEvent(listener: (e: DriverEvent) => void): Disposable;
}

/** What the miner offers the updater: whether a request is in flight, and a way to finish them all. */
export interface DrainGate {
  busy(): boolean;
  /** Stop taking new work and resolve when in-flight requests are done (the miner decides how long). */
  drain(): Promise<void>;
}

export type UpdateState =
  | { kind: 'disabled' }
  | { kind: 'idle'; lastCheckedAt?: number }
  | { kind: 'checking' }
  | { kind: 'available'; version: string; releaseNotes?: string }
  | { kind: 'downloading'; version: string; percent: number }
  | { kind: 'downloaded'; version: string; /** Why the last restart attempt did not happen. */ lastError?: string }
  | { kind: 'draining'; version: string }
  | { kind: 'installing'; version: string }
  | { kind: 'error'; message: string; at: number; version?: string };

export interface UpdateSnapshot {
  version: number;
  currentVersion: string;
  autoUpdate: boolean;
  state: UpdateState;
  /** One sentence for the status bar. */
  message: string;
}

export function describeUpdate(state: UpdateState, autoUpdate: boolean): string {
  switch (state.kind) {
    case 'disabled':
      return 'Automatic updates are off.';
    case 'idle':
      return autoUpdate ? 'Up to date.' : 'Up to date. Automatic updates are off.';
    case 'checking':
      return 'Checking for updates…';
    case 'available':
      return autoUpdate ? `Update ${state.version} available: downloading.` : `Update ${state.version} available: download it from Settings.`;
    case 'downloading':
      return `Downloading update ${state.version}: ${Math.floor(state.percent)}%.`;
    case 'downloaded':
      return `Update ${state.version} downloaded: restart to update.${state.lastError ? ` (Last try: ${state.lastError})` : ''}`;
    case 'draining':
      return `Restarting for ${state.version} once in-flight requests finish (no new work is taken).`;
    case 'installing':
      return `Installing ${state.version}: the app restarts.`;
    case 'error':
      return `Update failed: ${state.message}`;
  }
}

export interface UpdateControllerOptions {
  driver: UpdateDriver;
  currentVersion: string;
  /** The `autoUpdate` setting: false = no background checks or downloads (a manual check still works). */
  autoUpdate: boolean;
  gate: DrainGate;
  clock?: Clock;
  firstCheckDelayMs?: number;
  checkIntervalMs?: number;
}

export class UpdateController {
  private readonly opts: Required<Omit<UpdateControllerOptions, 'clock'>> & { clock: Clock };
  private state: UpdateState;
  private autoUpdate: boolean;
  private version = 0;
  private timer: unknown;
  private started = false;
  private readonly changes = new Emitter<UpdateSnapshot>();
  readonly onDidChange = this.changes.event;
  private readonly driverSub: Disposable;

  constructor(o: UpdateControllerOptions) {
    this.opts = { firstCheckDelayMs: 30_000, checkIntervalMs: 6 * 3600_000, clock: systemClock, ...o };
    this.autoUpdate = o.autoUpdate;
    this.state = o.autoUpdate ? { kind: 'idle' } : { kind: 'disabled' };
    this.driverSub = o.driver.onEvent((e) => this.onDriver(e));
  }

  snapshot(): UpdateSnapshot {
    return { version: this.version, currentVersion: this.opts.currentVersion, autoUpdate: this.autoUpdate, state: this.state, message: describeUpdate(this.state, this.autoUpdate) };
  }

  start(): void {
    this.started = true;
    this.schedule(this.opts.firstCheckDelayMs);
  }

  stop(): void {
    this.started = false;
    this.cancelTimer();
  }

  dispose(): void {
    this.stop();
    void this.driverSub.dispose();
    this.changes.clear();
  }

  /** Settings changed. Turning it off stops background checks; a download already made is kept. */
  setAutoUpdate(enabled: boolean): void {
    if (enabled === this.autoUpdate) return;
    this.autoUpdate = enabled;
    if (!enabled) {
      this.cancelTimer();
      if (this.state.kind === 'idle') this.set({ kind: 'disabled' });
      else this.emit();
      return;
    }
    if (this.state.kind === 'disabled') this.set({ kind: 'idle' });
    else this.emit();
    if (this.state.kind === 'available') void this.download();
    this.schedule(this.opts.firstCheckDelayMs);
  }

  /** A check the user asked for: allowed even with automatic updates off. */
  async checkNow(): Promise<void> {
    if (!['idle', 'disabled', 'error'].includes(this.state.kind)) return;
    this.set({ kind: 'checking' });
    try {
      await this.opts.driver.check();
    } catch (e) {
      this.fail(e);
    }
  }

  async download(): Promise<void> {
    const s = this.state;
    if (s.kind !== 'available') return;
    this.set({ kind: 'downloading', version: s.version, percent: 0 });
    try {
      await this.opts.driver.download();
    } catch (e) {
      this.fail(e, s.version);
    }
  }

  /**
   * "Restart to update". Waits for the miner to drain first: never quits mid-request. Returns
   * false when there is nothing to install or the drain failed (the download is kept).
   */
  async restartToUpdate(): Promise<boolean> {
    const s = this.state;
    if (s.kind !== 'downloaded') return false;
    if (this.opts.gate.busy()) {
      this.set({ kind: 'draining', version: s.version });
      try {
        // drain() may return while a late request still runs: ask again until nothing is in flight.
        for (let i = 0; this.opts.gate.busy(); i++) {
          if (i >= 5) throw new Error('the miner is still serving after draining; try again later');
          await this.opts.gate.drain();
        }
      } catch (e) {
        // The download stays usable: the user can try again when the rig is quieter.
        this.set({ kind: 'downloaded', version: s.version, lastError: `did not restart: ${errorMessage(e)}` });
        return false;
      }
    }
    this.set({ kind: 'installing', version: s.version });
    this.opts.driver.quitAndInstall();
    return true;
  }

  private onDriver(e: DriverEvent): void {
    switch (e.type) {
      case 'checking':
        if (this.state.kind !== 'checking') this.set({ kind: 'checking' });
        return;
      case 'available': {
        if (['downloading', 'downloaded', 'draining', 'installing'].includes(this.state.kind)) return;
        this.set({ kind: 'available', version: e.version, ...(e.releaseNotes ? { releaseNotes: e.releaseNotes } : {}) });
        if (this.autoUpdate) void this.download();
        return;
      }
      case 'not-available':
        this.set(this.autoUpdate ? { kind: 'idle', lastCheckedAt: this.opts.clock.now() } : { kind: 'disabled' });
        return;
      case 'progress':
        if (this.state.kind === 'downloading') this.set({ ...this.state, percent: Math.max(0, Math.min(100, e.percent)) });
        return;
      case 'downloaded':
        if (this.state.kind === 'draining' || this.state.kind === 'installing') return;
        this.set({ kind: 'downloaded', version: e.version });
        return;
      case 'error':
        this.fail(new Error(e.message));
        return;
    }
  }

  private fail(e: unknown, version?: string): void {
    // A failure while a download waits for its restart does not lose the download.
    if (this.state.kind === 'downloaded' || this.state.kind === 'draining' || this.state.kind === 'installing') return;
    const message = errorMessage(e);
    const v = version ?? ('version' in this.state ? this.state.version : undefined);
    this.set({ kind: 'error', message, at: this.opts.clock.now(), ...(v ? { version: v } : {}) });
  }

  private schedule(ms: number): void {
    this.cancelTimer();
    if (!this.started || !this.autoUpdate) return;
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = undefined;
      void this.checkNow().finally(() => this.schedule(this.opts.checkIntervalMs));
    }, ms);
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private set(state: UpdateState): void {
    this.state = state;
    this.emit();
  }

  private emit(): void {
    this.version++;
    this.changes.fire(this.snapshot());
  }
}
