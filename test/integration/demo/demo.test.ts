// The demo end to end, in-process: the simulated network, the app headless against it (mining and
// validating auto-started), the scripted story; then the Mine page in Chromium; then a stop that
// leaves no child process and no listening port behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHeadless } from '../../../electron/headless.ts';
import type { EarningsSnapshot } from '../../../shared/earnings.ts';
import { launchBrowser, screenshotPath } from '../../helpers/browser.ts';
import { until } from '../../helpers/until.ts';
import { SN53 } from '../../doubles/dev-chain/sn53-seed.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from '../../doubles/sim-network/sim-network.ts';
import { PEER_MINERS } from '../../doubles/sim-network/sim-peers.ts';
import { runStory, type RunningStory } from '../../doubles/sim-network/story.ts';

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('engy-panel demo: the whole flow against the simulated network', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-demo-'));
  const lines: string[] = [];
  let net: SimulatedNetwork;
  let app: RunningHeadless;
  let story: RunningStory;

  beforeAll(async () => {
    net = await startSimulatedNetwork({ dataDir, epochMs: 8_000, blockMs: 250, pollSeconds: 2, log: (l) => lines.push(l) });
    app = await net.startApp();
    story = runStory(net, { log: (l) => lines.push(l), validator: () => app.engine.validating.snapshot() });
  }, 60_000);

  afterAll(async () => {
    story?.stop();
    await net?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the rig qualifies and earns, the cheat is refused, the validator lands each verified epoch', { timeout: 90_000 }, async () => {
    const rig = await until('demo-rig active at the gateway', 60_000, () => net.gateway.view().find((w) => w.workerName === 'demo-rig' && w.state === 'active'));
    expect(rig.audits.filter((a) => a.verdict === 'pass').length).toBeGreaterThan(0);
    expect(rig.audits.some((a) => a.verdict === 'cheat')).toBe(false);
    const cheat = await until('cheat-rig refused', 30_000, () => net.gateway.view().find((w) => w.workerName === 'cheat-rig' && w.state === 'refused'));
    expect(cheat.reason).toMatch(/^TOPLOC proof failure: \d+ of \d+ probe proofs failed the audit/);

    const miner = await until("the app's miner active", 30_000, () => {
      const m = app.engine.mining.minerSnapshots()[0];
      return m?.phase === 'active' ? m : null;
    });
    expect(miner.workerName).toBe('demo-rig');
    // The engine's /metrics speaks for the running rig: its state, and the serve's own sglang families relabelled.
    // (The feed follows the miner's change events, which are coalesced: wait for the scrape, not the snapshot.)
    const scrape = await until('the scrape to show the active rig and its serve', 20_000, async () => {
      const text = await app.engine.renderMetrics();
      return text.includes('engy_miner_state{state="active"} 1\n') && /^engy_sglang_num_running_reqs\{engine="[^"]+"/m.test(text) ? text : null;
    });
    expect(scrape).toMatch(/^engy_serve_engine_up\{engine="[^"]+"\} 1$/m);

    // An epoch scored from the buyers' traffic: the rig earns a share, the cheat is gated.
    const epoch = await until('a published epoch', 30_000, () => net.epochs[0]);
    const rigWeight = epoch.weights.find(([h]) => h === net.hotkeys.rig)?.[1] ?? 0;
    expect(rigWeight).toBeGreaterThan(0);
    expect(epoch.rows.find((r) => r.hotkey === net.hotkeys.cheat)?.gate_reason).toBe('cheat');
    expect(epoch.weights.some(([h]) => h === net.hotkeys.cheat)).toBe(false);

    // The app's validator verified that signed epoch and landed it on the dev chain.
    const sub = await until('a landed submission', 30_000, () => app.engine.validating.snapshot()?.recentSubmissions.find((s) => s.ok && s.kind === 'fresh'));
    expect(sub.epochIndex).toBeGreaterThanOrEqual(1);
    const rigUid = net.uidOf(net.hotkeys.rig)!;
    const onChain = net.chain.state.weightsOf(SN53, rigUid);
    // The rig and the simulated peer miners, uids ascending, as the verified vector named them (the
    // chain keeps them max-upscaled, so compare who, not how much).
    const named = [rigUid, ...net.hotkeys.peerMiners.map((hk) => net.uidOf(hk)!)].sort((a, b) => a - b);
    expect(named).toHaveLength(1 + PEER_MINERS);
    expect(onChain.map(([uid]) => uid)).toEqual(named);
    expect(sub.uids).toEqual(named);
    expect(onChain.every(([, w]) => w > 0)).toBe(true);

    // Earnings: the verified epoch with the rig's weight and its published row.
    const earned = await until('an earnings epoch with a weight', 30_000, async () => {
      const e = (await app.engine.table['earnings.refresh'](null)) as EarningsSnapshot;
      return e.epochs.find((x) => x.weight > 0);
    });
    expect(earned.row?.hotkey).toBe(net.hotkeys.rig);
    expect(earned.gate.reason).toBeNull();

    await until('the story to reach validator-submits', 20_000, () => story.steps.includes('validator-submits'));
    expect(story.steps.slice(0, 5)).toEqual(['network-up', 'honest-qualifies', 'cheat-refused', 'rig-earns', 'validator-submits']);
    expect(lines.find((l) => l.startsWith('[story] cheat-refused:'))).toContain(cheat.reason!);
  });

  it('the Mine page shows the rig active under the SIMULATED banner', { timeout: 60_000 }, async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
      await page.goto(app.server.url);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Mine', exact: true }).click();
      const phase = page.getByTestId('miner-phase');
      await phase.filter({ hasText: /^earning$/ }).waitFor({ timeout: 30_000 });
      expect(await page.locator('.banner-sim').textContent()).toContain('SIMULATED NETWORK');
      await page.screenshot({ path: screenshotPath('demo-mine'), fullPage: true });
    } finally {
      await browser.close();
    }
  });

  it('stop() closes everything: no child process alive, every port refuses', { timeout: 60_000 }, async () => {
    const pids = net.childPids();
    const ports = net.ports();
    expect(pids).toHaveLength(2);
    expect(ports).toContain(app.server.port);
    expect(await refused(app.server.port)).toBe(false);
    story.stop();
    await net.stop();
    expect(pids.filter(alive)).toEqual([]);
    const open: number[] = [];
    for (const p of ports) if (!(await refused(p))) open.push(p);
    expect(open).toEqual([]);
  });
});
