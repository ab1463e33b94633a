// Hostile and broken rigs, each beside a good one, through the real test sshd: malformed snapshots,
// oversized ones, a rig that answers slowly (over SSH, and on the contract), another contract version.
// Each test: the bad rig's row says what is wrong; the good rig's row keeps updating (nothing froze).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetService } from '../../../electron/engine/fleet/fleet-service.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { CONTRACT_VERSION } from '../../../shared/api.ts';
import { startFakeRigEngine, type FakeRigBehaviour, type FakeRigEngine } from '../../doubles/fleet/fake-rig-engine.ts';
import { pidRunning } from '../../helpers/pid-running.ts';
import { startTestSshd, type TestSshd } from '../../helpers/sshd.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

const printAccess = join(import.meta.dirname, '..', '..', 'doubles', 'fleet', 'print-access.mjs');
const temp = tempDirs('engy-broken-rig-');
// Generous: the machine running these may be loaded many times over its cores.
const poll = { timeout: 150_000, interval: 100 };

describe('broken rigs never touch the good one', () => {
  let sshd: TestSshd;
  let knownHostsDir: string;
  beforeAll(async () => {
    sshd = await startTestSshd();
    // One accepted host key for every panel below (the host-key flow has its own test).
    knownHostsDir = mkdtempSync(join(tmpdir(), 'engy-kh-'));
    const line = execFileSync('ssh-keyscan', ['-p', String(sshd.port), '127.0.0.1'], { encoding: 'utf8' });
    mkdirSync(join(knownHostsDir, 'fleet'), { recursive: true });
    writeFileSync(join(knownHostsDir, 'fleet', 'known_hosts'), line, { mode: 0o600 });
  }, 60_000);
  afterAll(async () => {
    await sshd?.stop();
    rmSync(knownHostsDir, { recursive: true, force: true });
  });

  /** Runs the bad rig beside a good one; returns the bad rig's data dir (its double's pids are in D/pids). */
  async function scenario(bad: { behave?: FakeRigBehaviour; contract?: number; access?: string; slowMs?: number }, check: (fleet: FleetService, badId: string) => Promise<void>): Promise<string> {
    const good = await startFakeRigEngine('good');
    const engines: FakeRigEngine[] = [good];
    const panelDir = temp();
    mkdirSync(join(panelDir, 'fleet'), { recursive: true });
    writeFileSync(join(panelDir, 'fleet', 'known_hosts'), execFileSync('cat', [join(knownHostsDir, 'fleet', 'known_hosts')]));
    const fleet = new FleetService({
      dataDir: panelDir,
      log: silentLogger,
      tools: { configFile: sshd.clientConfig },
      limits: { maxFrameBytes: 256 * 1024, accessTimeoutMs: 45_000, invokeTimeoutMs: 20_000, backoffInitialMs: 500, backoffMaxMs: 2_000 },
    });
    let badDir = '';
    try {
      const rigDir = (access: string, slowMs?: number) => {
        const d = temp();
        writeFileSync(join(d, 'access.json'), access);
        if (slowMs) writeFileSync(join(d, 'slow'), String(slowMs));
        return d;
      };
      const accessFor = (e: FakeRigEngine, contract = CONTRACT_VERSION) => JSON.stringify({ token: e.token, port: e.port, running: true, version: '0.1.0', contract });
      const goodRig = fleet.add({ target: sshd.target, name: 'good', command: `${process.execPath} ${printAccess}`, dataDir: rigDir(accessFor(good)) });
      let badAccess = bad.access;
      if (badAccess === undefined) {
        const e = await startFakeRigEngine(bad.behave ?? 'good', { contract: bad.contract ?? CONTRACT_VERSION, oversizeBytes: 1_000_000 });
        engines.push(e);
        badAccess = accessFor(e, bad.contract);
      }
      badDir = rigDir(badAccess, bad.slowMs);
      const badRig = fleet.add({ target: sshd.target, name: 'bad', command: `${process.execPath} ${printAccess}`, dataDir: badDir });
      const row = (id: string) => fleet.snapshot().rigs.find((r) => r.id === id)!;
      await expect.poll(() => `${row(goodRig.id).link}: ${row(goodRig.id).detail}`, poll).toMatch(/^online/);
      await check(fleet, badRig.id);
      // The good rig still updates: its new figure reaches its row.
      for (const tps of [111, 222]) {
        good.push(tps);
        await expect.poll(() => row(goodRig.id).tokensPerSecond, poll).toBe(tps);
      }
      expect(row(goodRig.id)).toMatchObject({ link: 'online', refused: 0, activity: 'mining' });
    } finally {
      fleet.dispose();
      for (const e of engines) await e.close();
    }
    return badDir;
  }
  const row = (f: FleetService, id: string) => f.snapshot().rigs.find((r) => r.id === id)!;

  it('malformed snapshots are refused and counted; the rig stays connected', async () => {
    await scenario({ behave: 'malformed' }, async (fleet, id) => {
      await expect.poll(() => row(fleet, id).refused, poll).toBeGreaterThanOrEqual(4);
      // The hostile frames arrive before the rig's app.info answer: wait for that answer, then the row
      // must read online with nothing taken from the refused frames.
      await expect.poll(() => row(fleet, id).link, poll).toBe('online');
      expect(row(fleet, id)).toMatchObject({ link: 'online', tokensPerSecond: null, weekTao: null });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }, 400_000);

  it("an oversized snapshot closes that rig's link (said on its row) and it is retried", async () => {
    await scenario({ behave: 'oversized' }, async (fleet, id) => {
      await expect.poll(() => row(fleet, id).refused, poll).toBeGreaterThanOrEqual(1);
      await expect.poll(() => row(fleet, id).detail, poll).toMatch(/bad sent a message over 256 KiB: refused; reconnecting/);
    });
  }, 400_000);

  it('a rig that never answers on the contract is dropped after the deadline and retried', async () => {
    await scenario({ behave: 'silent' }, async (fleet, id) => {
      await expect.poll(() => row(fleet, id).detail, poll).toMatch(/did not answer app.info/);
      expect(row(fleet, id).link).not.toBe('online');
    });
  }, 400_000);

  it('a rig slow to answer over SSH is timed out, said, and retried', async () => {
    const badDir = await scenario({ access: '{}', slowMs: 300_000 }, async (fleet, id) => {
      await expect.poll(() => row(fleet, id).detail, poll).toMatch(/answered nothing over SSH in 45 s/);
      expect(row(fleet, id).unreachableSince).not.toBeNull();
    });
    // Every run of the slow double (the timed-out one, the retries) ends with its ssh session, here while
    // this sshd still runs: none sleeps out its 300 s past this test. It checks its parent every 0.2 s.
    const pids = readFileSync(join(badDir, 'pids'), 'utf8').trim().split('\n').map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(1);
    await expect.poll(() => pids.filter(pidRunning), { timeout: 30_000, interval: 100 }).toEqual([]);
  }, 400_000);

  it('another contract version says which side to update', async () => {
    await scenario({ contract: CONTRACT_VERSION + 1 }, async (fleet, id) => {
      await expect.poll(() => row(fleet, id).link, poll).toBe('incompatible');
      expect(row(fleet, id).detail).toMatch(/newer engy-panel .* update this panel/);
    });
    await scenario({ contract: 0 }, async (fleet, id) => {
      await expect.poll(() => row(fleet, id).link, poll).toBe('incompatible');
      expect(row(fleet, id).detail).toMatch(/older engy-panel .* update engy-panel on the rig/);
    });
  }, 400_000);

  it('garbage from --print-access is said, not believed', async () => {
    await scenario({ access: '{"token":"short","port":"x"}' }, async (fleet, id) => {
      await expect.poll(() => row(fleet, id).detail, poll).toMatch(/shape this panel does not read/);
    });
  }, 400_000);
});
