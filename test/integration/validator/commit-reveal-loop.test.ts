// The validator service on the real @polkadot/api client against the dev chain with commit-reveal on: weights land
// through a timelocked commit and the chain's reveal one epoch later; turning the switch off and on mid-run moves
// between set_weights and commits with the same schedule; the chain's commit-reveal errors come back by name.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PolkadotChainClient } from '../../../electron/engine/chain/polkadot-chain-client.ts';
import { tlockEncrypt } from '../../../electron/engine/chain/tlock/ibe.ts';
import type { Disposable } from '../../../electron/engine/lib/disposable.ts';
import { readState } from '../../../electron/engine/validator/state-file.ts';
import { startDevChain, type RunningDevChain } from '../../doubles/dev-chain/index.ts';
import { devKey, startProviderDouble, type ProviderDouble } from '../../doubles/provider.ts';
import { devChainService, MINER_A, MINER_B, validatorSeed } from './harness.ts';

const validator = devKey('//EngyCommitRevealValidator');
let dev: RunningDevChain;
let provider: ProviderDouble;
let sealer: Disposable | undefined;

beforeAll(async () => {
  dev = await startDevChain({
    port: 0,
    blockMs: 0,
    startBlocks: 5,
    seed: validatorSeed(validator.address, { tempo: 20, weightsRateLimit: 3, commitRevealEnabled: true }),
  });
  provider = await startProviderDouble();
  // Instant seal: a submission is included in the next block and finalized by the one after; otherwise the chain stands
  // still until the test advances it. Blocks on a wall-clock timer raced the validator's work: with tempo 20 a 250 ms
  // timer ran a whole epoch past while a loaded machine was still encrypting the commit (the round was past by the time
  // it landed), and ran past the rate limit before a second commit was sent. Whatever the machine's speed, the chain
  // now moves only between the validator's read and its inclusion by what a live chain's submission would see.
  sealer = dev.chain.onTxStatus(({ status }) => {
    if (!('ready' in status)) return;
    setTimeout(() => {
      dev.produceBlock();
      // Apart, not together: polkadot-js drops an inBlock status whose events it is still reading when finalized arrives.
      setTimeout(() => dev.produceBlock(), 50);
    }, 0);
  });
});

afterAll(async () => {
  await sealer?.dispose();
  await dev.close();
  await provider.close();
});

/**
 * Produces blocks until `check` passes: the chain moves as far as the test needs, no further and no wall-clock race.
 * 60 s: a reveal takes up to ~40 blocks, each a snapshot and events the client decodes, slow on a loaded 2-core box.
 */
const advanceUntil = (check: () => void | Promise<void>, timeout = 60_000) =>
  vi.waitFor(
    async () => {
      try {
        await check();
      } catch (e) {
        dev.produceBlock();
        throw e;
      }
    },
    { timeout, interval: 20 },
  );

const commits = () => dev.state.applied.filter((a) => a.signer === validator.address && a.method.startsWith('commit_timelocked'));
const plainSets = () => dev.state.applied.filter((a) => a.signer === validator.address && a.method === 'set_weights');
const pastRateLimit = async () => {
  const uid = dev.state.neuron(53, validator.address)!.uid;
  const last = dev.state.lastUpdateOf(53, uid) ?? 0;
  await advanceUntil(() => expect(dev.chain.best.number).toBeGreaterThan(last + 3));
};

describe('validator with commit-reveal on (dev chain)', () => {
  it('lands weights through commit and reveal, follows the switch both ways mid-run, and reports the reveal', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'engy-vcr-')), 'state.json');
    const logs: string[] = [];
    const svc = devChainService({ url: dev.url, provider, signer: validator, statePath, logs });
    const uid = dev.state.neuron(53, validator.address)!.uid;
    const uidA = dev.state.neuron(53, MINER_A)!.uid;
    const uidB = dev.state.neuron(53, MINER_B)!.uid;
    try {
      // 1. Commit: nothing plain is sent, the weights stay hidden until the reveal epoch.
      provider.publish(4, [
        [MINER_A, 1],
        [MINER_B, 3],
      ]);
      const first = await svc.runOnce();
      expect(first.tick.outcome, logs.join('\n')).toBe('applied');
      expect(commits()).toHaveLength(1);
      expect(commits()[0]).toMatchObject({ method: 'commit_timelocked_mechanism_weights', error: null });
      expect(plainSets()).toHaveLength(0);
      expect(readState(statePath).state).toMatchObject({ lastApplied: 4 });
      const view = svc.snapshot().commitReveal!;
      expect(view).toMatchObject({ path: 'commit-reveal', version: 4, revealPeriodEpochs: 1 });
      expect(view.pending).toHaveLength(1);
      const pending = view.pending[0]!;
      expect(pending.epochIndex).toBe(4);
      expect(pending.expectedRevealBlock).toBeGreaterThan(first.tick.block!);
      // Planned from the block read just before the commit: at most one tempo (20) + 3 ahead of its inclusion.
      expect(pending.commitBlock).not.toBeNull();
      expect(pending.expectedRevealBlock - pending.commitBlock!).toBeLessThanOrEqual(20 + 3);
      expect(dev.state.weightsOf(53, uid)).toEqual([]);

      // 2. The chain reveals with the pulse of the committed round, at the block the validator expected.
      await advanceUntil(() => expect(dev.state.commitReveal.reveals.filter((r) => r.who === validator.address)).toHaveLength(1));
      const reveal = dev.state.commitReveal.reveals.find((r) => r.who === validator.address)!;
      expect(reveal).toMatchObject({ ok: true, revealRound: pending.revealRound });
      // At the expected block; one tempo later when the commit was included after the epoch boundary it was planned in.
      expect(reveal.block).toBeGreaterThanOrEqual(pending.expectedRevealBlock - 1);
      expect(reveal.block).toBeLessThanOrEqual(pending.expectedRevealBlock + 20 + 1);
      expect(dev.state.weightsOf(53, uid)).toEqual([
        // Committed as the SDK emits them (max-upscaled, Python rounding): stored as committed.
        [uidA, 21844],
        [uidB, 65535],
      ]);

      // 3. The next tick sees the commit gone from the queue and the weights equal to it: landed.
      provider.publish(5, [
        [MINER_A, 1],
        [MINER_B, 1],
      ]);
      await pastRateLimit();
      const second = await svc.runOnce();
      expect(second.tick.outcome, logs.slice(-8).join('\n')).toBe('applied');
      expect(svc.snapshot().commitReveal?.lastReveal).toMatchObject({ epochIndex: 4, landed: true });
      expect(commits()).toHaveLength(2);

      // 4. Switch off mid-run: the next submission is plain set_weights, on the same schedule.
      dev.state.subnet(53)!.commitRevealEnabled = false;
      provider.publish(6, [
        [MINER_A, 3],
        [MINER_B, 1],
      ]);
      await pastRateLimit();
      await advanceUntil(() => expect(dev.chain.best.number).toBeGreaterThan(dev.state.applied.at(-1)!.block + 1));
      const plain = await svc.runOnce();
      expect(plain.tick.outcome, logs.join('\n')).toBe('applied');
      expect(plainSets()).toHaveLength(1);
      expect(svc.snapshot().commitReveal?.path).toBe('plain');

      // 5. And on again: a commit, no plain weights.
      dev.state.subnet(53)!.commitRevealEnabled = true;
      provider.publish(7, [[MINER_A, 1]]);
      await pastRateLimit();
      const back = await svc.runOnce();
      expect(back.tick.outcome, logs.slice(-8).join('\n')).toBe('applied');
      expect(commits()).toHaveLength(3);
      expect(plainSets()).toHaveLength(1);
      expect(svc.snapshot().commitReveal?.path).toBe('commit-reveal');
      expect(logs.some((l) => l.includes('commit_timelocked_weights(') && l.includes('accepted'))).toBe(true);

      // 6. The chain moves to a commit-reveal version this app does not build: nothing is sent, a sentence says why.
      dev.state.commitReveal.version = 5;
      provider.publish(8, [[MINER_B, 1]]);
      await pastRateLimit();
      const refused = await svc.runOnce();
      expect(refused.tick.outcome, logs.slice(-8).join('\n')).toBe('submit-failed');
      expect(refused.submission).toMatchObject({ ok: false, errorCode: 'IncorrectCommitRevealVersion' });
      expect(refused.submission?.error).toMatch(/version 5.*Update the app/);
      expect(commits()).toHaveLength(3);
      expect(readState(statePath).state.lastApplied).toBe(7);
      dev.state.commitReveal.version = 4;
    } finally {
      await svc.dispose();
    }
    // ~6 s idle; 56-70 s at load ~40-50 on 2 cores (encryption, block production, polkadot-js decoding all CPU).
  }, 180_000);

  it('chain errors of the commit path come back by name with a sentence', async () => {
    const client = await PolkadotChainClient.connect({ endpoint: dev.url });
    const who = devKey('//EngyCommitRevealErrors');
    dev.state.setBalance(who.address, 1_000_000_000n);
    dev.state.addNeuron(53, { hotkey: who.address, validatorPermit: true, stakeRao: 1_000_000_000_000n });
    try {
      await advanceUntil(async () => expect((await client.hotkeyUids(53)).has(who.address)).toBe(true));
      const facts = await client.commitRevealFacts(53);
      expect(facts).toMatchObject({ enabled: true, version: 4, revealPeriodEpochs: 1, tempo: 20, mechanismCall: true });
      expect(facts.beacon?.publicKey).toEqual(dev.state.commitReveal.publicKey);
      const commit = tlockEncrypt(new Uint8Array([1, 2, 3]), facts.lastStoredRound + 100, { publicKey: facts.beacon!.publicKey });

      // A round the chain has already stored: refused by the pool (Custom 15).
      const past = await client.commitTimelockedWeights(who, 53, commit, 1, 4);
      expect(past).toMatchObject({ ok: false, kind: 'pool', code: 'Custom:15' });
      expect(past.ok ? '' : past.message).toMatch(/round is already past/);

      // Wrong version: dispatch error by name.
      const version = await client.commitTimelockedWeights(who, 53, commit, facts.lastStoredRound + 100, 3);
      expect(version).toMatchObject({ ok: false, kind: 'dispatch', code: 'IncorrectCommitRevealVersion' });

      // One lands; a second inside the rate limit is refused (pool Custom 6): only the inclusion and finality blocks
      // (2 < the limit of 3) pass between them, so a chain that ignored the limit would accept it.
      expect(await client.commitTimelockedWeights(who, 53, commit, facts.lastStoredRound + 100, 4)).toMatchObject({ ok: true });
      expect(await client.commitTimelockedWeights(who, 53, commit, facts.lastStoredRound + 100, 4)).toMatchObject({ ok: false, code: 'Custom:6' });
      expect((await client.timelockedCommits(53)).filter((c) => c.who === who.address)).toHaveLength(1);

      // Too many unrevealed: the chain holds ten per hotkey.
      dev.state.subnet(53)!.weightsRateLimit = 0n;
      for (let i = 0; i < 9; i++) {
        const r = await client.commitTimelockedWeights(who, 53, commit, dev.state.commitReveal.lastStoredRound(dev.state.block) + 1000, 4);
        expect(r.ok, JSON.stringify(r)).toBe(true);
      }
      const full = await client.commitTimelockedWeights(who, 53, commit, dev.state.commitReveal.lastStoredRound(dev.state.block) + 1000, 4);
      expect(full).toMatchObject({ ok: false, kind: 'dispatch', code: 'TooManyUnrevealedCommits' });
      expect(full.ok ? '' : full.message).toMatch(/keeps trying/);

      // Commit-reveal off: the commit is refused by name.
      dev.state.subnet(53)!.commitRevealEnabled = false;
      const off = await client.commitTimelockedWeights(who, 53, commit, facts.lastStoredRound + 5000, 4);
      expect(off).toMatchObject({ ok: false, kind: 'dispatch', code: 'CommitRevealDisabled' });

      // Malformed input never leaves the app.
      expect(await client.commitTimelockedWeights(who, 53, new Uint8Array(5001), 10, 4)).toMatchObject({ ok: false, kind: 'refused', code: 'BadInput' });
      expect(await client.commitTimelockedWeights(who, 53, commit, -1, 4)).toMatchObject({ ok: false, kind: 'refused', code: 'BadInput' });
      expect(await client.commitTimelockedWeights(who, 53, commit, 10, 70000)).toMatchObject({ ok: false, kind: 'refused', code: 'BadInput' });
    } finally {
      dev.state.subnet(53)!.commitRevealEnabled = true;
      dev.state.subnet(53)!.weightsRateLimit = 3n;
      dev.state.commitReveal.revealPeriodEpochs.delete(53);
      await client.close();
    }
    // ~2 s idle; 19-28 s at load ~40-50 on 2 cores.
  }, 120_000);
});
