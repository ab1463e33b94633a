import type { EventMap, EventName, SnapshotEnvelope, SnapshotTopic, SnapshotTopics } from '../../shared/api.ts';
import type { LogLine } from '../../shared/logs.ts';
import { Emitter } from '../engine/lib/emitter.ts';
import type { Disposable } from '../engine/lib/disposable.ts';

export interface OutboundEvent<E extends EventName = EventName> {
  event: E;
  payload: EventMap[E];
}

/**
 * Holds the latest snapshot per topic with a rising version and fans events out to the
 * transports. A new client gets every current snapshot first, then live events.
 */
export class SnapshotHub {
  private readonly latest = new Map<SnapshotTopic, SnapshotEnvelope>();
  private readonly versions = new Map<SnapshotTopic, number>();
  private readonly events = new Emitter<OutboundEvent>();
  readonly onEvent = this.events.event;

  publish<T extends SnapshotTopic>(topic: T, data: SnapshotTopics[T]): void {
    const version = (this.versions.get(topic) ?? 0) + 1;
    this.versions.set(topic, version);
    const envelope = { topic, version, data } as SnapshotEnvelope;
    this.latest.set(topic, envelope);
    this.events.fire({ event: 'snapshot', payload: envelope });
  }

  logs(batch: LogLine[]): void {
    if (batch.length > 0) this.events.fire({ event: 'logs', payload: batch });
  }

  current(): SnapshotEnvelope[] {
    return [...this.latest.values()];
  }

  /** Wires a service's change event to a topic: publishes now and on every change. */
  bind<T extends SnapshotTopic>(topic: T, snapshot: () => SnapshotTopics[T], onDidChange: (l: () => void) => Disposable): Disposable {
    this.publish(topic, snapshot());
    return onDidChange(() => this.publish(topic, snapshot()));
  }
}
