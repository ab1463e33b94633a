import { defineConfig } from 'vitest/config';

/**
 * Two lanes under one `vitest run` (and so one `npm test`):
 * - unit: in-process only (test/setup/unit-lane.ts throws on a process or a socket), one module cache
 *   per worker (isolate: false), so its hundreds of files start in seconds, not minutes;
 * - integration: real processes, sockets and Chromium (test/integration, test/e2e), one fresh
 *   fork per file.
 * Run one lane: `npx vitest run --project unit`.
 */
export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    // A ceiling, not a pace: helpers inside hooks give up first with a sentence (e.g. a headless start, 120 s).
    hookTimeout: 180_000,
    // Fails a file whose child processes outlive it (and kills them).
    setupFiles: ['test/setup/children.ts'],
    // Three files at once on two cores (here and in CI): an integration or e2e file mostly waits on
    // simulated time it cannot hurry (blocks, epochs, a serve's health interval), using a fifth to
    // three quarters of one core (CPU seconds over its idle run time, docs/testing.md); two workers left
    // about half the machine idle. Four would saturate the cores during the Chromium/axe passes.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'],
          setupFiles: ['test/setup/unit-lane.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/integration/**/*.test.tsx'],
          pool: 'forks',
        },
      },
    ],
  },
});
