// The fake rigs of fleet.bench.ts, in their own process so their work and memory never count as the
// panel's: N fake rig engines (test/doubles/fleet/fake-rig-engine.ts, each a WebSocket on 127.0.0.1
// speaking the contract), driven over IPC. Each push answers with the moment it was sent (epoch ms,
// sub-ms, comparable with the bench process's clock on the same machine). Exits with its parent.
import { startFakeRigEngine, type FakeRigEngine } from '../test/doubles/fleet/fake-rig-engine.ts';

export type RigsCommand = { cmd: 'start'; count: number } | { cmd: 'push'; rig: number; tps: number } | { cmd: 'flood'; perRig: number; base: number } | { cmd: 'stop' };

export type RigsReport =
  | { ready: { port: number; token: string }[] }
  | { pushed: { rig: number; tps: number; at: number } }
  | { flooded: { sent: number; startedAt: number; endedAt: number } }
  | { stopped: true };

const absNow = (): number => performance.timeOrigin + performance.now();
const engines: FakeRigEngine[] = [];
const tell = (r: RigsReport) => process.send!(r);

async function stop(): Promise<void> {
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
