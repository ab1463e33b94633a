// The pre-flight service: facts from the engine's snapshots, re-checked at Start, refusing with every
// blocker in one AppFailure; registration asked of the chain once per hotkey, and only when nothing
// local blocks already (the chain is the slow part).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WalletView } from '../../../shared/api.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { HardwareReport } from '../../../shared/hardware.ts';
import type { CheckpointSnapshot } from '../../../shared/serve.ts';
import { ADDR, RUNTIMES } from './facts.ts';
import { defaultSettings, type Settings } from '../../../shared/settings.ts';
import type { RegistrationStatusSnapshot } from '../../../shared/wallet.ts';
import { Emitter } from '../../../electron/engine/lib/emitter.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { PreflightService } from '../../../electron/engine/preflight/preflight-service.ts';
import { checkFolderSpace } from '../../../electron/engine/serve/checkpoint/folder-space.ts';

const runtimes = RUNTIMES;
const registered = (hotkey: string): RegistrationStatusSnapshot => ({
  registration: { netuid: 53, hotkey, registered: true, uid: 3, validatorPermit: true, stakeRao: '0', block: 1 },
  quote: { netuid: 53, costRao: '1', coldkey: null, coldkeyFreeRao: null, canAfford: null, block: 1 },
});

function rig(opts: { chainAnswers?: boolean; checkpoint?: CheckpointSnapshot['state']; hotkeyReadable?: boolean } = {}) {
  const d = defaultSettings();
  let s: Settings = { ...d, role: 'both', wallet: { path: null, name: 'w', hotkey: 'h' }, mining: { ...d.mining, runtime: 'python' } };
  const settingsEv = new Emitter<void>();
  const walletEv = new Emitter<void>();
  const none = new Emitter<void>();
  let registration: RegistrationStatusSnapshot | null = null;
  let registrationError: string | null = null;
  const calls = { registration: 0, detect: 0, disk: 0 };
  const hardware: HardwareReport = {
    at: 0,
    gpus: [],
    host: { hostname: 'h', os: 'l', cpuModel: 'c', cpus: 1, ramGiB: 64, diskFreeGiB: 1, diskPath: '/' },
    cudaVersion: null,
    nvidiaSmi: 'ok',
    verdict: 'ready',
    reasons: [],
    plan: { modelId: 'm', engines: [{ gpuIndices: [0] } as never], maxInflight: 24, rationale: [] },
    suggestValidator: false,
  };
  const checkpoint: CheckpointSnapshot = {
    repo: 'r',
    dir: '/c',
    state: opts.checkpoint ?? 'complete',
    progress: null,
    identity: 'x',
    publishedRoot: null,
    missing: [],
    error: null,
    downloadBytes: null,
  };
  const wallet = {
    snapshot: (): WalletView => ({
      listing: null,
      minerKey: { present: true, masked: 'mk…1', storage: 'file' },
      registration,
      registrationError,
      signingUrl: null,
      signing: null,
      minerKeyCheck: null,
      faucet: null,
    }),
    refreshRegistration: async () => {
      calls.registration++;
      await new Promise((r) => setTimeout(r, 5));
      if (opts.chainAnswers === false) {
        registrationError = 'The chain at wss://nowhere did not answer.';
        walletEv.fire();
        throw new AppFailure('chain-unreachable', registrationError);
      }
      registration = registered(ADDR);
      walletEv.fire();
      return registration;
    },
    onDidChange: walletEv.event,
  };
  const svc = new PreflightService({
    settings: { get: () => s, onDidChange: settingsEv.event },
    hardware: { snapshot: () => hardware, onDidChange: none.event },
    wallet,
    checkpoint: { snapshot: () => checkpoint, onDidChange: none.event },
    checkpointDir: () => join(mkdtempSync(join(tmpdir(), 'engy-pf-')), 'not', 'yet', 'created'),
    detectRuntimes: async () => {
      calls.detect++;
      return runtimes;
    },
    space: (dir) => {
      calls.disk++;
      return checkFolderSpace({ dir, needBytes: 35 * 1024 ** 3, freeBytes: () => 100 * 1024 ** 3 });
    },
    hotkeyAddress: () => {
      if (opts.hotkeyReadable === false) throw new Error('no hotkey file at ~/.bittensor/wallets/w/hotkeys/h');
      return ADDR;
    },
    log: silentLogger,
    registrationTimeoutMs: 2_000,
  });
  return { svc, calls, set: (next: Settings) => ((s = next), settingsEv.fire()), get: () => s };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

describe('PreflightService', () => {
  it('fills in sglang, the free disk and the registration by itself, then shows both roles ready', async () => {
    const { svc, calls } = rig();
    await until(() => svc.snapshot().mine.ready);
    expect(calls.registration).toBe(1);
    expect(svc.snapshot().validate.ready).toBe(true);
    expect(svc.snapshot().mine.checks.find((c) => c.id === 'runtime')?.sentence).toMatch(/sglang 0\.5\.12\.post1 found with \/usr\/bin\/python3/);
    // A not-yet-created checkpoint folder is measured on the nearest folder that exists.
    expect(svc.snapshot().mine.checks.find((c) => c.id === 'disk')?.state).toBe('ok');
    await expect(svc.gate('mine')).resolves.toMatchObject({ ready: true });
    // The registration was known for this hotkey: Start did not ask the chain again; sglang was looked at again.
    expect(calls.registration).toBe(1);
    expect(calls.detect).toBeGreaterThanOrEqual(2);
    await svc.dispose();
  });

  it('refuses Start with every local blocker at once and does not wait for the chain', async () => {
    const { svc, get, set } = rig({ checkpoint: 'absent', chainAnswers: false, hotkeyReadable: false });
    set({ ...get(), mining: { ...get().mining, runtime: null } });
    const e = await svc.gate('mine').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppFailure);
    const f = e as AppFailure;
    expect(f.code).toBe('preflight-blocked');
    expect(f.detail).toBe('runtime,checkpoint,hotkey,registration');
    expect(f.message).toMatch(/^Mining cannot start until these 4 are fixed: Serve runtime: Pick how sglang runs/);
    expect(f.message).toMatch(/could not be read: no hotkey file/);
    await svc.dispose();
  });

  it('an unreachable chain blocks Start with the chain named and a Fix to the chain endpoint', async () => {
    const { svc, calls } = rig({ chainAnswers: false });
    const e = (await svc.gate('validate').catch((x: unknown) => x)) as AppFailure;
    expect(e.code).toBe('preflight-blocked');
    expect(e.message).toMatch(/Registration: Could not be checked: The chain at wss:\/\/nowhere did not answer/);
    const reg = svc.snapshot().validate.checks.find((c) => c.id === 'registration');
    expect(reg?.fix?.target).toEqual({ page: 'settings', field: 'chainUrl' });
    // Once in the background for this hotkey, once more at Start: never a loop.
    expect(calls.registration).toBeLessThanOrEqual(2);
    await svc.dispose();
  });

  it('a change of role re-publishes: the checklist follows the settings', async () => {
    const { svc, get, set } = rig();
    await until(() => svc.snapshot().mine.ready);
    let fired = 0;
    svc.onDidChange(() => fired++);
    set({ ...get(), role: 'validate' });
    expect(fired).toBeGreaterThan(0);
    expect(svc.snapshot().mine.checks[0]).toMatchObject({ id: 'role', state: 'blocked', fix: { target: { page: 'setup', step: 'role' } } });
    expect(svc.snapshot().validate.ready).toBe(true);
    await svc.dispose();
  });
});

describe('PreflightService at Start', () => {
  it('looks at a checkpoint folder again when it is not known complete yet', async () => {
    const d = defaultSettings();
    const s: Settings = { ...d, role: 'mine', wallet: { path: null, name: 'w', hotkey: 'h' }, mining: { ...d.mining, runtime: 'external', externalServeUrls: ['http://127.0.0.1:1'] } };
    const none = new Emitter<void>();
    let state: CheckpointSnapshot['state'] = 'absent';
    let looked = 0;
    const svc = new PreflightService({
      settings: { get: () => s, onDidChange: none.event },
      hardware: { snapshot: () => null, onDidChange: none.event },
      wallet: {
        snapshot: () => ({
          listing: null,
          minerKey: { present: true, masked: 'm', storage: 'file' },
          registration: registered(ADDR),
          registrationError: null,
          signingUrl: null,
          signing: null,
          minerKeyCheck: null,
          faucet: null,
        }),
        refreshRegistration: async () => registered(ADDR),
        onDidChange: none.event,
      },
      checkpoint: { snapshot: () => ({ repo: 'r', dir: '/c', state, progress: null, identity: 'x', publishedRoot: null, missing: [], error: null, downloadBytes: null }), onDidChange: none.event },
      checkpointDir: () => tmpdir(),
      refreshCheckpoint: async () => {
        looked++;
        state = 'complete';
      },
      detectRuntimes: async () => runtimes,
      space: (dir) => checkFolderSpace({ dir, needBytes: 10, freeBytes: () => 1 }),
      hotkeyAddress: () => ADDR,
      log: silentLogger,
    });
    expect(svc.snapshot().mine.checks.find((c) => c.id === 'checkpoint')?.state).toBe('blocked');
    await expect(svc.gate('mine')).resolves.toMatchObject({ ready: true });
    expect(looked).toBe(1);
    await svc.gate('mine');
    expect(looked).toBe(1);
    await svc.dispose();
  });
});
