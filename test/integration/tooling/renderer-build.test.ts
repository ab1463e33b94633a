// `headless` in a checkout: the UI is built on first start, and rebuilt when its sources changed since
// (a `git pull`), judged by the stamp the build writes; an installed app never tries. A stand-in vite
// (test/doubles/fake-vite) or an injected builder keeps this fast; the real build and its stamp are
// covered by bundle-size.test.ts.
import { describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRendererBuilt, type RendererBuilder } from '../../../electron/renderer-build.ts';
import { readStamp, sourcesFingerprint, STAMP_FILE, staleBecause, writeStamp } from '../../../electron/renderer-stamp.ts';

const doubles = join(import.meta.dirname, '..', '..', 'doubles', 'fake-vite');

/** A temp checkout (sources, vite config) whose vite is the named double (or none, like an installed package). */
function checkout(vite: 'build-ok' | 'build-fail' | null): string {
  const root = mkdtempSync(join(tmpdir(), 'engy-checkout-'));
  writeFileSync(join(root, 'vite.config.ts'), 'export default {};\n');
  mkdirSync(join(root, 'renderer', 'src'), { recursive: true });
  mkdirSync(join(root, 'shared'));
  writeFileSync(join(root, 'renderer', 'index.html'), '<!doctype html>');
  writeFileSync(join(root, 'renderer', 'src', 'main.tsx'), 'export {};\n');
  writeFileSync(join(root, 'shared', 'api.ts'), 'export {};\n');
  if (vite !== null) {
    mkdirSync(join(root, 'node_modules', 'vite', 'bin'), { recursive: true });
    copyFileSync(join(doubles, `${vite}.cjs`), join(root, 'node_modules', 'vite', 'bin', 'vite.js'));
  }
  return root;
}

/** A checkout whose UI was built (index.html and a stamp of its sources then), as `vite build` leaves it. */
function builtCheckout(): { root: string; dist: string } {
  const root = checkout('build-ok');
  const dist = join(root, 'dist-renderer');
  mkdirSync(dist);
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>old</title>');
  writeStamp(dist, sourcesFingerprint(root));
  return { root, dist };
}

/** A builder that records its calls and writes a build (with its stamp) as the vite plugin does, or fails. */
function builder(result: 'ok' | 'fail' | 'fail-emptied'): RendererBuilder & { calls: string[] } {
  const calls: string[] = [];
  const b = async (root: string) => {
    calls.push(root);
    const dist = join(root, 'dist-renderer');
    // vite empties the build folder first (emptyOutDir), whether the build then succeeds or not.
    if (result !== 'fail') rmSync(dist, { recursive: true, force: true });
    if (result !== 'ok') return false;
    mkdirSync(dist, { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>new</title>');
    writeStamp(dist, sourcesFingerprint(root));
    return true;
  };
  return Object.assign(b, { calls });
}

async function run(dist: string, build?: RendererBuilder) {
  const said: string[] = [];
  const ok = await ensureRendererBuilt(dist, { stderr: (t) => said.push(t) }, build ? { build } : {});
  return { ok, said: said.join('') };
}

describe('building the UI on first start', () => {
  it('does nothing when the UI is there in an installed app (no sources, no vite), stamp or not', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-installed-'));
    mkdirSync(join(root, 'dist-renderer'));
    writeFileSync(join(root, 'dist-renderer', 'index.html'), '<!doctype html>');
    const b = builder('ok');
    expect(await run(join(root, 'dist-renderer'), b)).toEqual({ ok: true, said: '' });
    expect(b.calls).toEqual([]);
  });

  it('builds it once when missing, saying so', async () => {
    const root = checkout('build-ok');
    const r = await run(join(root, 'dist-renderer'));
    expect(r.ok).toBe(true);
    expect(existsSync(join(root, 'dist-renderer', 'index.html'))).toBe(true);
    expect(r.said).toMatch(/building it once now[\s\S]*The UI is built/);
  });

  it('says what to run when the build fails or cannot run', async () => {
    const failing = checkout('build-fail');
    const r = await run(join(failing, 'dist-renderer'));
    expect(r.ok).toBe(false);
    expect(r.said).toContain('boom: a syntax error');
    expect(r.said).toContain('npm run build:renderer');
    const installed = mkdtempSync(join(tmpdir(), 'engy-installed-'));
    const r2 = await run(join(installed, 'dist-renderer'));
    expect(r2.ok).toBe(false);
    expect(r2.said).toContain('cannot build it');
  });
});

describe('rebuilding a UI older than its sources (a checkout after git pull)', () => {
  it('keeps a build whose stamp matches the sources, silently', async () => {
    const { dist } = builtCheckout();
    const b = builder('ok');
    expect(await run(dist, b)).toEqual({ ok: true, said: '' });
    expect(b.calls).toEqual([]);
  });

  it('rebuilds once when a source changed, was added, or the vite config changed, and says so', async () => {
    for (const change of [
      (root: string) => writeFileSync(join(root, 'renderer', 'src', 'main.tsx'), 'export const changed = 1;\n'),
      (root: string) => writeFileSync(join(root, 'shared', 'new-shape.ts'), 'export {};\n'),
      (root: string) => writeFileSync(join(root, 'vite.config.ts'), 'export default { base: "./" };\n'),
    ]) {
      const { root, dist } = builtCheckout();
      change(root);
      const b = builder('ok');
      const r = await run(dist, b);
      expect(r.ok).toBe(true);
      expect(b.calls).toEqual([root]);
      expect(r.said).toMatch(/out of date \(its sources changed since it was built\): rebuilding it now[\s\S]*The UI is rebuilt/);
      // Built now: the next start keeps it.
      const again = builder('ok');
      expect(await run(dist, again)).toEqual({ ok: true, said: '' });
      expect(again.calls).toEqual([]);
    }
  });

  it('ignores what is not a source: node_modules and dotfiles inside the source folders', async () => {
    const { root, dist } = builtCheckout();
    mkdirSync(join(root, 'renderer', 'node_modules'));
    writeFileSync(join(root, 'renderer', 'node_modules', 'x.js'), '1');
    writeFileSync(join(root, 'renderer', '.DS_Store'), 'x');
    expect(staleBecause(root, dist)).toBeNull();
  });

  it('rebuilds when the stamp is missing, malformed, oversized or unreadable, naming why', async () => {
    const hash = sourcesFingerprint(builtCheckout().root);
    const cases: [string, (file: string) => void, RegExp][] = [
      ['missing', (f) => rmSync(f), /no build stamp/],
      ['not JSON', (f) => writeFileSync(f, '{"sources": '), /malformed/],
      ['empty', (f) => writeFileSync(f, ''), /malformed/],
      ['null', (f) => writeFileSync(f, 'null'), /malformed/],
      ['an array', (f) => writeFileSync(f, `["${hash}"]`), /malformed/],
      ['a number for the hash', (f) => writeFileSync(f, '{"sources": 12}'), /malformed/],
      ['not a hash', (f) => writeFileSync(f, '{"sources": "../../etc/passwd"}'), /malformed/],
      ['the hash under __proto__', (f) => writeFileSync(f, `{"__proto__": {"sources": "${hash}"}}`), /malformed/],
      ['oversized', (f) => writeFileSync(f, JSON.stringify({ sources: hash, pad: 'x'.repeat(10_000) })), /not a small file/],
      [
        'a folder',
        (f) => {
          rmSync(f);
          mkdirSync(f);
        },
        /not a small file/,
      ],
      [
        'a symlink loop',
        (f) => {
          rmSync(f);
          symlinkSync(f, f);
        },
        /cannot be read/,
      ],
    ];
    for (const [name, spoil, why] of cases) {
      const { root, dist } = builtCheckout();
      spoil(join(dist, STAMP_FILE));
      expect('problem' in readStamp(dist), name).toBe(true);
      const b = builder('ok');
      const r = await run(dist, b);
      expect(r.ok, name).toBe(true);
      expect(r.said, name).toMatch(why);
      expect(b.calls, name).toEqual([root]);
    }
  });

  it('a failed rebuild keeps serving the previous build if it is still there, and says what to run', async () => {
    const { root, dist } = builtCheckout();
    writeFileSync(join(root, 'shared', 'api.ts'), 'export const pulled = true;\n');
    const r = await run(dist, builder('fail'));
    expect(r).toEqual({ ok: true, said: expect.stringMatching(/Rebuilding the UI failed \(see above\): serving the previous build; run `npm run build:renderer`/) });
    const gone = await run(dist, builder('fail-emptied'));
    expect(gone.ok).toBe(false);
    expect(gone.said).toMatch(/Rebuilding the UI failed[\s\S]*the engine runs meanwhile/);
  });

  it('through the real spawn path: a stale build is rebuilt by the checkout vite', async () => {
    const { root, dist } = builtCheckout();
    writeFileSync(join(root, 'renderer', 'src', 'main.tsx'), 'export const pulled = 2;\n');
    const r = await run(dist);
    expect(r.ok).toBe(true);
    expect(r.said).toMatch(/rebuilding it now[\s\S]*The UI is rebuilt/);
    expect(existsSync(join(dist, 'index.html'))).toBe(true);
  });
});
