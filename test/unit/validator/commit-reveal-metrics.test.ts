// /metrics for the commit-reveal path: which path is in use, what waits for a reveal, whether the last one landed,
// fed from the validator snapshot as the composition root does.
import { describe, expect, it } from 'vitest';
import { EngyMetrics } from '../../../electron/engine/metrics/engy-metrics.ts';
import { SnapshotFeeds } from '../../../electron/engine/metrics/snapshot-feeds.ts';
import type { CommitRevealView, ValidatorSnapshot } from '../../../shared/validator.ts';
import { pendingCommitReveal } from '../../fixtures/validator/commit-reveal.ts';

function snapshot(cr: CommitRevealView | undefined): ValidatorSnapshot {
  return {
    version: 1,
    status: 'running',
    failure: null,
    hotkey: '5Hot',
    netuid: 53,
    providerUrl: 'http://p',
    masterHotkey: '5M',
    lastVerified: null,
    applied: { epochIndex: 4, block: 1000, at: 1, digest: null },
    nextResubmit: null,
    chain: { health: 'ok', block: 1050, error: null, at: 1 },
    provider: { health: 'ok', error: null, at: 1 },
    neuron: null,
    warnings: [],
    lastTickAt: 1,
    watchdogRestarts: 0,
    recentTicks: [],
    recentSubmissions: [],
    ...(cr ? { commitReveal: cr } : {}),
  };
}

const line = (text: string, name: string) => text.split('\n').find((l) => l.startsWith(`${name} `)) ?? null;

describe('commit-reveal metrics', () => {
  it('shows the path, the pending commits with the earliest reveal, and whether the last reveal landed', async () => {
    const m = new EngyMetrics();
    const feeds = new SnapshotFeeds(m);
    feeds.validator(snapshot(pendingCommitReveal()));
    const text = await m.renderMetrics();
    expect(line(text, 'engy_validator_commit_reveal')).toBe('engy_validator_commit_reveal 1');
    expect(line(text, 'engy_validator_pending_commits')).toBe('engy_validator_pending_commits 2');
    expect(line(text, 'engy_validator_next_reveal_block')).toBe('engy_validator_next_reveal_block 1100');
    expect(line(text, 'engy_validator_next_reveal_round')).toBe('engy_validator_next_reveal_round 22000000');
    expect(line(text, 'engy_validator_last_reveal_landed')).toBe('engy_validator_last_reveal_landed 0');

    // Back on plain weights with nothing pending: the reveal series disappear instead of going stale.
    feeds.validator(snapshot({ path: 'plain', version: null, revealPeriodEpochs: null, pending: [], lastReveal: null }));
    const after = await m.renderMetrics();
    expect(line(after, 'engy_validator_commit_reveal')).toBe('engy_validator_commit_reveal 0');
    expect(line(after, 'engy_validator_pending_commits')).toBe('engy_validator_pending_commits 0');
    expect(line(after, 'engy_validator_next_reveal_block')).toBeNull();
    expect(line(after, 'engy_validator_last_reveal_landed')).toBeNull();
  });
});
