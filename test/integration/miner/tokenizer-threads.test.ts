// The engine's tokenizer setting (lib/tokenizer-threads.ts) reaches the real native tokenizer: a
// prompt builder's batches start no Rayon threads, and a value the user set is obeyed. Each case runs
// in a fresh Node process (a process's Rayon pool, once started, stays), counting its threads in /proc.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_TINY } from '../../doubles/fake-sglang/spawn.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const BUILDER = pathToFileURL(join(ROOT, 'electron', 'engine', 'miner', 'prompt-builder.ts')).href;

// Builds 64 prompts as one burst, then reports the threads libuv's pool and Rayon run under (both named
// `libuv-worker`: Rayon's threads are started from a pool thread and inherit its name).
const SCRIPT = `
const { readdirSync, readFileSync } = await import('node:fs');
const { PromptBuilder } = await import(${JSON.stringify(BUILDER)});
const b = await PromptBuilder.load(${JSON.stringify(CHECKPOINT_TINY)});
for (let round = 0; round < 3; round++) {
  await Promise.all(Array.from({ length: 64 }, (_, i) => b.build({ messages: [{ role: 'user', content: 'question ' + round + '.' + i + ' about rivers and valleys' }] })));
}
const names = readdirSync('/proc/self/task').map((t) => readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim());
console.log(JSON.stringify({ workers: names.filter((n) => n === 'libuv-worker').length, setting: process.env.TOKENIZERS_PARALLELISM ?? null }));
`;

function threadsWith(extraEnv: NodeJS.ProcessEnv): Promise<{ workers: number; setting: string | null }> {
  const env: NodeJS.ProcessEnv = { ...process.env, UV_THREADPOOL_SIZE: '4', ...extraEnv };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    // The timeout kills the child (SIGKILL) on a hang; an error or exit ends the wait either way.
    execFile(process.execPath, ['--input-type=module', '-e', SCRIPT], { env, timeout: 60_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as { workers: number; setting: string | null });
    });
  });
}

describe.runIf(existsSync('/proc/self/task'))('the prompt builder and the native tokenizer threads', () => {
  it('runs batches on the pool alone when the user has said nothing', { timeout: 70_000 }, async () => {
    const r = await threadsWith({ TOKENIZERS_PARALLELISM: undefined });
    expect(r.setting).toBe('false');
    expect(r.workers).toBe(4);
  });

  it("obeys the user's own TOKENIZERS_PARALLELISM=true (Rayon's threads beside the pool)", { timeout: 70_000 }, async () => {
    const r = await threadsWith({ TOKENIZERS_PARALLELISM: 'true' });
    expect(r.setting).toBe('true');
    expect(r.workers).toBeGreaterThan(4);
  });
});
