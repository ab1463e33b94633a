import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckpointProgress } from '../../../shared/serve.ts';
import { checkCheckpointFolder, checkpointIdentity, readManifest } from '../../../electron/engine/serve/checkpoint/checkpoint-folder.ts';
import { DiskFullError, downloadFromHub, MANIFEST_NAME } from '../../../electron/engine/serve/checkpoint/hub-download.ts';
import { hubLocation } from '../../../electron/engine/serve/checkpoint/hub-files.ts';
import { CheckpointService } from '../../../electron/engine/serve/checkpoint/checkpoint-service.ts';
import { findHfCli } from '../../../electron/engine/serve/checkpoint/hf-cli-download.ts';
import type { ExecText } from '../../../electron/engine/lib/exec-text.ts';
import { HfHubDouble } from '../../doubles/hf-hub.ts';

const REPO = 'Qwen/Qwen3.6-35B-A3B-FP8';
const FILES = {
  'config.json': JSON.stringify({ architectures: ['Qwen3_5MoeForConditionalGeneration'], hidden_size: 2048 }),
  'tokenizer.json': JSON.stringify({ model: { vocab: { a: 0 } } }),
  'model-00001-of-00002.safetensors': randomBytes(300_000),
  'model-00002-of-00002.safetensors': randomBytes(200_000),
  'extra/notes.txt': 'hello',
};
const BIG = 300_000 + 200_000;
const plenty = () => 1e15;

/** PROTOCOL section 3, written out again here so the code under test is checked against an independent reading. */
function identityOf(files: Record<string, Uint8Array | string>): string {
  const h = createHash('sha256');
  h.update(files['config.json'] ?? '{}');
  for (const name of Object.keys(files)
    .filter((n) => !n.includes('/') && n.endsWith('.safetensors'))
    .sort()) {
    h.update(Buffer.from(name, 'utf8'));
    h.update(String(Buffer.from(files[name]!).length));
  }
  return h.digest('hex');
}

describe('checkpoint download from the Hub (against the hub double)', () => {
  let hub: HfHubDouble;
  let dir: string;
  beforeEach(async () => {
    hub = new HfHubDouble({ repo: REPO, files: FILES, token: 'hf_test_token', pageSize: 2 });
    await hub.start();
    dir = mkdtempSync(join(tmpdir(), 'engy-ckpt-'));
  });
  afterEach(async () => {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const location = () => hubLocation(REPO, { HF_ENDPOINT: hub.url, HF_TOKEN: 'hf_test_token' });

  it('downloads every listed file, reports progress to the total, and the folder verifies', async () => {
    const seen: CheckpointProgress[] = [];
    const files = await downloadFromHub({ location: location(), dir, freeBytes: plenty, onProgress: (p) => seen.push(p) });
    expect(files.map((f) => f.path)).toEqual(Object.keys(FILES).sort());
    for (const [name, data] of Object.entries(FILES)) expect(readFileSync(join(dir, name))).toEqual(Buffer.from(data));
    const total = Object.values(FILES).reduce((n, d) => n + Buffer.from(d).length, 0);
    expect(seen.at(-1)).toMatchObject({ bytesDone: total, bytesTotal: total, filesDone: 5, filesTotal: 5, etaS: 0 });
    expect(checkCheckpointFolder(dir)).toMatchObject({ complete: true, problems: [] });
    expect(await checkpointIdentity(dir)).toBe(identityOf(FILES));
    expect(readdirSync(dir).some((f) => f.endsWith('.incomplete'))).toBe(false);
    // The tree listing came in pages.
    expect(hub.requests.filter((r) => r.path.includes('/tree/')).length).toBeGreaterThan(1);
  });

  /** On disk so far (0 before the file is opened). */
  const sizeOnDisk = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  // The cut comes once the bytes before it are on disk, so the resume is from a known offset whatever the machine's
  // speed; 20 s: the wait is for the event loop and the disk of a loaded 2-core box, and ends as soon as they are there.
  const cutOnceOnDisk = async (partial: string, bytes: number) => {
    await expect.poll(() => sizeOnDisk(partial), { timeout: 20_000, interval: 20 }).toBe(bytes);
    hub.cut();
  };

  it('rides out a connection dropped mid-file by resuming with a Range request', async () => {
    hub.dropOnce('model-00001-of-00002.safetensors', 100_000);
    const outcome = downloadFromHub({ location: location(), dir, freeBytes: plenty, retryDelayMs: { initialMs: 10, maxMs: 20 } }).then(
      () => null,
      (e: unknown) => e,
    );
    await cutOnceOnDisk(join(dir, 'model-00001-of-00002.safetensors.incomplete'), 100_000);
    expect(await outcome).toBeNull();
    expect(readFileSync(join(dir, 'model-00001-of-00002.safetensors'))).toEqual(FILES['model-00001-of-00002.safetensors']);
    const ranged = hub.requests.filter((r) => r.path.endsWith('model-00001-of-00002.safetensors') && r.range !== null);
    expect(ranged.map((r) => r.range)).toEqual(['bytes=100000-']);
  });

  it('an interrupted download resumes from the bytes on disk on the next run', async () => {
    hub.dropOnce('model-00002-of-00002.safetensors', 50_000);
    const partial = join(dir, 'model-00002-of-00002.safetensors.incomplete');
    const first = downloadFromHub({ location: location(), dir, freeBytes: plenty, retries: 0 }).then(
      () => null,
      (e: unknown) => e,
    );
    await cutOnceOnDisk(partial, 50_000);
    expect(await first).toBeInstanceOf(Error);
    expect(existsSync(partial)).toBe(true);
    const kept = statSync(partial).size;
    expect(kept).toBe(50_000);
    expect(checkCheckpointFolder(dir).complete).toBe(false);
    expect(checkCheckpointFolder(dir).problems).toContain('model-00002-of-00002.safetensors missing');

    const before = hub.requests.length;
    const seen: CheckpointProgress[] = [];
    await downloadFromHub({ location: location(), dir, freeBytes: plenty, onProgress: (p) => seen.push(p) });
    const second = hub.requests.slice(before).filter((r) => r.path.includes('/resolve/'));
    // Files finished before the drop are not fetched again; the cut one resumes where it stopped;
    // tokenizer.json (after it in order) was never reached.
    expect(second.map((r) => [r.path.split('/').at(-1), r.range])).toEqual([
      ['model-00002-of-00002.safetensors', `bytes=${kept}-`],
      ['tokenizer.json', null],
    ]);
    expect(seen[0]!.bytesDone).toBeGreaterThanOrEqual(BIG - 200_000 + kept);
    expect(readFileSync(join(dir, 'model-00002-of-00002.safetensors'))).toEqual(FILES['model-00002-of-00002.safetensors']);
    expect(checkCheckpointFolder(dir).complete).toBe(true);
  });

  it('checks the disk before fetching and says how much is needed', async () => {
    const err = await downloadFromHub({ location: location(), dir, freeBytes: () => 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiskFullError);
    expect((err as Error).message).toMatch(/GiB more/);
    expect(hub.requests.some((r) => r.path.includes('/resolve/'))).toBe(false);
  });

  it('without the token the Hub refuses and the message says to set HF_TOKEN', async () => {
    await expect(downloadFromHub({ location: hubLocation(REPO, { HF_ENDPOINT: hub.url }), dir, freeBytes: plenty })).rejects.toThrow(/HF_TOKEN/);
  });
});

describe('checkpoint identity of the fixture folder', () => {
  it('matches PROTOCOL section 3 computed independently', async () => {
    const fx = join(import.meta.dirname, '..', '..', 'fixtures', 'checkpoint-tiny');
    const files: Record<string, Buffer> = {};
    for (const name of readdirSync(fx)) if (name === 'config.json' || name.endsWith('.safetensors')) files[name] = readFileSync(join(fx, name));
    expect(Object.keys(files).some((n) => n.endsWith('.safetensors'))).toBe(true);
    expect(await checkpointIdentity(fx)).toBe(identityOf(files));
  });
});

describe('hostile listings', () => {
  it('refuses a Hub listing whose path leaves the folder, and writes nothing', async () => {
    const hub = new HfHubDouble({ repo: REPO, files: { 'config.json': '{}', '../escape.bin': 'x' } });
    await hub.start();
    const root = mkdtempSync(join(tmpdir(), 'engy-ckpt-escape-'));
    const dir = join(root, 'ckpt');
    try {
      await expect(downloadFromHub({ location: hubLocation(REPO, { HF_ENDPOINT: hub.url }), dir, freeBytes: plenty })).rejects.toThrow(
        /The Hub listed "\.\.\/escape\.bin" \(1 bytes\), which is not a file this app can place inside the checkpoint folder: nothing was downloaded/,
      );
      expect(existsSync(join(root, 'escape.bin'))).toBe(false);
      expect(hub.requests.filter((r) => r.path.includes('/resolve/'))).toEqual([]);
    } finally {
      await hub.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('ignores a kept listing someone edited (or that is not ours) instead of trusting or throwing on it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-ckpt-manifest-'));
    const good = { path: 'model-00001-of-00001.safetensors', size: 5, sha256: 'a'.repeat(64) };
    const write = (body: string) => writeFileSync(join(dir, MANIFEST_NAME), body);
    try {
      writeFileSync(join(dir, 'config.json'), '{}');
      write(JSON.stringify({ files: [good] }));
      expect(readManifest(dir)).toEqual([good]);
      expect(checkCheckpointFolder(dir)).toMatchObject({ complete: false, expectedBytes: 5 });
      const hostile = [
        'not json',
        'null',
        JSON.stringify({ files: 'all of them' }),
        JSON.stringify({ files: [{ ...good, path: 7 }] }),
        JSON.stringify({ files: [{ ...good, path: '../../etc/passwd' }] }),
        JSON.stringify({ files: [{ ...good, path: '/etc/passwd' }] }),
        JSON.stringify({ files: [{ ...good, path: 'a//b' }] }),
        JSON.stringify({ files: [{ ...good, size: '5' }] }),
        JSON.stringify({ files: [{ ...good, size: -1 }] }),
        JSON.stringify({ files: [{ ...good, size: 1e300 }] }),
        JSON.stringify({ files: [{ ...good, sha256: 'not-a-hash' }] }),
        JSON.stringify({ files: [null] }),
        `{"files":[{"path":"x","size":1,"__proto__":{"path":"../y"}}],"__proto__":{"files":[]}}`,
        JSON.stringify({ files: [good] }) + ' '.repeat(5 * 1024 * 1024),
      ];
      for (const body of hostile) {
        write(body);
        const listing = readManifest(dir);
        if (body.includes('__proto__')) expect(listing, body.slice(0, 80)).toEqual([{ path: 'x', size: 1, sha256: null }]);
        else expect(listing, body.slice(0, 80)).toBeNull();
        expect(() => checkCheckpointFolder(dir)).not.toThrow();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('checkpoint service', () => {
  it('goes absent -> downloading -> complete with the identity beside the published root', async () => {
    const hub = new HfHubDouble({ repo: REPO, files: FILES });
    await hub.start();
    const root = mkdtempSync(join(tmpdir(), 'engy-ckpt-svc-'));
    const dir = join(root, 'Qwen', 'Qwen3.6-35B-A3B-FP8');
    const svc = new CheckpointService({ repo: REPO, dir, publishedRoot: 'f'.repeat(64), downloadBytes: 35e9, env: { HF_ENDPOINT: hub.url }, freeBytes: plenty });
    try {
      // The catalog's estimate until the hub's listing is known, then the listing's exact total.
      expect(await svc.refresh()).toMatchObject({ state: 'absent', downloadBytes: 35e9 });
      const states: string[] = [];
      svc.onDidChange((s) => states.push(s.state));
      await svc.download();
      const s = svc.snapshot();
      expect(s).toMatchObject({ state: 'complete', identity: identityOf(FILES), publishedRoot: 'f'.repeat(64), missing: [], error: null });
      expect(s.progress?.bytesDone).toBe(s.progress?.bytesTotal);
      expect(s.downloadBytes).toBe(s.progress?.bytesTotal);
      expect(states).toEqual(expect.arrayContaining(['listing', 'downloading', 'verifying', 'complete']));
    } finally {
      await svc.dispose();
      await hub.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a cancelled download says it paused, and the next start completes it', async () => {
    const hub = new HfHubDouble({ repo: REPO, files: FILES });
    await hub.start();
    const dir = mkdtempSync(join(tmpdir(), 'engy-ckpt-svc-'));
    const svc = new CheckpointService({ repo: REPO, dir, publishedRoot: null, env: { HF_ENDPOINT: hub.url }, freeBytes: plenty });
    try {
      const sub = svc.onDidChange((s) => {
        if (s.state === 'downloading') svc.cancel();
      });
      await svc.download();
      await sub.dispose();
      expect(svc.snapshot()).toMatchObject({ state: 'failed', identity: null });
      expect(svc.snapshot().error).toMatch(/paused/);
      expect(checkCheckpointFolder(dir).complete).toBe(false);
      await svc.download();
      expect(svc.snapshot()).toMatchObject({ state: 'complete', identity: identityOf(FILES), error: null });
    } finally {
      await svc.dispose();
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an offline download says so in words, with the fix, never "fetch failed"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-ckpt-offline-'));
    // A name that never resolves stands for a machine with no network.
    const svc = new CheckpointService({ repo: REPO, dir, publishedRoot: null, env: { HF_ENDPOINT: 'http://hub.invalid' }, freeBytes: plenty });
    try {
      await svc.download();
      const s = svc.snapshot();
      expect(s.state).toBe('failed');
      expect(s.error).toMatch(/^Cannot reach the Hugging Face Hub: .*(offline|resolve|looked up)/);
      expect(s.error).toMatch(/Resume download/);
      expect(s.error).not.toMatch(/fetch failed|ENOTFOUND|EAI_AGAIN/);
    } finally {
      await svc.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a failed download in words and keeps what it had', async () => {
    const hub = new HfHubDouble({ repo: REPO, files: FILES, token: 'secret-token' });
    await hub.start();
    const dir = mkdtempSync(join(tmpdir(), 'engy-ckpt-svc-'));
    const svc = new CheckpointService({ repo: REPO, dir, publishedRoot: null, env: { HF_ENDPOINT: hub.url }, freeBytes: plenty });
    try {
      await svc.download();
      expect(svc.snapshot()).toMatchObject({ state: 'failed', identity: null });
      expect(svc.snapshot().error).toMatch(/HF_TOKEN/);
    } finally {
      await svc.dispose();
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('download with the hf CLI (against the fake hf and the hub double)', () => {
  it('is found, runs, and reports progress from the bytes on disk', async () => {
    const hub = new HfHubDouble({ repo: REPO, files: FILES, token: 'hf_cli_token' });
    await hub.start();
    const dir = mkdtempSync(join(tmpdir(), 'engy-ckpt-hf-'));
    const fakeHfDir = join(import.meta.dirname, '..', '..', 'doubles', 'fake-hf');
    const env = { ...process.env, PATH: `${fakeHfDir}:${process.env.PATH ?? ''}` };
    try {
      const exec: ExecText = (file, args, timeoutMs) => new Promise((resolve, reject) => execFile(file, args, { timeout: timeoutMs, env }, (e, out) => (e ? reject(e) : resolve(String(out)))));
      expect(await findHfCli(exec)).toBe('hf');
      const svc = new CheckpointService({ repo: REPO, dir, publishedRoot: null, env: { ...env, HF_ENDPOINT: hub.url, HF_TOKEN: 'hf_cli_token' }, hfCli: 'hf' });
      await svc.download();
      const s = svc.snapshot();
      expect(s.error).toBeNull();
      expect(s.progress?.bytesTotal).toBe(Object.values(FILES).reduce((n, d) => n + Buffer.from(d).length, 0));
      expect(s.progress?.bytesDone).toBe(s.progress?.bytesTotal);
      expect(s.state).toBe('complete');
      expect(s.identity).toBe(identityOf(FILES));
      for (const [name, data] of Object.entries(FILES)) expect(readFileSync(join(dir, name))).toEqual(Buffer.from(data));
      await svc.dispose();
    } finally {
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
    // Two node processes (the fake hf's probe and its download): 25 s at load ~50 on 2 cores, near the 30 s default.
  }, 90_000);
});
