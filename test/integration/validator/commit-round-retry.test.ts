// The commit's one retry, driven step by step: the chain (a plain ChainPort object, no node) refuses the
// reveal round as already past because Drand.LastStoredRound moved between the facts read and the submit;
// the validator plans once more from fresh facts, above the new stored round, and records only what landed.
// Integration lane: the timelock encryption runs in its worker thread.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChainPort, CommitRevealFacts, SubmitOutcome } from '../../../electron/engine/chain/ports.ts';
import type { Logger } from '../../../electron/engine/lib/logger.ts';
import { submitCommit, SUPPORTED_CR_VERSION, type CommitInput } from '../../../electron/engine/validator/commit-reveal.ts';
import { commitStorePath, readCommitStore } from '../../../electron/engine/validator/commit-reveal-store.ts';

// Alice's well-known dev address: the payload only needs a valid public key.
const SIGNER = { address: '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY', sign: () => new Uint8Array(64) };
const NOW_MS = 1_790_000_000_000;

const facts = (lastStoredRound: number): CommitRevealFacts => ({
  netuid: 53,
  block: 1000,
  enabled: true,
  version: SUPPORTED_CR_VERSION,
  revealPeriodEpochs: 1,
  tempo: 360,
  nextEpochBlock: 1100,
  chainTimeMs: NOW_MS,
  lastStoredRound,
  beacon: null,
  mechanismCall: false,
});

// The pool's refusal as the chain client reports it (1010, Custom error 15: InvalidRevealRound).
const pastRound: SubmitOutcome = { ok: false, kind: 'pool', code: 'Custom:15', message: 'Invalid Transaction: Custom error: 15' };
const landed = (blockNumber: number): SubmitOutcome => ({ ok: true, extrinsicHash: '0x01', blockHash: '0x02', blockNumber });

/** A chain whose Drand.LastStoredRound is whatever the test says at each read, and whose pool answers from a script. */
function scriptedChain(stored: number[], answers: SubmitOutcome[]) {
  const sent: Array<{ round: number; bytes: number }> = [];
  let reads = 0;
  const chain = {
    commitRevealFacts: async () => facts(stored[Math.min(reads++, stored.length - 1)]!),
    commitTimelockedWeights: async (_s: unknown, _n: number, commit: Uint8Array, round: number) => {
      sent.push({ round, bytes: commit.length });
      return answers[sent.length - 1]!;
    },
  } as unknown as ChainPort;
  return { chain, sent, reads: () => reads };
}

function recordingLogger(lines: string[]): Logger {
  const l: Logger = { debug: () => undefined, info: () => undefined, warn: (m) => lines.push(m), error: (m) => lines.push(m), child: () => l };
  return l;
}

describe('commit-reveal: the reveal round refused as already past', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engy-cr-retry-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const input = (chain: ChainPort, name: string, warns: string[]): CommitInput => ({
    chain,
    signer: SIGNER,
    netuid: 53,
    storePath: commitStorePath(join(dir, `${name}.json`)),
    epochIndex: 7,
    kind: 'fresh',
    digest: 'b'.repeat(64),
    weights: [['5MinerA', 1]],
    uids: [3, 4],
    values: [16383, 49152],
    versionKey: 1n,
    nowMs: NOW_MS,
    log: recordingLogger(warns),
  });

  it('plans once more above the new stored round; only the accepted commit is pending', { timeout: 120_000 }, async () => {
    const first = scriptedChain([0], [pastRound, pastRound]);
    // The round the schedule gives at these facts, learnt from a first plan the chain refuses.
    const probe = await submitCommit(input(first.chain, 'probe', []));
    expect(probe).toMatchObject({ ok: false, code: 'Custom:15' });
    const planned = first.sent[0]!.round;

    // The stored round moves past that plan between the read and the submit.
    const warns: string[] = [];
    const c = scriptedChain([0, planned + 10], [pastRound, landed(1001)]);
    const i = input(c.chain, 'retry', warns);
    const out = await submitCommit(i);
    expect(out.ok).toBe(true);
    expect(c.reads()).toBe(2);
    expect(c.sent.map((s) => s.round)).toEqual([planned, planned + 11]);
    expect(warns.filter((w) => /planning a later round once/.test(w))).toHaveLength(1);
    const { store } = readCommitStore(i.storePath);
    expect(store.intent).toBeNull();
    expect(store.pending).toHaveLength(1);
    expect(store.pending[0]).toMatchObject({ revealRound: planned + 11, commitBlock: 1001, epochIndex: 7 });
  });

  it('refused twice: tries no third time, keeps nothing pending, says the refusal', { timeout: 120_000 }, async () => {
    const warns: string[] = [];
    const c = scriptedChain([0, 5_000_000_000], [pastRound, pastRound, landed(1)]);
    const i = input(c.chain, 'twice', warns);
    const out = await submitCommit(i);
    expect(out).toMatchObject({ ok: false, kind: 'pool', code: 'Custom:15' });
    expect(c.sent).toHaveLength(2);
    expect(c.sent[1]!.round).toBe(5_000_000_001);
    const { store } = readCommitStore(i.storePath);
    expect(store.intent).toBeNull();
    expect(store.pending).toEqual([]);
  });

  it('a transport failure on the retry keeps the intent (the commit may still land), and is not retried again', { timeout: 120_000 }, async () => {
    const c = scriptedChain([0, 0], [pastRound, { ok: false, kind: 'transport', code: 'exception', message: 'socket closed' }]);
    const i = input(c.chain, 'transport', []);
    const out = await submitCommit(i);
    expect(out).toMatchObject({ ok: false, kind: 'transport' });
    expect(c.sent).toHaveLength(2);
    const { store } = readCommitStore(i.storePath);
    expect(store.intent).toMatchObject({ revealRound: c.sent[1]!.round });
    expect(store.pending).toEqual([]);
  });
});
