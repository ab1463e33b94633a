import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServePlan } from '../../../shared/hardware.ts';
import type { ExecText } from '../../../electron/engine/lib/exec-text.ts';
import { PINNED_DOCKER_IMAGE } from '../../../electron/engine/serve/launch-plan.ts';
import { isPortFree } from '../../../electron/engine/serve/port-check.ts';
import { detectRuntimes } from '../../../electron/engine/serve/runtime-detect.ts';
import { createServeFleet, planLaunches } from '../../../electron/engine/serve/serve-setup.ts';
import { enginePlan } from '../../fixtures/serve/engine-plan.ts';
import { CHECKPOINT, FAKE_PYTHON, FAST, ROOT, fakeEnv, fakeTrimDir, pidAlive, waitFor } from './serve-harness.ts';

const FAKE_DOCKER = join(ROOT, 'test', 'doubles', 'fake-docker', 'docker');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const execWith =
  (env: Record<string, string>): ExecText =>
  (file, args, timeoutMs) =>
    new Promise((resolve, reject) => {
      execFile(file, args, { timeout: timeoutMs, env: { ...process.env, ...env } }, (e, out, err) => (e ? reject(Object.assign(e, { stderr: String(err) })) : resolve(String(out))));
    });

/** One engine on GPU `gpu` run through the fake docker CLI; removed (container records, trim dir) after the test. */
async function dockerFleet(gpu: number, extraArgs: string[], env: Record<string, string> = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'engy-docker-'));
  const trimDir = fakeTrimDir();
  const plan: ServePlan = { modelId: 'qwen3.6-35b-a3b', engines: [enginePlan({ gpuIndices: [gpu], tp: 1, env: {}, extraArgs })], maxInflight: 24, rationale: [] };
  const specs = await planLaunches(plan, {
    modelPath: CHECKPOINT,
    target: { kind: 'docker', docker: FAKE_DOCKER, image: PINNED_DOCKER_IMAGE, shmSize: '16g' },
    trimDir,
    basePort: 20000 + Math.floor(Math.random() * 20000),
  });
  const fleet = createServeFleet(plan, specs, trimDir, { env: fakeEnv({ FAKE_DOCKER_STATE: stateDir, ...env }), timings: FAST });
  cleanups.push(async () => {
    await fleet.dispose();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(trimDir, { recursive: true, force: true });
  });
  return { fleet, engine: fleet.engines[0]!, stateDir, specs };
}

describe('docker runtime (against the fake docker CLI)', () => {
  it('is detected and recommended when no Python has sglang', async () => {
    const r = await detectRuntimes({ dataDir: '/nonexistent', pythonCandidates: [FAKE_PYTHON], docker: FAKE_DOCKER, exec: execWith({ FAKE_PYTHON_SGLANG: 'none' }) });
    expect(r.recommended).toBe('docker');
    expect(r.docker).toMatchObject({ available: true, serverVersion: '27.3.1', nvidiaRuntime: true, imagePresent: false, image: PINNED_DOCKER_IMAGE });
    expect(r.notes.join(' ')).toMatch(/pulled on first start/);
    const down = await detectRuntimes({ dataDir: '/nonexistent', pythonCandidates: [FAKE_PYTHON], docker: FAKE_DOCKER, exec: execWith({ FAKE_PYTHON_SGLANG: 'none', FAKE_DOCKER_DAEMON: 'down' }) });
    expect(down.recommended).toBeNull();
    expect(down.docker.problem).toBe('Docker is installed but its daemon is not running: start it (sudo systemctl start docker, or open Docker Desktop), then check again.');
  });

  it('runs the engine in a container, and removes a container its killed CLI left behind', async () => {
    const { fleet, engine, stateDir, specs } = await dockerFleet(1, ['--slow-start-ms', '200']);
    fleet.start();
    const ready = await waitFor(engine, (s) => s.status.state === 'ready');
    expect(ready.runtime).toBe('docker');
    expect(ready.trim.state).toBe('armed');
    expect(ready.command).toContain(`--gpus '"device=1"'`);
    const record = join(stateDir, `${specs[0]!.containerName}.pid`);
    const container = Number(readFileSync(record, 'utf8'));
    expect(pidAlive(container)).toBe(true);

    // The CLI dies hard; the container (its own session) would live on: the supervisor removes it and restarts.
    process.kill(ready.status.pid!, 'SIGKILL');
    const back = await waitFor(engine, (s) => s.status.state === 'ready' && s.status.restarts === 1);
    expect(pidAlive(container)).toBe(false);
    const second = Number(readFileSync(record, 'utf8'));
    expect(second).not.toBe(container);

    await fleet.stop();
    expect(pidAlive(back.status.pid!)).toBe(false);
    expect(pidAlive(second)).toBe(false);
    expect(existsSync(record)).toBe(false);
  });

  it('`docker rm -f` answers once the container is gone and its port is free, as real docker does', async () => {
    const { fleet, engine, stateDir, specs } = await dockerFleet(0, []);
    fleet.start();
    await waitFor(engine, (s) => s.status.state === 'ready');
    const spec = specs[0]!;
    const container = Number(readFileSync(join(stateDir, `${spec.containerName}.pid`), 'utf8'));
    await execWith({ FAKE_DOCKER_STATE: stateDir })(FAKE_DOCKER, ['rm', '-f', spec.containerName!], 20_000);
    // No wait here: the supervisor's next launch checks the port right after this answer.
    expect(pidAlive(container)).toBe(false);
    expect(await isPortFree(spec.port, spec.host)).toBe(true);
  });

  it('names a stopped Docker daemon as the cause and does not restart into it', async () => {
    const { fleet, engine } = await dockerFleet(0, [], { FAKE_DOCKER_DAEMON: 'down' });
    fleet.start();
    const failed = await waitFor(engine, (s) => s.status.state === 'failed');
    if (failed.status.state !== 'failed') throw new Error('unreachable');
    expect(failed.status.cause.code).toBe('docker-unavailable');
    expect(failed.status.cause.fix).toMatch(/systemctl start docker/);
    expect(failed.status.restarts).toBe(0);
  });
});
