// One composition root: every shell builds through composeEngine, and the profile decides which domain
// modules it gets. The lists are written out here, not imported, so a change to a profile is a change
// to this test too; Wiring refuses a module, handler or topic wired twice.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INVOKE_METHODS } from '../../../shared/api.ts';
import { composeEngine, type DaemonEngine, type Engine } from '../../../electron/compose.ts';
import { ProofPool } from '../../../electron/engine/proof/proof-pool.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { mineOptions, validateOptions } from '../../helpers/daemon-compose.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const fresh = tempDirs('engy-compose-');

const PANEL = [
  'runtime',
  'settings',
  'hardware',
  'checkpoint',
  'serve',
  'proof-pool',
  'wallet',
  'preflight',
  'notify',
  'mining',
  'validating',
  'metrics',
  'history',
  'webhook',
  'storage-watch',
  'earnings',
  'app',
  'fleet',
];

describe('composeEngine profiles', () => {
  it('gives each shell its modules, once each, in build order', { timeout: 60_000 }, async () => {
    const expected: Record<string, string[]> = {
      desktop: [...PANEL, 'health-lines'],
      headless: [...PANEL, 'health-lines'],
      demo: [...PANEL, 'health-lines'],
    };
    for (const profile of ['desktop', 'headless', 'demo'] as const) {
      const engine: Engine = await composeEngine({ profile, dataDir: fresh() });
      try {
        expect(engine.profile).toBe(profile);
        expect([...engine.modules]).toEqual(expected[profile]);
        // Every method of the contract has exactly one handler (Wiring refuses a second).
        expect(Object.keys(engine.table).sort()).toEqual([...INVOKE_METHODS].sort());
        // The live GPU panel's lease is answered even with no serve running (the sampler picks it up on start).
        expect(await engine.table['gpus.watch'](null)).toEqual({ leaseMs: 15_000 });
        expect(engine.info.shell).toBe(profile === 'desktop' ? 'electron' : 'headless');
      } finally {
        await engine.dispose();
      }
    }
    const mine: DaemonEngine = await composeEngine(mineOptions(fresh()));
    try {
      expect([...mine.modules]).toEqual(['runtime', 'notify', 'storage-watch', 'proof-pool', 'miner-daemon', 'health-lines']);
    } finally {
      await mine.dispose();
    }
    const validate: DaemonEngine = await composeEngine(validateOptions(fresh()));
    try {
      expect([...validate.modules]).toEqual(['runtime', 'notify', 'storage-watch', 'validator-daemon', 'health-lines']);
    } finally {
      await validate.dispose();
    }
  });

  it('the Electron shell gets the desktop profile by default; a daemon without its config is refused and releases the data dir', async () => {
    const dir = fresh();
    const engine = await composeEngine({ dataDir: dir, shell: 'electron' });
    await engine.dispose();
    expect(engine.profile).toBe('desktop');
    await expect(composeEngine({ profile: 'mine', dataDir: dir })).rejects.toThrow(/needs its worker/);
    // The lock was released: the next start on the same data dir is not refused.
    const again = await composeEngine({ dataDir: dir, shell: 'headless' });
    await again.dispose();
  });

  it('the desktop miner proves in the pool and keeps its worker id across restarts of one data dir', async () => {
    const dir = fresh();
    const plan = { serveUrls: ['http://127.0.0.1:30000'], maxInflight: 24 };
    const first = await composeEngine({ profile: 'desktop', dataDir: dir });
    let id: string | null;
    try {
      expect(first.mining.proofPool).toBeInstanceOf(ProofPool);
      id = first.mining.workerIdentity(plan).workerId;
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(existsSync(dataPaths(dir).workerIds)).toBe(true);
    } finally {
      await first.dispose();
    }
    const second = await composeEngine({ profile: 'desktop', dataDir: dir });
    try {
      expect(second.mining.workerIdentity(plan)).toEqual({ workerName: expect.any(String), workerId: id });
      // Another capacity is another worker to the gateway (PROTOCOL 3): a new id, kept in turn.
      expect(second.mining.workerIdentity({ ...plan, maxInflight: 12 }).workerId).not.toBe(id);
      expect(second.mining.workerIdentity({ ...plan, workerName: 'rig-b' }).workerName).toBe('rig-b');
    } finally {
      await second.dispose();
    }
  });
});
