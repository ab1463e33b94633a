// Upstream's tests/test_heartbeat.py and the liveness cases of test_validator.py that had no
// counterpart here (see docs/validator.md, the table): the provider heartbeat's failures, what it
// reports, the heartbeat file the health check reads and the stall limit.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../../electron/engine/lib/clock.ts';
import type { Logger } from '../../../electron/engine/lib/logger.ts';
import { HEARTBEAT_PATH, stallLimitMs } from '../../../electron/engine/validator/constants.ts';
import { checkHeartbeat } from '../../../electron/engine/validator/healthcheck.ts';
import { apiMessage, postHeartbeat } from '../../../electron/engine/validator/heartbeat.ts';
import { MemoryValidatorHistory } from '../../../electron/engine/validator/history.ts';
import { writeState } from '../../../electron/engine/validator/state-file.ts';
import { composeEngine } from '../../../electron/compose.ts';
import { resolveDaemonConfig } from '../../../electron/engine/validator/daemon-config.ts';
import { ValidatorService } from '../../../electron/engine/validator/validator-service.ts';
import { MemoryChain } from '../../doubles/memory-chain.ts';
import { DEV_MASTER_URI, devKey } from '../../doubles/provider.ts';

const { decodeAddress, sr25519Verify } = polkadot('@polkadot/util-crypto');

const hk = devKey('//ValidatorHot');
const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };
const T = 1_790_000_000_000;

interface Seen {
  url: string;
  headers: Record<string, string>;
  body: string;
}

function recorder(status: number, seen: Seen[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), headers: init?.headers as Record<string, string>, body: String(init?.body ?? '') });
    return new Response(JSON.stringify(status === 200 ? { ok: true, server_ts: 1 } : { error: 'bad signature' }), { status });
  }) as typeof fetch;
}

describe('provider heartbeat failures (upstream test_heartbeat.py)', () => {
  it('signs and sends, the signature verifying over the exact path and body the provider sees', async () => {
    const seen: Seen[] = [];
    const r = await postHeartbeat({ apiBase: 'https://engy.example/', signer: hk, netuid: 53, version: 'engy-lv 1', syncedEpoch: 12, digest: 'abc', nowMs: T, fetch: recorder(200, seen) });
    expect(r).toEqual({ ok: true, status: 200, error: null });
    const s = seen[0]!;
    expect(s.url).toBe(`https://engy.example${HEARTBEAT_PATH}`);
    expect(JSON.parse(s.body)).toEqual({ v: 1, version: 'engy-lv 1', synced_epoch: 12, consensus: { epoch_index: 12, digest: 'abc' } });
    const ts = Number(s.headers['X-Validator-Ts']);
    const msg = apiMessage(53, 'POST', new URL(s.url).pathname, ts, s.body);
    expect(sr25519Verify(Buffer.from(msg), Buffer.from(s.headers['X-Validator-Sig']!, 'hex'), decodeAddress(hk.address))).toBe(true);
  });

  it('returns not-ok on a non-200 answer without throwing', async () => {
    const r = await postHeartbeat({ apiBase: 'https://engy.example', signer: hk, netuid: 53, version: 'v', syncedEpoch: null, digest: null, nowMs: T, fetch: recorder(401, []) });
    expect(r).toMatchObject({ ok: false, status: 401, error: expect.stringMatching(/HTTP 401/) });
  });

  it('returns not-ok on a network error, a bad URL or a signer that throws, without throwing', async () => {
    const down = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    await expect(postHeartbeat({ apiBase: 'https://engy.example', signer: hk, netuid: 53, version: 'v', syncedEpoch: 7, digest: 'd', nowMs: T, fetch: down })).resolves.toMatchObject({
      ok: false,
      status: null,
      error: expect.stringMatching(/heartbeat not sent/),
    });
    await expect(postHeartbeat({ apiBase: 'not a url', signer: hk, netuid: 53, version: 'v', syncedEpoch: 7, digest: 'd', nowMs: T })).resolves.toMatchObject({ ok: false });
    const broken = {
      address: hk.address,
      sign: () => {
        throw new Error('keypair unavailable');
      },
    };
    const seen: Seen[] = [];
    await expect(
      postHeartbeat({ apiBase: 'https://engy.example', signer: broken, netuid: 53, version: 'v', syncedEpoch: 7, digest: 'd', nowMs: T, fetch: recorder(200, seen) }),
    ).resolves.toMatchObject({ ok: false, error: expect.stringMatching(/keypair unavailable/) });
    expect(seen).toEqual([]);
  });

  it('after a tick, reports what is on chain (the state file), not what was fetched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-vlive-'));
    const statePath = join(dir, 'state.json');
    writeState(statePath, { lastApplied: 12, lastSubmitBlock: 100, lastSubmitMs: T, cachedWeights: [[hk.address, 65535]], cachedDigest: 'de'.repeat(32) });
    const seen: Seen[] = [];
    const rec = recorder(200, seen);
    // The provider is down for /epoch/latest (503), up for the heartbeat.
    const fetchFn = (async (url: string | URL | Request, init?: RequestInit) => (String(url).endsWith(HEARTBEAT_PATH) ? rec(url, init) : new Response('', { status: 503 }))) as typeof fetch;
    const clock: Clock = { now: () => T + 60_000, setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };
    const chain = new MemoryChain({ block: 150 });
    const svc = new ValidatorService({
      config: { providerUrl: 'https://engy.example', masterHotkey: devKey(DEV_MASTER_URI).address, netuid: 53, statePath, resubmitBlocks: 120 },
      signer: hk,
      openChain: () => chain.open(),
      history: new MemoryValidatorHistory(),
      logger: silent,
      pollMs: 300_000,
      version: 'engy-panel test',
      clock,
      fetch: fetchFn,
    });
    const rep = await svc.runOnce();
    expect(rep.tick.outcome).toBe('skipped:too-soon');
    await svc.dispose();
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([{ v: 1, version: 'engy-panel test', synced_epoch: 12, consensus: { epoch_index: 12, digest: 'de'.repeat(32) } }]);
  });
});

describe('heartbeat file and stall limit (upstream test_validator.py liveness)', () => {
  it('the stall limit leaves room for a slow tick and has a 15 min floor', () => {
    expect(stallLimitMs(600_000)).toBe(1_800_000);
    expect(stallLimitMs(10_000)).toBe(900_000);
    expect(stallLimitMs(300_000)).toBeGreaterThan(300_000);
  });

  it('the age grows while the loop stops ticking, until the limit makes it unhealthy', () => {
    const p = join(mkdtempSync(join(tmpdir(), 'engy-vlive-')), 'heartbeat.json');
    writeFileSync(p, JSON.stringify({ ts: T / 1000 }));
    expect(checkHeartbeat(p, 600, T)).toMatchObject({ ok: true, ageS: 0 });
    expect(checkHeartbeat(p, 600, T + 600_000)).toMatchObject({ ok: true, ageS: 600 });
    expect(checkHeartbeat(p, 600, T + 1_800_000)).toMatchObject({ ok: true });
    expect(checkHeartbeat(p, 600, T + 1_801_000)).toMatchObject({ ok: false, text: expect.stringMatching(/stale heartbeat/) });
  });

  it('a missing, corrupt, oversized or prototype-shaped heartbeat reads as unknown (unhealthy with the reason)', () => {
    const d = mkdtempSync(join(tmpdir(), 'engy-vlive-'));
    expect(checkHeartbeat(join(d, 'nope'), 600, T)).toMatchObject({ ok: false, text: expect.stringMatching(/no heartbeat yet/) });
    const cases: Array<[string, RegExp]> = [
      ['not json', /not JSON/],
      ['{"ts": "1790000000"}', /no numeric "ts"/],
      ['{"__proto__": {"ts": 1790000000}}', /no numeric "ts"/],
      ['[1790000000]', /no numeric "ts"/],
      [`{"ts": 1, "pad": "${'x'.repeat(5000)}"}`, /not a heartbeat/],
    ];
    for (const [body, why] of cases) {
      writeFileSync(join(d, 'hb'), body);
      expect(checkHeartbeat(join(d, 'hb'), 600, T), body.slice(0, 30)).toMatchObject({ ok: false, text: expect.stringMatching(why) });
    }
  });
});

describe('heartbeat file on every outcome (upstream test_validator.py liveness)', () => {
  it('the daemon stamps the heartbeat after a tick that failed, not only after one that applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-vlive-d-'));
    const r = resolveDaemonConfig({ wallet: 'w', hotkey: 'h', dataDir: dir }, {});
    if (!r.ok) throw new Error(r.errors.join('; '));
    const lines: string[] = [];
    let stop: (s: string) => void = () => {};
    const stopSignal = new Promise<string>((res) => (stop = res));
    const chain = new MemoryChain();
    const down = (async () => new Response('', { status: 503 })) as typeof fetch;
    // Built as `engy-panel validate` builds it (the validate profile), with the chain, hotkey and provider doubled.
    const engine = await composeEngine({
      profile: 'validate',
      dataDir: dir,
      echo: (l) => void lines.push(l),
      validate: { config: r.config, env: {}, openChain: () => chain.open(), signer: hk, fetch: down },
    });
    const done = engine.run(stopSignal).finally(() => engine.dispose());
    const before = Date.now() / 1000;
    await vi.waitFor(() => expect(existsSync(r.config.heartbeatFile)).toBe(true), { timeout: 10_000 });
    stop('SIGTERM');
    await expect(done).resolves.toBe(0);
    const ts = (JSON.parse(readFileSync(r.config.heartbeatFile, 'utf8')) as { ts: number }).ts;
    expect(ts).toBeGreaterThanOrEqual(before - 1);
    expect(existsSync(r.config.statePath)).toBe(false); // nothing landed: the state file cannot be the liveness signal
    expect(lines.join('\n')).toMatch(/\[tick\] fetch-failed/);
    expect(checkHeartbeat(r.config.heartbeatFile, r.config.pollS, Date.now())).toMatchObject({ ok: true });
  });
});
