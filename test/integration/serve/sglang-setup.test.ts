// sglang from the UI's side: detection per runtime against the fake python and a missing docker,
// the own-environment install streamed into the snapshot (progress, log, then re-detected), a
// cancel that stops pip, and a failed install explained in words.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecText } from '../../../electron/engine/lib/exec-text.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { SglangSetupService } from '../../../electron/engine/serve/sglang-setup-service.ts';
import type { SpawnFn } from '../../../electron/engine/serve/process-group.ts';
import { FAKE_PYTHON } from './serve-harness.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'engy-sglang-'));
  dirs.push(d);
  return d;
};
const execWith =
  (env: Record<string, string>): ExecText =>
  (file, args, timeoutMs) =>
    new Promise((resolve, reject) =>
      execFile(file, args, { timeout: timeoutMs, env: { ...process.env, ...env } }, (e, out, err) => (e ? reject(Object.assign(e, { stderr: String(err) })) : resolve(String(out)))),
    );
const NO_DOCKER = '/nonexistent/engy-test/docker';

function until(svc: SglangSetupService, pred: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (pred()) return resolve();
    const sub = svc.onDidChange(() => {
      if (pred()) {
        void sub.dispose();
        resolve();
      }
    });
  });
}

describe('sglang setup from the UI', () => {
  it('detects sglang on the fake python and says docker is missing', async () => {
    const svc = new SglangSetupService({ dataDir: temp(), log: new LogHub().logger('t'), detect: { pythonCandidates: [FAKE_PYTHON], docker: NO_DOCKER, exec: execWith({}) } });
    const r = await svc.detect();
    expect(r.python).toMatchObject({ sglangVersion: '0.5.12.post1', supported: true });
    expect(svc.snapshot().runtimes?.docker.available).toBe(false);
    expect(svc.snapshot().needs.diskGiB).toBeGreaterThan(0);
    expect(svc.snapshot().needs.minutes).toMatch(/min/);
  });

  it('installs into the panel environment with progress and a log, then finds it', async () => {
    const dataDir = temp();
    // The base python has no sglang; the venv's fake pip installs the pinned one.
    const env = { ...process.env, FAKE_PYTHON_SGLANG: 'none' };
    const svc = new SglangSetupService({
      dataDir,
      log: new LogHub().logger('t'),
      detect: { pythonCandidates: [FAKE_PYTHON, join(dataDir, 'sglang-venv', 'bin', 'python')], docker: NO_DOCKER, exec: execWith({ FAKE_PYTHON_SGLANG: 'none' }) },
      install: { env },
    });
    expect((await svc.detect()).python).toBeNull();
    svc.start();
    expect(svc.snapshot().install.state).toBe('running');
    expect(() => svc.start()).toThrow(/already being installed/);
    await until(svc, () => svc.snapshot().install.state === 'done' && !svc.snapshot().detecting && svc.snapshot().runtimes?.python !== null);
    const s = svc.snapshot();
    expect(s.install.downloads).toBe(2);
    expect(s.install.lastDownload).toMatch(/torch .*887\.9 MB/);
    expect(s.install.log.join('\n')).toContain('Successfully installed sglang');
    expect(s.runtimes?.python?.python).toBe(join(dataDir, 'sglang-venv', 'bin', 'python'));
  });

  it('cancel stops pip and says how to resume', async () => {
    const slowPip: SpawnFn = (cmd, args, opts) => (args.includes('pip') ? spawn('/bin/sh', ['-c', 'echo "Collecting sglang"; exec sleep 30'], opts) : spawn(cmd, [...args], opts));
    const svc = new SglangSetupService({
      dataDir: temp(),
      log: new LogHub().logger('t'),
      detect: { pythonCandidates: [FAKE_PYTHON], docker: NO_DOCKER, exec: execWith({}) },
      install: { spawn: slowPip },
    });
    await svc.detect();
    svc.start();
    await until(svc, () => svc.snapshot().install.log.includes('Collecting sglang'));
    svc.cancel();
    await until(svc, () => svc.snapshot().install.state === 'cancelled');
    expect(svc.snapshot().install.error).toMatch(/Installing again resumes/);
  });

  it('a failing pip is explained, an offline one as offline', async () => {
    const offlinePip: SpawnFn = (cmd, args, opts) =>
      args.includes('pip') ? spawn('/bin/sh', ['-c', 'echo "ERROR: Could not find a version that satisfies the requirement sglang==0.5.12.post1" >&2; exit 1'], opts) : spawn(cmd, [...args], opts);
    const svc = new SglangSetupService({
      dataDir: temp(),
      log: new LogHub().logger('t'),
      detect: { pythonCandidates: [FAKE_PYTHON], docker: NO_DOCKER, exec: execWith({}) },
      install: { spawn: offlinePip },
    });
    await svc.detect();
    svc.start();
    await until(svc, () => svc.snapshot().install.state === 'failed');
    expect(svc.snapshot().install.error).toMatch(/looks offline or cannot reach pypi\.org/);
    expect(svc.snapshot().install.log.join('\n')).toContain('Could not find a version');
  });

  it('refuses to install with no Python at all, in words', async () => {
    const svc = new SglangSetupService({ dataDir: temp(), log: new LogHub().logger('t'), detect: { pythonCandidates: ['/nonexistent/python3'], docker: NO_DOCKER, exec: execWith({}) } });
    await svc.detect();
    expect(() => svc.start()).toThrow(/No Python 3 was found/);
  });
});
