// Verifies a miner key the only way that means anything: one hello to the gateway, answered by
// `admit` or by the gateway's own `deny` reason (PROTOCOL 3). The leg is closed right after, under
// a throwaway worker name, so it never replaces or joins a running worker's legs.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import type { MinerKeyVerification } from '../../../shared/wallet.ts';
import { helloFrame, parseGatewayFrame, type HelloHw } from '../miner/frames.ts';
import { readGatewayWorkers, workerUrl, type FetchLike } from '../miner/leg-plan.ts';
import { describeNetworkError } from '../lib/network-words.ts';

export interface MinerKeyCheckOptions {
  gatewayUrl: string;
  key: string;
  model: string;
  modelRoot: string;
  hw: HelloHw;
  versions: Record<string, string>;
  fetch?: FetchLike;
  timeoutMs?: number;
}

type Verdict = Pick<MinerKeyVerification, 'state' | 'reason'>;

export async function checkMinerKey(o: MinerKeyCheckOptions): Promise<Verdict> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  let workers: number;
  try {
    workers = await readGatewayWorkers(o.gatewayUrl, o.fetch ?? (fetch as FetchLike), timeoutMs);
  } catch (e) {
    // A network failure carries its cause; without one, the gateway answered something unusable.
    const why = e instanceof Error && e.cause !== undefined ? describeNetworkError(e.cause) : 'its /meta answer has no usable worker count';
    return {
      state: 'unreachable',
      reason: `The gateway at ${o.gatewayUrl} did not say how many workers it runs: ${why}. Check the internet connection and the gateway address in Settings, then check again.`,
    };
  }
  const url = workerUrl(o.gatewayUrl, 0, workers);
  const hello = helloFrame({
    miner_key: o.key,
    model: o.model,
    model_root: o.modelRoot,
    hw: o.hw,
    versions: o.versions,
    capacity: { max_inflight: 1, max_inflight_total: 1, max_input_tokens: 229_376, max_output_tokens: 32_768, max_request_s: 1800 },
    worker_name: `keycheck-${randomBytes(4).toString('hex')}`,
    worker_id: randomBytes(16).toString('hex'),
  });
  return new Promise<Verdict>((resolve) => {
    let done = false;
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: timeoutMs, maxPayload: 1024 * 1024 });
    const finish = (v: Verdict) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      ws.removeAllListeners('message');
      ws.on('error', () => undefined);
      ws.close();
      resolve(v);
    };
    const timer = setTimeout(
      () => finish({ state: 'unreachable', reason: `The gateway at ${url} accepted the connection but did not answer the hello within ${Math.round(timeoutMs / 1000)} s: try again in a minute.` }),
      timeoutMs,
    );
    ws.on('open', () => ws.send(JSON.stringify(hello)));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const f = parseGatewayFrame(data.toString());
      if (!f.ok) return;
      if (f.frame.type === 'admit') finish({ state: 'admitted', reason: null });
      else if (f.frame.type === 'deny') finish({ state: 'denied', reason: f.frame.reason });
    });
    ws.on('error', (e) =>
      finish({ state: 'unreachable', reason: `Cannot reach the gateway at ${url} (${describeNetworkError(e)}). Check the internet connection and the gateway address in Settings, then check again.` }),
    );
    ws.on('close', () => finish({ state: 'unreachable', reason: `The gateway at ${url} closed the connection without answering the hello: try again in a minute.` }));
  });
}
