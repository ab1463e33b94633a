import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeFileAtomic } from './atomic-file.ts';
import { formatLine, type LogHub } from './logger.ts';

export interface DiagnosticsInput {
  dir: string;
  versions: Record<string, string>;
  sections: Record<string, unknown>;
  logs: LogHub;
}

/** Every download writes a file too: the folder keeps the newest few, never a load test's thousands. */
export const DIAGNOSTICS_KEPT = 10;
const OURS = /^engy-diagnostics-.*\.json$/;

/** Query parameters that carry a credential by their name. */
const SECRET_PARAM = /([?&](?:api[_-]?key|apikey|key|token|access[_-]?token|auth|secret|password|passwd|pass|sig|signature)=)[^&#\s"'\\]+/gi;
/** The user:password@ (or token@) part of a URL. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'\\]+@/gi;

/**
 * Credentials inside URLs replaced: settings, errors and log lines quote serve, provider and chain
 * URLs, and some carry `user:password@` or `?apikey=`. Those are not registered secrets (the user
 * typed them into a URL), so the redactor cannot know them.
 */
export function scrubUrlSecrets(text: string): string {
  return text.replace(USERINFO, '$1«redacted»@').replace(SECRET_PARAM, '$1«redacted»');
}

function pruneOld(dir: string, keep: number, justWritten: string): void {
  // The file just written is kept whatever its name (a clock set back must not delete the download).
  const files = readdirSync(dir).filter((f) => OURS.test(f) && f !== justWritten);
  // The names carry an ISO stamp, so the name order is the time order.
  files.sort();
  for (const f of files.slice(0, Math.max(0, files.length - (keep - 1)))) rmSync(join(dir, f), { force: true });
}

/**
 * One JSON file for support: versions, hardware, settings, engine snapshots and recent logs.
 * Everything in it already passed through the snapshot and log redaction: no key ever reaches it.
 */
export function writeDiagnostics(input: DiagnosticsInput): { path: string; bytes: number } {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = join(input.dir, `engy-diagnostics-${stamp}.json`);
  const body = {
    kind: 'engy-panel-diagnostics',
    createdAt: new Date().toISOString(),
    versions: input.versions,
    ...input.sections,
    logs: input.logs.recent({ limit: 5000 }).map(formatLine),
  };
  writeFileAtomic(path, scrubUrlSecrets(input.logs.redactor.redact(JSON.stringify(body, null, 2))), 0o600);
  const bytes = statSync(path).size;
  pruneOld(input.dir, DIAGNOSTICS_KEPT, basename(path));
  return { path, bytes };
}
