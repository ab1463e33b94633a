// SharedConnections (electron/engine/chain/shared-connections.ts): one connection per endpoint for the
// engine's short-lived chain users, kept a little after the last one, never a failed or dead one handed out.
import { describe, expect, it } from 'vitest';
import { SharedConnections } from '../../../electron/engine/chain/shared-connections.ts';
import { ManualClock } from '../../doubles/manual-clock.ts';

/** A stand-in connection: counts its closes, says whether it is up, and has a method that reads a #private field. */
class FakeConn {
  closes = 0;
  isConnected = true;
  readonly url: string;
  readonly #n: number;
  constructor(url: string, n: number) {
    this.url = url;
    this.#n = n;
  }
  async blockNumber(): Promise<number> {
    return this.#n * 100 + this.closes;
  }
  async close(): Promise<void> {
    this.closes++;
    this.isConnected = false;
  }
}

function setup(fail: (n: number) => boolean = () => false) {
  const clock = new ManualClock();
  const made: FakeConn[] = [];
  const pool = new SharedConnections(
    async (url: string) => {
      const n = made.length + 1;
      if (fail(n)) {
        made.push(new FakeConn(url, -n));
        throw new Error(`connect ${n} refused`);
      }
      const c = new FakeConn(url, n);
      made.push(c);
      return c;
    },
    { lingerMs: 30_000, clock },
  );
  return { clock, made, pool };
}

describe('shared chain connections', () => {
  it('users of one endpoint share a connection, kept for the linger after the last lease, then closed', async () => {
    const { clock, made, pool } = setup();
    const [a, b] = await Promise.all([pool.open('ws://a'), pool.open('ws://a')]);
    expect(made).toHaveLength(1);
    // Methods run on the connection itself (they read its fields through `this`).
    expect(await a.blockNumber()).toBe(100);
    await a.close();
    await a.close(); // a second close of the same lease returns nothing more
    await clock.advance(60_000);
    expect(made[0]!.closes).toBe(0); // b still holds it
    await b.close();
    await clock.advance(29_000);
    const c = await pool.open('ws://a');
    expect(made).toHaveLength(1);
    expect(clock.pending()).toBe(0); // the linger stopped while it is used again
    await c.close();
    await clock.advance(30_000);
    expect(made[0]!.closes).toBe(1);
    await pool.open('ws://a');
    expect(made).toHaveLength(2);
    // Another endpoint, and a prototype-named one, each get their own.
    await pool.open('ws://b');
    await pool.open('__proto__');
    expect(made.map((m) => m.url)).toEqual(['ws://a', 'ws://a', 'ws://b', '__proto__']);
  });

  it('a failed connect is not kept: every waiter gets the failure, the next open tries again', async () => {
    const { made, pool } = setup((n) => n === 1);
    const both = await Promise.allSettled([pool.open('ws://a'), pool.open('ws://a')]);
    expect(both.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['connect 1 refused', 'connect 1 refused']);
    const c = await pool.open('ws://a');
    expect(made).toHaveLength(2);
    expect(await c.blockNumber()).toBe(200);
  });

  it('a connection that reports itself down is closed and replaced, not handed out', async () => {
    const { made, pool } = setup();
    const a = await pool.open('ws://a');
    made[0]!.isConnected = false;
    const b = await pool.open('ws://a');
    expect(made).toHaveLength(2);
    expect(made[0]!.closes).toBe(1);
    expect(await b.blockNumber()).toBe(200);
    await a.close(); // the old lease's close touches nothing of the new connection
    expect(made[1]!.closes).toBe(0);
  });

  it('discard closes the connection under every user; the next open connects again', async () => {
    const { made, pool } = setup();
    const a = await pool.open('ws://a');
    await pool.open('ws://a');
    await a.discard();
    expect(made[0]!.closes).toBe(1);
    await pool.open('ws://a');
    expect(made).toHaveLength(2);
  });

  it('dispose closes leased and lingering connections; a user after it gets a connection of its own', async () => {
    const { clock, made, pool } = setup();
    await pool.open('ws://a');
    await (await pool.open('ws://b')).close();
    await pool.dispose();
    expect(made.map((m) => m.closes)).toEqual([1, 1]);
    const late = await pool.open('ws://a');
    expect(made).toHaveLength(3);
    await late.close();
    expect(made[2]!.closes).toBe(1);
    expect(clock.pending()).toBe(0);
  });
});
