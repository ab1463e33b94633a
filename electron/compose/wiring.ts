// What the domain modules wire into: the contract's handlers, the snapshot topics, the shutdown stack.
// Each handler and each topic has one owner: wiring one twice is a programming error, refused at start.
import type { SnapshotTopic, SnapshotTopics } from '../../shared/api.ts';
import { INVOKE_METHODS, type InvokeMethod } from '../../shared/api.ts';
import type { HandlerTable } from '../contract/handler-table.ts';
import type { SnapshotHub } from '../contract/snapshot-hub.ts';
import type { Disposable, DisposableStack } from '../engine/lib/disposable.ts';
import type { Runtime } from '../runtime.ts';
import type { ModuleName } from './profiles.ts';
import type { ChangeFeed } from './change-feed.ts';

export class Wiring {
  readonly rt: Runtime;
  readonly hub: SnapshotHub;
  private readonly stack: DisposableStack;
  private readonly handlers: Partial<HandlerTable> = {};
  private readonly topics = new Set<SnapshotTopic>();
  private readonly wired: ModuleName[] = [];

  constructor(rt: Runtime, hub: SnapshotHub, stack: DisposableStack) {
    this.rt = rt;
    this.hub = hub;
    this.stack = stack;
  }

  /** Marks a module as wired; a second time throws (nothing is wired twice). */
  module(name: ModuleName): void {
    if (this.wired.includes(name)) throw new Error(`the ${name} module is wired twice`);
    this.wired.push(name);
  }

  get modules(): readonly ModuleName[] {
    return this.wired;
  }

  add<T extends Disposable>(item: T): T {
    return this.stack.add(item);
  }

  handle(part: Partial<HandlerTable>): void {
    for (const method of Object.keys(part) as InvokeMethod[]) {
      if (Object.hasOwn(this.handlers, method)) throw new Error(`the handler ${method} is wired twice`);
      (this.handlers as Record<string, unknown>)[method] = part[method];
    }
  }

  /** A topic whose service fires a change: the hub reads it (coalesced) after each. */
  bind<T extends SnapshotTopic>(topic: T, read: () => SnapshotTopics[T], onDidChange: (l: () => void) => Disposable): void {
    this.claim(topic);
    this.stack.add(this.hub.bind(topic, read, onDidChange));
  }

  /** A topic published from a feed: the value the module read for the change, never read again. */
  publish<T extends SnapshotTopic, V>(topic: T, feed: ChangeFeed<V>, pick: (v: V) => SnapshotTopics[T]): void {
    this.claim(topic);
    this.hub.publish(topic, pick(feed.current));
    this.stack.add(feed.onDidView((v) => this.hub.publish(topic, pick(v))));
  }

  /**
   * A topic published at once with each change's own value: for rare changes a caller acts on right
   * after its invoke returns (the desktop shell reads close-to-tray from the settings it was sent).
   */
  publishEach<T extends SnapshotTopic>(topic: T, initial: SnapshotTopics[T], onValue: (l: (v: SnapshotTopics[T]) => void) => Disposable): void {
    this.claim(topic);
    this.hub.publish(topic, initial);
    this.stack.add(onValue((v) => this.hub.publish(topic, v)));
  }

  private claim(topic: SnapshotTopic): void {
    if (this.topics.has(topic)) throw new Error(`the topic ${topic} is wired twice`);
    this.topics.add(topic);
  }

  /** The whole contract: a panel profile answers every method (a missing one is a wiring mistake). */
  table(): HandlerTable {
    const missing = INVOKE_METHODS.filter((m) => !Object.hasOwn(this.handlers, m));
    if (missing.length > 0) throw new Error(`no handler wired for ${missing.join(', ')}`);
    return this.handlers as HandlerTable;
  }
}
