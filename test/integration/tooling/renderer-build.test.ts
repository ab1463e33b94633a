// `headless` right after `npm install`: the UI is built on first start. A stand-in vite
// (test/doubles/fake-vite) keeps this fast; the real build is covered by bundle-size.test.ts.
import { describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRendererBuilt } from '../../../electron/renderer-build.ts';

const doubles = join(import.meta.dirname, '..', '..', 'doubles', 'fake-vite');

/** A temp checkout whose vite is the named double (or none, like an installed package). */
function checkout(vite: 'build-ok' | 'build-fail' | null): string {
  const root = mkdtempSync(join(tmpdir(), 'engy-checkout-'));
  writeFileSync(join(root, 'vite.config.ts'), 'export default {};\n');
  if (vite !== null) {
    mkdirSync(join(root, 'node_modules', 'vite', 'bin'), { recursive: true });
    copyFileSync(join(doubles, `${vite}.cjs`), join(root, 'node_modules', 'vite', 'bin', 'vite.js'));
  }
  return root;
}

describe('building the UI on first start', () => {
  it('does nothing when the UI is there', async () => {
    const root = checkout(null);
    mkdirSync(join(root, 'dist-renderer'));
    writeFileSync(join(root, 'dist-renderer', 'index.html'), '<!doctype html>');
    const said: string[] = [];
    expect(await ensureRendererBuilt(join(root, 'dist-renderer'), { stderr: (t) => said.push(t) })).toBe(true);
    expect(said).toEqual([]);
  });

  it('builds it once when missing, saying so', async () => {
    const root = checkout('build-ok');
    const said: string[] = [];
    expect(await ensureRendererBuilt(join(root, 'dist-renderer'), { stderr: (t) => said.push(t) })).toBe(true);
    expect(existsSync(join(root, 'dist-renderer', 'index.html'))).toBe(true);
    expect(said.join('')).toMatch(/building it once now[\s\S]*The UI is built/);
  });

  it('says what to run when the build fails or cannot run', async () => {
    const failing = checkout('build-fail');
    const said: string[] = [];
    expect(await ensureRendererBuilt(join(failing, 'dist-renderer'), { stderr: (t) => said.push(t) })).toBe(false);
    expect(said.join('')).toContain('boom: a syntax error');
    expect(said.join('')).toContain('npm run build:renderer');
    const installed = mkdtempSync(join(tmpdir(), 'engy-installed-'));
    const said2: string[] = [];
    expect(await ensureRendererBuilt(join(installed, 'dist-renderer'), { stderr: (t) => said2.push(t) })).toBe(false);
    expect(said2.join('')).toContain('cannot build it');
  });
});
