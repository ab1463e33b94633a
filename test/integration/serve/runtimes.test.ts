import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecText } from '../../../electron/engine/lib/exec-text.ts';
import { detectRuntimes } from '../../../electron/engine/serve/runtime-detect.ts';
import { probePython } from '../../../electron/engine/serve/runtime-python.ts';
import { installSglangVenv, type VenvProgress } from '../../../electron/engine/serve/venv-install.ts';
import { FAKE_PYTHON } from './serve-harness.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function execWith(env: Record<string, string>): ExecText {
  return (file, args, timeoutMs) =>
    new Promise((resolve, reject) => {
      execFile(file, args, { timeout: timeoutMs, env: { ...process.env, ...env } }, (e, out, err) => {
        if (e) reject(Object.assign(e, { stderr: String(err) }));
        else resolve(String(out));
      });
    });
}

const NO_DOCKER = '/nonexistent/engy-test/docker';

describe('serve runtimes', () => {
  it('finds a Python with a supported sglang and recommends it', async () => {
    const r = await detectRuntimes({ dataDir: '/nonexistent', pythonCandidates: ['/nonexistent/python3', FAKE_PYTHON], docker: NO_DOCKER, exec: execWith({}) });
    expect(r.pythonTried[0]!.problem).toContain('not installed');
    expect(r.python).toMatchObject({ python: FAKE_PYTHON, pythonVersion: '3.12.3', sglangVersion: '0.5.12.post1', supported: true, problem: null });
    expect(r.recommended).toBe('python');
    expect(r.docker).toMatchObject({ available: false, problem: 'Docker is not installed.' });
  });

  it('explains what is missing when no Python has sglang and there is no Docker', async () => {
    const r = await detectRuntimes({ dataDir: '/nonexistent', pythonCandidates: [FAKE_PYTHON], docker: NO_DOCKER, exec: execWith({ FAKE_PYTHON_SGLANG: 'none' }) });
    expect(r.python).toBeNull();
    expect(r.pythonTried[0]!.problem).toContain('No module named');
    expect(r.recommended).toBeNull();
    expect(r.notes.join(' ')).toMatch(/create its own environment/);
    expect(r.notes.join(' ')).toMatch(/Docker is not installed/);
    expect(r.notes.join(' ')).toMatch(/external/);
  });

  it('flags an sglang version the trim does not know', async () => {
    const p = await probePython(FAKE_PYTHON, execWith({ FAKE_PYTHON_SGLANG: '0.5.15.post1' }));
    expect(p.sglangVersion).toBe('0.5.15.post1');
    expect(p.supported).toBe(false);
    expect(p.problem).toContain('0.5.12.post1');
  });

  it('creates the app-owned venv and installs the pinned sglang with streamed progress', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-venv-'));
    dirs.push(dataDir);
    const seen: VenvProgress[] = [];
    const python = await installSglangVenv({ basePython: FAKE_PYTHON, dataDir, onProgress: (p) => seen.push(p) });
    expect(python).toBe(join(dataDir, 'sglang-venv', 'bin', 'python'));
    expect(seen.map((s) => s.step)).toEqual(expect.arrayContaining(['creating-venv', 'downloading', 'installing', 'done']));
    expect(seen.find((s) => s.download)?.download).toEqual({ name: 'sglang', size: '3.1 MB' });
    // The new environment is found first among the candidates.
    const r = await detectRuntimes({ dataDir, docker: NO_DOCKER, exec: execWith({}) });
    expect(r.python).toMatchObject({ python, sglangVersion: '0.5.12.post1', supported: true });
  });
});
