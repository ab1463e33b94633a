// The updater through the contract: the update topic carries the controller's sentence, and the
// update.* invokes check, download (with automatic updates off too) and restart, or refuse with a
// sentence when there is nothing to do or no updater at all (a headless engine).
import { describe, expect, it } from 'vitest';
import { AppFailure } from '../../../shared/errors.ts';
import { UpdateController } from '../../../electron/update-controller.ts';
import { UpdateSlot } from '../../../electron/update-slot.ts';
import { ManualClock, MinerGateDouble, UpdateDriverDouble } from '../../doubles/ops/update-driver-double.ts';

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function setup(autoUpdate: boolean) {
  const driver = new UpdateDriverDouble();
  const gate = new MinerGateDouble(0);
  driver.gate = gate;
  const c = new UpdateController({ driver, gate, clock: new ManualClock(), currentVersion: '0.1.0', autoUpdate, firstCheckDelayMs: 1000, checkIntervalMs: 60_000 });
  const slot = new UpdateSlot();
  let changes = 0;
  slot.onDidChange(() => changes++);
  return { driver, c, slot, changes: () => changes };
}

async function failure(p: () => unknown): Promise<AppFailure> {
  try {
    await p();
  } catch (e) {
    if (e instanceof AppFailure) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('UpdateSlot', () => {
  it('without an updater: the topic is null and every action says why', async () => {
    const slot = new UpdateSlot();
    expect(slot.view()).toBeNull();
    for (const act of [() => slot.check(), () => slot.download(), () => slot.restart()]) {
      const f = await failure(act);
      expect(f.code).toBe('unavailable');
      expect(f.message).toMatch(/headless install is updated by installing the new package/);
    }
  });

  it('with automatic updates off: shows the message, checks on request, downloads on request, restarts', async () => {
    const { driver, c, slot, changes } = setup(false);
    const sub = slot.attach(c);
    expect(slot.view()).toEqual({ currentVersion: '0.1.0', autoUpdate: false, state: 'disabled', version: null, percent: null, message: 'Automatic updates are off.' });
    expect((await failure(() => slot.download())).message).toMatch(/no update to download.*Check for updates first/);

    driver.onCheck = () => [{ type: 'checking' }, { type: 'available', version: '0.2.0' }];
    await slot.check();
    await flush();
    expect(driver.calls).toEqual(['check']);
    expect(slot.view()).toMatchObject({ state: 'available', version: '0.2.0', message: 'Update 0.2.0 available: download it from Settings.' });

    expect(slot.download()).toBeNull();
    await flush();
    expect(driver.calls).toEqual(['check', 'download']);
    expect(slot.view()).toMatchObject({ state: 'downloaded', version: '0.2.0' });
    expect((await failure(() => slot.check())).code).toBe('conflict');

    await slot.restart();
    expect(driver.calls).toEqual(['check', 'download', 'quitAndInstall']);
    expect(changes()).toBeGreaterThanOrEqual(5);

    await sub.dispose();
    expect(slot.view()).toBeNull();
  });

  it('refuses a restart with nothing downloaded, naming the state', async () => {
    const { c, slot } = setup(true);
    slot.attach(c);
    const f = await failure(() => slot.restart());
    expect(f.code).toBe('conflict');
    expect(f.message).toBe('There is no downloaded update to install: Up to date.');
  });
});
