// The headless daemon as a real child process (`engy-panel validate`) against the provider double and
// the dev chain over real sockets, through the @polkadot/api chain client: killed with SIGKILL while its
// set_weights is in flight, then restarted: it resumes from the state file without advancing twice.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { SqliteValidatorHistory } from '../../../electron/engine/validator/history.ts';
import { readState } from '../../../electron/engine/validator/state-file.ts';
import { startProviderDouble } from '../../doubles/provider.ts';
import { MINER_A, MINER_B } from './harness.ts';
import { startValidatorRig } from '../../helpers/validator-rig.ts';
import { daemonArgs, daemonSuite, killRightAfterInclusion } from './daemon-child.ts';

const suite = daemonSuite();

describe('engy-panel validate (child process)', () => {
  it('resumes after kill -9 mid-submit without double-advancing, heartbeats, and stops cleanly on SIGTERM', async () => {
    const rig = await startValidatorRig();
    const { hot, walletPath } = rig;
    const dev = (suite.dev = rig.dev);
    const provider = (suite.provider = await startProviderDouble());
    const payload = provider.publish(4, [
      [MINER_A, 1],
      [MINER_B, 3],
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-vdata-'));
    const statePath = join(dataDir, 'validator', 'state.json');
    const args = daemonArgs({ walletPath, chainUrl: dev.url, provider, resubmitBlocks: 25, dataDir });
    const chain = dev;
    const weightSets = () => chain.state.applied.filter((a) => a.method === 'set_weights' && a.signer === hot.address);

    // First run: wait for its set_weights in the pool, include it, and kill -9 before it can record anything.
    const first = suite.start(args);
    await killRightAfterInclusion(chain, first, 150_000);
    expect(weightSets().filter((a) => a.error === null)).toHaveLength(1);
    const afterKill = readState(statePath);
    expect(afterKill.dropped).toEqual([]); // absent or whole: an atomic write never leaves half a file
    expect([null, 4]).toContain(afterKill.state.lastApplied);

    // Second run, blocks every 100 ms: it must land epoch 4 and then hold to the cadence.
    suite.produceBlocksEvery(100);
    const second = suite.start(args);
    await vi.waitFor(() => expect(readState(statePath).state.lastApplied).toBe(4), { timeout: 60_000, interval: 50 });
    await vi.waitFor(() => expect(second.out.some((l) => l.includes('[tick] skipped:too-soon'))).toBe(true), { timeout: 60_000, interval: 50 });
    await vi.waitFor(() => expect(provider.heartbeats.some((h) => h.valid && (h.json as { synced_epoch?: number }).synced_epoch === 4)).toBe(true), { timeout: 30_000 });
    suite.stopBlocks();
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.out.some((l) => l.includes('[validator] stopped'))).toBe(true);
    // Upstream's liveness file, stamped after every tick, for container health checks.
    const hb = JSON.parse(readFileSync(join(dataDir, 'validator', 'heartbeat.json'), 'utf8')) as { ts: unknown };
    expect(typeof hb.ts).toBe('number');

    const state = readState(statePath).state;
    expect(state).toMatchObject({
      lastApplied: 4,
      cachedDigest: payload.digest,
      cachedWeights: [
        [MINER_A, 1],
        [MINER_B, 3],
      ],
    });
    // What the chain accepted and what the state says agree: no advance without an accepted extrinsic.
    const accepted = weightSets().filter((a) => a.error === null);
    expect(accepted.length).toBeGreaterThanOrEqual(2);
    expect(state.lastSubmitBlock).not.toBeNull();
    expect(accepted.some((a) => a.block > (state.lastSubmitBlock ?? Infinity))).toBe(true);
    const uidA = chain.state.neuron(53, MINER_A)?.uid;
    const uidB = chain.state.neuron(53, MINER_B)?.uid;
    // engy rescales to [16383, 49152]; sent as the SDK emits that (max-upscaled, Python rounding): [21844, 65535].
    expect(chain.state.weightsOf(53, chain.state.neuron(53, hot.address)!.uid)).toEqual([
      [uidA, 21844],
      [uidB, 65535],
    ]);

    // The killed run recorded nothing; the restarted one recorded exactly one landing of epoch 4.
    const db = new Database(dataPaths(dataDir).database);
    try {
      const subs = new SqliteValidatorHistory(db).recentSubmissions(50).filter((s) => s.ok);
      expect(subs.map((s) => [s.epochIndex, s.kind])).toEqual([[4, 'fresh']]);
      const ticks = new SqliteValidatorHistory(db).recentTicks(50).map((t) => t.outcome);
      expect(ticks.filter((t) => t === 'applied')).toHaveLength(1);
    } finally {
      db.close();
    }
  }, 400_000);
});
