// What the installers ship, computed from electron-builder.yml with electron-builder's own matcher
// (app-builder-lib): shared by test/unit/ops/packaging.test.ts (which proves the lists) and the
// packaged boot test (which lays an installed app out from them and runs it). Never lay files out by hand.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);

type Filter = (file: string, stat: { isDirectory(): boolean }) => boolean;
export interface FileMatcher {
  from: string;
  to: string;
  patterns: string[];
  createFilter(): Filter;
}
interface FileMatcherModule {
  getMainFileMatchers(appDir: string, dest: string, expand: (p: string) => string, platformOptions: object, packager: object, outDir: string, electronCompile: boolean): FileMatcher[];
  getNodeModuleFileMatcher(appDir: string, dest: string, expand: (p: string) => string, platformOptions: object, packager: object): FileMatcher;
  getFileMatchers(config: object, name: string, dest: string, opts: object): FileMatcher[] | null;
}
export const matcherLib = require('app-builder-lib/out/fileMatcher.js') as FileMatcherModule;
const yaml = require('js-yaml') as { load(text: string): unknown };

export interface BuilderConfig {
  directories: { output: string; buildResources: string };
  files: string[];
  asarUnpack: string[];
  extraResources: Array<{ from: string; to: string }>;
  linux: object;
  mac: object;
  win: object;
  publish: Array<{ provider: string; owner?: string; repo?: string }>;
  [k: string]: unknown;
}
export const config = yaml.load(readFileSync(join(REPO, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
export const expand = (p: string): string => p.replace(/\$\{(arch|os)\}/g, (_m, k: string) => (k === 'arch' ? 'x64' : 'linux'));
export type Platform = 'linux' | 'mac' | 'win';

/** Every file under `dir` (relative, '/'-separated), skipping installs, VCS and build outputs at the top. */
export function sourceFiles(dir = REPO, skipTop = ['node_modules', '.git', 'dist', 'dist-renderer', 'release', '.tools']): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const abs = join(d, name);
      const rel = relative(dir, abs);
      if (skipTop.includes(rel)) continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else out.push(rel.split(sep).join('/'));
    }
  };
  walk(dir);
  return out;
}

/**
 * Run electron-builder's filter like its copyDir does: a directory the filter refuses is not entered.
 * `gateDirs: false` for asarUnpack, which electron-builder tests file by file.
 */
export function packed(matcher: FileMatcher, files: readonly string[], gateDirs = true): string[] {
  const filter = matcher.createFilter();
  const cache = new Map<string, boolean>();
  const dirOk = (rel: string): boolean => {
    if (rel === '') return true;
    let ok = cache.get(rel);
    if (ok === undefined) {
      const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      ok = dirOk(parent) && filter(join(matcher.from, rel), { isDirectory: () => true });
      cache.set(rel, ok);
    }
    return ok;
  };
  return files.filter((rel) => {
    const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    return (!gateDirs || dirOk(parent)) && filter(join(matcher.from, rel), { isDirectory: () => false });
  });
}

function packager(): object {
  return {
    info: {
      projectDir: REPO,
      buildResourcesDir: resolve(REPO, config.directories.buildResources),
      isPrepackedAppAsar: false,
      config,
      debugLogger: { isEnabled: false, add: () => undefined },
    },
  };
}

/** `files` applied to candidate paths (relative to the repo): what goes into app.asar. */
export function appFilesOf(platform: Platform, candidates: readonly string[], dest = '/app'): string[] {
  const [main] = matcherLib.getMainFileMatchers(REPO, dest, expand, config[platform] as object, packager(), resolve(REPO, config.directories.output), false);
  return packed(main!, candidates);
}

/** The extraResources matchers, with `dest` standing for process.resourcesPath. */
export function extraResourceMatchers(platform: Platform, dest: string): FileMatcher[] {
  const m = matcherLib.getFileMatchers(config, 'extraResources', dest, { macroExpander: expand, customBuildOptions: config[platform], globalOutDir: resolve(REPO, 'release'), defaultSrc: REPO });
  if (!m) throw new Error('electron-builder.yml has no extraResources');
  return m;
}

/** The extraResources sources a build writes (the rest are checked in): absent until `npm run build:renderer`. */
export const BUILT_EXTRA_RESOURCES = [join(REPO, 'dist-renderer', 'signing')];

/**
 * Where each extraResources source file lands (absolute source -> absolute destination). A built source
 * that is not built yet throws, unless `skipUnbuilt` (the packaging unit test, which runs before any build).
 */
export function extraResourceFiles(platform: Platform, dest: string, skipUnbuilt = false): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (const m of extraResourceMatchers(platform, dest)) {
    if (BUILT_EXTRA_RESOURCES.includes(m.from) && !existsSync(m.from)) {
      if (skipUnbuilt) continue;
      throw new Error(`${m.from} is not built: run npm run build:renderer first`);
    }
    if (statSync(m.from).isDirectory()) {
      for (const rel of packed(m, sourceFiles(m.from, []))) out.push({ from: join(m.from, rel), to: join(m.to, rel) });
    } else {
      out.push({ from: m.from, to: m.to });
    }
  }
  return out;
}

/**
 * An installed app as electron-builder lays it out, in `root`: `root/resources` is process.resourcesPath,
 * `root/resources/app` holds what `files` selects from the built tree (an unpacked app folder, which
 * Electron loads like app.asar), and the extraResources sit beside it. Production node_modules are the
 * repo's own, linked (electron-builder collects them separately from `files`).
 */
export function layOutInstalledApp(root: string, platform: Platform = 'linux'): { resourcesPath: string; appDir: string; files: string[] } {
  const resourcesPath = join(root, 'resources');
  const appDir = join(resourcesPath, 'app');
  const built = sourceFiles(REPO, ['node_modules', '.git', 'release', '.tools', 'test-results']);
  const files = appFilesOf(platform, built);
  for (const rel of files) {
    mkdirSync(dirname(join(appDir, rel)), { recursive: true });
    copyFileSync(join(REPO, rel), join(appDir, rel));
  }
  for (const f of extraResourceFiles(platform, resourcesPath)) {
    mkdirSync(dirname(f.to), { recursive: true });
    copyFileSync(f.from, f.to);
  }
  symlinkSync(join(REPO, 'node_modules'), join(appDir, 'node_modules'), 'dir');
  return { resourcesPath, appDir, files };
}
