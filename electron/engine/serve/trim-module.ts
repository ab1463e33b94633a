import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * sglang releases whose internals `resources/python/engy_trim` was checked against. On any
 * other version the hook stays inert and says so. Keep in step with
 * `resources/python/engy_trim/versions.py` (a unit test compares the two).
 */
export const SUPPORTED_SGLANG_VERSIONS: readonly string[] = ['0.5.12.post1'];

/**
 * The self-audit's request ids start with this: engy_trim leaves a prefill batch holding one untrimmed,
 * so the audit gets every row it re-checks (`AUDIT_RID_PREFIX` in engy_trim/logic.py; a unit test compares).
 */
export const AUDIT_RID_PREFIX = 'engy-audit-';

export interface TrimLogLine {
  armed: boolean;
  /** The serve's sglang version, or 'unknown' when the line (e.g. the upstream hook's) omits it. */
  sglangVersion: string;
  reason?: string;
}

// The module's own lines. Both keep the upstream hook's "[engy] hidden-states trim armed" /
// "trim not armed:" stems, so either parser recognises either hook.
export const TRIM_ARMED_RE = /\[engy\] hidden-states trim armed on sglang (\S+)/;
export const TRIM_INERT_RE = /\[engy\] hidden-states trim not armed: inert on sglang (\S+) \(reason: (.*)\)\s*$/;
// The upstream engy miner's sitecustomize banner, which names no version.
const UPSTREAM_ARMED_RE = /\[engy\] hidden-states trim armed \(/;
const UPSTREAM_INERT_RE = /\[engy\] hidden-states trim not armed: (.*?)\s*$/;

export function formatTrimArmedLine(sglangVersion: string): string {
  return `[engy] hidden-states trim armed on sglang ${sglangVersion} (prefill keeps its last row; hidden states ride only the finishing step)`;
}

export function formatTrimInertLine(sglangVersion: string, reason: string): string {
  return `[engy] hidden-states trim not armed: inert on sglang ${sglangVersion} (reason: ${reason})`;
}

/** Reads one serve log line (any timestamp prefix allowed); null when it is not a trim line. */
export function parseTrimLogLine(line: string): TrimLogLine | null {
  const armed = TRIM_ARMED_RE.exec(line);
  if (armed) return { armed: true, sglangVersion: armed[1]! };
  const inert = TRIM_INERT_RE.exec(line);
  if (inert) return { armed: false, sglangVersion: inert[1]!, reason: inert[2]! };
  if (UPSTREAM_ARMED_RE.test(line)) return { armed: true, sglangVersion: 'unknown' };
  const upstream = UPSTREAM_INERT_RE.exec(line);
  if (upstream) return { armed: false, sglangVersion: 'unknown', reason: upstream[1] ?? '' };
  return null;
}

export interface TrimModuleDirOptions {
  /** Electron's process.resourcesPath in a packaged app (extraResources copies resources/python there). */
  resourcesPath?: string;
  /** Start of the upward search in a source checkout or a build; defaults to this file's folder. */
  from?: string;
}

/**
 * The folder to put on the serve's PYTHONPATH (it holds sitecustomize.py and engy_trim/).
 * Throws when no copy is found: a mining serve must not silently start untrimmed.
 */
export function trimModuleDir(opts: TrimModuleDirOptions = {}): string {
  const candidates: string[] = [];
  if (opts.resourcesPath) candidates.push(join(opts.resourcesPath, 'python'));
  // The packaged app's resources folder (electron/main.ts sets it to process.resourcesPath, where
  // extraResources put python/): walking up from inside app.asar never reaches it.
  if (process.env.ENGY_RESOURCES_DIR) candidates.push(join(process.env.ENGY_RESOURCES_DIR, 'python'));
  let dir = opts.from ?? dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    candidates.push(join(dir, 'resources', 'python'));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const found = candidates.find((c) => existsSync(join(c, 'engy_trim', '__init__.py')) && existsSync(join(c, 'sitecustomize.py')));
  if (!found) throw new Error(`the hidden-states trim module was not found (looked in ${candidates.join(', ')})`);
  return found;
}
