// The CLI as a user runs it: real child processes of bin/engy-panel.mjs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run as validatorCmd } from '../../../electron/cli/validator.ts';
import { run as validateCmd } from '../../../electron/cli/validate.ts';
import type { CliCommand } from '../../../electron/cli/types.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { Database } from '../../../electron/engine/store/database.ts';
import { defaultStatePath } from '../../../electron/engine/validator/daemon-config.ts';
import { SqliteValidatorHistory } from '../../../electron/engine/validator/history.ts';
import { writeState } from '../../../electron/engine/validator/state-file.ts';
import { epochMessage, sha256Hex } from '../../../electron/engine/validator/payload-verify.ts';
import { DEV_MASTER_URI, DEV_WRONG_KEY_URI, devKey, signedPayload } from '../../doubles/provider.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(root, 'bin', 'engy-panel.mjs');
const master = devKey(DEV_MASTER_URI);
const A = devKey('//MinerA').address;

function cli(args: string[], input = '', env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'engy-home-')), ENGY_FROM_SOURCE: '1', ...env },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The command in-process (same code path as the binary, minus two seconds of Node start-up per case). */
async function inProcess(cmd: CliCommand, args: string[], input = '', env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  const code = await cmd(args, { stdin: Readable.from([input]), stdout: (t) => void (out += t), stderr: (t) => void (err += t), env, stopSignal: new Promise(() => {}) });
  return { code, out, err };
}

async function check(payload: unknown, extra: string[] = []) {
  const r = await inProcess(validatorCmd, ['check-payload', '--master', master.address, ...extra], typeof payload === 'string' ? payload : JSON.stringify(payload));
  const lines = r.out.trim().split('\n');
  expect(lines).toHaveLength(1);
  return { code: r.code, verdict: JSON.parse(lines[0]!) as { ok: boolean; reason: string | null; epoch_index: number | null; weights: unknown } };
}

describe('engy-panel validator check-payload', () => {
  it('accepts a payload signed by the dev master passed as --master, with the vector from result_json', () => {
    const p = signedPayload({ epochIndex: 9, weights: [[A, 5]] });
    const r = cli(['validator', 'check-payload', '--master', master.address], JSON.stringify({ ...p, weights: [['display-only', 1]] }));
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.out)).toEqual({ ok: true, reason: null, explanation: null, epoch_index: 9, weights: [[A, 5]] });
    // Against the pinned production master the same payload is not genuine.
    const pinned = cli(['validator', 'check-payload'], JSON.stringify(p));
    expect(pinned.code).toBe(1);
    expect(JSON.parse(pinned.out)).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('gives the right verdict for hostile payloads', async () => {
    const p = signedPayload({ epochIndex: 9, weights: [[A, 5]] });
    const tampered = p.result_json.replace('[5]', '[6]').replace(',5]]', ',65535]]');
    const resigned = (rj: string) => {
      const d = sha256Hex(rj);
      return { ...p, result_json: rj, digest: d, signature: Buffer.from(master.sign(Buffer.from(epochMessage(53, 9, d)))).toString('hex') };
    };
    const cases: Array<[unknown, string]> = [
      [{ ...p, result_json: tampered }, 'digest'],
      [{ ...p, result_json: tampered, digest: sha256Hex(tampered) }, 'signature'],
      [signedPayload({ epochIndex: 9, weights: [[A, 5]], signer: devKey(DEV_WRONG_KEY_URI) }), 'signature'],
      [{ ...p, v: 2 }, 'version'],
      [{ ...p, netuid: 1 }, 'netuid'],
      [resigned(JSON.stringify({ ...JSON.parse(p.result_json), weights: [[A, true]] })), 'malformed'],
      [resigned(JSON.stringify({ ...JSON.parse(p.result_json), epoch_index: 8 })), 'malformed'],
      ['this is not json', 'malformed'],
      [[p], 'malformed'],
    ];
    for (const [payload, reason] of cases) {
      const r = await check(payload);
      expect(r.code, reason).toBe(1);
      expect(r.verdict, reason).toMatchObject({ ok: false, reason, weights: null });
    }
    expect((await check(signedPayload({ epochIndex: 2, weights: [[A, 5]], netuid: 7 }), ['--netuid', '7'])).code).toBe(0);
  });
});

describe('engy-panel validate configuration', () => {
  it('exits non-zero with the reason on bad configuration', async () => {
    const none = await inProcess(validateCmd, []);
    expect(none.code).toBe(2);
    expect(none.err).toContain('--wallet (or ENGY_SN53_WALLET) is required');
    const half = await inProcess(validateCmd, ['--wallet', 'w', '--hotkey', 'h', '--api', 'http://127.0.0.1:1']);
    expect(half.code).not.toBe(0);
    expect(half.err).toContain('overridden together');
    const envHalf = await inProcess(validateCmd, [], '', { ENGY_SN53_WALLET: 'w', ENGY_SN53_WALLET_HOTKEY: 'h', ENGY_SN53_MASTER_HOTKEY: master.address });
    expect(envHalf.err).toContain('overridden together');
    const numbers = await inProcess(validateCmd, ['--wallet', 'w', '--hotkey', 'h', '--poll-s', 'soon', '--netuid', '70000', '--chain', 'http://x', '--master', 'nope', '--api', 'http://p']);
    expect(numbers.code).toBe(2);
    expect(numbers.err).toMatch(/--poll-s must be a whole number/);
    expect(numbers.err).toMatch(/--netuid must be a whole number/);
    expect(numbers.err).toMatch(/--chain must be/);
    expect(numbers.err).toMatch(/--master must be an SS58 address/);
    const dir = mkdtempSync(join(tmpdir(), 'engy-nowallet-'));
    const noKey = await inProcess(validateCmd, ['--wallet', 'w', '--hotkey', 'h', '--wallet-path', dir, '--data-dir', dir]);
    expect(noKey.code).toBe(1);
    expect(noKey.err).toContain('cannot load the hotkey w/h');
  });
});

describe('engy-panel validator status', () => {
  it('prints the state file and the recent history of a data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-vstatus-'));
    const db = new Database(dataPaths(dataDir).database);
    const h = new SqliteValidatorHistory(db);
    h.recordTick({ at: 1, outcome: 'applied', epochIndex: 4, block: 100, detail: 'landed' });
    h.recordSubmission({
      at: 1,
      kind: 'fresh',
      epochIndex: 4,
      digest: 'ab',
      block: 100,
      uids: [1],
      weights: [65535],
      droppedShare: 0,
      ok: true,
      extrinsicHash: '0x1',
      includedBlock: 101,
      errorCode: null,
      error: null,
    });
    db.close();
    writeState(defaultStatePath(dataDir), { lastApplied: 4, lastSubmitBlock: 100, lastSubmitMs: 1000, cachedWeights: [[A, 1]], cachedDigest: null });
    const r = await inProcess(validatorCmd, ['status', '--data-dir', dataDir]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      state: { lastApplied: 4, lastSubmitBlock: 100, cachedWeights: [[A, 1]] },
      unreadable_fields: [],
      recent_ticks: [{ outcome: 'applied', epochIndex: 4 }],
      recent_submissions: [{ ok: true, extrinsicHash: '0x1' }],
    });
    const empty = await inProcess(validatorCmd, ['status', '--data-dir', mkdtempSync(join(tmpdir(), 'engy-vstatus-'))]);
    expect(JSON.parse(empty.out)).toMatchObject({ state: { lastApplied: null }, recent_ticks: [] });
  });
});
