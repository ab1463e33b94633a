// Which sources a built UI was built from: `vite build` (vite.config.ts) records a fingerprint of the UI's
// sources in dist-renderer/, and `engy-panel headless` in a checkout compares it with the sources now, so a
// `git pull` is followed by a rebuild instead of the old UI being served. A content hash, not mtimes: a
// checkout that switches branch and back keeps its build; the sources are ~1 MB, hashed in milliseconds.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The stamp's name inside the build folder. */
export const STAMP_FILE = '.build-stamp.json';
/** What the UI bundle is made of, relative to the checkout root (folders are walked). */
export const STAMPED_SOURCES = ['renderer', 'shared', 'vite.config.ts', 'package-lock.json'] as const;
/** A stamp is a few dozen bytes: anything larger is not ours. */
const MAX_STAMP_BYTES = 4096;

function filesUnder(path: string, out: string[]): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    return; // an optional source (package-lock.json) that is not there
  }
  if (st.isFile()) {
    out.push(path);
    return;
  }
  if (!st.isDirectory()) return;
  for (const name of readdirSync(path).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    filesUnder(join(path, name), out);
  }
}

/** sha256 over every source file's path (forward slashes) and content, in a fixed order. Throws if a file cannot be read. */
export function sourcesFingerprint(root: string): string {
  const files: string[] = [];
  for (const s of STAMPED_SOURCES) filesUnder(join(root, s), files);
  const h = createHash('sha256');
  for (const f of files) {
    h.update(relative(root, f).split(sep).join('/'));
    h.update('\0');
    h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

export function writeStamp(outDir: string, sources: string): void {
  writeFileSync(join(outDir, STAMP_FILE), `${JSON.stringify({ v: 1, sources })}\n`);
}

/** The fingerprint a stamp records, or why it cannot be read (missing, unreadable, malformed). */
export function readStamp(outDir: string): { sources: string } | { problem: string } {
  const file = join(outDir, STAMP_FILE);
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size > MAX_STAMP_BYTES) return { problem: 'its build stamp is not a small file' };
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return { problem: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it has no build stamp (built by an older version)' : 'its build stamp cannot be read' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'its build stamp is malformed' };
  }
  if (typeof parsed !== 'object' || parsed === null || !Object.hasOwn(parsed, 'sources')) return { problem: 'its build stamp is malformed' };
  const sources = (parsed as { sources: unknown }).sources;
  if (typeof sources !== 'string' || !/^[0-9a-f]{64}$/.test(sources)) return { problem: 'its build stamp is malformed' };
  return { sources };
}

/** null when the build in `outDir` was made from the sources under `root` as they are now; else why it is stale. */
export function staleBecause(root: string, outDir: string): string | null {
  const stamp = readStamp(outDir);
  if ('problem' in stamp) return stamp.problem;
  return stamp.sources === sourcesFingerprint(root) ? null : 'its sources changed since it was built';
}
