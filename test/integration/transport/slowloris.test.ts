// Pre-auth slowloris against a real `engy-panel headless` held to the common 1024-file limit:
// 1,100 connections from one client drip a header byte now and then; real requests must still be
// answered, and the slow connections must be closed by the engine. Loopback only, bounded in count
// (1,100) and time (the engine's header timeout, polled for at most 90 s).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'bin', 'engy-panel.mjs');
const ATTACKERS = 1100;

describe('the headless transport under a pre-auth slowloris at ulimit -n 1024', () => {
  let child: ChildProcess;
  let out = '';
  let port = 0;
  let token = '';
  const sockets: Socket[] = [];
  let drip: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-slowloris-'));
    child = spawn('sh', ['-c', 'ulimit -n 1024 && exec "$0" "$1" headless --port 0 --data-dir "$2"', process.execPath, bin, dataDir], {
      env: { ...process.env, ENGY_RENDERER_DIR: join(root, 'dist-renderer'), ENGY_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const printed = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`headless did not print a URL in 60 s:\n${out}`)), 60_000);
      child.stdout!.on('data', () => {
        const m = /Open: (http:\/\/\S+)/.exec(out);
        if (!m) return;
        clearTimeout(timer);
        resolve(m[1]!);
      });
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`headless exited:\n${out}`));
      });
    });
    const url = new URL(printed);
    port = Number(url.port);
    token = url.searchParams.get('token')!;
  }, 90_000);

  afterAll(async () => {
    if (drip) clearInterval(drip);
    for (const s of sockets) s.destroy();
    if (child && child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    }
  });

  async function realRequest(): Promise<number> {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(20_000) });
    await res.arrayBuffer();
    return res.status;
  }

  it('answers real requests during the attack and closes the slow connections', { timeout: 240_000 }, async () => {
    expect(await realRequest()).toBe(200);
    let closed = 0;
    for (let i = 0; i < ATTACKERS; i++) {
      const s = connect({ host: '127.0.0.1', port });
      s.on('error', () => undefined);
      s.on('close', () => closed++);
      s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      sockets.push(s);
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 50));
    }
    // one header byte per connection every 2 s: never a whole request, never idle
    drip = setInterval(() => {
      for (const s of sockets) if (!s.destroyed) s.write('X');
    }, 2000);

    for (let i = 0; i < 5; i++) {
      expect(await realRequest(), `real request ${i} during the attack\n${out.slice(-2000)}`).toBe(200);
    }
    await expect.poll(() => closed, { timeout: 90_000, interval: 1000 }).toBe(ATTACKERS);
    expect(await realRequest()).toBe(200);
    expect(child.exitCode).toBeNull();
  });
});
