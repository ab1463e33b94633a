// The UI as the headless engine serves it: small enough over a slow tunnel, and no source maps.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..', '..', '..');
/** The budget from the issue: the whole bundle, charts included, under 150 KB gzip. */
const BUDGET_BYTES = 150 * 1024;

describe('the served renderer bundle', () => {
  it('stays under 150 KB gzip and carries no source maps', async () => {
    // Its own build, into a temp folder: independent of whatever dist-renderer holds. NODE_ENV is
    // production as in `npm run build:renderer` (vitest sets it to test, which would bundle React's dev build).
    const out = mkdtempSync(join(tmpdir(), 'engy-bundle-'));
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
      child.on('exit', resolve);
    });
    expect(code).toBe(0);
    const assets = readdirSync(join(out, 'assets'));
    expect(assets.filter((f) => f.endsWith('.map'))).toEqual([]);
    const served = assets.filter((f) => f.endsWith('.js') || f.endsWith('.css')).map((f) => join(out, 'assets', f));
    served.push(join(out, 'index.html'));
    const sizes = served.map((f) => ({ f, gz: gzipSync(readFileSync(f), { level: 9 }).length }));
    const total = sizes.reduce((a, s) => a + s.gz, 0);
    expect(total, `gzip sizes: ${sizes.map((s) => `${s.f.split('/').pop()} ${(s.gz / 1024).toFixed(1)} KB`).join(', ')}`).toBeLessThan(BUDGET_BYTES);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).not.toContain('sourceMappingURL');
    for (const f of served) expect(readFileSync(f, 'utf8')).not.toMatch(/sourceMappingURL=/);
  }, 120_000);
});
