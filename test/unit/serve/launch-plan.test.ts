import { describe, expect, it } from 'vitest';
import { buildLaunchSpec, childEnv, sglangArgs } from '../../../electron/engine/serve/launch-plan.ts';
import { shellQuote } from '../../../electron/engine/serve/shell-quote.ts';
import { enginePlan } from '../../fixtures/serve/engine-plan.ts';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

describe('launch plan', () => {
  it('turns an engine plan into the sglang flags the miner needs', () => {
    const args = sglangArgs(enginePlan(), '/ckpt', '127.0.0.1', 8001, 'Qwen3.6');
    expect(flag(args, '--model-path')).toBe('/ckpt');
    expect(flag(args, '--tp-size')).toBe('2');
    expect(flag(args, '--mem-fraction-static')).toBe('0.83');
    expect(flag(args, '--kv-cache-dtype')).toBe('fp8_e4m3');
    expect(flag(args, '--context-length')).toBe('262144');
    expect(flag(args, '--max-running-requests')).toBe('26');
    expect(flag(args, '--chunked-prefill-size')).toBe('8192');
    expect(flag(args, '--host')).toBe('127.0.0.1');
    expect(flag(args, '--port')).toBe('8001');
    for (const f of ['--enable-return-hidden-states', '--enable-cache-report', '--enable-metrics', '--disable-custom-all-reduce']) expect(args).toContain(f);
    expect(args).not.toContain('--cpu-offload-gb');
  });

  it('never serves less than the full context unless the plan says memory limits it', () => {
    expect(flag(sglangArgs(enginePlan({ contextLength: 131072 }), '/c', 'h', 1, 'n'), '--context-length')).toBe('262144');
    expect(flag(sglangArgs(enginePlan({ contextLength: 131072, contextLimited: true }), '/c', 'h', 1, 'n'), '--context-length')).toBe('131072');
    expect(flag(sglangArgs(enginePlan({ cpuOffloadGb: 12 }), '/c', 'h', 1, 'n'), '--cpu-offload-gb')).toBe('12');
  });

  it('python runtime: GPUs, NCCL env and the trim hook for a mining serve only', () => {
    const mining = buildLaunchSpec(enginePlan({ gpuIndices: [2, 3] }), { modelPath: '/ckpt', port: 8002, trimDir: '/trim' }, { kind: 'python', python: '/venv/bin/python' });
    expect(mining.command).toBe('/venv/bin/python');
    expect(mining.args.slice(0, 2)).toEqual(['-m', 'sglang.launch_server']);
    expect(mining.env).toMatchObject({ CUDA_VISIBLE_DEVICES: '2,3', NCCL_P2P_DISABLE: '1', PYTHONPATH: '/trim' });
    expect(mining.url).toBe('http://127.0.0.1:8002');
    expect(mining.shellLine.startsWith('CUDA_VISIBLE_DEVICES=2,3 NCCL_P2P_DISABLE=1 PYTHONPATH=/trim /venv/bin/python -m sglang.launch_server')).toBe(true);

    const audit = buildLaunchSpec(enginePlan(), { modelPath: '/ckpt', port: 8002, trimDir: null }, { kind: 'python', python: 'python3' });
    expect(audit.trim).toBe(false);
    expect(audit.env.PYTHONPATH).toBeUndefined();
    // An inherited PYTHONPATH that holds the hook loses it; other entries stay.
    expect(childEnv(audit, { PYTHONPATH: '/trim:/other' }, '/trim').PYTHONPATH).toBe('/other');
    expect(childEnv(audit, { PYTHONPATH: '/trim' }, '/trim').PYTHONPATH).toBeUndefined();
    expect(childEnv(mining, { PYTHONPATH: '/other' }, '/trim').PYTHONPATH).toBe('/trim:/other');
  });

  it('docker runtime: GPUs by device, loopback port, read-only checkpoint', () => {
    const spec = buildLaunchSpec(enginePlan(), { modelPath: '/data/ckpt', port: 8003, trimDir: '/trim' }, { kind: 'docker', docker: 'docker', image: 'lmsysorg/sglang:v0.5.12.post1', shmSize: '32g' });
    expect(spec.command).toBe('docker');
    expect(spec.args).toContain('--ipc=host');
    expect(flag(spec.args, '--gpus')).toBe('"device=0,1"');
    expect(flag(spec.args, '--shm-size')).toBe('32g');
    expect(flag(spec.args, '-p')).toBe('127.0.0.1:8003:8003');
    expect(spec.args).toContain('/data/ckpt:/model:ro');
    expect(spec.args).toContain('PYTHONPATH=/engy-trim');
    expect(spec.args).toContain('NCCL_P2P_DISABLE=1');
    expect(spec.containerName).toBe('engy-serve-0-8003');
    expect(flag(spec.args, '--model-path')).toBe('/model');
    expect(spec.shellLine).toContain(`--gpus '"device=0,1"'`);
  });

  it('quotes for a POSIX shell', () => {
    expect(shellQuote('plain/path-1.0')).toBe('plain/path-1.0');
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
    expect(shellQuote('')).toBe("''");
  });
});
