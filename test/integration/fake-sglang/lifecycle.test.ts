import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { startFakeSglang } from '../../doubles/fake-sglang/spawn.ts';
import { pidRunning } from '../../helpers/pid-running.ts';

const WAIT = { timeout: 20_000, interval: 20 };

describe('fake sglang serve lifecycle', () => {
  it('/health and /health_generate answer 200 only once the ready line is out', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'fake-sglang-')), 'warmup-may-finish');
    const serve = startFakeSglang(['--warmup-gate', gate]);
    try {
      const url = await serve.url();
      // The port is bound (uvicorn up) but warmup is held.
      expect((await fetch(`${url}/health_generate`)).status).toBe(503);
      expect((await fetch(`${url}/health`)).status).toBe(503);
      expect((await fetch(`${url}/model_info`)).status).toBe(200);
      expect(serve.lines.some((l) => l.includes('fired up'))).toBe(false);
      writeFileSync(gate, '');
      await serve.waitForLine(/The server is fired up and ready to roll!/);
      expect((await fetch(`${url}/health_generate`)).status).toBe(200);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      await serve.stop();
    }
  });

  it('--timing-log appends a line per streamed /generate: its rid and four instants in order', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'fake-sglang-')), 'timing.tsv');
    const serve = startFakeSglang(['--timing-log', log, '--tokens-per-s', '2000']);
    try {
      const url = await serve.ready();
      const before = performance.timeOrigin + performance.now();
      for (const [rid, stream] of [
        ['timed-1', true],
        ['untimed', false],
      ] as const) {
        const res = await fetch(`${url}/generate`, { method: 'POST', body: JSON.stringify({ rid, input_ids: [5, 6, 7], sampling_params: { max_new_tokens: 3, ignore_eos: true }, stream }) });
        await res.text();
      }
      await expect.poll(() => (existsSync(log) ? readFileSync(log, 'utf8') : ''), WAIT).toMatch(/\n$/);
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1);
      const [rid, ...times] = lines[0]!.split('\t');
      expect(rid).toBe('timed-1');
      const t = times.map(Number);
      expect(t).toHaveLength(4);
      expect(t[0]).toBeGreaterThanOrEqual(before);
      expect([...t].sort((a, b) => a - b)).toEqual(t);
    } finally {
      await serve.stop();
    }
  });

  it('--fail oom prints the CUDA OOM signature during weight load and exits non-zero', async () => {
    const serve = startFakeSglang(['--fail', 'oom']);
    const { code } = await serve.exited;
    expect(code).toBe(1);
    const text = serve.lines.join('\n');
    expect(text).toMatch(/Load weight begin/);
    expect(text).toMatch(/torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate/);
    expect(text).not.toMatch(/Load weight end|fired up/);
  });

  it('refuses an unknown flag like argparse (exit 2)', async () => {
    const serve = startFakeSglang(['--no-such-flag']);
    expect((await serve.exited).code).toBe(2);
    expect(serve.lines.join('\n')).toMatch(/launch_server\.py: error: unrecognized arguments: --no-such-flag/);
  });

  it('prints the uvicorn bind error and exits 1 when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const serve = startFakeSglang(['--port', String(port)]);
      expect((await serve.exited).code).toBe(1);
      expect(serve.lines).toContain(`ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', ${port}): address already in use`);
    } finally {
      blocker.close();
    }
  });

  it('--crash-after-s dies with a traceback after being ready', async () => {
    const serve = startFakeSglang(['--crash-after-s', '0.3']);
    await serve.waitForLine(/ready to roll/);
    expect((await serve.exited).code).toBe(1);
    expect(serve.lines.join('\n')).toMatch(/CUDA error: an illegal memory access was encountered[\s\S]*Received sigquit from a child process/);
  });

  it('--hang stops answering after ready', async () => {
    const serve = startFakeSglang(['--hang']);
    try {
      const url = await serve.ready();
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(400) }).then(
        () => 'answered',
        (e: Error) => e.name,
      );
      expect(res).toBe('TimeoutError');
    } finally {
      await serve.stop();
    }
  });

  it('drains on SIGTERM: /health goes 503, the running request finishes, then exit 0', async () => {
    const serve = startFakeSglang(['--tokens-per-s', '25']);
    const url = await serve.ready();
    const running = fetch(`${url}/generate`, { method: 'POST', body: JSON.stringify({ input_ids: [5, 6, 7], sampling_params: { max_new_tokens: 25, ignore_eos: true } }) });
    await serve.waitForLine(/#new-token: 3,/);
    serve.proc.kill('SIGTERM');
    await serve.waitForLine(/SIGTERM received\. signum=15 .*Draining requests and shutting down/);
    expect((await fetch(`${url}/health`)).status).toBe(503);
    await serve.waitForLine(/Gracefully exiting\.\.\. Remaining number of requests 1\./);
    const res = await running;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { meta_info: { completion_tokens: number } }).meta_info.completion_tokens).toBe(25);
    expect(await serve.exited).toEqual({ code: 0, signal: null });
  });

  // The spawner is a real process that starts the serve, then is SIGKILLed: no exit handler of its own
  // runs. Two kinds of spawner: the test helpers' startFakeSglang, and a bare spawn with stdin ignored
  // and the environment set, as the app's supervisor starts a serve in the serve tests (fakeEnv()).
  const spawnTs = join(import.meta.dirname, '..', '..', 'doubles', 'fake-sglang', 'spawn.ts');
  const ways = {
    startFakeSglang: `const { startFakeSglang } = await import(${JSON.stringify(spawnTs)}); const s = startFakeSglang(); await s.ready(); console.log('serve pid ' + s.proc.pid);`,
    'FAKE_SGLANG_EXIT_WITH_PARENT in a bare spawn': `const { spawn } = await import('node:child_process'); const { FAKE_SGLANG_MAIN, CHECKPOINT_TINY, exitWithParentEnv } = await import(${JSON.stringify(spawnTs)});
      const p = spawn(process.execPath, [FAKE_SGLANG_MAIN, '--model-path', CHECKPOINT_TINY, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: exitWithParentEnv() });
      let out = ''; for (const s of [p.stdout, p.stderr]) s.on('data', (d) => { out += d; if (out.includes('fired up')) { console.log('serve pid ' + p.pid); out = ''; } });`,
  };
  for (const [way, start] of Object.entries(ways))
    it(`a serve started with ${way} goes when its spawner is killed outright`, async () => {
      const script = `${start} setInterval(() => {}, 60_000);`;
      const spawner = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let servePid = 0;
      try {
        servePid = await new Promise<number>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error('the spawner did not report its serve within 30 s')), 30_000);
          let out = '';
          spawner.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            const m = /serve pid (\d+)/.exec(out);
            if (m) {
              clearTimeout(t);
              resolve(Number(m[1]));
            }
          });
          spawner.on('exit', (code) => reject(new Error(`the spawner exited (${code}) before its serve was up: ${out}`)));
        });
        expect(pidRunning(servePid)).toBe(true);
        spawner.kill('SIGKILL');
        await expect.poll(() => pidRunning(servePid), WAIT).toBe(false);
      } finally {
        if (spawner.exitCode === null && spawner.signalCode === null) spawner.kill('SIGKILL');
        if (servePid > 0 && pidRunning(servePid)) process.kill(-servePid, 'SIGKILL');
      }
    });
});
