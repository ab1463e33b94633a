// The gateway double's verdict on a worker's legs depends on its clock and on which legs are
// live, never on how fast a loaded machine opens sockets: legs that arrive after the 3 s window
// are waited for; a worker that declared too few legs is refused once they are all live.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { helloFrame } from '../../../electron/engine/miner/frames.ts';
import { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { ManualClock } from '../../doubles/ops/update-driver-double.ts';

const KEY = 'mk-judge-0123456789abcdef';
const open: WebSocket[] = [];
let gw: GatewayDouble | null = null;

afterEach(async () => {
  for (const ws of open.splice(0)) ws.terminate();
  await gw?.stop();
  gw = null;
});

/** One leg of a worker declaring `total` in flight, resolved once the gateway admitted it. */
async function leg(url: string, index: number, total: number): Promise<WebSocket> {
  const ws = new WebSocket(`${url}/${index}`);
  open.push(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const admitted = new Promise<void>((resolve) => ws.on('message', (d) => JSON.parse(String(d)).type === 'admit' && resolve()));
  const hw = { host: 'h', cpus: 1, ram_gb: 1, gpu: 'none', gpu_count: 0, gpu_mem_gb: 0, gpus: '', parallelism: 'tp1' };
  const capacity = { max_inflight: Math.max(1, Math.floor(total / 8)), max_inflight_total: total, max_input_tokens: 100, max_output_tokens: 100, max_request_s: 60 };
  ws.send(JSON.stringify(helloFrame({ miner_key: KEY, model: 'm', model_root: 'r', hw, versions: {}, capacity, worker_name: 'w', worker_id: 'w-1' })));
  await admitted;
  return ws;
}

const state = () => gw!.worker()?.state;

describe('gateway double: leg judging on a controlled clock', () => {
  it('waits past the 3 s window for declared legs that are late, then judges them all', async () => {
    const clock = new ManualClock();
    gw = new GatewayDouble({ workers: 8, keys: [KEY], probe: false, clock });
    const url = await gw.start();
    for (let i = 0; i < 7; i++) await leg(url, i, 24);
    clock.advance(10_000);
    expect(state()).toBe('connecting');
    await leg(url, 7, 24);
    await expect.poll(state, { timeout: 20_000 }).toBe('probing');
    expect(gw.worker()!.reason).toBeNull();
  });

  it('gives no verdict before the window even with every leg live', async () => {
    const clock = new ManualClock();
    gw = new GatewayDouble({ workers: 8, keys: [KEY], probe: false, clock });
    const url = await gw.start();
    for (let i = 0; i < 8; i++) await leg(url, i, 24);
    clock.advance(2_999);
    expect(state()).toBe('connecting');
    clock.advance(1);
    await expect.poll(state, { timeout: 20_000 }).toBe('probing');
  });

  it("refuses a worker that declared 5 legs with the operators' reason once the 5 are live", async () => {
    const clock = new ManualClock();
    gw = new GatewayDouble({ workers: 8, keys: [KEY], probe: false, clock });
    const url = await gw.start();
    for (let i = 0; i < 5; i++) await leg(url, i, 5);
    clock.advance(3_000);
    await expect.poll(state, { timeout: 20_000 }).toBe('refused');
    expect(gw.worker()!.reason).toBe('offered 5 distinct clean legs, below the required 8');
  });

  it('judges legs that never came as missing at the deadline', async () => {
    const clock = new ManualClock();
    gw = new GatewayDouble({ workers: 8, keys: [KEY], probe: false, clock, legDeadlineMs: 30_000 });
    const url = await gw.start();
    for (let i = 0; i < 6; i++) await leg(url, i, 24);
    clock.advance(29_999);
    expect(state()).toBe('connecting');
    clock.advance(1);
    await expect.poll(state, { timeout: 20_000 }).toBe('refused');
    expect(gw.worker()!.reason).toBe('offered 6 distinct clean legs, below the required 8');
  });
});
