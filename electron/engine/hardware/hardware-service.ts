import type { HardwareReport } from '../../../shared/hardware.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Logger } from '../lib/logger.ts';
import { detectHardware, type DetectOptions } from './detect.ts';

/** Keeps the latest hardware report; a refresh runs one detection at a time. */
export class HardwareService {
  private report: HardwareReport | null = null;
  private running: Promise<HardwareReport> | null = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly opts: () => DetectOptions;
  private readonly log: Logger;
  private readonly detect: (o: DetectOptions) => Promise<HardwareReport>;

  /** Options as a function when they follow Settings (the GPU choice): read at each detection. */
  constructor(opts: DetectOptions | (() => DetectOptions), log: Logger, detect = detectHardware) {
    this.opts = typeof opts === 'function' ? opts : () => opts;
    this.log = log;
    this.detect = detect;
  }

  snapshot(): HardwareReport | null {
    return this.report;
  }

  async get(refresh = false): Promise<HardwareReport> {
    if (this.report && !refresh) return this.report;
    this.running ??= this.detect(this.opts())
      .then((r) => {
        this.report = r;
        this.log.info(`hardware: ${r.gpus.length} GPU(s), verdict ${r.verdict}${r.plan ? `, plan ${r.plan.engines.map((e) => `tp${e.tp}`).join('+')} declaring ${r.plan.maxInflight}` : ''}`);
        this.changes.fire();
        return r;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
