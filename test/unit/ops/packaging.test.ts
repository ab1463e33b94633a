import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appFilesOf, config, expand, extraResourceFiles, extraResourceMatchers, matcherLib, packed, REPO, sourceFiles } from '../../helpers/packaging-layout.ts';

// Proves what the installers ship, from electron-builder.yml and electron-builder's own matcher
// (app-builder-lib), against the source tree plus the files a build would add (the test runs
// before any build): every runtime file in, no test, double, fixture, source or secret.

const require = createRequire(import.meta.url);
const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  validateConfiguration(config: object, debug: { isEnabled: boolean }): Promise<void>;
};
const DEST = '/app';
/** What the signing page build (vite.config.ts, signingPageConfig) writes into dist-renderer/signing. */
const SIGNING_BUILD = ['sign.html', 'sign.js', 'sign.css'];

/** What `npm run build` adds: tsc mirrors electron/ and shared/ into dist/ (.ts -> .js, .cts -> .cjs), vite writes dist-renderer/. */
function buildOutputs(src: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of src) {
    if (!/^(electron|shared)\//.test(f) || f.endsWith('.d.ts')) continue;
    const m = /^(.*)\.(ts|cts)$/.exec(f);
    if (!m) continue;
    const js = `dist/${m[1]}.${m[2] === 'cts' ? 'cjs' : 'js'}`;
    out.push(js, `${js}.map`);
  }
  out.push('dist/electron/main.js', 'dist/electron/preload.cjs', 'dist/electron/cli/main.js');
  out.push('dist-renderer/index.html', 'dist-renderer/assets/index-3f2a1b.js', 'dist-renderer/assets/index-3f2a1b.js.map', 'dist-renderer/assets/index-9c8d7e.css', 'dist-renderer/favicon.svg');
  out.push(...SIGNING_BUILD.map((f) => `dist-renderer/signing/${f}`));
  return [...new Set(out)];
}

/** Things a careless build or a developer's working copy could leave where `files` looks. */
const PLANTED = [
  'dist/test/doubles/fake-sglang/server.js',
  'dist/test/unit/ops/packaging.test.js',
  'dist/electron/engine/serve/__tests__/x.js',
  'dist/electron/engine/serve/fixtures/tiny.json',
  'dist/electron/engine/lib/paths.ts',
  'dist/electron/secrets/miner-key.pem',
  'dist/electron/wallets/default/coldkey',
  'dist/electron/hotkeys/default',
  'dist/electron/.env',
  'dist/electron/.env.production',
  'dist/electron/engy-panel.sqlite',
  'dist-renderer/.env.local',
  'dist-renderer/assets/server.key',
  '.env',
  'secrets/miner.key',
];

function appFiles(platform: 'linux' | 'mac' | 'win'): { included: string[]; src: string[] } {
  // One snapshot of the tree per check: others may be adding files while this runs.
  const src = sourceFiles();
  const candidates = [...new Set([...src, ...buildOutputs(src), ...PLANTED])];
  return { included: appFilesOf(platform, candidates, DEST), src };
}

const SECRET_RE = /(^|\/)(\.env(\..*)?|[^/]*\.(pem|key|p12|pfx|keystore|sqlite)|coldkey|coldkeypub\.txt)$|(^|\/)(secrets|wallets|hotkeys)\//;

describe('electron-builder.yml', () => {
  it("is valid against electron-builder's own schema", async () => {
    await expect(validateConfiguration(structuredClone(config), { isEnabled: false })).resolves.toBeUndefined();
  });

  it('names the app, its icons and an update feed electron-updater can read', () => {
    expect(config.appId).toBe('ai.engy.panel');
    expect(config.productName).toBe('engy panel');
    expect(config.asar).toBe(true);
    expect(config.publish).toEqual([expect.objectContaining({ provider: 'github', owner: 'hanlinai', repo: 'engy-panel' })]);
    for (const icon of ['resources/icons/icon.icns', 'resources/icons/icon.ico', 'resources/icons/png/512x512.png', 'resources/icons/icon.svg']) {
      expect(statSync(join(REPO, icon)).size, icon).toBeGreaterThan(0);
    }
    const png = readFileSync(join(REPO, 'resources/icons/png/512x512.png'));
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    // electron-builder refuses electron in dependencies; the updater must ship.
    expect(Object.keys(pkg.dependencies)).not.toContain('electron');
    expect(Object.keys(pkg.dependencies)).toContain('electron-updater');
  });

  for (const platform of ['linux', 'mac', 'win'] as const) {
    it(`${platform}: ships every runtime file and nothing from tests, doubles, fixtures, sources or secrets`, () => {
      const { included, src } = appFiles(platform);
      for (const must of [
        'package.json',
        'dist/electron/main.js',
        'dist/electron/preload.cjs',
        'dist/electron/cli/main.js',
        'dist-renderer/index.html',
        'dist-renderer/assets/index-3f2a1b.js',
        'bin/engy-panel.mjs',
      ]) {
        expect(included, must).toContain(must);
      }
      const bad = included.filter(
        (f) =>
          /\.(ts|tsx|cts|mts|map)$/.test(f) ||
          /(^|\/)(test|tests|__tests__|doubles|fixtures)\//.test(f) ||
          SECRET_RE.test(f) ||
          /^(electron|shared|renderer|test|docs|scripts|resources|\.ci|\.git)\//.test(f) ||
          /^(electron-builder\.yml|package-lock\.json|tsconfig.*\.json|vite\.config\.ts|vitest\.config\.ts|eslint\.config\.js)$/.test(f),
      );
      expect(bad).toEqual([]);
      // The signing page ships once, beside the app (extraResources), not inside app.asar as well.
      expect(included.filter((f) => f.startsWith('dist-renderer/signing'))).toEqual([]);
      // Every built engine module ships (nothing under dist/electron or dist/shared silently dropped).
      const expectedJs = buildOutputs(src).filter((f) => /^dist\/(electron|shared)\/.*\.(js|cjs)$/.test(f));
      expect(expectedJs.filter((f) => !included.includes(f))).toEqual([]);
    });
  }

  it('ships the Python helpers and the model catalog as real files next to app.asar', () => {
    const matchers = extraResourceMatchers('linux', '/res');
    const python = matchers.find((m) => m.from === join(REPO, 'resources', 'python'))!;
    expect(python.to).toBe('/res/python');
    const real = sourceFiles()
      .filter((f) => f.startsWith('resources/python/'))
      .map((f) => f.slice('resources/python/'.length));
    // What the serve loads from there (electron/engine/serve/trim-module.ts), whether or not it is checked in yet.
    const runtime = [
      'sitecustomize.py',
      'engy_trim/__init__.py',
      'engy_trim/versions.py',
      ...real.filter((f) => !/(^|\/)(tests?\/|test_[^/]*\.py$|__pycache__\/|\.venv\/|venv\/|\.(pytest|mypy|ruff)_cache\/|[^/]*\.egg-info\/)|\.py[co]$/.test(f)),
    ];
    const junk = [
      'engy_trim/__pycache__/versions.cpython-312.pyc',
      'tests/test_trim.py',
      'engy_trim/test_hook.py',
      'engy_trim/x.pyo',
      '.venv/bin/python',
      '.pytest_cache/v/cache/nodeids',
      'engy_trim.egg-info/PKG-INFO',
    ];
    const shipped = packed(python, [...new Set([...runtime, ...junk, ...real])]);
    expect([...shipped].sort()).toEqual([...new Set(runtime)].sort());

    const models = matchers.find((m) => m.from === join(REPO, 'resources', 'models.json'))!;
    expect(models.to).toBe('/res/models.json');
    expect(statSync(join(REPO, 'resources', 'models.json')).isFile()).toBe(true);

    // The browser-wallet signing page and the tray icon: the engine and main read them from disk.
    // The page is the Vite build's output (built or not yet): exactly its three files land in signing/.
    const signing = matchers.find((m) => m.from === join(REPO, 'dist-renderer', 'signing'))!;
    expect(signing.to).toBe('/res/signing');
    expect(packed(signing, [...SIGNING_BUILD, 'sign.js.map', 'index.html', 'assets/x.js', '.env']).sort()).toEqual([...SIGNING_BUILD].sort());
    const landed = extraResourceFiles('linux', '/res', true).map((f) => f.to);
    expect(landed).toEqual(expect.arrayContaining(['/res/icons/tray.png', '/res/icons/png/512x512.png']));
  });

  it("unpacks native modules from the asar and keeps only the platform's tokenizers binary", () => {
    const unpack = matcherLib.getFileMatchers(config, 'asarUnpack', DEST, { macroExpander: expand, customBuildOptions: {}, globalOutDir: resolve(REPO, 'release'), defaultSrc: REPO })!;
    const nodeFiles = readdirSync(join(REPO, 'node_modules', 'tokenizers'))
      .filter((f) => f.endsWith('.node'))
      .map((f) => `node_modules/tokenizers/${f}`);
    expect(nodeFiles.length).toBeGreaterThan(0);
    expect(packed(unpack[0]!, nodeFiles, false)).toEqual(nodeFiles);
    expect(packed(unpack[0]!, ['node_modules/tokenizers/index.js', 'dist/electron/main.js'], false)).toEqual([]);

    const keep = { linux: ['tokenizers.linux-x64-gnu.node'], mac: ['tokenizers.darwin-arm64.node', 'tokenizers.darwin-x64.node'], win: ['tokenizers.win32-x64-msvc.node'] } as const;
    for (const platform of ['linux', 'mac', 'win'] as const) {
      // electron-builder filters each module's files by their path from the app root (moduleFullFilePath).
      const nm = matcherLib.getNodeModuleFileMatcher(REPO, DEST, expand, config[platform] as object, { config, debugLogger: { isEnabled: false } });
      const files = [...nodeFiles, 'node_modules/tokenizers/index.js', 'node_modules/tokenizers/package.json'];
      const kept = packed(nm, files, false).map((f) => f.slice('node_modules/tokenizers/'.length));
      expect(kept.sort(), platform).toEqual([...keep[platform], 'index.js', 'package.json'].sort());
    }
  });
});
