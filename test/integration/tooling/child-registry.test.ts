// The suite's child-process registry (test/setup/children.ts): a test file that leaves a child
// running fails, naming it, and the child is killed; a file that kills its children passes.
// Runs vitest itself on a fixture file, so it is an integration test.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const dir = mkdtempSync(join(tmpdir(), 'engy-leak-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs the fixture under vitest; resolves with its exit code and output (killed if it hangs). */
function runFixture(leak: boolean, pidFile: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [VITEST, 'run', '--config', 'test/fixtures/leak/vitest.config.ts'], {
    cwd: ROOT,
    env: { ...process.env, LEAK_FIXTURE_LEAK: leak ? '1' : '0', LEAK_FIXTURE_PID_FILE: pidFile, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const hard = setTimeout(() => child.kill('SIGKILL'), 150_000);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(hard);
      resolve({ code, out });
    });
  });
}

describe('a child process that outlives its test file fails the run', () => {
  it('fails the file, names the child and kills it', { timeout: 180_000 }, async () => {
    const pidFile = join(dir, 'leaked.pid');
    const r = await runFixture(true, pidFile);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      expect(r.code, r.out).not.toBe(0);
      expect(r.out).toContain('1 child process(es) outlived this test file (killed now)');
      expect(r.out).toContain(`pid ${pid}:`);
      await expect.poll(() => alive(pid), { timeout: 20_000 }).toBe(false);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('passes a file whose children are all gone', { timeout: 180_000 }, async () => {
    const r = await runFixture(false, join(dir, 'none.pid'));
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toContain('outlived');
  });
});
