// TEST DOUBLE, never shipped: a rig's engine as the fleet sees it through the tunnel: a WebSocket on
// 127.0.0.1 that checks the bearer token, answers app.info, and sends snapshots. `behave` makes it
// hostile (malformed or oversized snapshots, never answering) for the broken-rig tests. It records the
// invokes it gets and can send any topic (the relay and rig-alert tests).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

export type FakeRigBehaviour = 'good' | 'malformed' | 'oversized' | 'silent';

export interface FakeRigEngine {
  port: number;
  token: string;
  /** Sends a miners snapshot with this many tokens per second to every client (the "live" figure). */
  push(tokensPerSecond: number): void;
  /** Sends any topic's snapshot to every client (the fleet bench: a busy rig's serve and earnings; the relay tests). */
  sendTopic(topic: string, data: unknown): void;
  /** Upgrades refused for a wrong or missing token (a link that reached this engine for another rig). */
  refusedCount(): number;
  /** Sends a raw text frame to every client (a hostile rig on the relay). */
  pushRaw(text: string): void;
  /** Every invoke received, in order (app.info included). */
  invoked: Array<{ method: string; req: unknown }>;
  /** Open WebSocket clients (the row's link, plus a relay while a full panel is open). */
  clientCount(): number;
  close(): Promise<void>;
}

const miner = (tps: number) => ({
  phase: 'active',
  stats: { windowMs: 300_000, ok: 10, errors: 0, acceptanceRate: 1, ttftMs: { p99: 900 }, tpotMs: { p99: 30 }, tokensPerSecond: tps, inflight: 1 },
  targets: { ttftP99Ms: 100_000, tpotP99Ms: 200, acceptance: 0.95 },
});

export async function startFakeRigEngine(behave: FakeRigBehaviour, opts: { contract?: number; oversizeBytes?: number; replay?: Record<string, unknown> } = {}): Promise<FakeRigEngine> {
  const invoked: Array<{ method: string; req: unknown }> = [];
  // Each engine its own token, as real engines have: a link that reached the wrong engine is refused
  // there (401), as it would be on real rigs, instead of reading another rig's snapshots as its own.
  const token = `fake${randomBytes(14).toString('hex')}`;
  let refused = 0;
  const server: Server = createServer((_, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  const clients = new Set<WebSocket>();
  let version = 1;
  const send = (ws: WebSocket, topic: string, data: unknown) => ws.send(JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic, version: version++, data } }));
  server.on('upgrade', (req, socket, head) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      refused++;
      return socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.add(ws);
      ws.on('close', () => clients.delete(ws));
      ws.on('message', (raw) => {
        const f = JSON.parse(raw.toString()) as { id: number; method: string; req: unknown };
        invoked.push({ method: f.method, req: f.req });
        if (behave === 'silent') return;
        if (f.method === 'app.info') ws.send(JSON.stringify({ kind: 'result', id: f.id, result: { ok: true, value: { version: '0.1.0', contract: opts.contract ?? 1 } } }));
        else if (f.method === 'mining.rehearse')
          ws.send(JSON.stringify({ kind: 'result', id: f.id, result: { ok: false, error: { code: 'conflict', message: 'No serve is running: start mining first.' } } }));
        else ws.send(JSON.stringify({ kind: 'result', id: f.id, result: { ok: true, value: null } }));
      });
      if (behave === 'malformed') {
        ws.send('{not json');
        ws.send(JSON.stringify([1, 2, 3]));
        send(ws, 'miners', [{ phase: 'active', stats: { tokensPerSecond: 'lots' } }]);
        send(ws, 'earnings', { epochs: 'x', __proto__: { polluted: true } });
        ws.send(JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic: { toString: 1 } } }));
      }
      if (behave === 'oversized') ws.send(JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic: 'miners', version: 1, data: 'x'.repeat(opts.oversizeBytes ?? 1_000_000) } }));
      if (behave !== 'silent') send(ws, 'settings', { role: 'mine' });
      if (behave !== 'silent') for (const [topic, data] of Object.entries(opts.replay ?? {})) send(ws, topic, data);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as { port: number }).port,
    token,
    push(tps) {
      for (const ws of clients) send(ws, 'miners', [miner(tps)]);
    },
    sendTopic(topic, data) {
      for (const ws of clients) send(ws, topic, data);
    },
    pushRaw(text) {
      for (const ws of clients) ws.send(text);
    },
    invoked,
    clientCount: () => clients.size,
    refusedCount: () => refused,
    close: async () => {
      for (const ws of clients) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
