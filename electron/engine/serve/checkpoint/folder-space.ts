// Can the checkpoint go here? The folder must exist or be creatable, be writable, and have room for
// what is still to download; a complete checkpoint needs no room. Answers with a sentence either way.
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { CheckpointFolderVerdict } from '../../../../shared/sglang-setup.ts';
import { checkCheckpointFolder, readManifest } from './checkpoint-folder.ts';
import { INCOMPLETE_SUFFIX } from './hub-download.ts';
import { freeBytesAt, type FreeBytesAt } from '../../lib/disk-free.ts';

const GiB = 1024 ** 3;

export interface FolderSpaceOptions {
  dir: string;
  /** Bytes the full download needs on disk (the model catalog's minDiskGiB); less is asked when part is already there. */
  needBytes: number;
  /** The files themselves (the catalog's downloadGB): named beside the larger free-space ask, so the two never read as a contradiction. */
  filesBytes?: number;
  /** The free bytes at a path (default: the disk's; tests give the rig's). */
  freeBytes?: FreeBytesAt;
}

function existingAncestor(p: string): string {
  let cur = p;
  for (;;) {
    try {
      statSync(cur);
      return cur;
    } catch {
      const up = dirname(cur);
      if (up === cur) return cur;
      cur = up;
    }
  }
}

const gib = (b: number) => `${(b / GiB).toFixed(1)} GiB`;

function fileSize(path: string): number {
  try {
    const s = statSync(path);
    return s.isFile() ? s.size : 0;
  } catch {
    return 0;
  }
}

/**
 * What a download into `dir` still has to write. With our listing (written when a download starts):
 * each listed file's size less what is already there, whole or as a resumable `.incomplete` part.
 * Without one: the full catalog size (nothing known about a folder we did not start).
 */
export function bytesStillToDownload(dir: string, fullBytes: number): { still: number; have: number; listed: boolean } {
  const listing = readManifest(dir); // checked entry by entry: relative paths, byte sizes
  if (!listing) return { still: fullBytes, have: 0, listed: false };
  let still = 0;
  let have = 0;
  for (const f of listing) {
    const size = f.size;
    const whole = fileSize(join(dir, f.path));
    const got = whole === size ? size : Math.min(size, fileSize(join(dir, f.path + INCOMPLETE_SUFFIX)));
    have += got;
    still += size - got;
  }
  return { still, have, listed: true };
}

export function checkFolderSpace(o: FolderSpaceOptions): CheckpointFolderVerdict {
  const dir = o.dir.trim();
  if (!isAbsolute(dir))
    return {
      ok: false,
      usable: false,
      exists: false,
      complete: false,
      freeBytes: null,
      needBytes: o.needBytes,
      sentence: `"${dir}" is not a full path: give the folder from the root, e.g. /data/qwen3.6-fp8.`,
    };
  const abs = resolve(dir);
  let exists = false;
  try {
    const s = statSync(abs);
    if (!s.isDirectory()) return { ok: false, usable: false, exists: true, complete: false, freeBytes: null, needBytes: o.needBytes, sentence: `${abs} is a file, not a folder: choose a folder.` };
    exists = true;
  } catch {
    exists = false;
  }
  const complete = exists && checkCheckpointFolder(abs).complete;
  if (complete) return { ok: true, usable: true, exists, complete, freeBytes: null, needBytes: 0, sentence: `${abs} holds a complete checkpoint: nothing to download.` };
  const { still, have, listed } = exists ? bytesStillToDownload(abs, o.needBytes) : { still: o.needBytes, have: 0, listed: false };
  const already = have > 0 ? ` (${gib(have)} already downloaded)` : '';
  // Before a listing exists the need is the catalog's free-space ask, larger than the files: say both.
  const needWords =
    listed || o.filesBytes === undefined
      ? `the download still needs about ${gib(still)}${already}`
      : `a first download asks for ${gib(still)} free (the files are about ${Math.round(o.filesBytes / 1e9)} GB; the rest is room for the serve's image, caches and logs)`;
  const base = existingAncestor(abs);
  try {
    accessSync(base, constants.W_OK);
  } catch {
    return {
      ok: false,
      usable: false,
      exists,
      complete,
      freeBytes: null,
      needBytes: still,
      sentence: `${exists ? abs : `${abs} does not exist and`} cannot be written by this user (${base} is read-only for it): choose a folder you own, or fix its permissions.`,
    };
  }
  let free: number;
  try {
    free = (o.freeBytes ?? freeBytesAt)(base);
  } catch {
    return { ok: false, usable: false, exists, complete, freeBytes: null, needBytes: still, sentence: `The free space at ${base} could not be read: check that the disk is mounted.` };
  }
  if (free < still)
    return {
      ok: false,
      usable: true,
      exists,
      complete,
      freeBytes: free,
      needBytes: still,
      sentence: `${gib(free)} free at ${base}, but ${needWords}: free ${gib(still - free)} more, or choose a checkpoint folder on a bigger disk (Settings > Mining rig > Checkpoint folder).${listed ? '' : ' The download itself checks the exact size and starts when the files fit.'}`,
    };
  return { ok: true, usable: true, exists, complete, freeBytes: free, needBytes: still, sentence: `${exists ? abs : `${abs} will be created`}: ${gib(free)} free, ${needWords}.` };
}
