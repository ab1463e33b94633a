// The pre-flight checks are pure functions over snapshot data: each is fed the states that block
// and the states that clear it, and must say so in a sentence with a Fix that goes to the right place.
import { describe, expect, it } from 'vitest';
import type { HardwareReport } from '../../../shared/hardware.ts';
import type { CheckpointSnapshot } from '../../../shared/serve.ts';
import { ADDR, RUNTIMES } from './facts.ts';
import { defaultSettings, type Settings } from '../../../shared/settings.ts';
import { blockerSentence } from '../../../shared/preflight.ts';
import {
  checkpointCheck,
  diskCheck,
  hardwareCheck,
  hotkeyCheck,
  mineChecks,
  minerKeyCheck,
  permitCheck,
  registrationCheck,
  report,
  roleCheck,
  runtimeCheck,
  validateChecks,
  type PreflightFacts,
} from '../../../electron/engine/preflight/checks.ts';

const GIB = 1024 ** 3;

function settings(patch: Partial<Settings> = {}, mining: Partial<Settings['mining']> = {}): Settings {
  const d = defaultSettings();
  return { ...d, role: 'mine', wallet: { path: null, name: 'w', hotkey: 'h' }, ...patch, mining: { ...d.mining, runtime: 'python', ...mining } };
}

const complete: CheckpointSnapshot = { repo: 'r', dir: '/ckpt', state: 'complete', progress: null, identity: 'abcdef0123456789', publishedRoot: null, missing: [], error: null, downloadBytes: null };
const runtimes = RUNTIMES;
const hw = (plan: boolean): HardwareReport => ({
  at: 0,
  gpus: [],
  host: { hostname: 'h', os: 'linux', cpuModel: 'x', cpus: 8, ramGiB: 64, diskFreeGiB: 100, diskPath: '/' },
  cudaVersion: null,
  nvidiaSmi: plan ? 'ok' : 'missing',
  verdict: plan ? 'ready' : 'unsupported',
  reasons: plan ? [] : [{ severity: 'blocker', text: 'No NVIDIA GPU found: nvidia-smi is not installed.' }],
  plan: plan ? { modelId: 'm', engines: [{ gpuIndices: [0, 1] } as never], maxInflight: 24, rationale: [] } : null,
  suggestValidator: !plan,
});

/** A checkpoint-folder verdict as folder-space.ts words it (its own tests cover the wording). */
const room = (free: number, need: number, path = '/data'): PreflightFacts['disk'] => ({
  ok: free >= need,
  usable: true,
  exists: true,
  complete: false,
  freeBytes: free,
  needBytes: need,
  sentence: `${(free / GIB).toFixed(1)} GiB free at ${path}, the download still needs about ${(need / GIB).toFixed(1)} GiB`,
});

function facts(p: Partial<PreflightFacts> = {}): PreflightFacts {
  return {
    settings: settings(),
    hardware: hw(true),
    runtimes,
    checkpoint: complete,
    hotkeyAddress: ADDR,
    hotkeyProblem: null,
    registration: {
      registration: { netuid: 53, hotkey: ADDR, registered: true, uid: 7, validatorPermit: true, stakeRao: '0', block: 1 },
      quote: { netuid: 53, costRao: '1', coldkey: null, coldkeyFreeRao: null, canAfford: null, block: 1 },
    },
    registrationError: null,
    minerKey: { present: true, masked: 'mk_…0001', storage: 'file' },
    disk: room(500 * GIB, 80 * GIB),
    ...p,
  };
}

describe('pre-flight checks', () => {
  it('all clear on a ready rig: every check ok, no Fix buttons, the report is ready', () => {
    const checks = mineChecks(facts());
    expect(checks.map((c) => c.id)).toEqual(['role', 'hardware', 'runtime', 'checkpoint', 'disk', 'hotkey', 'registration', 'minerkey']);
    expect(checks.filter((c) => c.state !== 'ok')).toEqual([]);
    expect(checks.every((c) => c.fix === null)).toBe(true);
    expect(report('mine', checks, 1).ready).toBe(true);
  });

  it('a rig with no GPU and nothing set up lists every blocker at once, each with its own Fix', () => {
    const f = facts({
      hardware: hw(false),
      runtimes: { ...runtimes, python: null, notes: ['No Python here has sglang.'] },
      checkpoint: { ...complete, state: 'absent', identity: null },
      disk: room(10 * GIB, 35 * GIB),
      minerKey: { present: false, masked: null, storage: 'file' },
    });
    const r = report('mine', mineChecks(f), 1);
    expect(r.ready).toBe(false);
    const blocked = Object.fromEntries(r.checks.filter((c) => c.state !== 'ok').map((c) => [c.id, c]));
    expect(Object.keys(blocked)).toEqual(['hardware', 'runtime', 'checkpoint', 'disk', 'minerkey']);
    expect(blocked.hardware!.sentence).toMatch(/No NVIDIA GPU/);
    expect(blocked.hardware!.fix?.target).toEqual({ page: 'setup', step: 'hardware' });
    expect(blocked.runtime!.sentence).toMatch(/sglang was not found/);
    expect(blocked.disk!.sentence).toMatch(/10\.0 GiB free at \/data.*35\.0 GiB/);
    expect(blocked.disk!.fix?.target).toEqual({ page: 'settings', field: 'checkpointDir' });
    expect(blocked.minerkey!.fix?.target).toEqual({ page: 'setup', step: 'minerkey' });
    const sentence = blockerSentence(r);
    expect(sentence).toMatch(/^Mining cannot start until these 5 are fixed: Hardware: No NVIDIA GPU/);
    expect(sentence).toMatch(/Miner key: Paste/);
  });

  it('an external serve needs no GPU here but needs its URL', () => {
    expect(hardwareCheck(facts({ hardware: hw(false), settings: settings({}, { runtime: 'external', externalServeUrls: ['http://127.0.0.1:30000'] }) })).state).toBe('ok');
    const noUrl = runtimeCheck(facts({ settings: settings({}, { runtime: 'external', externalServeUrls: [] }) }));
    expect(noUrl.state).toBe('blocked');
    expect(noUrl.fix?.target).toEqual({ page: 'settings', field: 'externalServeUrls' });
  });

  it('says what it does not know yet as unknown (which blocks Start until checked)', () => {
    expect(hardwareCheck(facts({ hardware: null })).state).toBe('unknown');
    expect(runtimeCheck(facts({ runtimes: null })).state).toBe('unknown');
    expect(checkpointCheck(facts({ checkpoint: null })).state).toBe('unknown');
    expect(diskCheck(facts({ disk: null, checkpoint: { ...complete, state: 'absent' } })).state).toBe('unknown');
    expect(runtimeCheck(facts({ settings: settings({}, { runtime: null }) })).state).toBe('blocked');
  });

  it('docker: present or not, with the pull size said', () => {
    const docker = { ...runtimes.docker, available: true, serverVersion: '27.1', problem: null };
    const f = facts({ settings: settings({}, { runtime: 'docker' }), runtimes: { ...runtimes, docker } });
    expect(runtimeCheck(f)).toMatchObject({ state: 'ok', sentence: expect.stringMatching(/pulled on first start/) });
    expect(runtimeCheck(facts({ settings: settings({}, { runtime: 'docker' }) }))).toMatchObject({ state: 'blocked', sentence: 'Docker is not installed.' });
  });

  it('a download in progress: the checkpoint blocks with its percentage, the disk check counts only what is left', () => {
    const downloading: CheckpointSnapshot = {
      ...complete,
      state: 'downloading',
      progress: { bytesDone: 30 * GIB, bytesTotal: 35 * GIB, filesDone: 1, filesTotal: 2, rateBps: 1, etaS: 1, currentFile: null },
    };
    expect(checkpointCheck(facts({ checkpoint: downloading })).sentence).toMatch(/downloading 85 %/);
    expect(diskCheck(facts({ checkpoint: downloading, disk: room(6 * GIB, 5 * GIB, '/d') })).state).toBe('ok');
    expect(diskCheck(facts({ checkpoint: downloading, disk: room(4 * GIB, 5 * GIB, '/d') }))).toMatchObject({ state: 'blocked', sentence: expect.stringMatching(/4\.0 GiB free at \/d/) });
    expect(checkpointCheck(facts({ checkpoint: { ...complete, state: 'failed', error: 'disk full' } })).sentence).toMatch(/failed: disk full/);
    expect(checkpointCheck(facts({ checkpoint: { ...complete, state: 'incomplete', missing: ['a', 'b'] } })).sentence).toMatch(/2 file\(s\) missing/);
  });

  it('hotkey and registration: chosen, readable, registered for this very hotkey', () => {
    expect(hotkeyCheck(facts({ settings: settings({ wallet: { path: null, name: null, hotkey: null } }) })).state).toBe('blocked');
    expect(hotkeyCheck(facts({ hotkeyAddress: null, hotkeyProblem: 'no such file' })).sentence).toMatch(/could not be read: no such file/);
    const base = facts();
    const other = { ...base.registration!, registration: { ...base.registration!.registration, hotkey: '5Other' } };
    expect(registrationCheck(facts({ registration: other })).state).toBe('unknown');
    expect(registrationCheck(facts({ registration: null, registrationError: 'The chain at wss://x did not answer.' }))).toMatchObject({
      state: 'unknown',
      failed: true,
      fix: { target: { page: 'settings', field: 'chainUrl' } },
    });
    // Still being asked is not a failure: no "could not check" before an answer.
    expect(registrationCheck(facts({ registration: null, registrationError: null })).failed).toBeUndefined();
    const unregistered = { ...base.registration!, registration: { ...base.registration!.registration, registered: false, uid: null } };
    expect(registrationCheck(facts({ registration: unregistered }))).toMatchObject({ state: 'blocked', fix: { target: { page: 'setup', step: 'registration' } } });
    expect(registrationCheck(facts({ hotkeyAddress: null })).fix?.target).toEqual({ page: 'setup', step: 'hotkey' });
  });

  it('the validator: no GPU checks, and a permit is required', () => {
    const f = facts({ settings: settings({ role: 'validate' }), hardware: hw(false) });
    expect(validateChecks(f).map((c) => c.id)).toEqual(['role', 'hotkey', 'registration', 'permit']);
    expect(report('validate', validateChecks(f), 1).ready).toBe(true);
    const noPermit = { ...f.registration!, registration: { ...f.registration!.registration, validatorPermit: false } };
    expect(permitCheck({ ...f, registration: noPermit })?.state).toBe('blocked');
    expect(permitCheck({ ...f, registration: null })).toBeNull();
    expect(roleCheck(facts({ settings: settings({ role: 'mine' }) }), 'validate').state).toBe('blocked');
    expect(roleCheck(facts({ settings: settings({ role: 'both' }) }), 'validate').state).toBe('ok');
  });

  it('the miner key: absent blocks, present passes and never shows more than the mask', () => {
    expect(minerKeyCheck(facts({ minerKey: { present: false, masked: null, storage: 'file' } })).state).toBe('blocked');
    expect(minerKeyCheck(facts()).sentence).toContain('mk_…0001');
  });
});
