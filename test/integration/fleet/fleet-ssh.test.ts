// The fleet against a REAL OpenSSH server on 127.0.0.1 (throwaway host and user keys, test/helpers/sshd.ts)
// and real headless engines: host key shown and accepted by fingerprint, never skipped; a changed host key
// stops the link and shows old and new; a killed engine says since when it is down; SSH dropping
// mid-session is survived; one rig's trouble never touches the other's row.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetService } from '../../../electron/engine/fleet/fleet-service.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { startHeadlessChild, type HeadlessChild } from '../../helpers/headless-process.ts';
import { startTestSshd, type TestSshd } from '../../helpers/sshd.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const bin = join(import.meta.dirname, '..', '..', '..', 'bin', 'engy-panel.mjs');
const temp = tempDirs('engy-fleet-ssh-');
// Generous: the machine running these may be loaded many times over its cores.
const poll = { timeout: 150_000, interval: 200 };

function fingerprint(pub: string): string {
  const out = execFileSync('ssh-keygen', ['-lf', '-'], { input: pub, encoding: 'utf8' });
  const m = /^\d+\s+(\S+)\s+.*\((\S+)\)\s*$/.exec(out.trim())!;
  return `${m[1]} (${m[2]})`;
}

describe('fleet over a real sshd', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function uiDir(): string {
    const ui = temp();
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>t</title>');
    return ui;
  }
  async function rigEngine(): Promise<HeadlessChild> {
    const child = await startHeadlessChild({ ENGY_RENDERER_DIR: uiDir() }, [], temp(), 120_000);
    cleanups.push(() => child.stop());
    return child;
  }
  async function sshd(): Promise<TestSshd> {
    const s = await startTestSshd();
    cleanups.push(() => s.stop());
    return s;
  }
  function panel(s: TestSshd): FleetService {
    const fleet = new FleetService({
      dataDir: temp(),
      log: silentLogger,
      tools: { configFile: s.clientConfig },
      limits: { backoffInitialMs: 300, backoffMaxMs: 1_500, accessTimeoutMs: 60_000, invokeTimeoutMs: 30_000 },
    });
    cleanups.push(() => fleet.dispose());
    return fleet;
  }
  const row = (f: FleetService, id: string) => f.snapshot().rigs.find((r) => r.id === id)!;

  it('shows an unknown host key by fingerprint, connects only once it is accepted, then reads the rig', async () => {
    const s = await sshd();
    const engine = await rigEngine();
    const fleet = panel(s);
    const rig = fleet.add({ target: s.target, name: 'rig-a', command: `${process.execPath} ${bin}`, dataDir: engine.dataDir });
    await expect.poll(() => row(fleet, rig.id).link, poll).toBe('host-key-unknown');
    expect(row(fleet, rig.id).hostKey).toEqual({ fingerprints: [fingerprint(s.hostKeyPub)], previous: null });
    expect(row(fleet, rig.id).detail).toMatch(/accept it in Settings > Rigs/);
    // A fingerprint other than the rig's is refused: accepting means accepting what was shown.
    await expect(fleet.acceptHostKey(rig.id, ['SHA256:not-the-key (ED25519)'])).rejects.toThrow(/not the one shown/);
    await fleet.acceptHostKey(rig.id, row(fleet, rig.id).hostKey!.fingerprints);
    await expect.poll(() => row(fleet, rig.id).link, poll).toBe('online');
    await expect.poll(() => row(fleet, rig.id).updatedAt !== null, poll).toBe(true);
    expect(row(fleet, rig.id)).toMatchObject({ unreachableSince: null, contract: 1, refused: 0 });
    const info = await fleet.link(rig.id)!.invoke('app.info', null);
    expect(info.ok && (info.value as { dataDir: string }).dataDir).toBe(engine.dataDir);
  }, 400_000);

  it('a killed engine says since when it is down while the other rig stays online; it comes back by itself', async () => {
    const s = await sshd();
    const a = await rigEngine();
    const b = await rigEngine();
    const fleet = panel(s);
    const ra = fleet.add({ target: s.target, name: 'rig-a', command: `${process.execPath} ${bin}`, dataDir: a.dataDir });
    const rb = fleet.add({ target: s.target, name: 'rig-b', command: `${process.execPath} ${bin}`, dataDir: b.dataDir });
    await expect.poll(() => row(fleet, ra.id).hostKey !== null, poll).toBe(true);
    await fleet.acceptHostKey(ra.id, row(fleet, ra.id).hostKey!.fingerprints);
    fleet.retry(rb.id);
    await expect.poll(() => [row(fleet, ra.id).link, row(fleet, rb.id).link], poll).toEqual(['online', 'online']);
    const before = Date.now();
    await a.stop();
    await expect.poll(() => row(fleet, ra.id).link, poll).not.toBe('online');
    await expect.poll(() => row(fleet, ra.id).link, poll).toBe('engine-down');
    expect(row(fleet, ra.id).unreachableSince).toBeGreaterThanOrEqual(before - 1000);
    expect(row(fleet, ra.id).activity).toBe('unreachable');
    expect(row(fleet, rb.id).link).toBe('online');
    // The same data dir started again: the rig comes back on its own (backoff), on its new port.
    const again = await startHeadlessChild({ ENGY_RENDERER_DIR: uiDir() }, [], a.dataDir, 120_000);
    cleanups.push(() => again.stop());
    await expect.poll(() => row(fleet, ra.id).link, poll).toBe('online');
    expect(row(fleet, ra.id).unreachableSince).toBeNull();
  }, 400_000);

  it('SSH dropping mid-session (sshd killed with its sessions) marks the rig unreachable; it reconnects when sshd is back', async () => {
    const s = await sshd();
    const a = await rigEngine();
    const fleet = panel(s);
    const ra = fleet.add({ target: s.target, name: 'rig-a', command: `${process.execPath} ${bin}`, dataDir: a.dataDir });
    await expect.poll(() => row(fleet, ra.id).hostKey !== null, poll).toBe(true);
    await fleet.acceptHostKey(ra.id, row(fleet, ra.id).hostKey!.fingerprints);
    await expect.poll(() => row(fleet, ra.id).link, poll).toBe('online');
    // An invoke in flight when the connection drops is answered (unavailable), never left hanging.
    const pending = fleet.link(ra.id)!.invoke('hardware.report', { refresh: true }, 60_000);
    await s.stop();
    const r = await pending;
    expect(typeof r.ok).toBe('boolean');
    await expect.poll(() => row(fleet, ra.id).link, poll).toBe('unreachable');
    expect(row(fleet, ra.id).unreachableSince).not.toBeNull();
    await s.start();
    await expect.poll(() => row(fleet, ra.id).link, poll).toBe('online');
  }, 400_000);

  it("a changed host key stops the link and shows the old and the new fingerprint; the other sshd's rig is untouched", async () => {
    const s1 = await sshd();
    const s2 = await sshd();
    const a = await rigEngine();
    const b = await rigEngine();
    const fleet = new FleetService({
      dataDir: temp(),
      log: silentLogger,
      tools: { configFile: s1.clientConfig },
      limits: { backoffInitialMs: 300, backoffMaxMs: 1_500, accessTimeoutMs: 60_000, invokeTimeoutMs: 30_000 },
    });
    cleanups.push(() => fleet.dispose());
    // One client config for both servers: s2 trusts s1's throwaway user key too.
    writeFileSync(join(s2.dir, 'authorized_keys'), execFileSync('cat', [join(s1.dir, 'user_key.pub')]));
    const ra = fleet.add({ target: s1.target, name: 'rig-a', command: `${process.execPath} ${bin}`, dataDir: a.dataDir });
    const rb = fleet.add({ target: s2.target, name: 'rig-b', command: `${process.execPath} ${bin}`, dataDir: b.dataDir });
    for (const id of [ra.id, rb.id]) {
      await expect.poll(() => row(fleet, id).hostKey !== null, poll).toBe(true);
      await fleet.acceptHostKey(id, row(fleet, id).hostKey!.fingerprints);
    }
    await expect.poll(() => [row(fleet, ra.id).link, row(fleet, rb.id).link], poll).toEqual(['online', 'online']);
    const old = fingerprint(s1.hostKeyPub);
    await s1.changeHostKey();
    await expect.poll(() => row(fleet, ra.id).link, poll).toBe('host-key-changed');
    expect(row(fleet, ra.id).hostKey).toEqual({ fingerprints: [fingerprint(s1.hostKeyPub)], previous: [old] });
    expect(row(fleet, ra.id).detail).toMatch(/not the one the panel accepted before/);
    expect(row(fleet, rb.id).link).toBe('online');
    await fleet.acceptHostKey(ra.id, [fingerprint(s1.hostKeyPub)]);
    await expect.poll(() => row(fleet, ra.id).link, poll).toBe('online');
  }, 400_000);
});
