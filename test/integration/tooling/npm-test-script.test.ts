// `npm test` (scripts/test.ts): its two lanes, a failing step stopping the other lane, Ctrl-C, and
// no step's process outliving it. The steps are a fake `npm` (test/doubles/fake-npm) first on PATH.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidRunning } from '../../helpers/pid-running.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { until } from '../../helpers/until.ts';

const ROOT = join(import.meta.dirname, '../../..');
const FAKE_NPM = join(ROOT, 'test/doubles/fake-npm');
const tempDir = tempDirs('npm-test-script-');

interface Run {
  code: number | null;
  output: string;
  log: string[];
}

/** Runs scripts/test.ts with the plan; `interruptWhen` sends SIGINT once the output holds that text. Killed past 60 s. */
function npmTest(plan: string, args: string[] = [], interruptWhen?: string): Promise<Run> {
  const log = join(tempDir(), 'npm-log');
  const child = spawn(process.execPath, [join(ROOT, 'scripts/test.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${FAKE_NPM}:${process.env.PATH}`, FAKE_NPM_PLAN: plan, FAKE_NPM_LOG: log, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let sent = false;
  const take = (b: Buffer) => {
    output += b.toString();
    if (interruptWhen && !sent && output.includes(interruptWhen)) {
      sent = true;
      child.kill('SIGINT');
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(deadline);
      let lines: string[] = [];
      try {
        lines = readFileSync(log, 'utf8').trim().split('\n');
      } catch {
        // No step ran.
      }
      resolve({ code, output, log: lines });
    });
  });
}

const pidsOf = (log: string[]): number[] => log.map((l) => Number(/pid=(\d+)/.exec(l)?.[1])).filter((p) => p > 0);

/** Resolves once none of the pids is running; throws after 15 s. */
const gone = (pids: number[]) => until("the steps' processes to end", 15_000, () => !pids.some(pidRunning), 100);

describe('npm test (scripts/test.ts)', { timeout: 90_000 }, () => {
  it('runs both lanes, each in order, passes the arguments to vitest only, and exits 0', async () => {
    const r = await npmTest('', ['--project', 'unit']);
    expect(r.code).toBe(0);
    const steps = r.log.map((l) => l.replace(/pid=\d+$/, '').trim());
    expect(steps.filter((s) => !s.startsWith('typecheck') && !s.startsWith('lint'))).toEqual(['build:main', 'build:renderer', 'test:vitest --project unit']);
    expect(steps.filter((s) => s.startsWith('typecheck') || s.startsWith('lint'))).toEqual(['typecheck:no-emit', 'lint']);
    // A check's output comes as one block with its verdict; the summary names every step.
    expect(r.output).toMatch(/----- lint \(checks\) -----\nlint ok\nnpm test \[checks\]: lint passed in \d+ s\n-----/);
    expect(r.output).toContain('npm test: passed in');
    for (const s of ['build:main', 'build:renderer', 'test:vitest', 'typecheck:no-emit', 'lint']) expect(r.output).toMatch(new RegExp(`\\n  npm test \\[\\w+\\]: ${s} passed`));
  });

  it('a failing check stops the tests lane, kills its processes, and fails with the check named', async () => {
    const r = await npmTest('lint=failafter:test:vitest:2 test:vitest=hang');
    expect(r.code).toBe(1);
    expect(r.output).toContain('lint: broken on purpose');
    expect(r.output).toContain('npm test [checks]: lint FAILED (exit 2)');
    expect(r.output).toContain('npm test [tests]: test:vitest stopped');
    expect(r.output).toContain('npm test: FAILED');
    await gone(pidsOf(r.log));
  });

  it('a failing build stops the lane at once: vitest never starts', async () => {
    const r = await npmTest('build:main=fail:3');
    expect(r.code).toBe(1);
    expect(r.output).toContain('npm test [tests]: build:main FAILED (exit 3)');
    expect(r.log.some((l) => l.startsWith('test:vitest'))).toBe(false);
  });

  it('Ctrl-C stops every step and exits 130', async () => {
    const r = await npmTest('test:vitest=hang lint=hang', [], 'test:vitest: hanging');
    expect(r.code).toBe(130);
    expect(r.output).toContain('npm test: SIGINT, stopping every step');
    expect(r.output).toContain('npm test: stopped by SIGINT');
    await gone(pidsOf(r.log));
  });

  it('a process a step leaves behind does not outlive the step', async () => {
    const r = await npmTest('build:renderer=orphan');
    expect(r.code).toBe(0);
    const orphan = Number(/orphan pid=(\d+)/.exec(r.log.join('\n'))?.[1]);
    expect(orphan).toBeGreaterThan(0);
    await gone([orphan]);
  });
});
