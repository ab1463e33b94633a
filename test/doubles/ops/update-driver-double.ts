import type { Clock } from '../../../electron/engine/lib/clock.ts';
import { toDisposable, type Disposable } from '../../../electron/engine/lib/disposable.ts';
import type { DrainGate, DriverEvent, UpdateDriver } from '../../../electron/update-controller.ts';

/**
 * Stands in for electron-updater: records calls, and answers check()/download() with the events a
 * real feed would produce (scripted per test). quitAndInstall() records whether the miner was busy.
 */
export class UpdateDriverDouble implements UpdateDriver {
  readonly calls: string[] = [];
  /** Events check() emits; default: no update. */
  onCheck: () => DriverEvent[] = () => [{ type: 'checking' }, { type: 'not-available' }];
  /** Events download() emits; default: progress then downloaded. */
  onDownload: (version: string) => DriverEvent[] = (v) => [
    { type: 'progress', percent: 50 },
    { type: 'downloaded', version: v },
  ];
  failNext: Error | undefined;
  installedWhileBusy: boolean[] = [];
  gate: DrainGate | undefined;
  private lastVersion = '';
  private readonly listeners = new Set<(e: DriverEvent) => void>();

  emit(e: DriverEvent): void {
    if (e.type === 'available') this.lastVersion = e.version;
    for (const l of [...this.listeners]) l(e);
  }

  async check(): Promise<void> {
    this.calls.push('check');
    await Promise.resolve();
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = undefined;
      throw e;
    }
    for (const e of this.onCheck()) this.emit(e);
  }

  async download(): Promise<void> {
    this.calls.push('download');
    await Promise.resolve();
    for (const e of this.onDownload(this.lastVersion)) this.emit(e);
  }

  quitAndInstall(): void {
    this.calls.push('quitAndInstall');
    this.installedWhileBusy.push(this.gate?.busy() ?? false);
  }

  onEvent(listener: (e: DriverEvent) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => {
      this.listeners.delete(listener);
    });
  }
}

/** A miner that is serving `inFlight` requests; drain() finishes them one batch per call. */
export class MinerGateDouble implements DrainGate {
  inFlight: number;
  drains = 0;
  /** How many requests one drain() call finishes (Infinity = all). */
  perDrain = Infinity;
  failDrain: Error | undefined;
  constructor(inFlight = 0) {
    this.inFlight = inFlight;
  }
  busy(): boolean {
    return this.inFlight > 0;
  }
  async drain(): Promise<void> {
    this.drains++;
    await Promise.resolve();
    if (this.failDrain) throw this.failDrain;
    this.inFlight = Math.max(0, this.inFlight - this.perDrain);
  }
}

/** Time that moves only when the test says so. */
export class ManualClock implements Clock {
  private t = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get pending(): number {
    return this.timers.size;
  }
  /** Advance and run due timers in order. */
  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, v]) => v.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = until;
  }
}
