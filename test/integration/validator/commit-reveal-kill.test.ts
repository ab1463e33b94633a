// The headless daemon (`engy-panel validate`, a real child process) with commit-reveal on: killed with SIGKILL
// right after its commit was included and before the chain revealed it, then restarted. It must recognise its
// own commit on chain (the intent written before sending) instead of committing a second time, and the chain's
// reveal must land the committed weights.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { commitStorePath, readCommitStore } from '../../../electron/engine/validator/commit-reveal-store.ts';
import { readState } from '../../../electron/engine/validator/state-file.ts';
import { startProviderDouble } from '../../doubles/provider.ts';
import { daemonArgs, daemonSuite, killRightAfterInclusion, makeHotkeyWallet, startDaemonChain } from './daemon-child.ts';
import { MINER_A, MINER_B } from './harness.ts';

const suite = daemonSuite();

describe('engy-panel validate with commit-reveal (child process)', () => {
  it('survives kill -9 between commit and reveal without committing twice, and the reveal lands', async () => {
    const { hot, walletPath } = makeHotkeyWallet();

    const dev = (suite.dev = await startDaemonChain(hot.address, { tempo: 30, commitRevealEnabled: true }));
    const provider = (suite.provider = await startProviderDouble());
    provider.publish(4, [
      [MINER_A, 1],
      [MINER_B, 3],
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-vdata-'));
    const statePath = join(dataDir, 'validator', 'state.json');
    // A 200-block cadence: the reveal (tempo 30) comes long before any legitimate resubmission.
    const args = daemonArgs({ walletPath, chainUrl: dev.url, provider, resubmitBlocks: 200, dataDir });
    const chain = dev;
    const commits = () => chain.state.applied.filter((a) => a.method.startsWith('commit_timelocked') && a.signer === hot.address);

    // First run: its commit reaches the pool, is included, and the process dies before it can record anything.
    const first = suite.start(args);
    // Generous: a cold daemon start plus the timelock worker's start take tens of seconds on a loaded 2-core box.
    await killRightAfterInclusion(chain, first, 150_000);
    expect(commits().filter((a) => a.error === null)).toHaveLength(1);
    expect(chain.state.commitReveal.reveals).toEqual([]); // killed between commit and reveal
    expect(readCommitStore(commitStorePath(statePath)).store.intent).not.toBeNull();

    // Second run, a quick restart: blocks flow again from the moment it is up (as 12 s blocks would barely move
    // during a restart); it must adopt the landed commit and wait for its cadence.
    const second = suite.start(args);
    await vi.waitFor(() => expect(second.out.some((l) => l.includes('[validator] hotkey='))).toBe(true), { timeout: 60_000, interval: 20 });
    suite.produceBlocksEvery(100);
    await vi.waitFor(() => expect(readState(statePath).state.lastApplied).toBe(4), { timeout: 60_000, interval: 50 });
    await vi
      .waitFor(() => expect(second.out.some((l) => l.includes('[tick] skipped:too-soon'))).toBe(true), { timeout: 60_000, interval: 50 })
      .catch((e: unknown) => {
        throw new Error(`${String(e)}\n${second.out.join('\n')}`);
      });
    expect(
      second.out.some((l) => l.includes('adopted it instead of committing again')),
      second.out.join('\n'),
    ).toBe(true);
    expect(commits()).toHaveLength(1);
    const store = readCommitStore(commitStorePath(statePath)).store;
    expect(store.intent).toBeNull();
    // Adopted as pending, or already settled when the chain revealed it before the first tick after the restart.
    const recorded = store.pending[0] ?? store.lastReveal;
    expect(recorded?.epochIndex).toBe(4);
    expect(store.pending.length).toBeLessThanOrEqual(1);
    expect(readState(statePath).state.lastSubmitBlock).toBe(commits()[0]!.block);

    // The chain reveals at the next epoch with its pulse: the committed weights land, once.
    await vi.waitFor(() => expect(chain.state.commitReveal.reveals.filter((r) => r.who === hot.address)).toHaveLength(1), { timeout: 60_000, interval: 50 });
    expect(chain.state.commitReveal.reveals[0]).toMatchObject({ ok: true, revealRound: recorded?.revealRound });
    const uid = chain.state.neuron(53, hot.address)!.uid;
    expect(chain.state.weightsOf(53, uid)).toEqual([
      // Committed as the SDK emits them ([21844, 65535], max-upscaled): the chain keeps them as they are.
      [chain.state.neuron(53, MINER_A)!.uid, 21844],
      [chain.state.neuron(53, MINER_B)!.uid, 65535],
    ]);
    expect(commits()).toHaveLength(1);
    suite.stopBlocks();
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 300_000);
});
