import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointIdentity } from '../../../electron/engine/serve/checkpoint/checkpoint-folder.ts';
import { findFreePort } from '../../../electron/engine/serve/port-check.ts';
import { CHECKPOINT, exitWithParentEnv, FAKE_PYTHON, FAKE_SGLANG, ROOT } from './serve-harness.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'engy-serve-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin', 'engy-panel.mjs'), ...args],
      {
        env: {
          ...process.env,
          ENGY_FROM_SOURCE: '1',
          PATH: `${join(ROOT, 'test', 'doubles', 'fake-nvidia-smi')}:${process.env.PATH ?? ''}`,
          ...env,
        },
        timeout: 60_000,
      },
      (e, stdout, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

describe('engy-panel serve (CLI as a child process)', () => {
  it('plan --json gives each engine its argv, environment and port, and the MAX_INFLIGHT', async () => {
    const r = await cli(['serve', 'plan', '--json', '--python', FAKE_PYTHON, '--docker', '/nonexistent/docker', '--checkpoint', CHECKPOINT, '--data-dir', dataDir], { FAKE_NVIDIA_SMI: '2xh100' });
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout) as {
      runtime: string;
      maxInflight: number;
      engines: Array<{ port: number; args: string[]; env: Record<string, string>; gpuIndices: number[]; shellLine: string; declaredInflight: number }>;
    };
    expect(v.runtime).toBe('python');
    expect(v.engines.length).toBeGreaterThanOrEqual(1);
    const ports = v.engines.map((e) => e.port);
    expect(new Set(ports).size).toBe(ports.length);
    for (const e of v.engines) {
      expect(e.args).toContain('--enable-return-hidden-states');
      expect(e.args[e.args.indexOf('--model-path') + 1]).toBe(CHECKPOINT);
      expect(e.args[e.args.indexOf('--port') + 1]).toBe(String(e.port));
      expect(e.env.CUDA_VISIBLE_DEVICES).toBe(e.gpuIndices.join(','));
      expect(e.shellLine).toContain(`--port ${e.port}`);
    }
    expect(v.maxInflight).toBe(v.engines.reduce((n, e) => n + e.declaredInflight, 0));
  });

  it('plan says so when this machine has no plan', async () => {
    const r = await cli(['serve', 'plan', '--python', FAKE_PYTHON, '--docker', '/nonexistent/docker', '--data-dir', dataDir], { FAKE_NVIDIA_SMI: '1x3090' });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('No serve plan');
  });

  it('checkpoint --json shows the identity beside the published root', async () => {
    const r = await cli(['serve', 'checkpoint', '--json', '--dir', CHECKPOINT, '--data-dir', dataDir]);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout) as { complete: boolean; identity: string; publishedRoot: string };
    expect(v.complete).toBe(true);
    expect(v.identity).toBe(await checkpointIdentity(CHECKPOINT));
    expect(v.publishedRoot).toBe('15ef6d8cf34edcb340a24d0d124303bbe91f0c435cb0041db220bfcc7087c610');
  });

  it('run --external watches a serve until Ctrl+C', async () => {
    const port = await findFreePort(20000 + Math.floor(Math.random() * 20000));
    const serve = spawn(process.execPath, [FAKE_SGLANG, '--model-path', CHECKPOINT, '--port', String(port), '--enable-return-hidden-states'], { stdio: 'ignore', env: exitWithParentEnv() });
    try {
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'engy-panel.mjs'), 'serve', 'run', '--external', `http://127.0.0.1:${port}`, '--data-dir', dataDir], {
        env: { ...process.env, ENGY_FROM_SOURCE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no ready line: ${err}`)), 30_000);
        child.stderr!.on('data', (c: Buffer) => {
          err += c.toString();
          if (/\[serve:0\] ready/.test(err)) {
            clearTimeout(t);
            resolve();
          }
        });
      });
      child.kill('SIGINT');
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      expect(code).toBe(0);
      expect(err).toContain('starting (health-check)');
    } finally {
      serve.kill('SIGKILL');
    }
  });
});
