import { describe, expect, it } from 'vitest';
import { UpdateController, type UpdateSnapshot } from '../../../electron/update-controller.ts';
import { ManualClock, MinerGateDouble, UpdateDriverDouble } from '../../doubles/ops/update-driver-double.ts';

function setup(opts: { autoUpdate?: boolean; inFlight?: number } = {}) {
  const driver = new UpdateDriverDouble();
  const gate = new MinerGateDouble(opts.inFlight ?? 0);
  driver.gate = gate;
  const clock = new ManualClock();
  const c = new UpdateController({ driver, gate, clock, currentVersion: '0.1.0', autoUpdate: opts.autoUpdate ?? true, firstCheckDelayMs: 1000, checkIntervalMs: 60_000 });
  const seen: UpdateSnapshot[] = [];
  c.onDidChange((s) => seen.push(s));
  return { driver, gate, clock, c, seen };
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('UpdateController', () => {
  it('checks in the background, downloads on its own, and asks for a restart', async () => {
    const { driver, clock, c, seen } = setup();
    driver.onCheck = () => [{ type: 'checking' }, { type: 'available', version: '0.2.0', releaseNotes: 'faster proofs' }];
    c.start();
    expect(driver.calls).toEqual([]);
    clock.advance(1000);
    await flush();
    expect(driver.calls).toEqual(['check', 'download']);
    expect(seen.map((s) => s.state.kind)).toEqual(['checking', 'available', 'downloading', 'downloading', 'downloaded']);
    expect(seen.find((s) => s.state.kind === 'available')!.message).toBe('Update 0.2.0 available: downloading.');
    expect(c.snapshot().message).toBe('Update 0.2.0 downloaded: restart to update.');
    // versions rise with every change
    expect(seen.map((s) => s.version)).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps checking on its interval, never overlapping', async () => {
    const { driver, clock, c } = setup();
    c.start();
    clock.advance(1000);
    await flush();
    clock.advance(60_000);
    await flush();
    clock.advance(60_000);
    await flush();
    expect(driver.calls).toEqual(['check', 'check', 'check']);
    expect(clock.pending).toBe(1);
    expect(c.snapshot().state).toEqual({ kind: 'idle', lastCheckedAt: 121_000 });
    c.stop();
    expect(clock.pending).toBe(0);
  });

  it('restarts at once when the miner is idle', async () => {
    const { driver, c } = setup();
    driver.emit({ type: 'available', version: '0.2.0' });
    await flush();
    expect(await c.restartToUpdate()).toBe(true);
    expect(driver.calls.at(-1)).toBe('quitAndInstall');
    expect(c.snapshot().state).toEqual({ kind: 'installing', version: '0.2.0' });
  });

  it('never installs mid-request: drains the miner first, as many times as it takes', async () => {
    const { driver, gate, c, seen } = setup({ inFlight: 3 });
    gate.perDrain = 2; // a late request arrived during the first drain
    driver.emit({ type: 'available', version: '0.2.0' });
    await flush();
    expect(await c.restartToUpdate()).toBe(true);
    expect(gate.drains).toBe(2);
    expect(driver.installedWhileBusy).toEqual([false]);
    expect(seen.map((s) => s.state.kind).slice(-2)).toEqual(['draining', 'installing']);
    expect(seen.find((s) => s.state.kind === 'draining')!.message).toMatch(/once in-flight requests finish/);
  });

  it('keeps the download and says why when the drain fails', async () => {
    const { driver, gate, c } = setup({ inFlight: 1 });
    gate.failDrain = new Error('gateway still sending');
    driver.emit({ type: 'available', version: '0.2.0' });
    await flush();
    expect(await c.restartToUpdate()).toBe(false);
    expect(driver.calls).not.toContain('quitAndInstall');
    expect(c.snapshot().state).toEqual({ kind: 'downloaded', version: '0.2.0', lastError: 'did not restart: gateway still sending' });
    expect(c.snapshot().message).toBe('Update 0.2.0 downloaded: restart to update. (Last try: did not restart: gateway still sending)');
    expect(driver.installedWhileBusy).toEqual([]);
    // once the rig is quiet, the same download installs
    gate.failDrain = undefined;
    expect(await c.restartToUpdate()).toBe(true);
    expect(driver.installedWhileBusy).toEqual([false]);
  });

  it('gives up after repeated drains that leave work in flight', async () => {
    const { driver, gate, c } = setup({ inFlight: 1 });
    gate.perDrain = 0;
    driver.emit({ type: 'available', version: '0.2.0' });
    await flush();
    expect(await c.restartToUpdate()).toBe(false);
    expect(gate.drains).toBe(5);
    expect(driver.calls).not.toContain('quitAndInstall');
  });

  it('opted out: no background checks, no automatic download; a manual check and download still work', async () => {
    const { driver, clock, c } = setup({ autoUpdate: false });
    driver.onCheck = () => [{ type: 'available', version: '0.2.0' }];
    c.start();
    clock.advance(10 * 3600_000);
    await flush();
    expect(driver.calls).toEqual([]);
    expect(c.snapshot()).toMatchObject({ autoUpdate: false, state: { kind: 'disabled' }, message: 'Automatic updates are off.' });

    await c.checkNow();
    await flush();
    expect(driver.calls).toEqual(['check']);
    expect(c.snapshot().message).toBe('Update 0.2.0 available: download it from Settings.');
    await c.download();
    await flush();
    expect(c.snapshot().state).toEqual({ kind: 'downloaded', version: '0.2.0' });
  });

  it('turning auto-update on resumes checks and picks up a pending download; off stops them', async () => {
    const { driver, clock, c } = setup({ autoUpdate: false });
    c.start();
    c.setAutoUpdate(true);
    expect(c.snapshot().state.kind).toBe('idle');
    clock.advance(1000);
    await flush();
    expect(driver.calls).toEqual(['check']);
    c.setAutoUpdate(false);
    expect(c.snapshot().state.kind).toBe('disabled');
    clock.advance(10 * 60_000);
    await flush();
    expect(driver.calls).toEqual(['check']);
  });

  it('reports a failed check and allows another', async () => {
    const { driver, c } = setup();
    driver.failNext = new Error('net::ERR_INTERNET_DISCONNECTED');
    await c.checkNow();
    expect(c.snapshot().message).toBe('Update failed: net::ERR_INTERNET_DISCONNECTED');
    await c.checkNow();
    expect(c.snapshot().state.kind).toBe('idle');
  });

  it('an error after the download does not lose it', async () => {
    const { driver, c } = setup();
    driver.emit({ type: 'available', version: '0.2.0' });
    await flush();
    driver.emit({ type: 'error', message: 'late feed error' });
    expect(c.snapshot().state).toEqual({ kind: 'downloaded', version: '0.2.0' });
  });
});
