// A bench reference, not a miner: the least any relay between the gateway and the serve can add on
// this machine. It does only the hops a miner cannot avoid: a `serve` frame in over one of the legs,
// the prompt's token ids looked up (built once by the bench, so no template or tokenizer runs here),
// one POST to the serve through the miner's own HTTP client and its kept-warm connections (so a burst
// meets connected sockets here just as it does at the miner), each new text of the streamed answer out
// as a `chunk` frame, and an unproven `response` at the end. No records, no proof, no coalescing.
// miner.bench.ts runs it beside the miner, in its own process, in the same alternated rounds.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import WebSocket from 'ws';
import { postGenerate } from '../electron/engine/miner/serve-http.ts';
import { ServeSocketPool } from '../electron/engine/miner/serve-socket-pool.ts';
import { SseTextScanner } from '../electron/engine/miner/sse-text.ts';

export type RelayCommand = { cmd: 'mark' } | { cmd: 'report' } | { cmd: 'stop' };
export interface RelayReport {
  cpuMs: number;
}

const [gatewayUrl, serveUrl, idsFile, minerKey, legsArg] = process.argv.slice(2) as [string, string, string, string, string];
const legs = Number(legsArg);
// First message text -> its prompt ids, as miner.bench.ts built them with the checkpoint's template.
const idsByText = new Map(JSON.parse(readFileSync(idsFile, 'utf8')) as [string, number[]][]);
// The miner's own client for an `http:` serve: kept connections, replaced as they time out while the
// serve is in use. The agent is only its `https:` path, unused here.
const sockets = new ServeSocketPool();
const agent = new Agent({ keepAlive: true });

interface ServeFrame {
  type: 'serve';
  corr_id: string;
  request: { messages: { content: string }[]; max_tokens: number };
}

function relay(ws: WebSocket, f: ServeFrame): void {
  const reply = (frame: object) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(frame));
  const ids = idsByText.get(f.request.messages[0]?.content ?? '');
  if (!ids) {
    reply({ type: 'response', corr_id: f.corr_id, request_id: f.corr_id, commitment: null, output: {}, error: { message: 'not a bench prompt', type: 'invalid_request_error', status: 400 } });
    return;
  }
  const body = {
    input_ids: ids,
    sampling_params: { temperature: 0, max_new_tokens: f.request.max_tokens },
    rid: `relay-${f.corr_id}`,
    return_hidden_states: true,
    return_logprob: true,
    stream: true,
  };
  let sent = '';
  const scanner = new SseTextScanner((e) => {
    if (e.text === null || e.text.length <= sent.length) return;
    reply({ type: 'chunk', corr_id: f.corr_id, delta: { content: e.text.slice(sent.length) } });
    sent = e.text;
  });
  const end = (error: string | null) =>
    reply({
      type: 'response',
      corr_id: f.corr_id,
      request_id: f.corr_id,
      commitment: null,
      output: { content: sent },
      ...(error ? { error: { message: error, type: 'server_error', status: 502 } } : {}),
    });
  postGenerate(serveUrl, body, agent, (view) => scanner.push(view), { timeoutMs: 60_000, sockets }).then(
    () => {
      scanner.end();
      end(null);
    },
    (e: unknown) => end(e instanceof Error ? e.message : String(e)),
  );
}

let admitted = 0;
const legSockets: WebSocket[] = [];
for (let i = 0; i < legs; i++) {
  const ws = new WebSocket(`${gatewayUrl}/${i}`, { headers: { authorization: `Bearer ${minerKey}` } });
  legSockets.push(ws);
  ws.on('open', () =>
    ws.send(
      JSON.stringify({
        type: 'hello',
        miner_key: minerKey,
        model: 'bench-relay',
        model_root: 'bench-relay',
        hw: { host: 'bench', cpus: 2, ram_gb: 8, gpu: 'none', gpu_count: 0, gpu_mem_gb: 0, gpus: '0x none', parallelism: 'tp' },
        versions: { 'bench-relay': '1' },
        capacity: { max_inflight: 64, max_inflight_total: 64, max_input_tokens: 229_376, max_output_tokens: 32_768, max_request_s: 1800 },
        worker_name: 'bench-relay',
        instance_id: 'bench-relay',
        worker_id: 'bench-relay',
      }),
    ),
  );
  ws.on('message', (data) => {
    let f: { type?: unknown; corr_id?: unknown; request?: { messages?: unknown } };
    try {
      f = JSON.parse(data.toString()) as typeof f;
    } catch {
      return; // only the bench's own gateway double talks to it: a torn frame is dropped, not fatal
    }
    if (f.type === 'admit' && ++admitted === legs) process.send!({ ready: true });
    else if (f.type === 'serve' && typeof f.corr_id === 'string' && Array.isArray(f.request?.messages)) relay(ws, f as ServeFrame);
  });
  ws.on('error', (e) => console.error(`bench relay leg ${i}: ${e.message}`));
}

let cpu0 = process.cpuUsage();
const stop = () => {
  for (const ws of legSockets) ws.terminate();
  sockets.destroy();
  agent.destroy();
  process.exit(0);
};
process.on('disconnect', stop);
process.on('message', (m: RelayCommand) => {
  if (m.cmd === 'mark') {
    cpu0 = process.cpuUsage();
    process.send!({ marked: true });
  } else if (m.cmd === 'report') {
    const u = process.cpuUsage(cpu0);
    process.send!({ report: { cpuMs: (u.user + u.system) / 1000 } satisfies RelayReport });
  } else if (m.cmd === 'stop') stop();
});
