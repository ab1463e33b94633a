// A service's snapshot read once per change and handed, as a value, to everyone who needs it (the hub's
// topics, chart history, alerts, metrics): before, each subscriber got a bare event and read the service
// again. A burst of changes in one tick is one read, and a busy service is read at most once per gap.
import { Emitter, type Listener } from '../engine/lib/emitter.ts';
import type { Disposable } from '../engine/lib/disposable.ts';

export interface ChangeFeedOptions {
  minGapMs?: number;
  now?: () => number;
}

export class ChangeFeed<T> implements Disposable {
  private readonly views = new Emitter<T>();
  private latest: T;
  private readAt: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly sub: Disposable;
  private readonly read: () => T;
  private readonly minGapMs: number;
  private readonly now: () => number;

  constructor(read: () => T, onDidChange: (l: () => void) => Disposable, o: ChangeFeedOptions = {}) {
    this.read = read;
    this.minGapMs = o.minGapMs ?? 100;
    this.now = o.now ?? (() => performance.now());
    this.latest = read();
    this.readAt = this.now();
    this.sub = onDidChange(() => this.changed());
  }

  /** The value last read (what every subscriber was last given). */
  get current(): T {
    return this.latest;
  }

  onDidView(listener: Listener<T>): Disposable {
    return this.views.event(listener);
  }

  /** Reads now, dropping a pending read: for a caller that must see the service as it is this instant. */
  flush(): T {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.latest = this.read();
    this.readAt = this.now();
    this.views.fire(this.latest);
    return this.latest;
  }

  private changed(): void {
    if (this.timer) return;
    // A timer even when the gap has passed, so the rest of a synchronous burst joins this read.
    const wait = Math.max(0, this.readAt + this.minGapMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
    this.timer.unref?.();
  }

  async dispose(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.sub.dispose();
    this.views.clear();
  }
}
