// Can the checkpoint go here? The folder must exist or be creatable, be writable, and have room for
// what is still to download; a complete checkpoint needs no room. Answers with a sentence either way.
import { accessSync, constants, statSync, statfsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { CheckpointFolderVerdict } from '../../../../shared/sglang-setup.ts';
import { checkCheckpointFolder } from './checkpoint-folder.ts';

const GiB = 1024 ** 3;

export interface FolderSpaceOptions {
  dir: string;
  /** Bytes the full download needs on disk (the model catalog's minDiskGiB). */
  needBytes: number;
  /** Tests: the free bytes at a path. */
  freeBytes?: (path: string) => number;
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

export function checkFolderSpace(o: FolderSpaceOptions): CheckpointFolderVerdict {
  const dir = o.dir.trim();
  if (!isAbsolute(dir)) return { ok: false, usable: false, exists: false, complete: false, freeBytes: null, needBytes: o.needBytes, sentence: `"${dir}" is not a full path: give the folder from the root, e.g. /data/qwen3.6-fp8.` };
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
  const base = existingAncestor(abs);
  try {
    accessSync(base, constants.W_OK);
  } catch {
    return { ok: false, usable: false, exists, complete, freeBytes: null, needBytes: o.needBytes, sentence: `${exists ? abs : `${abs} does not exist and`} cannot be written by this user (${base} is read-only for it): choose a folder you own, or fix its permissions.` };
  }
  let free: number;
  try {
    free = o.freeBytes ? o.freeBytes(base) : (() => {
      const s = statfsSync(base);
      return s.bavail * s.bsize;
    })();
  } catch {
    return { ok: false, usable: false, exists, complete, freeBytes: null, needBytes: o.needBytes, sentence: `The free space at ${base} could not be read: check that the disk is mounted.` };
  }
  if (free < o.needBytes)
    return { ok: false, usable: true, exists, complete, freeBytes: free, needBytes: o.needBytes, sentence: `${gib(free)} free at ${base}, but the download needs about ${gib(o.needBytes)}: free ${gib(o.needBytes - free)} or choose a folder on a bigger disk.` };
  return { ok: true, usable: true, exists, complete, freeBytes: free, needBytes: o.needBytes, sentence: `${exists ? abs : `${abs} will be created`}: ${gib(free)} free, the download needs about ${gib(o.needBytes)}.` };
}
