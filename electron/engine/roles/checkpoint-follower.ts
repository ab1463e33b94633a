// The checkpoint the UI shows follows the folder chosen in Settings: a new folder gets a fresh
// CheckpointService (checked at once), the old one is disposed (a download in progress pauses).
import type { CheckpointSnapshot } from '../../../shared/serve.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Disposable } from '../lib/disposable.ts';
import type { Logger } from '../lib/logger.ts';
import { CheckpointService } from '../serve/checkpoint/checkpoint-service.ts';

export class CheckpointFollower implements Disposable {
  private service: CheckpointService;
  private sub: Disposable;
  private dir: string;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly make: (dir: string) => CheckpointService;
  private readonly log: Logger;

  constructor(dir: string, make: (dir: string) => CheckpointService, log: Logger) {
    this.make = make;
    this.log = log;
    this.dir = dir;
    this.service = make(dir);
    this.sub = this.service.onDidChange(() => this.changes.fire());
    this.check();
  }

  get current(): CheckpointService {
    return this.service;
  }

  snapshot(): CheckpointSnapshot {
    return this.service.snapshot();
  }

  follow(dir: string): void {
    if (dir === this.dir) return;
    const old = this.service;
    void this.sub.dispose();
    void old.dispose();
    this.dir = dir;
    this.service = this.make(dir);
    this.sub = this.service.onDidChange(() => this.changes.fire());
    this.changes.fire();
    this.check();
  }

  private check(): void {
    void this.service.refresh().catch((e: unknown) => this.log.warn(`checkpoint check failed: ${(e as Error).message}`));
  }

  async dispose(): Promise<void> {
    await this.sub.dispose();
    await this.service.dispose();
  }
}
