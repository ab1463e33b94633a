import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    // Fails a file whose child processes outlive it (and kills them).
    setupFiles: ['test/setup/children.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores here and in CI: integration tests spawn real child processes.
    maxWorkers: 2,
  },
});
