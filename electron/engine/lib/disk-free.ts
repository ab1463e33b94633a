// Free disk space where a path lives: one reading for the hardware report's host line, the checkpoint
// folder's check and the download's pre-check, so they can never disagree about one disk.
import { existsSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/** Bytes an unprivileged writer may still use on the filesystem holding a path. */
export type FreeBytesAt = (path: string) => number;

/** For `path`, or its nearest existing ancestor when it does not exist yet. Throws when the disk cannot be read. */
export function freeBytesAt(path: string): number {
  // The file system refuses such a path; walking up from it would measure some other folder instead.
  if (path.includes('\0')) throw new TypeError(`not a path: ${JSON.stringify(path)}`);
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  const s = statfsSync(p);
  return s.bavail * s.bsize;
}
