import type { GpuSeries } from '../../../shared/serve.ts';
import { isUnknownFieldError, liveQueryFields, parseLiveGpuCsv, REASONS_FIELDS, type ReasonsField } from '../hardware/nvidia-smi.ts';
import { execText, type ExecText } from '../lib/exec-text.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { Emitter } from '../lib/emitter.ts';
import { PollLoop } from './poll-loop.ts';
import { pushCapped } from './series.ts';
import type { GpuWatch } from './gpu-watch.ts';
import type { Disposable } from '../lib/disposable.ts';

export interface GpuSamplerOptions {
  exec?: ExecText;
  /** nvidia-smi binary (found on PATH by default). */
  bin?: string;
  clock?: Clock;
  /** The slow pace, while nobody watches the live panel. */
  intervalMs?: number;
  /** The pace while some client watches (`watch` holds a lease). */
  fastIntervalMs?: number;
  /** Whether a client watches; absent: always the slow pace. */
  watch?: GpuWatch;
  cap?: number;
}

/**
 * Samples utilisation, memory, temperature, power, fan, clocks and throttle reasons of every GPU on a
 * chained timer: once a second while some client watches the live panel, every 5 s otherwise.
 */
export class GpuSampler {
  private readonly series = new Map<number, GpuSeries>();
  private readonly loop: PollLoop;
  private readonly changes = new Emitter<GpuSeries[]>();
  readonly onDidChange = this.changes.event;
  private readonly opts: GpuSamplerOptions;
  private readonly clock: Clock;
  private readonly cap: number;
  /** Why the last sample failed (nvidia-smi missing or erroring), for the UI. */
  lastError: string | null = null;
  private readonly slowMs: number;
  private readonly fastMs: number;
  private sampling = false;
  private watchSub: Disposable | null = null;
  /** Which throttle-reasons field this driver answers (undefined: not asked yet; null: neither name). */
  private reasons: ReasonsField | undefined = undefined;

  constructor(opts: GpuSamplerOptions = {}) {
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    // 240 points: 4 minutes at the watched pace, 20 at the slow one (the stored history covers longer).
    this.cap = opts.cap ?? 240;
    this.slowMs = opts.intervalMs ?? 5_000;
    this.fastMs = opts.fastIntervalMs ?? 1_000;
    this.loop = new PollLoop(this.clock, this.pace(), () => this.sample());
  }

  /** The interval the next sample waits: fast while watched. */
  private pace(): number {
    return this.opts.watch?.watched() ? this.fastMs : this.slowMs;
  }

  start(): void {
    if (this.loop.active) return;
    this.watchSub ??= this.opts.watch?.onDidRenew(() => this.speedUp()) ?? null;
    this.loop.intervalMs = this.pace();
    this.loop.start(0);
  }

  stop(): void {
    this.loop.stop();
    void this.watchSub?.dispose();
    this.watchSub = null;
  }

  /** A client started watching: sample now rather than at the end of a slow wait. */
  private speedUp(): void {
    if (!this.loop.active || this.loop.intervalMs === this.fastMs) return;
    this.loop.intervalMs = this.fastMs;
    // A sample in flight schedules the next one at the fast pace when it ends.
    if (!this.sampling) this.loop.start(0);
  }

  snapshot(): GpuSeries[] {
    return [...this.series.values()].sort((a, b) => a.index - b.index).map((s) => ({ ...s, points: [...s.points] }));
  }

  async sample(): Promise<void> {
    this.sampling = true;
    try {
      await this.sampleOnce();
    } finally {
      this.sampling = false;
      this.loop.intervalMs = this.pace();
    }
  }

  /** Runs the query, learning once which throttle-reasons field name this driver knows. */
  private async query(): Promise<{ csv: string; reasons: ReasonsField }> {
    const exec = this.opts.exec ?? execText;
    const bin = this.opts.bin ?? 'nvidia-smi';
    const tries: ReasonsField[] = this.reasons !== undefined ? [this.reasons] : [...REASONS_FIELDS, null];
    for (let i = 0; ; i++) {
      const reasons = tries[i]!;
      try {
        const csv = await exec(bin, [`--query-gpu=${liveQueryFields(reasons).join(',')}`, '--format=csv,noheader,nounits'], 10_000);
        this.reasons = reasons;
        return { csv, reasons };
      } catch (e) {
        const err = e as NodeJS.ErrnoException & { stdout?: string };
        // nvidia-smi names an unknown field on stdout: try the next name, else the failure is the answer.
        if (i + 1 < tries.length && isUnknownFieldError(`${err.stdout ?? ''} ${err.message}`)) continue;
        throw e;
      }
    }
  }

  private async sampleOnce(): Promise<void> {
    let csv: string;
    let reasons: ReasonsField;
    try {
      ({ csv, reasons } = await this.query());
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const said = err.code === 'ENOENT' ? 'nvidia-smi is not installed' : (err.message.split('\n')[0] ?? 'nvidia-smi failed');
      if (said !== this.lastError) {
        this.lastError = said;
        this.changes.fire(this.snapshot());
      }
      return;
    }
    this.lastError = null;
    const at = this.clock.now();
    for (const g of parseLiveGpuCsv(csv, reasons)) {
      let s = this.series.get(g.index);
      if (!s) {
        s = { index: g.index, name: g.name, points: [] };
        this.series.set(g.index, s);
      }
      pushCapped(
        s.points,
        {
          at,
          utilizationPct: g.utilizationPct,
          memoryUsedMiB: g.memoryUsedMiB,
          memoryTotalMiB: g.memoryTotalMiB,
          temperatureC: g.temperatureC,
          powerDrawW: g.powerDrawW,
          powerLimitW: g.powerLimitW,
          fanPct: g.fanPct,
          smClockMHz: g.smClockMHz,
          memClockMHz: g.memClockMHz,
          throttle: g.throttle,
        },
        this.cap,
      );
    }
    this.changes.fire(this.snapshot());
  }
}
