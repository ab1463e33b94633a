// The invokes one socket to a rig's engine has sent and not yet had answered, for both sockets to a rig
// (rig-link.ts, rig-relay.ts): each is numbered, has its deadline on the injected clock, and is answered
// exactly once: by its result frame, by the deadline, or by the socket closing.
import { errorMessage } from '../../../shared/errors.ts';
import { err, type Result } from '../../../shared/result.ts';
import type { Clock } from '../lib/clock.ts';

/** The one thing sending needs of a socket (a `ws` WebSocket the caller has checked is open). */
export interface FrameSink {
  send(frame: string): void;
}

export class PendingInvokes {
  private readonly clock: Clock;
  private readonly rigName: string;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Result<unknown>) => void; timer: unknown }>();

  constructor(clock: Clock, rigName: string) {
    this.clock = clock;
    this.rigName = rigName;
  }

  /** Sends invoke `method` on `ws`; resolves with the rig's answer, `timeout` past the deadline. */
  send(ws: FrameSink, method: string, req: unknown, timeoutMs: number): Promise<Result<unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(id);
        resolve(err('timeout', `${this.rigName} did not answer ${method} in ${Math.round(timeoutMs / 1000)} s: it may be overloaded; check it, then retry.`));
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      try {
        ws.send(JSON.stringify({ kind: 'invoke', id, method, req }));
      } catch (e) {
        this.pending.delete(id);
        this.clock.clearTimeout(timer);
        resolve(err('unavailable', `${this.rigName}: ${errorMessage(e)}`));
      }
    });
  }

  /** The result frame for invoke `id`; one for an invoke already answered (or never sent) is dropped. */
  settle(id: number, result: Result<unknown>): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.clock.clearTimeout(p.timer);
    p.resolve(result);
  }

  /** Answers every waiting invoke with `unavailable` and `message` (the socket is gone). */
  failAll(message: string): void {
    for (const [id, p] of this.pending) {
      this.clock.clearTimeout(p.timer);
      p.resolve(err('unavailable', message));
      this.pending.delete(id);
    }
  }
}
