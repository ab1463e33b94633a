// Slowloris defence for the headless server. Before a connection has shown the token it costs the
// engine a file descriptor and nothing has proved it is wanted, so: at most PER_ADDRESS such
// connections per remote address and TOTAL overall (the oldest is closed to make room, so a real
// client that connects now and sends its request at once is never the one refused), and one idle
// for idleMs, or still without the token deadlineMs after connecting, is closed (dripping a byte at
// a time defeats an idle timer, and Node's headersTimeout was seen to miss some under 1,100
// connections, so the guard keeps its own deadline). Once a request or
// upgrade shows the token the connection leaves the guard (a WebSocket may idle for hours).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface PreAuthLimits {
  perAddress: number;
  total: number;
  idleMs: number;
  deadlineMs: number;
}

/** Well under the common 1024-descriptor limit, leaving room for the database, logs and serve. */
export const PRE_AUTH_LIMITS: PreAuthLimits = { perAddress: 64, total: 400, idleMs: 15_000, deadlineMs: 20_000 };

export interface ConnectionGuard {
  /** The socket showed the token: it is no longer capped or timed out by the guard. */
  authenticated(socket: Socket): void;
  /** Connections not yet authenticated (for tests and diagnostics). */
  readonly pending: number;
}

export function guardConnections(server: Server, limits: PreAuthLimits = PRE_AUTH_LIMITS): ConnectionGuard {
  // Sets keep insertion order: the first element is the oldest.
  const all = new Set<Socket>();
  const byAddress = new Map<string, Set<Socket>>();
  const deadlines = new Map<Socket, NodeJS.Timeout>();
  const forget = (s: Socket): void => {
    all.delete(s);
    clearTimeout(deadlines.get(s));
    deadlines.delete(s);
    const key = s.remoteAddress ?? '?';
    const set = byAddress.get(key);
    if (!set) return;
    set.delete(s);
    if (set.size === 0) byAddress.delete(key);
  };
  const evictOldest = (set: Set<Socket>): void => {
    const oldest = set.values().next().value;
    if (!oldest) return;
    forget(oldest);
    oldest.destroy();
  };
  server.on('connection', (s: Socket) => {
    const key = s.remoteAddress ?? '?';
    let set = byAddress.get(key);
    if (!set) byAddress.set(key, (set = new Set()));
    set.add(s);
    all.add(s);
    s.once('close', () => forget(s));
    s.setTimeout(limits.idleMs, () => {
      if (all.has(s)) s.destroy();
    });
    const deadline = setTimeout(() => {
      if (!all.has(s)) return;
      forget(s);
      s.destroy();
    }, limits.deadlineMs);
    deadline.unref();
    deadlines.set(s, deadline);
    if (set.size > limits.perAddress) evictOldest(set);
    if (all.size > limits.total) evictOldest(all);
  });
  return {
    authenticated(s: Socket): void {
      if (!all.has(s)) return;
      forget(s);
      s.setTimeout(0);
    },
    get pending() {
      return all.size;
    },
  };
}
