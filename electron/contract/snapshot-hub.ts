import type { EventMap, EventName, SnapshotEnvelope, SnapshotTopic, SnapshotTopics } from '../../shared/api.ts';
import type { RigRelayEvent } from '../../shared/fleet.ts';
import type { LogLine } from '../../shared/logs.ts';
import { Emitter } from '../engine/lib/emitter.ts';
import { toDisposable, type Disposable } from '../engine/lib/disposable.ts';
import { threadSlices } from '../engine/lib/thread-slices.ts';

export interface OutboundEvent<E extends EventName = EventName> {
  event: E;
  payload: EventMap[E];
}

export interface SnapshotHubOptions {
  /** A bound topic is rebuilt and sent at most once per this many ms (default 100). */
  minGapMs?: number;
  now?: () => number;
}

interface Pending {
  snapshot: () => unknown;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Holds the latest snapshot per topic with a rising version and fans events out to the
 * transports. A new client gets every current snapshot first, then live events.
 *
 * Publishing is on change only: a snapshot equal to the last one sent is dropped, and a bound
 * topic's change events are coalesced (a burst of changes in one tick becomes one rebuild, and a
 * busy topic is rebuilt at most once per `minGapMs`). The mining topics change on every request;
 * without this each one was rebuilt, serialised and sent to every client per change.
 */
export class SnapshotHub {
  private readonly latest = new Map<SnapshotTopic, { envelope: SnapshotEnvelope; json: string }>();
  /** When each topic was last built and compared, sent or not: the gap counts from there. */
  private readonly builtAt = new Map<SnapshotTopic, number>();
  private readonly versions = new Map<SnapshotTopic, number>();
  private readonly pending = new Map<SnapshotTopic, Pending>();
  private readonly events = new Emitter<OutboundEvent>();
  readonly onEvent = this.events.event;
  private readonly minGapMs: number;
  private readonly now: () => number;
  /** Counters for the bench and tests: rebuilds asked for, and snapshots actually sent. */
  readonly stats = { changes: 0, published: 0, unchanged: 0 };

  constructor(opts: SnapshotHubOptions = {}) {
    this.minGapMs = opts.minGapMs ?? 100;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Publish now, unless equal to what was last published. Returns whether an event went out. */
  publish<T extends SnapshotTopic>(topic: T, data: SnapshotTopics[T]): boolean {
    return threadSlices.run('snapshot publish', () => this.publishNow(topic, data));
  }

  private publishNow<T extends SnapshotTopic>(topic: T, data: SnapshotTopics[T]): boolean {
    this.cancelPending(topic);
    this.builtAt.set(topic, this.now());
    const json = JSON.stringify(data) ?? 'null';
    const last = this.latest.get(topic);
    if (last && last.json === json) {
      this.stats.unchanged++;
      return false;
    }
    const version = (this.versions.get(topic) ?? 0) + 1;
    this.versions.set(topic, version);
    const envelope = { topic, version, data } as SnapshotEnvelope;
    this.latest.set(topic, { envelope, json });
    this.stats.published++;
    this.events.fire({ event: 'snapshot', payload: envelope });
    return true;
  }

  logs(batch: LogLine[]): void {
    if (batch.length > 0) this.events.fire({ event: 'logs', payload: batch });
  }

  /** A watched rig's relayed snapshot, logs or relay state (fleet.watch): passed on, never kept here. */
  rig(ev: RigRelayEvent): void {
    this.events.fire({ event: 'rig', payload: ev });
  }

  /** Every topic's latest snapshot; changes still waiting for their slot are published first. */
  current(): SnapshotEnvelope[] {
    for (const [topic, p] of [...this.pending]) this.publish(topic, p.snapshot() as SnapshotTopics[typeof topic]);
    return [...this.latest.values()].map((l) => l.envelope);
  }

  /** Wires a service's change event to a topic: publishes now, and after changes as above. */
  bind<T extends SnapshotTopic>(topic: T, snapshot: () => SnapshotTopics[T], onDidChange: (l: () => void) => Disposable): Disposable {
    this.publish(topic, snapshot());
    const sub = onDidChange(() => this.changed(topic, snapshot));
    return toDisposable(async () => {
      this.cancelPending(topic);
      await sub.dispose();
    });
  }

  private changed<T extends SnapshotTopic>(topic: T, snapshot: () => SnapshotTopics[T]): void {
    this.stats.changes++;
    if (this.pending.has(topic)) return;
    const built = this.builtAt.get(topic);
    // A timer even when the gap has passed, so the rest of a synchronous burst joins this rebuild.
    const wait = built === undefined ? 0 : Math.max(0, built + this.minGapMs - this.now());
    const timer = setTimeout(() => {
      this.pending.delete(topic);
      this.publish(topic, snapshot());
    }, wait);
    timer.unref?.();
    this.pending.set(topic, { snapshot, timer });
  }

  private cancelPending(topic: SnapshotTopic): void {
    const p = this.pending.get(topic);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(topic);
  }
}
