// The validator service on the real @polkadot/api client against the dev chain (websocket, sr25519-checked
// pool, SubtensorModule rules): chain refusals read back by name change nothing; the fixed cause lands.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readState } from '../../../electron/engine/validator/state-file.ts';
import { startDevChain, type RunningDevChain } from '../../doubles/dev-chain/index.ts';
import { devKey, startProviderDouble, type ProviderDouble } from '../../doubles/provider.ts';
import { devChainService, MINER_A, MINER_B, STRANGER, validatorSeed } from './harness.ts';

const validator = devKey('//EngyDevChainValidator');
let dev: RunningDevChain;
let provider: ProviderDouble;

beforeAll(async () => {
  dev = await startDevChain({
    port: 0,
    blockMs: 0,
    startBlocks: 5,
    seed: validatorSeed(validator.address, { weightsRateLimit: 3 }, { permit: false }),
  });
  provider = await startProviderDouble();
});

afterAll(async () => {
  await dev.close();
  await provider.close();
});

describe('validator on the dev chain', () => {
  it('shows the chain refusal by name and advances nothing, then lands once the cause is fixed; falls back to the landed vector when nothing lands', async () => {
    // Blocks come while a submission waits for inclusion, as on a live chain.
    const timer = setInterval(() => dev.produceBlock(), 50);
    const statePath = join(mkdtempSync(join(tmpdir(), 'engy-vdev-')), 'state.json');
    const logs: string[] = [];
    const svc = devChainService({ url: dev.url, provider, signer: validator, statePath, logs });
    try {
      provider.publish(4, [
        [MINER_A, 1],
        [MINER_B, 1],
      ]);
      const refused = await svc.runOnce();
      expect(refused.tick.outcome).toBe('submit-failed');
      expect(refused.submission).toMatchObject({ ok: false, errorCode: expect.stringContaining('NeuronNoValidatorPermit') });
      expect(readState(statePath).state.lastApplied).toBeNull();
      expect(svc.snapshot().warnings.join(' ')).toContain('no validator permit');

      dev.state.neuron(53, validator.address)!.validatorPermit = true;
      const landed = await svc.runOnce();
      expect(landed.tick.outcome).toBe('applied');
      expect(landed.submission?.extrinsicHash).toMatch(/^0x[0-9a-f]{64}$/);
      const uid = dev.state.neuron(53, validator.address)!.uid;
      expect(dev.state.weightsOf(53, uid).map(([u]) => u)).toEqual([dev.state.neuron(53, MINER_A)!.uid, dev.state.neuron(53, MINER_B)!.uid]);
      expect(readState(statePath).state).toMatchObject({ lastApplied: 4 });

      provider.publish(5, [[STRANGER, 10]]);
      const last = dev.state.lastUpdateOf(53, uid) ?? 0;
      await vi.waitFor(() => expect(dev.chain.best.number).toBeGreaterThan(last + 3), { timeout: 20_000 }); // past the 3-block rate limit
      const standby = await svc.runOnce();
      expect(standby.tick.outcome).toBe('standby:cached');
      expect(readState(statePath).state).toMatchObject({
        lastApplied: 5,
        cachedWeights: [
          [MINER_A, 1],
          [MINER_B, 1],
        ],
      });
    } finally {
      clearInterval(timer);
      await svc.dispose();
    }
  });
});
