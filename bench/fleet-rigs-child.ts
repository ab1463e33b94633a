// The fake rigs of fleet.bench.ts, in their own process so their work and memory never count as the
// panel's: N fake rig engines (test/doubles/fleet/fake-rig-engine.ts, each a WebSocket on 127.0.0.1
// speaking the contract), driven over IPC. Each push answers with the moment it was sent (epoch ms,
// sub-ms, comparable with the bench process's clock on the same machine). Exits with its parent.
import { startFakeRigEngine, type FakeRigEngine } from '../test/doubles/fleet/fake-rig-engine.ts';
import { absNow } from './report.ts';

export type RigsCommand =
  { cmd: 'start'; count: number } | { cmd: 'push'; rig: number; tps: number } | { cmd: 'busy'; everyMs: number } | { cmd: 'idle' } | { cmd: 'flood'; perRig: number; base: number } | { cmd: 'stop' };

export type RigsReport =
  | { ready: { port: number; token: string }[] }
  | { pushed: { rig: number; tps: number; at: number } }
  | { busy: { bytesPerRig: number } }
  | { idle: { sent: number } }
  | { flooded: { sent: number; startedAt: number; endedAt: number } }
  | { stopped: true };

const engines: FakeRigEngine[] = [];
const tell = (r: RigsReport) => process.send!(r);

// What a busy 2-GPU miner's engine holds and publishes, at the sizes the engine caps them at: the GPU
// sampler's 240 points per card (electron/engine/serve/gpu-sampler.ts, one per 5 s) and the earnings
// service's 60 epochs (earnings-service.ts KEEP_EPOCHS). The panel keeps each rig's latest of both.
const GPU_POINTS = 240;
const EPOCHS = 60;
const SAMPLE_MS = 5_000;
const gpuNames = ['NVIDIA GeForce RTX 4090', 'NVIDIA GeForce RTX 4090'];
const point = (at: number, i: number) => ({
  at,
  utilizationPct: 90 + (i % 10),
  memoryUsedMiB: 22_000 + (i % 500),
  memoryTotalMiB: 24_564,
  temperatureC: 60 + (i % 15),
  powerDrawW: 380 + (i % 40),
  powerLimitW: 450,
});

function serveSnapshot(rig: number, now: number) {
  return {
    version: 3,
    runtime: 'external',
    lost: null,
    at: now,
    gpus: gpuNames.map((name, index) => ({ index, name, points: Array.from({ length: GPU_POINTS }, (_, i) => point(now - (GPU_POINTS - 1 - i) * SAMPLE_MS, i + rig + index)) })),
  };
}

function earningsSnapshot(rig: number, now: number) {
  const epochMs = 72 * 60_000;
  const epochs = Array.from({ length: EPOCHS }, (_, i) => {
    const end = now - i * epochMs;
    return {
      epochIndex: 5000 - i,
      digest: `${'ab'.repeat(31)}${String(i).padStart(2, '0')}`,
      epochStart: new Date(end - epochMs).toISOString(),
      epochEnd: new Date(end).toISOString(),
      weight: 1200 + rig,
      weightShare: (1200 + rig) / 65535,
      gate: { passed: true, reason: null },
      row: { hotkey: `5F${'x'.repeat(46)}`, score: 0.8 + (i % 10) / 100, requests: 900 + i, ttft_p99_ms: 850, tpot_p99_ms: 31, acceptance: 0.99 },
      burn: false,
      startMs: end - epochMs,
      endMs: end,
      projectedTao: 0.012 + rig / 10_000,
      projectedNote: 'weight share x miner emission x alpha price',
      realisedTao: 0.011,
      realisedNote: 'from the chain',
      tokens: { requests: 900 + i, promptTokens: 1_800_000, completionTokens: 450_000 },
    };
  });
  const total = (n: number) => ({ projectedTao: 0.012 * n, realisedTao: 0.011 * n, epochs: n });
  return {
    hotkey: `5F${'x'.repeat(46)}`,
    epochs,
    onChain: { block: 7_000_000, uid: 100 + rig, tempo: 360, incentive: 0.01, emissionRao: '123456789' },
    registration: { uid: 100 + rig, lost: null, at: now },
    local: {
      day: { requests: 20_000, promptTokens: 4e7, completionTokens: 1e7 },
      week: { requests: 140_000, promptTokens: 2.8e8, completionTokens: 7e7 },
      all: { requests: 500_000, promptTokens: 1e9, completionTokens: 2.5e8 },
    },
    totals: { day: total(20), week: total(140), all: total(500) },
    estimatePerDay: { tao: 0.24, basis: 'the last 20 epochs' },
    gaps: [],
    sources: { provider: { ok: true }, chain: { ok: true } },
    outages: [],
    updatedAt: now,
  };
}

let busyTimers: ReturnType<typeof setTimeout>[] = [];
let busySent = 0;

/** Every rig sends its earnings once and its serve snapshot every `everyMs` (staggered), as a busy rig does. */
function busy(everyMs: number): number {
  const now = Date.now();
  engines.forEach((e, i) => {
    e.sendTopic('hardware', { gpus: gpuNames.map((name) => ({ name, temperatureC: 65 })) });
    e.sendTopic('earnings', earningsSnapshot(i, now));
    e.sendTopic('serve', serveSnapshot(i, now));
    busyTimers.push(
      setTimeout(
        () => {
          const t = setInterval(() => {
            e.sendTopic('serve', serveSnapshot(i, Date.now()));
            busySent++;
          }, everyMs);
          busyTimers.push(t);
        },
        Math.floor((everyMs * i) / Math.max(1, engines.length)),
      ),
    );
  });
  return JSON.stringify(serveSnapshot(0, now)).length + JSON.stringify(earningsSnapshot(0, now)).length;
}

function idle(): number {
  for (const t of busyTimers) clearTimeout(t);
  busyTimers = [];
  return busySent;
}

async function stop(): Promise<void> {
  idle();
  for (const e of engines.splice(0)) await e.close().catch(() => undefined);
}

/**
 * `perRig` snapshots to every rig, a round at a time, yielding between rounds so the sockets drain;
 * rig i's last one carries `base + i` so the bench knows when the panel has applied them all.
 */
async function flood(perRig: number, base: number): Promise<{ sent: number; startedAt: number; endedAt: number }> {
  const startedAt = absNow();
  let sent = 0;
  for (let round = 0; round < perRig; round++) {
    const last = round === perRig - 1;
    engines.forEach((e, i) => e.push(last ? base + i : 1 + ((round * 7 + i) % 997)));
    sent += engines.length;
    await new Promise((r) => setImmediate(r));
  }
  return { sent, startedAt, endedAt: absNow() };
}

process.on('message', (m: RigsCommand) => {
  void (async () => {
    if (m.cmd === 'start') {
      for (let i = 0; i < m.count; i++) engines.push(await startFakeRigEngine('good'));
      tell({ ready: engines.map((e) => ({ port: e.port, token: e.token })) });
    } else if (m.cmd === 'push') {
      // The moment before the send: the latency the bench reports includes all of the send.
      const at = absNow();
      engines[m.rig]!.push(m.tps);
      tell({ pushed: { rig: m.rig, tps: m.tps, at } });
    } else if (m.cmd === 'busy') {
      tell({ busy: { bytesPerRig: busy(m.everyMs) } });
    } else if (m.cmd === 'idle') {
      tell({ idle: { sent: idle() } });
    } else if (m.cmd === 'flood') {
      tell({ flooded: await flood(m.perRig, m.base) });
    } else {
      await stop();
      tell({ stopped: true });
      process.exit(0);
    }
  })();
});
// The bench went away (finished, crashed or interrupted): nothing of ours outlives it.
process.on('disconnect', () => void stop().finally(() => process.exit(0)));
