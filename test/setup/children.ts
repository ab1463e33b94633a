// Vitest setup for every test file: a child process that outlives its test file fails that file
// (and so the run), naming what was started; the survivor is killed so it cannot outlive the run.
// Proved by test/integration/tooling/child-registry.test.ts.
import { afterAll } from 'vitest';
import { installChildRegistry, reapSurvivors, resetChildren } from '../helpers/child-registry.ts';

const registry = installChildRegistry();
// This file runs again before each test file: what earlier files started was judged with them.
resetChildren(registry);
/** A stop that sent SIGTERM without waiting gets this long to finish before it counts as a leak. */
const GRACE_MS = 15_000;

afterAll(async () => {
  const survivors = await reapSurvivors(registry, GRACE_MS);
  resetChildren(registry);
  if (survivors.length > 0) {
    throw new Error(
      `${survivors.length} child process(es) outlived this test file (killed now): ${survivors.map((s) => `pid ${s.child.pid}: ${s.what}`).join('; ')}. Kill every child a test starts on every exit path (afterEach/afterAll or finally).`,
    );
  }
}, 30_000);
