import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHeadless } from '../../../electron/headless.ts';
import { AppFailure } from '../../../shared/errors.ts';

describe('one engine per data dir', () => {
  it('a second engine on the same data dir is refused with a clear message; another data dir is fine; the lock is released on stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-lock-'));
    const first = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: dir });
    try {
      const refused = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: dir }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(AppFailure);
      expect((refused as AppFailure).code).toBe('data-dir-locked');
      expect((refused as AppFailure).message).toMatch(/--data-dir/);
      const other = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: mkdtempSync(join(tmpdir(), 'engy-lock-')) });
      await other.stop();
    } finally {
      await first.stop();
    }
    const again = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: dir });
    await again.stop();
  });
});
