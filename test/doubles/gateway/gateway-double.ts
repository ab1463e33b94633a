// TEST DOUBLE (gateway): the gateway side of the engy pool protocol. `/meta` (scalable, or broken
// on demand), N worker endpoints, key-based admit/deny, leg judging ~3 s after a worker's first
// hello (on an injected clock, and only once every leg the worker declared is live, so a loaded
// machine that opens the eighth leg late is never refused for it), probe waves that fill every
// declared slot, stream and non-stream serves, cancels, pings, reconnect drains, routing across
// workers, and an audit of every commitment. Never the real gateway.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { systemClock, type Clock } from '../../../electron/engine/lib/clock.ts';
import type { ChunkFrame, HelloFrame, ResponseFrame, ServeRequest } from '../../../electron/engine/miner/frames.ts';
import { parseMinerFrame } from '../../../electron/engine/miner/frames.ts';
import type { AuditResult, Auditor } from './audit.ts';
import { judgeProbe, type ProbeRule, DEFAULT_PROBE_RULE } from './qualification.ts';

export type WorkerState = 'connecting' | 'probing' | 'active' | 'refused';

export interface ProbeOptions {
  waves: number;
  promptWords: number;
  maxTokens: number;
}

export interface GatewayDoubleOptions {
  workers: number;
  port?: number;
  host?: string;
  keys: string[];
  /** Legs a worker must have live when judged (min(8, workers) by default). */
  requiredLegs?: number;
  /** The real gateway's window: no verdict before this long after the first hello (3000 ms by default). */
  judgeAfterMs?: number;
  /**
   * Legs the worker declared (its capacity implies min(workers, max_inflight_total) of them) but
   * never opened are judged missing only after this long (30 s by default): a verdict that waits
   * for slow legs instead of racing them, so load alone never refuses a worker.
   */
  legDeadlineMs?: number;
  /** Time for both windows; tests pass a manual clock to judge without sleeping. */
  clock?: Clock;
  /** false: no automatic probe; tests drive traffic themselves. */
  probe?: ProbeOptions | false;
  rule?: ProbeRule;
  auditor?: Auditor;
  /** Every frame the miner sent, raw, for the protocol test. */
  recordFrames?: boolean;
  /** Prefix of corr_ids, so serves of successive gateway instances (a restart) never share one. */
  corrPrefix?: string;
}

export interface ServeResult {
  corrId: string;
  leg: number;
  chunks: ChunkFrame[];
  response: ResponseFrame | null;
  cancelled: boolean;
  ttftMs: number;
  e2eMs: number;
  /** When the serve frame went out, epoch ms with sub-ms precision (comparable across processes). */
  sentAt: number;
  audit: AuditResult | null;
}

interface Conn {
  ws: WebSocket;
  leg: number;
  hello: HelloFrame | null;
  admitted: boolean;
  heartbeats: number;
}

interface Pending {
  conn: Conn;
  sentAt: number;
  firstAt: number | null;
  chunks: ChunkFrame[];
  cancelled: boolean;
  resolve: (r: ServeResult) => void;
  result: Promise<ServeResult>;
}

export interface WorkerView {
  workerId: string;
  workerName: string;
  /** The key its hello carried (a double: the real gateway never shows it). */
  minerKey: string;
  state: WorkerState;
  reason: string | null;
  legs: number[];
  capacityTotal: number;
  audits: AuditResult[];
  probeResults: { ok: number; failed: number };
}

type JudgedWorker = WorkerView & { conns: Set<Conn>; windowOver: boolean; judged: boolean };

export class GatewayDouble {
  readonly opts: GatewayDoubleOptions;
  private server: Server | null = null;
  private wss: WebSocketServer | null = null;
  private readonly conns = new Set<Conn>();
  private readonly pending = new Map<string, Pending>();
  private readonly workersById = new Map<string, JudgedWorker>();
  private corrSeq = 0;
  /** Frames that arrived for a corr_id after its cancel: must stay empty. */
  readonly framesAfterCancel: string[] = [];
  readonly frames: unknown[] = [];
  readonly helloCount = { total: 0 };
  url = '';
  /** Sees every text frame the miner sent (the chaos test counts responses per corr_id). */
  onFrame: ((text: string) => void) | null = null;
  /** Every corr_id this gateway sent a serve for, probes included. */
  readonly sentCorrIds = new Set<string>();

  /** What `/meta` answers instead of the worker count (a broken or hostile gateway); null: the count. */
  private metaOverride: { status: number; body: string } | null = null;

  constructor(opts: GatewayDoubleOptions) {
    this.opts = opts;
  }

  /** A scale event: the gateway now runs `n` worker processes (endpoints 0..n-1). */
  setWorkers(n: number): void {
    this.opts.workers = n;
  }

  setMeta(answer: { status: number; body: string } | null): void {
    this.metaOverride = answer;
  }

  async start(): Promise<string> {
    this.wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    this.server = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/gw/meta') {
        if (this.metaOverride !== null) {
          res.writeHead(this.metaOverride.status, { 'content-type': 'application/json' });
          res.end(this.metaOverride.body);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ workers: this.opts.workers }));
        return;
      }
      if (req.method === 'GET' && req.url === '/gw/view') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ workers: this.view(), framesAfterCancel: this.framesAfterCancel }));
        return;
      }
      res.writeHead(404).end();
    });
    this.server.on('upgrade', (req, socket, head) => {
      const leg = this.legOf(req);
      if (leg === null) {
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
        return;
      }
      this.wss!.handleUpgrade(req, socket, head, (ws) => this.accept(ws, leg));
    });
    await new Promise<void>((r) => this.server!.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', r));
    const port = (this.server.address() as AddressInfo).port;
    this.url = `ws://${this.opts.host ?? '127.0.0.1'}:${port}/gw`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const c of this.conns) c.ws.terminate();
    this.wss?.close();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server?.closeAllConnections();
  }

  /** Admits one more miner key from now on (the simulated network issuing a key for a newly registered hotkey). */
  admitKey(key: string): void {
    if (!this.opts.keys.includes(key)) this.opts.keys.push(key);
  }

  view(): WorkerView[] {
    return [...this.workersById.values()].map((w) => ({
      workerId: w.workerId,
      workerName: w.workerName,
      minerKey: w.minerKey,
      state: w.state,
      reason: w.reason,
      legs: liveLegs(w.conns),
      capacityTotal: w.capacityTotal,
      audits: [...w.audits],
      probeResults: { ...w.probeResults },
    }));
  }

  worker(): WorkerView | undefined {
    return this.view()[0];
  }

  /** Send one request to a live leg of the (first) worker; resolves when answered or cancelled. */
  serve(request: ServeRequest, opts: { stream: boolean; leg?: number; workerId?: string }): { corrId: string; done: Promise<ServeResult> } {
    const conn = this.pickConn(opts.leg, opts.workerId);
    if (!conn) throw new Error('no live admitted leg to serve on');
    return this.sendServe(conn, request, opts.stream);
  }

  /**
   * Route one request as the gateway does across workers: to a live admitted leg of any worker
   * that is not refused, picked at random. Null when no leg is live (a buyer would wait or fail).
   */
  route(request: ServeRequest, stream: boolean, random: () => number = Math.random): { corrId: string; workerId: string; leg: number; done: Promise<ServeResult> } | null {
    const open = [...this.workersById.values()].filter((w) => w.state !== 'refused').flatMap((w) => currentConns(w.conns).map((c) => ({ w, c })));
    if (open.length === 0) return null;
    const pick = open[Math.floor(random() * open.length)]!;
    return { ...this.sendServe(pick.c, request, stream), workerId: pick.w.workerId, leg: pick.c.leg };
  }

  cancel(corrId: string): void {
    const p = this.pending.get(corrId);
    if (!p) return;
    p.cancelled = true;
    p.conn.ws.send(JSON.stringify({ type: 'cancel', corr_id: corrId }));
    p.resolve({ corrId, leg: p.conn.leg, chunks: p.chunks, response: null, cancelled: true, ttftMs: 0, e2eMs: nowMs() - p.sentAt, sentAt: p.sentAt, audit: null });
  }

  /** Ask the current socket of a leg to re-dial (a gateway deploy). */
  reconnect(leg: number): void {
    for (const c of this.conns) if (c.leg === leg && c.admitted) c.ws.send(JSON.stringify({ type: 'reconnect' }));
  }

  /** Send raw bytes on every socket of a leg: malformed frames for the chaos test. */
  sendRaw(leg: number, data: string | Buffer): void {
    for (const c of this.conns) if (c.leg === leg) c.ws.send(data);
  }

  ping(leg: number): void {
    for (const c of this.conns) if (c.leg === leg) c.ws.send(JSON.stringify({ type: 'ping' }));
  }

  heartbeats(leg: number): number {
    let n = 0;
    for (const c of this.conns) if (c.leg === leg) n += c.heartbeats;
    return n;
  }

  /** Open sockets per leg index (a draining old socket and its replacement count twice). */
  socketsOn(leg: number): number {
    return [...this.conns].filter((c) => c.leg === leg).length;
  }

  private legOf(req: IncomingMessage): number | null {
    const path = (req.url ?? '').split('?')[0]!;
    if (this.opts.workers === 1 && path === '/gw') return 0;
    const m = /^\/gw\/(\d+)$/.exec(path);
    if (!m) return null;
    const i = Number(m[1]);
    return i < this.opts.workers ? i : null;
  }

  private accept(ws: WebSocket, leg: number): void {
    const conn: Conn = { ws, leg, hello: null, admitted: false, heartbeats: 0 };
    this.conns.add(conn);
    ws.on('message', (data) => this.onMessage(conn, data.toString()));
    ws.on('close', () => {
      this.conns.delete(conn);
      for (const w of this.workersById.values()) w.conns.delete(conn);
      // As the gateway does: a request still waiting on a socket that went away fails (its 504).
      for (const [corrId, p] of [...this.pending]) {
        if (p.conn !== conn || p.cancelled) continue;
        this.pending.delete(corrId);
        p.resolve({ corrId, leg: conn.leg, chunks: p.chunks, response: null, cancelled: false, ttftMs: 0, e2eMs: nowMs() - p.sentAt, sentAt: p.sentAt, audit: null });
      }
    });
  }

  private onMessage(conn: Conn, text: string): void {
    if (this.opts.recordFrames) this.frames.push(JSON.parse(text) as unknown);
    this.onFrame?.(text);
    const f = parseMinerFrame(text);
    if (!f) return;
    switch (f.type) {
      case 'hello':
        this.onHello(conn, f);
        return;
      case 'heartbeat':
        conn.heartbeats += 1;
        return;
      case 'chunk': {
        const p = this.pending.get(String(f.corr_id));
        if (!p || p.cancelled) {
          if (p?.cancelled) this.framesAfterCancel.push(String(f.corr_id));
          return;
        }
        p.firstAt ??= nowMs();
        p.chunks.push(f);
        return;
      }
      case 'response': {
        const p = this.pending.get(String(f.corr_id));
        if (!p) return;
        if (p.cancelled) {
          this.framesAfterCancel.push(String(f.corr_id));
          return;
        }
        this.pending.delete(String(f.corr_id));
        void this.finish(p, f);
        return;
      }
    }
  }

  private async finish(p: Pending, f: ResponseFrame): Promise<void> {
    const now = nowMs();
    let audit: AuditResult | null = null;
    if (f.commitment && this.opts.auditor) {
      audit = await this.opts.auditor(f.request_id, f.commitment).catch((e: unknown) => ({ requestId: f.request_id, verdict: 'unproven' as const, score: null, chunks: 0, reason: String(e) }));
      const w = p.conn.hello ? this.workersById.get(p.conn.hello.worker_id) : undefined;
      w?.audits.push(audit);
    }
    p.resolve({ corrId: String(f.corr_id), leg: p.conn.leg, chunks: p.chunks, response: f, cancelled: false, ttftMs: (p.firstAt ?? now) - p.sentAt, e2eMs: now - p.sentAt, sentAt: p.sentAt, audit });
  }

  private onHello(conn: Conn, h: HelloFrame): void {
    this.helloCount.total += 1;
    conn.hello = h;
    if (!this.opts.keys.includes(h.miner_key)) {
      conn.ws.send(JSON.stringify({ type: 'deny', reason: 'unknown miner key' }));
      return;
    }
    let w = this.workersById.get(h.worker_id);
    if (!w) {
      const clock = this.opts.clock ?? systemClock;
      w = {
        workerId: h.worker_id,
        workerName: h.worker_name,
        minerKey: h.miner_key,
        state: 'connecting',
        reason: null,
        legs: [],
        capacityTotal: h.capacity.max_inflight_total,
        audits: [],
        probeResults: { ok: 0, failed: 0 },
        conns: new Set(),
        windowOver: false,
        judged: false,
      };
      this.workersById.set(h.worker_id, w);
      const worker = w;
      clock.setTimeout(() => {
        worker.windowOver = true;
        this.judgeWhenReady(worker);
      }, this.opts.judgeAfterMs ?? 3000);
      clock.setTimeout(() => this.judgeOnce(worker), this.opts.legDeadlineMs ?? 30_000);
    }
    w.conns.add(conn);
    conn.admitted = true;
    conn.ws.send(JSON.stringify({ type: 'admit' }));
    if (w.state === 'refused' && w.reason) conn.ws.send(JSON.stringify({ type: 'deny', reason: w.reason }));
    this.judgeWhenReady(w);
  }

  /** The verdict comes once the window is over and every declared leg is live (or at the deadline). */
  private judgeWhenReady(w: JudgedWorker): void {
    if (!w.windowOver || w.judged) return;
    const declared = Math.min(this.opts.workers, Math.max(1, w.capacityTotal));
    if (liveLegs(w.conns).length >= declared) this.judgeOnce(w);
  }

  private judgeOnce(w: JudgedWorker): void {
    if (w.judged) return;
    w.judged = true;
    void this.judge(w);
  }

  private async judge(w: JudgedWorker): Promise<void> {
    const required = this.opts.requiredLegs ?? Math.min(8, this.opts.workers);
    const legs = liveLegs(w.conns);
    if (legs.length < required) return this.refuse(w, `offered ${legs.length} distinct clean legs, below the required ${required}`);
    if (this.opts.probe === false) {
      w.state = 'probing';
      return;
    }
    w.state = 'probing';
    const probe = this.opts.probe ?? { waves: 1, promptWords: 40, maxTokens: 24 };
    const results: ServeResult[] = [];
    for (let wave = 0; wave < probe.waves; wave++) {
      const sends: Promise<ServeResult>[] = [];
      for (const conn of currentConns(w.conns)) {
        const slots = conn.hello?.capacity.max_inflight ?? 1;
        for (let s = 0; s < slots; s++) {
          const n = sends.length;
          sends.push(this.sendServe(conn, probeRequest(wave, n, probe), n % 2 === 0).done);
        }
      }
      results.push(...(await Promise.all(sends)));
    }
    w.probeResults.ok = results.filter((r) => r.response?.commitment).length;
    w.probeResults.failed = results.length - w.probeResults.ok;
    const verdict = judgeProbe(results, this.opts.rule ?? DEFAULT_PROBE_RULE, this.opts.auditor !== undefined);
    if (verdict.ok) w.state = 'active';
    else this.refuse(w, verdict.reason);
  }

  private refuse(w: WorkerView & { conns: Set<Conn> }, reason: string): void {
    w.state = 'refused';
    w.reason = reason;
    for (const c of w.conns) c.ws.send(JSON.stringify({ type: 'deny', reason }));
  }

  private pickConn(leg: number | undefined, workerId: string | undefined): Conn | undefined {
    const w = workerId ? this.workersById.get(workerId) : [...this.workersById.values()][0];
    if (!w) return undefined;
    const conns = currentConns(w.conns);
    return leg === undefined ? conns[this.corrSeq % Math.max(1, conns.length)] : conns.find((c) => c.leg === leg);
  }

  private sendServe(conn: Conn, request: ServeRequest, stream: boolean): { corrId: string; done: Promise<ServeResult> } {
    const corrId = `${this.opts.corrPrefix ?? ''}corr-${++this.corrSeq}`;
    this.sentCorrIds.add(corrId);
    let resolve!: (r: ServeResult) => void;
    const result = new Promise<ServeResult>((r) => (resolve = r));
    this.pending.set(corrId, { conn, sentAt: nowMs(), firstAt: null, chunks: [], cancelled: false, resolve, result });
    conn.ws.send(JSON.stringify({ type: 'serve', corr_id: corrId, request, stream }));
    return { corrId, done: result };
  }
}

/** Latencies in sub-ms epoch time, so a bench can line them up with another process's clock. */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The newest admitted socket per leg index. */
function currentConns(conns: Set<Conn>): Conn[] {
  const byLeg = new Map<number, Conn>();
  for (const c of conns) if (c.admitted && c.ws.readyState === c.ws.OPEN) byLeg.set(c.leg, c);
  return [...byLeg.values()].sort((a, b) => a.leg - b.leg);
}

function liveLegs(conns: Set<Conn>): number[] {
  return currentConns(conns).map((c) => c.leg);
}

const WORDS = 'the quick brown fox jumps over lazy dog a small model answers question with care inference on graphics card turns prompt into tokens and text'.split(' ');

function probeRequest(wave: number, n: number, p: ProbeOptions): ServeRequest {
  const words = Array.from({ length: p.promptWords }, (_, i) => WORDS[(i * 7 + n * 3 + wave) % WORDS.length]!);
  return { messages: [{ role: 'user', content: `probe ${wave}.${n}: ${words.join(' ')}` }], max_tokens: p.maxTokens, engy_request_id: `probe-${wave}-${n}` };
}
