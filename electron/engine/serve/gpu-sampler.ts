import type { GpuSeries } from '../../../shared/serve.ts';
import { GPU_QUERY_FIELDS, parseGpuCsv } from '../hardware/nvidia-smi.ts';
import { execText, type ExecText } from '../lib/exec-text.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { Emitter } from '../lib/emitter.ts';
import { PollLoop } from './poll-loop.ts';
import { pushCapped } from './series.ts';

export interface GpuSamplerOptions {
  exec?: ExecText;
  /** nvidia-smi binary (found on PATH by default). */
  bin?: string;
  clock?: Clock;
  intervalMs?: number;
  cap?: number;
}

/** Samples utilisation, memory, temperature and power of every GPU on a chained timer. */
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

  constructor(opts: GpuSamplerOptions = {}) {
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    this.cap = opts.cap ?? 240;
    this.loop = new PollLoop(this.clock, opts.intervalMs ?? 5_000, () => this.sample());
  }

  start(): void {
    if (!this.loop.active) this.loop.start(0);
  }

  stop(): void {
    this.loop.stop();
  }

  snapshot(): GpuSeries[] {
    return [...this.series.values()].sort((a, b) => a.index - b.index).map((s) => ({ ...s, points: [...s.points] }));
  }

  async sample(): Promise<void> {
    const exec = this.opts.exec ?? execText;
    let csv: string;
    try {
      csv = await exec(this.opts.bin ?? 'nvidia-smi', [`--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'], 10_000);
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
    for (const g of parseGpuCsv(csv)) {
      let s = this.series.get(g.index);
      if (!s) {
        s = { index: g.index, name: g.name, points: [] };
        this.series.set(g.index, s);
      }
      pushCapped(
        s.points,
        { at, utilizationPct: g.utilizationPct, memoryUsedMiB: g.memoryUsedMiB, memoryTotalMiB: g.memoryTotalMiB, temperatureC: g.temperatureC, powerDrawW: g.powerDrawW, powerLimitW: g.powerLimitW },
        this.cap,
      );
    }
    this.changes.fire(this.snapshot());
  }
}
