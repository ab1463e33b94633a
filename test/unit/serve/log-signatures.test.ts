import { describe, expect, it } from 'vitest';
import { CrashEvidence, signatureOfLine } from '../../../electron/engine/serve/crash-causes.ts';
import { isReadyLine, phaseOfLine } from '../../../electron/engine/serve/log-phase.ts';
import { LineSplitter } from '../../../electron/engine/serve/process-group.ts';
import { trimStatusOfLine } from '../../../electron/engine/serve/trim-status.ts';

describe('startup phases from the sglang log', () => {
  it('follows the startup sequence', () => {
    expect(phaseOfLine('[2026-07-01 10:00:00 TP0] Load weight begin. avail mem=22.93 GB')?.phase).toBe('loading-weights');
    expect(phaseOfLine('Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01]')).toEqual({ phase: 'loading-weights', progressPct: 50 });
    expect(phaseOfLine('[.. TP0] KV Cache is allocated. #tokens: 327310, K size: 2.50 GB')?.phase).toBe('allocating-kv-cache');
    expect(phaseOfLine('[.. TP0] Capture cuda graph begin. This can take up to several minutes.')?.phase).toBe('capturing-cuda-graphs');
    expect(phaseOfLine('Capturing batches (bs=24 avail_mem=4.00 GB):  14%|█▍ | 1/7')).toEqual({ phase: 'capturing-cuda-graphs', progressPct: 14 });
    expect(phaseOfLine('[.. TP0] Entering DeepGEMM JIT Pre-Compile session.')?.phase).toBe('compiling-kernels');
    expect(phaseOfLine('INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)')?.phase).toBe('warming-up');
    expect(phaseOfLine('[.. TP0] Prefill batch, #new-seq: 1')).toBeNull();
    expect(isReadyLine('[2026-07-01 10:01:00] The server is fired up and ready to roll!')).toBe(true);
    expect(isReadyLine('The server is starting')).toBe(false);
  });

  it('reads the trim banner', () => {
    expect(trimStatusOfLine('[engy] hidden-states trim armed (skip_prefill, only_last_hidden)')).toEqual({ state: 'armed', detail: 'armed' });
    expect(trimStatusOfLine("[engy] hidden-states trim not armed: AttributeError('x')")).toEqual({ state: 'not-armed', detail: "AttributeError('x')" });
    expect(trimStatusOfLine('[engy] hidden-states trim not armed: inert on sglang 0.5.15 (reason: version not in the supported list)')).toEqual({
      state: 'not-armed',
      detail: 'version not in the supported list (on sglang 0.5.15)',
    });
    expect(trimStatusOfLine('ordinary line')).toBeNull();
  });
});

describe('crash causes from log signatures', () => {
  const cases: Array<[string, string]> = [
    ['RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.83', 'not-enough-memory'],
    ['Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 448.00 MiB', 'cuda-oom-graph'],
    ["ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')", 'fp8-unsupported'],
    ['RuntimeError: Assertion error (jit/compiler.hpp:176): false and "NVCC compilation failed"', 'nvcc-missing'],
    ["ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 8000): address already in use", 'port-in-use'],
    ['RuntimeError: CUDART error: peer access is not supported between these two devices', 'p2p-nccl'],
    ['RuntimeError: The NVIDIA driver on your system is too old (found version 12040).', 'driver-too-old'],
    ['Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)', 'watchdog-timeout'],
    ['OSError: /models/none does not appear to have a file named config.json.', 'model-path-missing'],
    ['The server is not configured to return the hidden states. Please set `--enable-return-hidden-states`', 'hidden-states-disabled'],
    ['docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?', 'docker-unavailable'],
    [
      'docker: permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Head "http://%2Fvar%2Frun%2Fdocker.sock/_ping": dial unix /var/run/docker.sock: connect: permission denied.',
      'docker-unavailable',
    ],
    ['docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].', 'docker-no-gpu'],
    ['docker: Error response from daemon: unknown or invalid runtime name: nvidia.', 'docker-no-gpu'],
    ["docker: Error response from daemon: pull access denied for lmsysorg/sglang, repository does not exist or may require 'docker login'.", 'docker-pull-failed'],
    ['docker: Error response from daemon: toomanyrequests: You have reached your unauthenticated pull rate limit.', 'docker-pull-failed'],
    ['docker: failed to register layer: write /usr/lib/x86_64-linux-gnu/libcudnn.so.9: no space left on device.', 'disk-full'],
  ];
  it.each(cases)('%s', (line, code) => {
    const ev = new CrashEvidence();
    ev.observe(line, 'loading-weights');
    expect(ev.classify({ code: 1, signal: null }).code).toBe(code);
  });

  it('tells OOM at load from OOM at graph capture by the phase', () => {
    const load = new CrashEvidence();
    load.observe('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB', 'loading-weights');
    const c = load.classify({ code: 1, signal: null });
    expect(c.code).toBe('cuda-oom-load');
    expect(c.retryable).toBe(false);
    const graph = new CrashEvidence();
    graph.observe('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB', 'capturing-cuda-graphs');
    expect(graph.classify({ code: 1, signal: null }).code).toBe('cuda-oom-graph');
  });

  it('ignores the harmless custom-allreduce warning and falls back on the exit', () => {
    expect(
      signatureOfLine(
        'Setup Custom allreduce failed with CUDART error: peer access is not supported between these two devices. To silence this warning, specify --disable-custom-all-reduce explicitly.',
      ),
    ).toBeNull();
    const ev = new CrashEvidence();
    ev.observe('Setup Custom allreduce failed with CUDART error: peer access is not supported', 'loading-weights');
    expect(ev.classify({ code: null, signal: 'SIGKILL' }).code).toBe('killed');
    expect(ev.classify({ code: 3, signal: null })).toMatchObject({ code: 'exited', retryable: true });
  });
});

describe('line splitting', () => {
  it('splits on \\n and tqdm \\r across chunk boundaries', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l), 10);
    s.push('ab');
    s.push('c\r 50%\r\n');
    s.push('0123456789ABC');
    s.push('tail');
    s.end();
    expect(lines).toEqual(['abc', ' 50%', '0123456789', 'tail']);
  });
});

describe('crash evidence across a start', () => {
  it('an OOM while kernels compile during graph capture is a graph-capture OOM', () => {
    const ev = new CrashEvidence();
    ev.observe('[.. TP0] Capture cuda graph begin. This can take up to several minutes.', 'capturing-cuda-graphs');
    ev.observe('[.. TP0] Try DeepGEMM JIT Compiling for <GEMM_NT_F8F8BF16> N=2048, K=512', 'compiling-kernels');
    ev.observe('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB', 'compiling-kernels');
    expect(ev.classify({ code: 1, signal: null }).code).toBe('cuda-oom-graph');
  });

  it('knows a start that never got past the distributed init', () => {
    const ev = new CrashEvidence();
    ev.observe('[.. TP0] Init torch distributed begin.', 'launching');
    expect(ev.stuckInDistributedInit()).toBe(true);
    ev.observe('[.. TP0] Init torch distributed ends. elapsed=0.31 s, mem usage=0.12 GB', 'launching');
    expect(ev.stuckInDistributedInit()).toBe(false);
    ev.reset();
    expect(ev.stuckInDistributedInit()).toBe(false);
  });
});
