// Bad command lines and bad inputs, as a new user or an attacker types them: every one exits with the
// documented code (2: the command line is wrong, with the usage; 1: the input or the machine is) and a
// sentence, never a stack trace. In-process through each command's run (the binary's code path), plus
// a few real processes for what only a process shows (an unknown command, a closed pipe).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliCommand } from '../../../electron/cli/types.ts';
import { run as headless } from '../../../electron/cli/headless.ts';
import { run as mine } from '../../../electron/cli/mine.ts';
import { run as validate } from '../../../electron/cli/validate.ts';
import { run as validator } from '../../../electron/cli/validator.ts';
import { run as wallet } from '../../../electron/cli/wallet.ts';
import { run as toploc } from '../../../electron/cli/toploc.ts';
import { run as serve } from '../../../electron/cli/serve.ts';
import { run as service } from '../../../electron/cli/service.ts';
import { run as doctor } from '../../../electron/cli/doctor.ts';
import { run as demo } from '../../../electron/cli/demo.ts';
import { DEV_MNEMONIC_B, TEST_KDF, writeColdkey } from '../../doubles/btcli-wallet.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'engy-panel.mjs');
const CHECKPOINT = join(ROOT, 'test', 'fixtures', 'checkpoint-tiny');
/** The most one real CLI process may take on a loaded box before it is killed (see the real-process test). */
const PROCESS_MS = 90_000;
const STACK = /\n\s+at \S+.*[(:]\d+|node:internal|Error: .*\n\s+at /;
const tmp = mkdtempSync(join(tmpdir(), 'engy-badcli-'));
const aFile = join(tmp, 'a-file');
writeFileSync(aFile, 'not a folder');
const garbageCheckpoint = join(tmp, 'garbage-ckpt');
mkdirSync(garbageCheckpoint);
copyFileSync(join(CHECKPOINT, 'tokenizer_config.json'), join(garbageCheckpoint, 'tokenizer_config.json'));
writeFileSync(join(garbageCheckpoint, 'tokenizer.json'), '\u0000\u0001{{{ not json');
const noTokenizer = join(tmp, 'empty-ckpt');
mkdirSync(noTokenizer);

async function call(cmd: CliCommand, args: string[], stdin = '', env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await cmd(args, { stdin: Readable.from([stdin]), stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: { HOME: tmp, ...env }, stopSignal: new Promise(() => undefined) });
  return { code, out, err };
}

const MINE = ['--serve-url', 'http://127.0.0.1:9'];
const f32 = (n: number) => Buffer.from(new Float32Array(n).fill(0.5).buffer).toString('base64');

/** [label, command, args, stdin, exit code, what the output must say] */
const CASES: [string, CliCommand, string[], string, number, RegExp][] = [
  ['headless --port abc', headless, ['--port', 'abc'], '', 2, /--port wants a whole number, got "abc"/],
  ['headless --port (no value)', headless, ['--port'], '', 2, /--port needs a value/],
  ['headless --port 70000', headless, ['--port', '70000'], '', 2, /--port must be from 0 to 65535/],
  ['headless unknown flag', headless, ['--prot', '1'], '', 2, /unknown option --prot/],
  ['headless prototype-named flag', headless, ['--__proto__', 'x'], '', 2, /unknown option --__proto__/],
  ['headless constructor flag', headless, ['--constructor'], '', 2, /unknown option --constructor/],
  ['headless stray word', headless, ['now'], '', 2, /unexpected argument "now"/],
  ['headless --token-file missing', headless, ['--token-file', '/nonexistent/token'], '', 2, /the token file \/nonexistent\/token does not exist/],
  ['mine without flags', mine, [], '', 2, /--serve-url and --checkpoint are required/],
  ['mine --checkpoint /nonexistent', mine, [...MINE, '--checkpoint', '/nonexistent'], '', 1, /the checkpoint folder \/nonexistent does not exist: point --checkpoint at the downloaded model folder/],
  ['mine --checkpoint /etc/passwd', mine, [...MINE, '--checkpoint', '/etc/passwd'], '', 1, /the checkpoint folder \/etc\/passwd is a file, not a folder: point --checkpoint/],
  ['mine --checkpoint below a file', mine, [...MINE, '--checkpoint', '/etc/passwd/model'], '', 1, /the checkpoint folder \/etc\/passwd\/model is not a folder/],
  ['mine checkpoint without tokenizer', mine, [...MINE, '--checkpoint', noTokenizer], '', 1, /has no tokenizer_config\.json: point --checkpoint at the downloaded model folder/],
  ['mine garbage tokenizer.json', mine, [...MINE, '--checkpoint', garbageCheckpoint], '', 1, /garbage-ckpt\/tokenizer\.json is not valid JSON/],
  [
    'mine ws:// to another host',
    mine,
    [...MINE, '--checkpoint', CHECKPOINT, '--gateway', 'ws://gw.example.com/gw'],
    '',
    2,
    /plain ws:\/\/ to another machine: the miner key would travel in clear text/,
  ],
  ['mine http:// gateway', mine, [...MINE, '--checkpoint', CHECKPOINT, '--gateway', 'http://127.0.0.1/gw'], '', 2, /--gateway wants a wss:\/\/ URL/],
  ['mine --serve-url not a url', mine, ['--serve-url', 'not a url', '--checkpoint', CHECKPOINT], '', 2, /--serve-url wants http:\/\/ or https:\/\/ URLs of sglang serves, got "not a url"/],
  [
    'mine --serve-url file:///etc/passwd',
    mine,
    ['--serve-url', 'http://127.0.0.1:9,file:///etc/passwd', '--checkpoint', CHECKPOINT],
    '',
    2,
    /--serve-url wants http:\/\/ or https:\/\/ URLs of sglang serves, got "file:\/\/\/etc\/passwd"/,
  ],
  [
    'mine --worker-name forging a log line',
    mine,
    [...MINE, '--checkpoint', CHECKPOINT, '--worker-name', 'rig\n2026-12-03 ERROR [miner] FORGED'],
    '',
    2,
    /--worker-name must be 1 to 64 letters, digits, "\.", "_" or "-", not starting with "\.", got "rig\\n2026-12-03 ERROR \[miner\] FORGED"/,
  ],
  ['headless --host with a space', headless, ['--host', 'evil host', '--data-dir', join(tmp, 'h1')], '', 2, /--host "evil host" is not a host name or IP address/],
  [
    'headless --host not on this machine',
    headless,
    ['--host', '203.0.113.5', '--data-dir', join(tmp, 'h2')],
    '',
    1,
    /--host 203\.0\.113\.5 is not an address of this machine: use 127\.0\.0\.1 \(and an SSH tunnel\), 0\.0\.0\.0 for every interface, or one of this machine's addresses \(ip -brief address\)/,
  ],
  [
    'headless --host that does not resolve',
    headless,
    ['--host', 'no-such-host.invalid', '--data-dir', join(tmp, 'h3')],
    '',
    1,
    /--host no-such-host\.invalid does not resolve to an address of this machine/,
  ],
  [
    'validate --healthcheck --data-dir /etc/passwd',
    validate,
    ['--healthcheck', '--data-dir', '/etc/passwd'],
    '',
    1,
    /cannot read the heartbeat file \/etc\/passwd\/validator\/heartbeat\.json: .*is not a folder \(it, or a folder above it, is a file\)/,
  ],
  ['mine --max-inflight 0', mine, [...MINE, '--checkpoint', CHECKPOINT, '--max-inflight', '0'], '', 2, /--max-inflight must be from 1 to 4096, got 0/],
  ['mine --max-inflight 2.5', mine, [...MINE, '--checkpoint', CHECKPOINT, '--max-inflight', '2.5'], '', 2, /--max-inflight wants a whole number/],
  ['mine data dir is a file', mine, [...MINE, '--checkpoint', CHECKPOINT, '--data-dir', aFile], '', 1, /a file is in the way at the data dir .*a-file: move it aside, or choose another --data-dir/],
  ['validate --poll-s (no value)', validate, ['--wallet', 'w', '--hotkey', 'h', '--poll-s'], '', 2, /--poll-s needs a value/],
  ['validate --poll-s 0', validate, ['--wallet', 'w', '--hotkey', 'h', '--poll-s', '0'], '', 2, /--poll-s must be a whole number from 1/],
  ['validate unknown flag', validate, ['--walet', 'w'], '', 2, /unknown option --walet/],
  ['validator check-payload --master (no value)', validator, ['check-payload', '--master'], '', 2, /--master needs a value/],
  ['validator check-payload --netuid abc', validator, ['check-payload', '--netuid', 'abc'], '', 2, /--netuid wants a whole number/],
  ['validator check-payload garbage', validator, ['check-payload'], '{nope', 1, /"reason":"malformed","explanation":"stdin is not JSON/],
  ['validator check-payload unsigned', validator, ['check-payload'], '{"result_json":"{}"}', 1, /"explanation":"[^"]+"/],
  ['validator unknown subcommand', validator, ['frob'], '', 2, /unknown subcommand "frob"/],
  ['wallet create-hotkey --wallet only', wallet, ['create-hotkey', '--wallet', 'w'], '', 2, /--hotkey is required/],
  ['wallet list --json=yes', wallet, ['list', '--json=yes'], '', 2, /--json is a switch and takes no value/],
  ['wallet nothing', wallet, [], '', 2, /which one\? list, create-hotkey/],
  ['wallet miner-key frob', wallet, ['miner-key', 'frob', '--data-dir', join(tmp, 'mk')], '', 2, /unknown miner-key action "frob"/],
  ['toploc bf16 -1', toploc, ['bf16'], '{"f32":[-1]}', 2, /not a float32 bit pattern: -1/],
  ['toploc bf16 1e20', toploc, ['bf16'], '{"f32":[1e20]}', 2, /not a float32 bit pattern: 100000000000000000000/],
  ['toploc bf16 4294967296', toploc, ['bf16'], '{"f32":[4294967296]}', 2, /not a float32 bit pattern: 4294967296/],
  ['toploc build topk 0', toploc, ['build'], JSON.stringify({ topk: 0, decode_batching_size: 32, hidden_size: 4, n_tokens: 1, rows_f32_b64: f32(4) }), 2, /topk must be a whole number of at least 1/],
  [
    'toploc build batch 0',
    toploc,
    ['build'],
    JSON.stringify({ topk: 2, decode_batching_size: 0, hidden_size: 4, n_tokens: 1, rows_f32_b64: f32(4) }),
    2,
    /decode_batching_size must be a whole number of at least 1/,
  ],
  ['toploc build topk > chunk', toploc, ['build'], JSON.stringify({ topk: 200, decode_batching_size: 2, hidden_size: 4, n_tokens: 1, rows_f32_b64: f32(4) }), 2, /topk 200 is more than a chunk holds/],
  [
    'toploc build huge generator',
    toploc,
    ['build'],
    JSON.stringify({ topk: 2, decode_batching_size: 2, hidden_size: 4, n_tokens: 1, rows_generator: { kind: 'xorshift32', seed: 1, n_tokens: 1e9, hidden_size: 1e6, outlier_dims: [] } }),
    2,
    /rows_generator wants whole n_tokens and hidden_size/,
  ],
  ['toploc build huge sizes', toploc, ['build'], JSON.stringify({ topk: 2, decode_batching_size: 2, hidden_size: 1e6, n_tokens: 1e6, rows_f32_b64: f32(4) }), 2, /more than the \d+ one case may hold/],
  [
    'toploc build prefill not whole rows',
    toploc,
    ['build'],
    JSON.stringify({ topk: 2, decode_batching_size: 2, hidden_size: 4, n_tokens: 1, skip_prefill: false, rows_f32_b64: f32(4), prefill_block_f32_b64: f32(6) }),
    2,
    /must be whole rows of hidden_size 4/,
  ],
  ['toploc verify --semantics rust', toploc, ['verify', '--semantics', 'rust'], '{}', 2, /--semantics must be one of cpp, python/],
  ['toploc stdin not JSON', toploc, ['bf16'], 'not json', 2, /Give one case object/],
  ['serve plan --runtime conda', serve, ['plan', '--runtime', 'conda'], '', 2, /--runtime must be one of python, docker/],
  ['serve frob', serve, ['frob'], '', 2, /unknown subcommand "frob"/],
  ['service install --role gateway', service, ['install', '--role', 'gateway'], '', 2, /--role must be one of miner, validator/],
  ['service no action', service, [], '', 2, /missing an argument/],
  ['doctor --jsn', doctor, ['--jsn'], '', 2, /unknown option --jsn/],
  ['demo --port x', demo, ['--port', 'x'], '', 2, /--port wants a whole number/],
];

describe('bad CLI input: an exit code and a sentence, never a stack trace', () => {
  it.each(CASES)('%s', async (_label, cmd, args, stdin, code, says) => {
    const r = await call(cmd, args, stdin);
    const all = r.out + r.err;
    expect(r.code, all).toBe(code);
    expect(all).toMatch(says);
    expect(all).not.toMatch(STACK);
    expect(all, 'a raw system error').not.toMatch(/\b(ENOTDIR|ENOTFOUND|EADDRNOTAVAIL|getaddrinfo|Invalid URL)\b/);
    // A wrong command line shows the command's usage.
    if (code === 2 && !/check-payload|toploc|token-file/.test(_label)) expect(all).toMatch(/usage: engy-panel/);
  });

  it('--help prints the usage and exits 0', async () => {
    for (const [cmd, args] of [
      [mine, ['--help']],
      [validate, ['-h']],
      [wallet, ['help']],
      [toploc, ['build', '--help']],
    ] as const) {
      const r = await call(cmd, [...args]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/usage: engy-panel/);
    }
  });

  it('mine warns about a world-readable ENGY_MINER_KEY_FILE', async () => {
    // Gateway absent and the process asked to stop at once: only start-up is exercised.
    const key = join(tmp, 'key');
    writeFileSync(key, 'mk-test-0123456789abcdef', { mode: 0o644 });
    let out = '';
    const code = await mine([...MINE, '--checkpoint', CHECKPOINT, '--gateway', 'ws://127.0.0.1:1/gw', '--data-dir', join(tmp, 'warn-data')], {
      stdin: Readable.from(['']),
      stdout: (t) => void (out += t),
      stderr: (t) => void (out += t),
      env: { ENGY_MINER_KEY_FILE: key },
      stopSignal: Promise.resolve('SIGTERM'),
    });
    expect(code).toBe(0);
    expect(out).toMatch(/can be read by other users: run `chmod 600/);
  });

  it(
    'as real processes: an unknown command exits 2; `wallet create-hotkey | head -2` shows the mnemonic and no EPIPE trace',
    async () => {
      const env = { PATH: process.env.PATH, HOME: tmp };
      // Each start is ~0.3 s idle; on a 2-core box two starts and a key derivation took over 30 s at load ~30 and
      // 70 s at load ~50. Each process gets 90 s and is SIGKILLed past it (spawnSync's timeout; `timeout` for the node behind the pipe), so
      // none outlives the test; the test's own budget below covers both.
      const unknown = spawnSync(process.execPath, [BIN, 'frobnicate'], { encoding: 'utf8', env, timeout: PROCESS_MS, killSignal: 'SIGKILL' });
      expect(unknown.status, String(unknown.error ?? unknown.stderr)).toBe(2);
      expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);

      const walletPath = join(tmp, 'wallets');
      await writeColdkey({ walletPath, wallet: 'w', mnemonic: DEV_MNEMONIC_B, password: 'pw', kdf: TEST_KDF });
      const piped = spawnSync(
        'sh',
        ['-c', `timeout -s KILL ${PROCESS_MS / 1000} "${process.execPath}" "${BIN}" wallet create-hotkey --wallet w --hotkey h --wallet-path "${walletPath}" | head -2; echo "exit $?" >&2`],
        {
          encoding: 'utf8',
          env,
          timeout: PROCESS_MS + 5_000,
          killSignal: 'SIGKILL',
        },
      );
      expect(piped.error).toBeUndefined();
      const lines = piped.stdout.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^Mnemonic of the new hotkey w\/h: ([a-z]+ ){11}[a-z]+$/);
      expect(piped.stderr).not.toMatch(STACK);
      expect(piped.stderr).not.toMatch(/EPIPE/);
    },
    2 * PROCESS_MS + 30_000,
  );
});
