import { describe, expect, it } from 'vitest';
import { EngyMetrics } from '../../../electron/engine/metrics/engy-metrics.ts';
import { engineLabel, SnapshotFeeds } from '../../../electron/engine/metrics/snapshot-feeds.ts';
import type { MinerRequestRecord, MinerSnapshot } from '../../../shared/miner.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import type { SubmissionRecord, ValidatorSnapshot } from '../../../shared/validator.ts';

// Only the fields the feeds read; the rest of each snapshot is irrelevant here.
function minerSnap(recent: MinerRequestRecord[], phase: MinerSnapshot['phase'] = 'active'): MinerSnapshot {
  return {
    phase,
    legs: [
      { index: 0, url: 'wss://gw/0', status: 'admitted' },
      { index: 1, url: 'wss://gw/1', status: 'open' },
      { index: 2, url: 'wss://gw/2', status: 'backoff' },
    ],
    stats: { inflight: 2 },
    recent,
  } as unknown as MinerSnapshot;
}

function req(corrId: string, outcome: MinerRequestRecord['outcome'] = 'ok'): MinerRequestRecord {
  return { corrId, outcome, ttftMs: 1500, tpotMs: 30, promptTokens: 100, completionTokens: 10, cachedTokens: 40, proofMs: 12 } as MinerRequestRecord;
}

function sub(at: number, ok: boolean, errorCode: string | null = null): SubmissionRecord {
  return { at, kind: 'fresh', epochIndex: 7, digest: null, block: 100, uids: [], weights: [], droppedShare: 0, ok, extrinsicHash: ok ? `0x${at}` : null, includedBlock: null, errorCode, error: null };
}

/** Each sample (name with its labels) stands in the exposition text with that value, on a line of its own. */
function expectSamples(text: string, samples: Record<string, number>): void {
  for (const [sample, value] of Object.entries(samples)) expect(text, sample).toContain(`${sample} ${value}\n`);
}

describe('SnapshotFeeds', () => {
  it('mirrors the miner snapshot and counts each request once, not the history it started with', async () => {
    const m = new EngyMetrics();
    const feeds = new SnapshotFeeds(m);
    feeds.miners([minerSnap([req('old')])]);
    feeds.miners([minerSnap([req('old'), req('a'), req('b', 'error')])]);
    feeds.miners([minerSnap([req('a'), req('b', 'error')], 'probing')]);
    const text = await m.renderMetrics();
    expectSamples(text, {
      'engy_miner_state{state="probing"}': 1,
      engy_miner_legs_connected: 2,
      engy_miner_legs_admitted: 1,
      engy_miner_requests_in_flight: 2,
      'engy_miner_requests_total{outcome="ok"}': 1,
      'engy_miner_requests_total{outcome="error"}': 1,
      'engy_miner_tokens_total{kind="prompt"}': 200,
      'engy_miner_ttft_seconds_bucket{le="2"}': 2,
      engy_proof_build_seconds_count: 2,
    });
  });

  it('speaks for every worker of a multi-engine rig: least healthy state, summed legs, each request counted once', async () => {
    const m = new EngyMetrics();
    const feeds = new SnapshotFeeds(m);
    feeds.miners([minerSnap([req('a0')]), minerSnap([])]);
    // The same corr_id on two workers is two requests (each worker has its own gateway session).
    feeds.miners([minerSnap([req('same'), req('a0')]), minerSnap([req('same', 'error')], 'pulled')]);
    let text = await m.renderMetrics();
    expectSamples(text, {
      'engy_miner_state{state="pulled"}': 1,
      'engy_miner_state{state="active"}': 0,
      engy_miner_legs_connected: 4,
      engy_miner_legs_admitted: 2,
      engy_miner_requests_in_flight: 4,
      'engy_miner_requests_total{outcome="ok"}': 1,
      'engy_miner_requests_total{outcome="error"}': 1,
    });

    // Mining stopped: the gauges say so instead of freezing at the last run's values.
    feeds.miners([]);
    text = await m.renderMetrics();
    expectSamples(text, { 'engy_miner_state{state="stopped"}': 1, engy_miner_legs_connected: 0, engy_miner_requests_in_flight: 0 });
  });

  it('drops the engines, GPUs and sglang families from the scrape once the serve stops', async () => {
    const m = new EngyMetrics();
    const feeds = new SnapshotFeeds(m);
    const serve = {
      engines: [{ index: 0, gpuIndices: [0], status: { state: 'ready', restarts: 0 } }],
      gpus: [{ index: 0, name: 'NVIDIA GeForce RTX 4090', points: [{ at: 1, utilizationPct: 50, memoryUsedMiB: 1, memoryTotalMiB: 2, temperatureC: 40, powerDrawW: 100 }] }],
    } as unknown as ServeSnapshot;
    feeds.serve(serve);
    feeds.sglang([{ engine: { index: 0, gpuIndices: [0] }, text: '# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{model_name="q"} 3\n' }]);
    let text = await m.renderMetrics();
    expectSamples(text, { 'engy_serve_engine_up{engine="gpu0"}': 1, 'engy_sglang_num_running_reqs{engine="gpu0",model_name="q"}': 3 });
    feeds.serve(null);
    text = await m.renderMetrics();
    expect(text).not.toMatch(/^engy_serve_engine_up\{/m);
    expect(text).not.toMatch(/^engy_gpu_utilization_ratio\{/m);
    expect(text).not.toContain('engy_sglang_');
  });

  it('maps engines and the latest GPU point into seconds, bytes and ratios', async () => {
    const m = new EngyMetrics();
    const serve = {
      engines: [
        { index: 0, gpuIndices: [0, 1], status: { state: 'ready', restarts: 1 } },
        { index: 1, gpuIndices: [], status: { state: 'crashed', restarts: 3 } },
      ],
      gpus: [
        {
          index: 0,
          name: 'NVIDIA GeForce RTX 4090',
          points: [
            { at: 1, utilizationPct: 10, memoryUsedMiB: 1, memoryTotalMiB: 2, temperatureC: 40, powerDrawW: 100 },
            { at: 2, utilizationPct: 87, memoryUsedMiB: 20480, memoryTotalMiB: 24564, temperatureC: 71, powerDrawW: 390 },
          ],
        },
      ],
    } as unknown as ServeSnapshot;
    new SnapshotFeeds(m).serve(serve);
    const text = await m.renderMetrics();
    expectSamples(text, {
      'engy_serve_engine_up{engine="gpu0-1"}': 1,
      'engy_serve_state{engine="engine1",state="crashed"}': 1,
      'engy_serve_restarts_total{engine="engine1"}': 3,
      'engy_gpu_utilization_ratio{gpu="0",uuid="NVIDIA GeForce RTX 4090"}': 0.87,
      'engy_gpu_memory_used_bytes{gpu="0",uuid="NVIDIA GeForce RTX 4090"}': 20480 * 1024 * 1024,
    });
    expect(engineLabel({ index: 3, gpuIndices: [2] })).toBe('gpu2');
  });

  it('derives blocks since the last landed weights and counts new submissions by outcome', async () => {
    const m = new EngyMetrics();
    const feeds = new SnapshotFeeds(m);
    const v = (subs: SubmissionRecord[], block: number): ValidatorSnapshot =>
      ({ applied: { epochIndex: 7, block: 1000, at: 1, digest: null }, chain: { health: 'ok', block, error: null, at: 1 }, recentSubmissions: subs }) as unknown as ValidatorSnapshot;
    feeds.validator(v([sub(1, true)], 1010));
    feeds.validator(v([sub(1, true), sub(2, false, 'SettingWeightsTooFast'), sub(3, true)], 1125));
    const text = await m.renderMetrics();
    expectSamples(text, {
      engy_validator_last_submit_block: 1000,
      engy_validator_blocks_since_update: 125,
      'engy_validator_submissions_total{outcome="accepted"}': 1,
      'engy_validator_submissions_total{outcome="SettingWeightsTooFast"}': 1,
    });
  });
});

describe('watchEventLoopLag', () => {
  it('reports at once (so the instance appears on the dashboard) and stops on dispose', async () => {
    const { watchEventLoopLag } = await import('../../../electron/engine/metrics/event-loop-lag.ts');
    const samples: number[] = [];
    const d = watchEventLoopLag((s) => samples.push(s), 60_000);
    expect(samples).toEqual([0]);
    await d.dispose();
    const m = new EngyMetrics();
    const d2 = watchEventLoopLag((s) => m.setEventLoopLag(s));
    expect(await m.renderMetrics()).toContain('engy_event_loop_lag_seconds 0\n');
    await d2.dispose();
  });
});
