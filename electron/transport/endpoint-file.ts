import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../engine/lib/atomic-file.ts';
import { CONTRACT_VERSION } from '../../shared/api.ts';

// Where a running headless engine listens, kept beside its token in the data dir so a fleet panel can
// learn the loopback port and token over SSH (`engy-panel headless --print-access`) instead of a
// user pasting them. Written when the server listens, removed when it stops; a crashed engine leaves
// it behind, so readers check the pid before believing it.

export const ENDPOINT_FILE = 'headless-endpoint.json';

export interface HeadlessEndpoint {
  port: number;
  pid: number;
  version: string;
  contract: number;
}

export function writeEndpoint(dataDir: string, e: Omit<HeadlessEndpoint, 'contract'>): void {
  writeFileAtomic(join(dataDir, ENDPOINT_FILE), `${JSON.stringify({ ...e, contract: CONTRACT_VERSION })}\n`, 0o600);
}

/** Removes the file only if it still names this process (a newer engine may have replaced it). */
export function removeEndpoint(dataDir: string, pid: number): void {
  if (readEndpoint(dataDir)?.pid === pid) rmSync(join(dataDir, ENDPOINT_FILE), { force: true });
}

/** The recorded endpoint, or null when absent or not ours (damaged, hand-edited, another shape). */
export function readEndpoint(dataDir: string): HeadlessEndpoint | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dataDir, ENDPOINT_FILE), 'utf8'));
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  const int = (k: string, max: number) => (Object.hasOwn(o, k) && Number.isInteger(o[k]) && (o[k] as number) > 0 && (o[k] as number) <= max ? (o[k] as number) : null);
  const port = int('port', 65535);
  const pid = int('pid', 2 ** 31);
  const contract = int('contract', 1_000_000);
  const version = Object.hasOwn(o, 'version') && typeof o.version === 'string' && o.version.length <= 64 ? o.version : null;
  if (port === null || pid === null || contract === null || version === null) return null;
  return { port, pid, version, contract };
}
