import { statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.ts';
import { formatLine, type LogHub } from './logger.ts';

export interface DiagnosticsInput {
  dir: string;
  versions: Record<string, string>;
  sections: Record<string, unknown>;
  logs: LogHub;
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
  writeFileAtomic(path, input.logs.redactor.redact(JSON.stringify(body, null, 2)), 0o600);
  return { path, bytes: statSync(path).size };
}
