// TEST DOUBLE, never shipped: the engy provider's light-validator API, signed by a dev master key.
// Serves /api/subnet/v1/epoch/latest, /epoch/current and /epoch/{i}; switches for outages (503,
// reset, refused) and hostile payloads; verifies and records incoming validator heartbeats.
// In-process: `await startProviderDouble()`. Child process: `node test/doubles/provider.ts --port 0`
// prints `PROVIDER_URL=<url>` and `MASTER_HOTKEY=<ss58>`; POST /__double/epoch and /__double/mode drive it.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { polkadot } from '../../electron/engine/lib/polkadot.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { decodeAddress, sr25519Verify } = polkadot('@polkadot/util-crypto');

export const DEV_MASTER_URI = '//EngyDevMaster';
export const DEV_WRONG_KEY_URI = '//EngyDevImpostor';

export interface DevKey {
  address: string;
  sign(message: Uint8Array): Uint8Array;
}

export function devKey(uri: string): DevKey {
  const pair = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromUri(uri);
  return { address: pair.address, sign: (m) => pair.sign(m) };
}

export type Weights = Array<[string, number]>;

/** The span an epoch scored, as instants (ms). */
export interface EpochWindow {
  startMs: number;
  endMs: number;
}

export interface SignedPayload {
  v: number;
  netuid: number;
  epoch_index: number;
  epoch_start: string;
  epoch_end: string;
  digest: string;
  result_json: string;
  signature: string;
  signed_at: string;
  weights: Weights;
  signed_hotkey: string;
}

const sha256Hex = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

/** A payload exactly as the provider signs it: the master signs sha256(result_json), not the display weights. */
export function signedPayload(opts: { epochIndex: number; weights: Weights; netuid?: number; signer?: DevKey; resultExtra?: Record<string, unknown>; window?: EpochWindow }): SignedPayload {
  const netuid = opts.netuid ?? 53;
  const signer = opts.signer ?? devKey(DEV_MASTER_URI);
  // Without a window: daily epochs counted from 2026-01-01, as production dates them (fixed, so vectors stay stable).
  const start = new Date(opts.window?.startMs ?? Date.UTC(2026, 0, 1) + opts.epochIndex * 86_400_000).toISOString();
  const end = new Date(opts.window?.endMs ?? Date.UTC(2026, 0, 1) + (opts.epochIndex + 1) * 86_400_000).toISOString();
  const result = {
    v: 1,
    netuid,
    epoch_index: opts.epochIndex,
    epoch_start: start,
    epoch_end: end,
    miners: opts.weights.map(([hotkey, w]) => ({ hotkey, score_micro: w * 1000, gate_reason: null })),
    params: { score_rate: { 'qwen3.6-35b-a3b': 1000 } },
    weights: opts.weights,
    ...opts.resultExtra,
  };
  const resultJson = JSON.stringify(result);
  const digest = sha256Hex(resultJson);
  const sig = signer.sign(Buffer.from(`engy-sn53:epoch:v1:${netuid}:${opts.epochIndex}:${digest}`, 'utf8'));
  return {
    v: 1,
    netuid,
    epoch_index: opts.epochIndex,
    epoch_start: start,
    epoch_end: end,
    digest,
    result_json: resultJson,
    signature: Buffer.from(sig).toString('hex'),
    signed_at: end,
    weights: opts.weights,
    signed_hotkey: signer.address,
  };
}

/** How /epoch/latest answers. `ok` serves the latest published epoch as signed. */
export type ProviderMode = 'ok' | 'outage-503' | 'reset' | 'tampered' | 'tampered-redigested' | 'replay' | 'wrong-key' | 'oversized' | 'oversized-chunked' | 'display-lies' | 'garbage' | 'slow';

export interface RecordedHeartbeat {
  hotkey: string;
  ts: number;
  body: string;
  valid: boolean;
  json: unknown;
}

export interface ProviderDouble {
  url: string;
  port: number;
  masterHotkey: string;
  mode: ProviderMode;
  readonly heartbeats: RecordedHeartbeat[];
  /** Requests to /epoch/latest, including failed ones. */
  readonly latestHits: number;
  /** `resultExtra` adds (or overrides) result_json fields, e.g. the scored `miners` rows. */
  publish(epochIndex: number, weights: Weights, resultExtra?: Record<string, unknown>, window?: EpochWindow): SignedPayload;
  latest(): SignedPayload | null;
  /** Close the listening socket: connections are refused until `resume()` listens on the same port. */
  refuse(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startProviderDouble(opts: { port?: number; host?: string; netuid?: number; master?: DevKey } = {}): Promise<ProviderDouble> {
  const netuid = opts.netuid ?? 53;
  const master = opts.master ?? devKey(DEV_MASTER_URI);
  const impostor = devKey(DEV_WRONG_KEY_URI);
  const epochs = new Map<number, SignedPayload>();
  let latestIndex: number | null = null;
  let hits = 0;
  const heartbeats: RecordedHeartbeat[] = [];
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, status: number, body: string, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const latestBody = (): { status: number; body: string } | 'reset' => {
    const cur = latestIndex === null ? null : (epochs.get(latestIndex) ?? null);
    switch (api.mode) {
      case 'outage-503':
        return { status: 503, body: '{"detail":"maintenance"}' };
      case 'reset':
        return 'reset';
      case 'garbage':
        return { status: 200, body: '<html>502 bad gateway</html>' };
      case 'oversized': {
        const big = signedPayload({ epochIndex: (latestIndex ?? 0) + 1, weights: [], netuid, signer: master, resultExtra: { padding: 'x'.repeat(1024 * 1024 + 10) } });
        return { status: 200, body: JSON.stringify(big) };
      }
      case 'ok':
      case 'oversized-chunked':
      case 'display-lies':
      case 'slow':
      case 'tampered':
      case 'tampered-redigested':
      case 'replay':
      case 'wrong-key':
        break;
    }
    if (!cur) return { status: 404, body: '{"detail":"no finalized epoch"}' };
    switch (api.mode) {
      case 'tampered': {
        const r = JSON.parse(cur.result_json) as { weights: Weights };
        r.weights = r.weights.map(([h], i) => [h, i === 0 ? 65535 : 0]);
        return { status: 200, body: JSON.stringify({ ...cur, result_json: JSON.stringify(r) }) };
      }
      case 'tampered-redigested': {
        const r = JSON.parse(cur.result_json) as { weights: Weights };
        r.weights = r.weights.map(([h], i) => [h, i === 0 ? 65535 : 0]);
        const rj = JSON.stringify(r);
        return { status: 200, body: JSON.stringify({ ...cur, result_json: rj, digest: sha256Hex(rj) }) };
      }
      case 'replay': {
        const older = [...epochs.keys()].filter((i) => i < (latestIndex ?? 0)).sort((a, b) => a - b)[0];
        return { status: 200, body: JSON.stringify(older === undefined ? cur : epochs.get(older)) };
      }
      case 'wrong-key': {
        const r = JSON.parse(cur.result_json) as { weights: Weights };
        return { status: 200, body: JSON.stringify(signedPayload({ epochIndex: cur.epoch_index, weights: r.weights, netuid, signer: impostor })) };
      }
      case 'display-lies':
        // The signed bytes are intact; only the unsigned display field is forged.
        return { status: 200, body: JSON.stringify({ ...cur, weights: [[impostor.address, 65535]] }) };
      case 'ok':
      case 'oversized-chunked':
      case 'slow':
        return { status: 200, body: JSON.stringify(cur) };
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/api/subnet/v1/epoch/latest') {
      hits++;
      const out = latestBody();
      if (out === 'reset') {
        req.socket.destroy();
        return;
      }
      if (api.mode === 'oversized-chunked') {
        // No content-length: only a streamed cap stops this one.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('x'.repeat(2.5 * 1024 * 1024));
        res.end();
        return;
      }
      if (api.mode === 'slow') await new Promise((r) => setTimeout(r, 60_000).unref());
      return send(res, out.status, out.body);
    }
    if (req.method === 'GET' && path === '/api/subnet/v1/epoch/current') {
      const next = (latestIndex ?? -1) + 1;
      return send(res, 200, JSON.stringify({ epoch_index: next, status: 'in_flight' }));
    }
    const m = /^\/api\/subnet\/v1\/epoch\/(\d+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const p = epochs.get(Number(m[1]));
      return p ? send(res, 200, JSON.stringify(p)) : send(res, 404, '{"detail":"unknown epoch"}');
    }
    if (req.method === 'POST' && path === '/api/subnet/v1/validator/heartbeat') {
      const body = await readBody(req);
      const hotkey = String(req.headers['x-validator-hotkey'] ?? '');
      const ts = Number(req.headers['x-validator-ts'] ?? NaN);
      const sig = String(req.headers['x-validator-sig'] ?? '');
      let valid = false;
      try {
        const msg = `engy-sn53:api:v1:${netuid}:POST:${path}:${ts}:${sha256Hex(body)}`;
        valid = /^[0-9a-f]{128}$/.test(sig) && Number.isSafeInteger(ts) && sr25519Verify(Buffer.from(msg, 'utf8'), Buffer.from(sig, 'hex'), decodeAddress(hotkey));
      } catch {
        valid = false;
      }
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      heartbeats.push({ hotkey, ts, body, valid, json });
      return valid ? send(res, 200, '{"ok":true}') : send(res, 401, '{"detail":"bad signature"}');
    }
    if (req.method === 'POST' && path === '/__double/epoch') {
      const b = JSON.parse(await readBody(req)) as { epoch_index: number; weights: Weights };
      api.publish(b.epoch_index, b.weights);
      return send(res, 200, '{"ok":true}');
    }
    if (req.method === 'POST' && path === '/__double/mode') {
      const b = JSON.parse(await readBody(req)) as { mode: ProviderMode };
      api.mode = b.mode;
      return send(res, 200, '{"ok":true}');
    }
    if (req.method === 'GET' && path === '/__double/heartbeats') return send(res, 200, JSON.stringify(heartbeats));
    send(res, 404, '{"detail":"not found"}');
  };

  let server: Server = createServer();
  const wire = (s: Server) => {
    s.on('request', (req, res) => {
      handle(req, res).catch((e: unknown) => send(res, 500, JSON.stringify({ detail: String(e) })));
    });
    s.on('connection', (sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
  };
  wire(server);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const closeServer = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });

  const api: ProviderDouble = {
    url: `http://${host}:${port}`,
    port,
    masterHotkey: master.address,
    mode: 'ok',
    heartbeats,
    get latestHits() {
      return hits;
    },
    publish(epochIndex, weights, resultExtra, window) {
      const p = signedPayload({ epochIndex, weights, netuid, signer: master, ...(resultExtra ? { resultExtra } : {}), ...(window ? { window } : {}) });
      epochs.set(epochIndex, p);
      if (latestIndex === null || epochIndex > latestIndex) latestIndex = epochIndex;
      return p;
    },
    latest: () => (latestIndex === null ? null : (epochs.get(latestIndex) ?? null)),
    refuse: closeServer,
    async resume() {
      server = createServer();
      wire(server);
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
    },
    close: closeServer,
  };
  return api;
}

async function mainCli(argv: string[]): Promise<void> {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const p = await startProviderDouble({ port: Number(arg('port') ?? 0) });
  const epoch = arg('epoch');
  const weights = arg('weights');
  if (epoch !== undefined) p.publish(Number(epoch), weights ? (JSON.parse(weights) as Weights) : []);
  process.stdout.write(`PROVIDER_URL=${p.url}\nMASTER_HOTKEY=${p.masterHotkey}\n`);
  const stop = () => void p.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) void mainCli(process.argv.slice(2));
