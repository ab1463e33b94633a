// Fresh temporary folders for one test file, removed after each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Returns a maker of folders named `<prefix>XXXXXX` under the OS temp dir; each is removed after its test. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    // Retries: a process the test just stopped can still write a last file (a log line, SQLite's WAL) while
    // the folder is emptied, and rm then fails with ENOTEMPTY (desktop engine-restart, CI 2026-12-05).
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
}
