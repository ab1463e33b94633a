import { errorMessage } from '../../../shared/errors.ts';
import type { HardwareReport } from '../../../shared/hardware.ts';
import type { CheckpointFolderVerdict } from '../../../shared/sglang-setup.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Logger } from '../lib/logger.ts';
import { detectHardware, type DetectOptions } from './detect.ts';
import { withCheckpointSpace } from './fit-check.ts';

/** Keeps the latest hardware report; a refresh runs one detection at a time. */
export class HardwareService {
  private report: HardwareReport | null = null;
  private running: Promise<HardwareReport> | null = null;
  private space: CheckpointFolderVerdict | null = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly opts: () => DetectOptions;
  private readonly log: Logger;
  private readonly detect: (o: DetectOptions) => Promise<HardwareReport>;
  private readonly measureSpace: (() => CheckpointFolderVerdict) | null;

  /**
   * Options as a function when they follow Settings (the GPU choice): read at each detection.
   * `space` measures the checkpoint folder (folder-space.ts) for what is still to download.
   */
  constructor(opts: DetectOptions | (() => DetectOptions), log: Logger, detect = detectHardware, space: (() => CheckpointFolderVerdict) | null = null) {
    this.opts = typeof opts === 'function' ? opts : () => opts;
    this.log = log;
    this.detect = detect;
    this.measureSpace = space;
  }

  snapshot(): HardwareReport | null {
    return this.report && this.measureSpace ? withCheckpointSpace(this.report, this.space) : this.report;
  }

  /** Re-measures the checkpoint folder (a download moved on, the folder changed); fires only on a new answer. */
  refreshSpace(): void {
    if (!this.measureSpace) return;
    let next: CheckpointFolderVerdict | null;
    try {
      next = this.measureSpace();
    } catch (e) {
      this.log.warn(`checkpoint folder space could not be measured: ${errorMessage(e)}`);
      next = null;
    }
    const changed = next?.ok !== this.space?.ok || next?.sentence !== this.space?.sentence;
    this.space = next;
    if (changed && this.report) this.changes.fire();
  }

  async get(refresh = false): Promise<HardwareReport> {
    if (this.report && !refresh) return this.snapshot()!;
    this.running ??= this.detect(this.opts())
      .then((r) => {
        this.report = r;
        this.refreshSpace();
        this.log.info(`hardware: ${r.gpus.length} GPU(s), verdict ${r.verdict}${r.plan ? `, plan ${r.plan.engines.map((e) => `tp${e.tp}`).join('+')} declaring ${r.plan.maxInflight}` : ''}`);
        this.changes.fire();
        return this.snapshot()!;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
