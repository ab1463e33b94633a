import type { EngineSnapshot, ServeRuntimeKind, ServeSnapshot } from '../../../shared/serve.ts';
import type { Disposable } from '../lib/disposable.ts';
import { Emitter } from '../lib/emitter.ts';
import type { EngineSupervisor } from './engine-supervisor.ts';
import type { GpuSampler } from './gpu-sampler.ts';

export interface ServeFleetOptions {
  runtime: ServeRuntimeKind;
  engines: EngineSupervisor[];
  maxInflight: number;
  gpuSampler?: GpuSampler | null;
}

/**
 * An engine is settled for the start sequence once it serves, or once it has failed at least once:
 * one that crash-loops must not hold back the engines after it (they have their own GPUs).
 */
function settled(s: EngineSnapshot): boolean {
  switch (s.status.state) {
    case 'ready':
    case 'degraded':
    case 'failed':
    case 'stopped':
    case 'crashed':
    case 'restarting':
      return true;
    case 'starting':
    case 'stopping':
      return false;
  }
}

/**
 * The engines of one box. They start one after another (engine i+1 once i is ready or has given
 * up): engines sharing a card must size their pools in turn, and the first one seeds the kernel
 * cache the others reuse. The snapshot is what the UI renders.
 */
export class ServeFleet implements Disposable {
  readonly runtime: ServeRuntimeKind;
  readonly engines: readonly EngineSupervisor[];
  private readonly maxInflight: number;
  private readonly gpus: GpuSampler | null;
  private readonly changes = new Emitter<ServeSnapshot>();
  readonly onDidChange = this.changes.event;
  private readonly subs: Disposable[] = [];
  private version = 0;
  private sequence: Promise<void> | null = null;
  private stopping = false;

  constructor(opts: ServeFleetOptions) {
    this.runtime = opts.runtime;
    this.engines = opts.engines;
    this.maxInflight = opts.maxInflight;
    this.gpus = opts.gpuSampler ?? null;
    for (const e of this.engines) this.subs.push(e.onDidChange(() => this.emit()));
    if (this.gpus) this.subs.push(this.gpus.onDidChange(() => this.emit()));
  }

  snapshot(): ServeSnapshot {
    return {
      version: this.version,
      runtime: this.runtime,
      engines: this.engines.map((e) => e.snapshot()),
      gpus: this.gpus ? this.gpus.snapshot() : [],
      gpuError: this.gpus?.lastError ?? null,
      maxInflight: this.maxInflight,
    };
  }

  /** Each serving engine's own /metrics text from its last scrape, for the panel's relabelled /metrics. */
  sglangMetrics(): { engine: EngineSnapshot; text: string }[] {
    return this.engines.flatMap((e) => {
      const text = e.sglangMetricsText();
      return text === null ? [] : [{ engine: e.snapshot(), text }];
    });
  }

  /** Starts the sequence and returns at once; `whenStarted()` resolves when every engine has settled. */
  start(): void {
    this.stopping = false;
    this.gpus?.start();
    if (this.sequence) return;
    this.sequence = this.startInTurn().finally(() => {
      this.sequence = null;
    });
  }

  whenStarted(): Promise<void> {
    return this.sequence ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.gpus?.stop();
    // Later engines first, so none is started by the sequence while the others go.
    await Promise.all([...this.engines].reverse().map((e) => e.stop()));
    await this.sequence;
  }

  async dispose(): Promise<void> {
    await this.stop();
    for (const s of this.subs) await s.dispose();
    await Promise.all(this.engines.map((e) => e.dispose()));
    this.changes.clear();
  }

  /** For a last-chance process exit hook: SIGKILL every engine group synchronously. */
  killAllNow(): void {
    for (const e of this.engines) e.killNow();
  }

  private async startInTurn(): Promise<void> {
    for (const e of this.engines) {
      if (this.stopping) return;
      await e.start();
      await new Promise<void>((resolve) => {
        if (this.stopping || settled(e.snapshot())) return resolve();
        const sub = e.onDidChange((s) => {
          if (!this.stopping && !settled(s)) return;
          void sub.dispose();
          resolve();
        });
      });
    }
  }

  private emit(): void {
    this.version++;
    this.changes.fire(this.snapshot());
  }
}
