import { describe, expect, it } from 'vitest';
import { NotificationService, REOPEN_WITHIN_MS } from '../../../electron/engine/notify/notification-service.ts';
import { serveAlerts, validatorAlerts } from '../../../electron/engine/notify/alert-rules.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import type { ValidatorSnapshot } from '../../../shared/validator.ts';
import type { NotificationKind } from '../../../shared/settings.ts';

const crashed: ServeSnapshot = {
  version: 1,
  runtime: 'python',
  maxInflight: 24,
  gpus: [],
  engines: [
    {
      index: 0,
      runtime: 'python',
      url: 'http://127.0.0.1:30000',
      port: 30000,
      gpuIndices: [0, 1],
      command: 'python -m sglang.launch_server',
      trim: { state: 'off' },
      sglangVersion: '0.5.12.post1',
      metrics: [],
      status: {
        state: 'failed',
        since: 0,
        pid: null,
        port: 30000,
        restarts: 0,
        exitCode: 1,
        signal: null,
        stderrTail: [],
        cause: { code: 'cuda-oom-load', cause: 'The GPU ran out of memory while loading the weights.', fix: 'Lower --mem-fraction-static.', retryable: false },
      },
    },
  ],
};

function validator(over: Partial<ValidatorSnapshot>): ValidatorSnapshot {
  return {
    version: 1,
    status: 'running',
    failure: null,
    hotkey: '5F',
    netuid: 53,
    providerUrl: 'x',
    masterHotkey: 'y',
    lastVerified: null,
    applied: null,
    nextResubmit: null,
    chain: { health: 'ok', block: 1, error: null, at: 0 },
    provider: { health: 'ok', error: null, at: 0 },
    neuron: null,
    warnings: [],
    lastTickAt: 0,
    watchdogRestarts: 0,
    recentTicks: [],
    recentSubmissions: [],
    ...over,
  };
}

describe('alerts and notifications', () => {
  it('a crashed serve alerts once with its cause and fix, and again only after it recovered', () => {
    let muted: NotificationKind[] = [];
    let now = 1000;
    const svc = new NotificationService(
      () => muted,
      () => now,
    );
    const seen: string[] = [];
    svc.onNotification((n) => seen.push(`${n.title}: ${n.body}`));
    svc.update('serve', serveAlerts(crashed));
    svc.update('serve', serveAlerts(crashed));
    expect(seen).toEqual(['Engine 0 gave up: The GPU ran out of memory while loading the weights. Fix: Lower --mem-fraction-static.']);
    svc.update('serve', []);
    now += REOPEN_WITHIN_MS + 1;
    svc.update('serve', serveAlerts(crashed));
    expect(seen).toHaveLength(2);
    muted = ['serve-crashed'];
    svc.update('serve', []);
    now += REOPEN_WITHIN_MS + 1;
    svc.update('serve', serveAlerts(crashed));
    expect(seen).toHaveLength(2);
    expect(svc.snapshot().recent[0]!.kind).toBe('serve-crashed');
  });

  it('a provider the validator or the earnings poll reports down is one outage, named with its cause', () => {
    for (const error of ['cannot reach the provider: the connection was refused', 'provider answered HTTP 503']) {
      const down = validatorAlerts(validator({ provider: { health: 'down', error, at: 0 } }), 1000);
      expect(down.map((a) => [a.key, a.title])).toEqual([['provider-outage', 'Provider unreachable']]);
      expect(down[0]!.body).toContain(`(${error})`);
    }
  });

  it('validator: the activity cutoff warns at 80 % and two failed submissions alert', () => {
    const near = validatorAlerts(validator({ lastTickAt: 0, neuron: { uid: 3, validatorPermit: true, stakeRao: '1', lastUpdate: 10, blocksSinceUpdate: 4100, activityCutoff: 5000 } }), 1000);
    expect(near.map((a) => a.kind)).toEqual(['activity-cutoff-near']);
    const fine = validatorAlerts(validator({ lastTickAt: 0, neuron: { uid: 3, validatorPermit: true, stakeRao: '1', lastUpdate: 10, blocksSinceUpdate: 100, activityCutoff: 5000 } }), 1000);
    expect(fine).toEqual([]);
    const sub = {
      at: 0,
      kind: 'fresh' as const,
      epochIndex: 1,
      digest: null,
      block: 1,
      uids: [],
      weights: [],
      droppedShare: 0,
      ok: false,
      extrinsicHash: null,
      includedBlock: null,
      errorCode: 'SettingWeightsTooFast',
      error: 'Too fast: wait for the rate limit.',
    };
    const failing = validatorAlerts(validator({ recentSubmissions: [sub, sub] }), 1000);
    expect(failing.map((a) => a.kind)).toEqual(['validator-failing']);
    expect(failing[0]!.body).toBe('Too fast: wait for the rate limit.');
  });
});
