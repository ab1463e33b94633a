// One gateway worker per engine on a multi-engine box (PROTOCOL 3): the MiningController as the
// app builds it, over a 2x H100 plan, the fake python's serves and the gateway double.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HardwareReport, HostInfo, ServePlan } from '../../../shared/hardware.ts';
import { defaultSettings } from '../../../shared/settings.ts';
import { fleetPhase } from '../../../shared/miner-fleet.ts';
import { checkFit } from '../../../electron/engine/hardware/fit-check.ts';
import { HardwareService } from '../../../electron/engine/hardware/hardware-service.ts';
import { queryNvidiaSmi } from '../../../electron/engine/hardware/nvidia-smi.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { minerModel } from '../../../electron/engine/lib/model-catalog.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { defaultWorkerName } from '../../../electron/engine/miner/identity.ts';
import { EngyMetrics } from '../../../electron/engine/metrics/engy-metrics.ts';
import { feedMiningMetrics } from '../../../electron/engine/metrics/mining-metrics.ts';
import { SnapshotFeeds } from '../../../electron/engine/metrics/snapshot-feeds.ts';
import { MiningController } from '../../../electron/engine/roles/mining-controller.ts';
import { rehearseQualification } from '../../../electron/engine/preflight/rehearsal.ts';
import { planWorkers } from '../../../electron/engine/roles/miner-workers.ts';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { MinerKeyStore } from '../../../electron/engine/wallet/miner-key-store.ts';
import { GatewayDouble } from '../../doubles/gateway/gateway-double.ts';
import { fakeNvidiaEnv } from '../../helpers/fake-nvidia-smi.ts';
import { FAKE_PYTHON, FAST, fakeEnv, pidAlive } from '../serve/serve-harness.ts';
import { CHECKPOINT, KEY, until } from './harness.ts';

// Longer than engine 1 takes to come up after engine 0 (~0.6 s with the fake serve), so the gap is the stagger's.
const STAGGER_MS = 2000;
const host: HostInfo = { hostname: 'rig', os: 'Ubuntu 24.04', cpuModel: 'EPYC', cpus: 32, ramGiB: 256, diskFreeGiB: 900, diskPath: '/data' };

async function twoH100(): Promise<HardwareReport> {
  const env = fakeNvidiaEnv('2xh100');
  const smi = await queryNvidiaSmi((file, args, timeoutMs) => new Promise((resolve, reject) => execFile(file, args, { env, timeout: timeoutMs }, (e, out) => (e ? reject(e) : resolve(String(out))))));
  return checkFit({ spec: minerModel(), smi, otherGpus: [], host });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('worker plan', () => {
  const plan = { engines: [{ declaredInflight: 24 }, { declaredInflight: 16 }], maxInflight: 40 } as unknown as ServePlan;
  const urls = ['http://127.0.0.1:30000', 'http://127.0.0.1:30001'];

  it('gives each managed engine its own worker declaring that engine share', () => {
    const w = planWorkers({ runtime: 'python', urls, plan, workerName: null, maxInflightOverride: null });
    expect(w).toEqual([
      { engines: [0], serveUrls: [urls[0]], maxInflight: 24, engine: 'engine-0' },
      { engines: [1], serveUrls: [urls[1]], maxInflight: 16, engine: 'engine-1' },
    ]);
  });

  it('suffixes a user-chosen name for engines after the first, and applies the override per worker', () => {
    const w = planWorkers({ runtime: 'docker', urls, plan, workerName: 'box-a', maxInflightOverride: 32 });
    expect(w.map((x) => [x.workerName, x.maxInflight])).toEqual([
      ['box-a', 32],
      ['box-a-1', 32],
    ]);
  });

  it('keeps one worker over every URL of an external serve', () => {
    const w = planWorkers({ runtime: 'external', urls, plan, workerName: 'box-a', maxInflightOverride: null });
    expect(w).toEqual([{ engines: [0, 1], serveUrls: urls, maxInflight: 40, engine: 'engine-0', workerName: 'box-a' }]);
  });
});

describe('mining on a 2x H100 box', () => {
  it('runs one worker per engine, started a stagger apart, each qualifying on its own; Start without rehearsal goes live with none', { timeout: 240_000 }, async () => {
    const gw = new GatewayDouble({ workers: 8, keys: [KEY], judgeAfterMs: 300, probe: { waves: 1, promptWords: 20, maxTokens: 16 } });
    const gwUrl = await gw.start();
    cleanups.push(() => gw.stop());
    // First hello per worker id, seen by polling the double (order and gap, not precision).
    const firstSeen = new Map<string, number>();
    const poll = setInterval(() => {
      for (const w of gw.view()) if (!firstSeen.has(w.workerId)) firstSeen.set(w.workerId, Date.now());
    }, 10);
    cleanups.push(() => clearInterval(poll));

    const dir = mkdtempSync(join(tmpdir(), 'engy-multi-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const paths = dataPaths(dir);
    mkdirSync(dir, { recursive: true });
    const base = defaultSettings();
    writeFileSync(paths.settings, JSON.stringify({ ...base, role: 'mine', mining: { ...base.mining, runtime: 'python', checkpointDir: CHECKPOINT, gatewayUrl: gwUrl } }));
    const logs = new LogHub();
    const settings = new SettingsStore(paths.settings, logs.logger('settings'));
    const report = await twoH100();
    expect(report.plan?.engines).toHaveLength(2);
    const hardware = new HardwareService({ dataDir: dir }, logs.logger('hardware'), async () => report);
    const db = new Database(paths.database);
    cleanups.push(() => db.close());
    const minerKeys = new MinerKeyStore({ secretsDir: paths.secrets, redactor: logs.redactor, env: {} });
    minerKeys.set(KEY);
    // Start's rehearsal, as compose wires it (a small wave): it runs against the serves once they are up,
    // and no worker may reach the gateway before it ended.
    const rehearsed: Array<{ urls: string[]; helloBeforeEnd: number; endedAt: number }> = [];
    const rehearse = async (urls: string[]) => {
      const r = await rehearseQualification({ serveUrls: urls, gates: { ttftP99Ms: 100_000, tpotP99Ms: 1_000 }, concurrent: 4, promptWords: 50, maxTokens: 8 });
      rehearsed.push({ urls, helloBeforeEnd: firstSeen.size, endedAt: Date.now() });
      return r;
    };
    const mining = new MiningController({
      settings,
      hardware,
      minerKeys,
      logs,
      db,
      paths,
      versions: { 'engy-panel': 'test' },
      simulated: false,
      rehearse,
      overrides: { runtimes: { pythonCandidates: [FAKE_PYTHON], docker: '/nonexistent/engy-test/docker' }, fleet: { env: fakeEnv(), timings: FAST }, staggerMs: STAGGER_MS },
    });
    cleanups.push(() => mining.dispose());
    // /metrics wired as compose wires it: the fleet's figures must cover both workers and both engines.
    const metrics = new EngyMetrics();
    const feed = feedMiningMetrics(mining, new SnapshotFeeds(metrics));
    cleanups.push(() => feed.dispose());
    const scrape = () => {
      feed.beforeRender();
      return metrics.renderMetrics();
    };

    await mining.start();
    const serve = mining.serveSnapshot()!;
    expect(serve.engines.map((e) => e.status.state)).toEqual(['ready', 'ready']);
    const pids = serve.engines.map((e) => e.status.pid!);
    expect(pids.every((p) => typeof p === 'number')).toBe(true);

    // The rehearsal ran once, on both engines' URLs, before any worker said hello; its verdict is in the serve snapshot.
    expect(rehearsed).toHaveLength(1);
    expect(rehearsed[0]!.urls).toEqual(serve.engines.map((e) => e.url));
    expect(rehearsed[0]!.helloBeforeEnd).toBe(0);
    expect(serve.rehearsal).toMatchObject({ state: 'done', error: null, result: { concurrent: 4, completed: 4 } });
    const workers = mining.minerSnapshots();
    expect(workers).toHaveLength(2);
    expect(new Set(workers.map((w) => w.workerName)).size).toBe(2);
    expect(new Set(workers.map((w) => w.workerId)).size).toBe(2);
    workers.forEach((w, i) => expect(w.workerName).toBe(defaultWorkerName(hostname(), minerModel().id, [serve.engines[i]!.url])));

    await until(() => gw.view().length === 2 && gw.view().every((w) => w.state === 'active' || w.state === 'refused'), 120_000, 'both probe verdicts');
    const view = gw.view();
    for (const [i, w] of workers.entries()) {
      const g = view.find((v) => v.workerId === w.workerId);
      expect(g, `worker ${i} reached the gateway`).toBeDefined();
      expect(g!.reason).toBeNull();
      expect(g!.state).toBe('active');
      expect(g!.workerName).toBe(w.workerName);
      expect(g!.legs).toHaveLength(8);
      expect(g!.capacityTotal).toBe(report.plan!.engines[i]!.declaredInflight);
    }
    // Both workers start after the rehearsal ended, one stagger apart: whichever takes the first turn (the workers start
    // as their engines are found ready, not by index) says hello at or after the rehearsal's end; the other cannot say
    // hello before its own turn, one stagger after the first turn. How soon after its turn a hello lands is the machine's
    // speed, so only these lower bounds are behaviour.
    const hellos = workers.map((w) => firstSeen.get(w.workerId ?? '')!).sort((a, b) => a - b);
    expect(hellos[0]! - rehearsed[0]!.endedAt).toBeGreaterThanOrEqual(0);
    expect(hellos[1]! - rehearsed[0]!.endedAt).toBeGreaterThanOrEqual(STAGGER_MS - 50);
    const live = mining.minerSnapshots();
    for (const m of live) expect([m.legsLive, m.capacity?.maxInflightTotal]).toEqual([8, 24]);
    expect(mining.busy()).toBe(false);
    await until(() => mining.sglangMetrics().length === 2, 10_000, "both engines' metrics scraped");
    const during = await scrape();
    // The miners' own phase trails the gateway's verdict (it is inferred from traffic): the gauge names the fleet's.
    expect(during).toContain(`engy_miner_state{state="${fleetPhase(mining.minerSnapshots())}"} 1\n`);
    expect(during).toContain('engy_miner_legs_admitted 16\n');
    for (const e of serve.engines) {
      const label = `gpu${e.gpuIndices.join('-')}`;
      expect(during).toContain(`engy_serve_engine_up{engine="${label}"} 1\n`);
      expect(during).toMatch(new RegExp(`^engy_sglang_num_running_reqs\\{engine="${label}"`, 'm'));
    }

    await mining.stop();
    expect(mining.minerSnapshots()).toEqual([]);
    expect(mining.serveSnapshot()).toBeNull();
    const after = await scrape();
    expect(after).toContain('engy_miner_state{state="stopped"} 1\n');
    expect(after).toContain('engy_miner_legs_admitted 0\n');
    expect(after).not.toMatch(/^engy_serve_engine_up\{/m);
    expect(after).not.toContain('engy_sglang_');
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);

    // "Start without rehearsal" (for experts): the serve comes up and the workers go live with no probe wave first,
    // and the serve snapshot says it was skipped. The workers keep their ids: their legs at the gateway show them back.
    await until(() => gw.view().every((v) => v.legs.length === 0), 30_000, 'no leg live after Stop');
    await mining.start({ skipRehearsal: true });
    expect(rehearsed, 'no rehearsal on a skipped Start').toHaveLength(1);
    expect(mining.serveSnapshot()?.rehearsal).toMatchObject({ state: 'skipped', result: null, error: null });
    const again = mining.minerSnapshots().map((w) => w.workerId);
    expect(again).toHaveLength(2);
    await until(() => again.every((id) => gw.view().find((v) => v.workerId === id)?.legs.length === 8), 60_000, 'both workers live again without a rehearsal');
    await mining.stop();
    expect(mining.serveSnapshot()).toBeNull();
  });
});
