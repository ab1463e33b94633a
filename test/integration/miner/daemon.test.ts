import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT, KEY, ROOT, startFakeServe, until, type FakeServe } from './harness.ts';

describe('engy-panel mine (headless daemon) against the gateway double process', () => {
  let serve: FakeServe;
  let dir: string;
  beforeAll(async () => {
    serve = await startFakeServe();
    dir = mkdtempSync(join(tmpdir(), 'engy-mine-'));
  });
  afterAll(async () => {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('qualifies, logs leg events and request outcomes without the key, and exits 0 on SIGTERM', { timeout: 240_000 }, async () => {
    let miner: ReturnType<typeof spawn> | null = null;
    const gwProc = spawn(
      process.execPath,
      [join(ROOT, 'test/doubles/gateway/main.ts'), '--port', '0', '--workers', '8', '--keys', KEY, '--judge-ms', '300', '--probe-words', '20', '--probe-tokens', '16'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const gwUrl = await new Promise<string>((resolve) => {
        let out = '';
        gwProc.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (ws:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
      });
      const keyFile = join(dir, 'key');
      writeFileSync(keyFile, KEY);
      miner = spawn(
        process.execPath,
        [join(ROOT, 'bin/engy-panel.mjs'), 'mine', '--serve-url', serve.url, '--checkpoint', CHECKPOINT, '--gateway', gwUrl, '--data-dir', join(dir, 'data'), '--worker-name', 'box-a'],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ENGY_MINER_KEY_FILE: keyFile, ENGY_FROM_SOURCE: '1', PATH: '/nonexistent' } },
      );
      let out = '';
      const proc = miner;
      miner.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      miner.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
      // Generous: on a machine loaded many times over its cores the probe wave takes minutes.
      await until(() => (out.match(/ ok \(|leg=\d+ ok /g) ?? []).length >= 24, 180_000, 'the 24 probe answers in the log');
      let view: { workers: { state: string; workerName: string }[] } = { workers: [] };
      for (let i = 0; i < 100 && view.workers[0]?.state !== 'active'; i++) {
        view = (await (await fetch(gwUrl.replace('ws:', 'http:') + '/view')).json()) as typeof view;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(view.workers[0]).toMatchObject({ workerName: 'box-a', state: 'active' });
      for (let i = 0; i < 8; i++) expect(out).toContain(`gw${i} ADMITTED`);
      expect(out).not.toContain(KEY);
      miner.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('SIGTERM: closing the legs');
    } finally {
      // Every exit path: a failed wait above must not leave the miner running past this file.
      if (miner && miner.exitCode === null && miner.signalCode === null) miner.kill('SIGKILL');
      gwProc.kill('SIGTERM');
    }
  });
});
