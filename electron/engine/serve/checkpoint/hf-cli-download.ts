import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointProgress } from '../../../../shared/serve.ts';
import { execText, type ExecText } from '../../lib/exec-text.ts';
import { defaultSpawn, LineSplitter, type SpawnFn } from '../process-group.ts';
import type { HubFile, HubLocation } from './hub-files.ts';
import { writeManifest } from './hub-download.ts';
import { ProgressMeter } from './progress-meter.ts';

/** The Hugging Face CLI the user has, newest spelling first; null when neither runs. */
export async function findHfCli(exec: ExecText = execText): Promise<string | null> {
  for (const [bin, args] of [
    ['hf', ['version']],
    ['huggingface-cli', ['version']],
  ] as const) {
    try {
      await exec(bin, [...args], 15_000);
      return bin;
    } catch {
      // try the next spelling
    }
  }
  return null;
}

/** Bytes under `dir`, partial downloads included (hf writes them under .cache/huggingface/download). */
export async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await bytesUnder(p);
    else if (e.isFile()) total += (await stat(p).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

export interface HfCliDownloadOptions {
  cli: string;
  location: HubLocation;
  dir: string;
  /** The Hub's listing, for the total the progress is measured against. */
  files: HubFile[];
  spawn?: SpawnFn;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onProgress?: (p: CheckpointProgress) => void;
  onLine?: (line: string) => void;
  pollMs?: number;
}

/**
 * `hf download <repo> --local-dir <dir>` as an alternative to the built-in downloader. Its tqdm
 * bars are unreadable as progress, so progress is the bytes on disk against the listed total.
 */
export async function downloadWithHfCli(opts: HfCliDownloadOptions): Promise<void> {
  await mkdir(opts.dir, { recursive: true });
  writeManifest(opts.dir, opts.location, opts.files);
  const total = opts.files.reduce((n, f) => n + f.size, 0);
  const meter = new ProgressMeter(total, opts.files.length, await bytesUnder(opts.dir), 0, Date.now);
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env), HF_ENDPOINT: opts.location.endpoint };
  if (opts.location.token) env.HF_TOKEN = opts.location.token;
  const args = ['download', opts.location.repo, '--revision', opts.location.revision, '--local-dir', opts.dir];
  const child = (opts.spawn ?? defaultSpawn)(opts.cli, args, { stdio: ['ignore', 'pipe', 'pipe'], env, ...(opts.signal ? { signal: opts.signal } : {}) });
  const tail: string[] = [];
  const split = new LineSplitter((l) => {
    tail.push(l);
    if (tail.length > 20) tail.shift();
    opts.onLine?.(l);
  });
  child.stdout?.on('data', (c: Buffer) => split.push(c));
  child.stderr?.on('data', (c: Buffer) => split.push(c));
  let polling = true;
  const poll = async (): Promise<void> => {
    while (polling) {
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
      // Metadata files (ours, hf's) count too: never report beyond the listed total.
      meter.setDone(Math.min(total, await bytesUnder(opts.dir)));
      opts.onProgress?.(meter.progress(null));
    }
  };
  const poller = poll();
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${opts.cli} download failed (exit ${code}):\n${tail.join('\n')}`))));
    });
  } finally {
    polling = false;
    await poller;
  }
}
