// The UI as the headless engine serves it: small enough over a slow tunnel, and no source maps.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readStamp, sourcesFingerprint } from '../../../electron/renderer-stamp.ts';

const root = join(import.meta.dirname, '..', '..', '..');
/** The budget from the issue: the whole bundle every visit loads, charts included, under 150 KB gzip. */
const BUDGET_BYTES = 150 * 1024;
/** The browser-wallet signer, fetched only when signing in place (plain-JS SS58, no WebAssembly). */
const ON_DEMAND_BUDGET_BYTES = 16 * 1024;

describe('the served renderer bundle', () => {
  it('loads under 150 KB gzip per visit (the wallet signer on demand, under 16 KB) and carries no source maps', async () => {
    // Its own build, into a temp folder: independent of whatever dist-renderer holds. NODE_ENV is
    // production as in `npm run build:renderer` (vitest sets it to test, which would bundle React's dev build).
    const out = mkdtempSync(join(tmpdir(), 'engy-bundle-'));
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'], {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, NODE_ENV: 'production' },
      });
      child.on('exit', resolve);
    });
    expect(code).toBe(0);
    const assets = readdirSync(join(out, 'assets'));
    expect(assets.filter((f) => f.endsWith('.map'))).toEqual([]);
    const served = assets.filter((f) => f.endsWith('.js') || f.endsWith('.css')).map((f) => join(out, 'assets', f));
    served.push(join(out, 'index.html'));
    const gz = (f: string) => gzipSync(readFileSync(f), { level: 9 }).length;
    const list = (fs: string[]) => fs.map((f) => `${f.split('/').pop()} ${(gz(f) / 1024).toFixed(1)} KB`).join(', ');
    // What every visit loads: index.html and what it links. The rest are chunks fetched on demand: the
    // browser-wallet signer (Registration step + @polkadot/extension-dapp), loaded while a browser-wallet
    // request is open, and the Fleet page, loaded when first opened.
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const eager = served.filter((f) => f.endsWith('index.html') || html.includes(`assets/${f.split('/').pop()}`));
    const onDemand = served.filter((f) => !eager.includes(f));
    const total = eager.reduce((a, f) => a + gz(f), 0);
    expect(total, `gzip sizes: ${list(eager)}`).toBeLessThan(BUDGET_BYTES);
    const name = (f: string) =>
      f
        .split('/')
        .pop()!
        .replace(/-[\w-]{8}\.js$/, '.js');
    expect(onDemand.map(name).sort()).toEqual(['browser-wallet-in-place.js', 'extension-dapp.js', 'fleet-page.js']);
    // The Fleet page (opened by panels that hold several rigs) is its own chunk, held to the same small budget.
    const signer = onDemand.filter((f) => name(f) !== 'fleet-page.js');
    expect(
      signer.reduce((a, f) => a + gz(f), 0),
      `on demand: ${list(signer)}`,
    ).toBeLessThan(ON_DEMAND_BUDGET_BYTES);
    const fleet = onDemand.filter((f) => name(f) === 'fleet-page.js');
    expect(
      fleet.reduce((a, f) => a + gz(f), 0),
      `fleet page: ${list(fleet)}`,
    ).toBeLessThan(ON_DEMAND_BUDGET_BYTES);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).not.toContain('sourceMappingURL');
    for (const f of served) expect(readFileSync(f, 'utf8')).not.toMatch(/sourceMappingURL=/);
    // The build records the sources it was made from (what `engy-panel headless` compares after a pull).
    expect(readStamp(out)).toEqual({ sources: sourcesFingerprint(root) });
  }, 120_000);
});
