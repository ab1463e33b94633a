// The Python trim module (resources/python/engy_trim, loaded into the serve's interpreter) has its
// own unittest suite: run here so `npm test` runs every test. Only the real-sglang layer may skip,
// and only because sglang is not installed.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('engy_trim (Python)', () => {
  it('passes its unittest suite', { timeout: 180_000 }, () => {
    const r = spawnSync('python3', ['-m', 'unittest', 'discover', '-v', '-s', join(ROOT, 'resources', 'python', 'tests')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    if (r.error) throw new Error(`python3 is needed for the trim module's tests (Debian: apt install python3): ${r.error.message}`);
    const out = `${r.stdout}${r.stderr}`;
    const ran = Number(/^Ran (\d+) tests? in/m.exec(out)?.[1] ?? 0);
    expect(r.status, out.slice(-3000)).toBe(0);
    expect(out).toMatch(/^OK\b/m);
    expect(ran).toBeGreaterThanOrEqual(19);
    const skips = [...out.matchAll(/\.\.\. skipped '([^']*)'/g)].map((m) => m[1]!);
    for (const why of skips) expect(why).toMatch(/sglang/i);
    expect(ran - skips.length).toBeGreaterThanOrEqual(18);
  });
});
