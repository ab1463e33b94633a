// One chain connection per endpoint, shared by the engine's short-lived users: each validator tick that
// needs the chain, each Earnings refresh, the wallet's and the hardware check's reads. Every new
// connection downloads the runtime metadata and decodes all of it again (about 0.13 CPU s each on the
// simulated network's copy of finney's), and the simulated network's app opened 61 of them in 146 s
// (docs/testing.md). A user's close() hands its lease back; the connection itself closes `lingerMs` after
// the last lease, so a rare user (Earnings every 10 min on finney) still holds nothing between refreshes.
// No import of polkadot-js here: the connection comes from the caller's `connect`.
import type { Clock } from '../lib/clock.ts';
import type { Disposable } from '../lib/disposable.ts';

export interface Shareable {
  close(): Promise<void>;
  /** A connection that reports itself down is never handed out again; a fresh one is opened instead. */
  readonly isConnected?: boolean;
}

/** What a user holds: the connection, whose close() returns the lease, and discard() to drop it for everyone. */
export type Lease<T> = T & {
  /** Closes the connection under every user (a wedged one must not be handed out again). */
  discard(): Promise<void>;
};

interface Entry<T> {
  client: Promise<T>;
  leases: number;
  timer: unknown;
  dropped: boolean;
}

export class SharedConnections<T extends Shareable> implements Disposable {
  private readonly entries = new Map<string, Entry<T>>();
  private disposed = false;

  private readonly connect: (url: string) => Promise<T>;
  private readonly opts: { lingerMs: number; clock: Pick<Clock, 'setTimeout' | 'clearTimeout'> };

  constructor(connect: (url: string) => Promise<T>, opts: { lingerMs: number; clock: Pick<Clock, 'setTimeout' | 'clearTimeout'> }) {
    this.connect = connect;
    this.opts = opts;
  }

  /** A lease on the endpoint's connection, opening it when there is none (or only a dead one). */
  async open(url: string): Promise<Lease<T>> {
    // After dispose (the engine stopping) a late user gets a connection of its own, closed by its close().
    if (this.disposed) {
      const own = await this.connect(url);
      return Object.assign(own, { discard: () => own.close() });
    }
    let e = this.entries.get(url);
    let fresh = false;
    if (!e) {
      e = this.add(url);
      fresh = true;
    }
    // Counted before the wait, so a linger timer due meanwhile does not close it under this user.
    e.leases++;
    this.opts.clock.clearTimeout(e.timer);
    let client: T;
    try {
      client = await e.client;
    } catch (err) {
      this.release(url, e);
      throw err;
    }
    if (!fresh && (e.dropped || client.isConnected === false)) {
      this.release(url, e);
      await this.drop(url, e);
      return this.open(url);
    }
    return this.lease(url, e, client);
  }

  /** Closes every connection, lingering or leased (the engine's stop). */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.entries].map(([url, e]) => this.drop(url, e)));
  }

  private add(url: string): Entry<T> {
    const e: Entry<T> = { client: this.connect(url), leases: 0, timer: undefined, dropped: false };
    this.entries.set(url, e);
    // A connect that failed is not kept: every user waiting on it gets the failure, the next open tries again.
    e.client.catch(() => {
      e.dropped = true;
      if (this.entries.get(url) === e) this.entries.delete(url);
    });
    return e;
  }

  private lease(url: string, e: Entry<T>, client: T): Lease<T> {
    let released = false;
    const close = async () => {
      if (released) return;
      released = true;
      this.release(url, e);
    };
    const discard = async () => {
      await close();
      await this.drop(url, e);
    };
    return new Proxy(client, {
      get(target, prop) {
        if (prop === 'close') return close;
        if (prop === 'discard') return discard;
        const v: unknown = Reflect.get(target, prop, target);
        // Methods run on the connection itself, never on the lease.
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Lease<T>;
  }

  private release(url: string, e: Entry<T>): void {
    e.leases = Math.max(0, e.leases - 1);
    if (e.leases > 0 || e.dropped) return;
    this.opts.clock.clearTimeout(e.timer);
    e.timer = this.opts.clock.setTimeout(() => {
      if (e.leases === 0) void this.drop(url, e);
    }, this.opts.lingerMs);
  }

  private async drop(url: string, e: Entry<T>): Promise<void> {
    if (e.dropped) return;
    e.dropped = true;
    this.opts.clock.clearTimeout(e.timer);
    if (this.entries.get(url) === e) this.entries.delete(url);
    const client = await e.client.catch(() => null);
    await client?.close().catch(() => undefined);
  }
}
