import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat, truncate } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CheckpointProgress } from '../../../../shared/serve.ts';
import { Backoff } from '../../lib/backoff.ts';
import { writeFileAtomic } from '../../lib/atomic-file.ts';
import { defaultFetch, type FetchFn } from '../../lib/fetch.ts';
import { authHeaders, HubError, hubErrorFor, listHubFiles, resolveUrl, type HubFile, type HubLocation } from './hub-files.ts';
import { ProgressMeter } from './progress-meter.ts';
import { freeBytesAt, type FreeBytesAt } from '../../lib/disk-free.ts';

export const MANIFEST_NAME = '.engy-manifest.json';
export const INCOMPLETE_SUFFIX = '.incomplete';
/** Head-room kept free beyond the bytes still to fetch: the serve's caches and logs live on the same disk. */
const DISK_MARGIN_BYTES = 2 * 1024 ** 3;

export interface HubDownloadOptions {
  location: HubLocation;
  dir: string;
  fetch?: FetchFn;
  signal?: AbortSignal;
  onProgress?: (p: CheckpointProgress) => void;
  /** Retries per file after a dropped connection; each resumes where the bytes on disk end. */
  retries?: number;
  retryDelayMs?: { initialMs: number; maxMs: number };
  /** Free bytes on the disk holding `dir` (default: the disk's; the engine passes its one reading). */
  freeBytes?: FreeBytesAt;
  now?: () => number;
}

export class DiskFullError extends Error {
  readonly needBytes: number;
  readonly freeBytes: number;
  constructor(need: number, free: number) {
    const gib = (n: number) => (n / 1024 ** 3).toFixed(1);
    super(`The checkpoint needs ${gib(need)} GiB more but the disk has ${gib(free)} GiB free: free some space or choose another folder.`);
    this.name = 'DiskFullError';
    this.needBytes = need;
    this.freeBytes = free;
  }
}

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

/** The listing, kept in the folder so it can be verified later without the network. */
export function writeManifest(dir: string, loc: HubLocation, files: HubFile[]): void {
  writeFileAtomic(join(dir, MANIFEST_NAME), JSON.stringify({ repo: loc.repo, revision: loc.revision, files }, null, 1));
}

/** Refuses paths that would escape the checkpoint folder (a hostile listing must not write elsewhere). */
function targetPath(dir: string, rel: string): string {
  const p = normalize(join(dir, rel));
  if (!p.startsWith(normalize(dir) + sep)) throw new Error(`refusing to write outside the checkpoint folder: ${rel}`);
  return p;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}

/**
 * Downloads a Hub repo into `dir` over plain HTTP: each file goes to `<name>.incomplete`, resumes
 * with a Range request from the bytes already there, and is renamed once it has the listed size.
 * Files already present with the right size are kept. Resolves with the file list.
 */
export async function downloadFromHub(opts: HubDownloadOptions): Promise<HubFile[]> {
  const fetchFn = opts.fetch ?? defaultFetch;
  const loc = opts.location;
  await mkdir(opts.dir, { recursive: true });
  const files = await listHubFiles(loc, fetchFn, opts.signal);
  writeManifest(opts.dir, loc, files);

  let have = 0;
  const pending: Array<{ file: HubFile; target: string; partial: number }> = [];
  for (const file of files) {
    const target = targetPath(opts.dir, file.path);
    if ((await sizeOf(target)) === file.size) {
      have += file.size;
      continue;
    }
    const partial = Math.min(file.size, (await sizeOf(target + INCOMPLETE_SUFFIX)) ?? 0);
    have += partial;
    pending.push({ file, target, partial });
  }
  const total = files.reduce((n, f) => n + f.size, 0);
  const free = (opts.freeBytes ?? freeBytesAt)(opts.dir);
  if (free < total - have + DISK_MARGIN_BYTES) throw new DiskFullError(total - have + DISK_MARGIN_BYTES, free);

  const meter = new ProgressMeter(total, files.length, have, files.length - pending.length, opts.now ?? Date.now);
  opts.onProgress?.(meter.progress(null));
  for (const item of pending) {
    await fetchOneFile(item.file, item.target, loc, fetchFn, meter, opts);
    meter.fileDone();
    opts.onProgress?.(meter.progress(null));
  }
  return files;
}

async function fetchOneFile(file: HubFile, target: string, loc: HubLocation, fetchFn: FetchFn, meter: ProgressMeter, opts: HubDownloadOptions): Promise<void> {
  const partialPath = target + INCOMPLETE_SUFFIX;
  await mkdir(dirname(target), { recursive: true });
  const backoff = new Backoff({ initialMs: opts.retryDelayMs?.initialMs ?? 1000, maxMs: opts.retryDelayMs?.maxMs ?? 30_000 });
  const retries = opts.retries ?? 8;
  for (let attempt = 0; ; attempt++) {
    let onDisk = (await sizeOf(partialPath)) ?? 0;
    if (onDisk > file.size) {
      // Longer than the listing says: the remote file changed; start it again.
      await truncate(partialPath, 0);
      meter.add(-onDisk);
      onDisk = 0;
    }
    if (onDisk === file.size) break;
    try {
      await fetchRange(file, partialPath, onDisk, loc, fetchFn, meter, opts);
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      // Auth and not-found do not heal by retrying; dropped connections and 5xx do.
      if (e instanceof HubError && [401, 403, 404].includes(e.status)) throw e;
      if (attempt >= retries) throw e;
      await sleep(backoff.next(), opts.signal);
      continue;
    }
  }
  const got = await sizeOf(partialPath);
  if (got !== file.size) throw new Error(`${file.path}: got ${got ?? 0} bytes, expected ${file.size}`);
  await rename(partialPath, target);
}

async function fetchRange(file: HubFile, partialPath: string, from: number, loc: HubLocation, fetchFn: FetchFn, meter: ProgressMeter, opts: HubDownloadOptions): Promise<void> {
  const headers: Record<string, string> = { ...authHeaders(loc) };
  if (from > 0) headers.range = `bytes=${from}-`;
  const res = await fetchFn(resolveUrl(loc, file.path), { headers, signal: opts.signal ?? null, redirect: 'follow' });
  if (res.status === 416) {
    await res.body?.cancel();
    return; // nothing left to send: the size check decides
  }
  if (!res.ok || !res.body) throw hubErrorFor(res.status, file.path, loc.token !== null);
  let append = from > 0 && res.status === 206;
  if (from > 0 && !append) {
    // The server ignored the Range: what it sends starts at byte 0.
    meter.add(-from);
    append = false;
  }
  const out = createWriteStream(partialPath, { flags: append ? 'a' : 'w' });
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    meter.add(chunk.length);
    const p = meter.progress(file.path, true);
    if (p) opts.onProgress?.(p);
  });
  await pipeline(body, out);
}
