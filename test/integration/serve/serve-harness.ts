// Shared set-up for the serve integration tests: the fake python double, a throwaway trim dir,
// short timings, and a wait-for-snapshot helper. Not a double itself; helpers only.
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineSnapshot } from '../../../shared/serve.ts';
import type { EngineTimings } from '../../../electron/engine/serve/engine-timings.ts';
import type { Disposable } from '../../../electron/engine/lib/disposable.ts';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const FAKE_PYTHON = join(ROOT, 'test', 'doubles', 'fake-python', 'python');
import { exitWithParentEnv } from '../../doubles/fake-sglang/spawn.ts';
export { FAKE_SGLANG_MAIN as FAKE_SGLANG, exitWithParentEnv } from '../../doubles/fake-sglang/spawn.ts';
export const CHECKPOINT = join(ROOT, 'test', 'fixtures', 'checkpoint-tiny');

export const FAST: Partial<EngineTimings> = {
  backoff: { initialMs: 150, maxMs: 600, jitter: 0.2 },
  stableUptimeMs: 60_000,
  stopGraceMs: 1_500,
  readyTimeoutMs: 30_000,
  startupProbeMs: 100,
  healthIntervalMs: 200,
  healthTimeoutMs: 2_000,
  unhealthyAfter: 2,
  metricsIntervalMs: 200,
};

/** A folder that looks like the trim hook's (sitecustomize.py), so the fake python turns the trim on. */
export function fakeTrimDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engy-trim-'));
  mkdirSync(join(dir, 'engy_trim'));
  writeFileSync(join(dir, 'sitecustomize.py'), '# test stand-in\n');
  writeFileSync(join(dir, 'engy_trim', '__init__.py'), '');
  return dir;
}

/** The supervisor's serves here go with the test process if it is killed (fake-sglang/README.md). */
export function fakeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return exitWithParentEnv({ ...process.env, FAKE_PYTHON_NODE: process.execPath, ...extra });
}

interface Watchable {
  snapshot(): EngineSnapshot;
  onDidChange(l: (s: EngineSnapshot) => void): Disposable;
}

/** Resolves with the first snapshot (current or coming) that satisfies `pred`; rejects after `ms`. */
export function waitFor(sup: Watchable, pred: (s: EngineSnapshot) => boolean, ms = 20_000): Promise<EngineSnapshot> {
  const now = sup.snapshot();
  if (pred(now)) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void sub.dispose();
      reject(new Error(`timed out waiting; last status ${JSON.stringify(sup.snapshot().status)}`));
    }, ms);
    const sub = sup.onDidChange((s) => {
      if (!pred(s)) return;
      clearTimeout(timer);
      void sub.dispose();
      resolve(s);
    });
  });
}

/** Alive and not a zombie (an orphan's zombie lingers until init reaps it, yet runs nothing). */
export { pidRunning as pidAlive } from '../../helpers/pid-running.ts';
