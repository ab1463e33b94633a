// TEST DOUBLE (fake sglang): the start-up log lines sglang prints (see SGLANG.md A7) and the
// failure signatures of A9, so the serve supervisor's phase detection and crash
// classification can be exercised without a GPU.
import { existsSync } from 'node:fs';
import type { FailMode, FakeServeArgs } from './args.ts';

function stamp(): string {
  const d = new Date();
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `[YYYY-MM-DD HH:MM:SS TP0] msg` for scheduler lines, `[YYYY-MM-DD HH:MM:SS] msg` otherwise. */
export function log(msg: string, tp = false): void {
  process.stderr.write(`[${stamp()}${tp ? ' TP0' : ''}] ${msg}\n`);
}

export function raw(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : text + '\n');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const TRACEBACK =
  'Traceback (most recent call last):\n  File "/usr/lib/python3/dist-packages/sglang/srt/managers/scheduler.py", line 2954, in run_scheduler_process\n    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)\n';

const SIGNATURES: Record<FailMode, string> = {
  oom: `${TRACEBACK}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.53 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.49 GiB memory in use.`,
  'kv-memory': `${TRACEBACK}RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.`,
  'cuda-graph-oom': `${TRACEBACK}Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 310.00 MiB is free.\nPossible solutions:\n1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)\n2. set --cuda-graph-max-bs to a smaller value (e.g., 16)\n3. disable torch compile by not using --enable-torch-compile\n4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)`,
  nvcc: `${TRACEBACK}RuntimeError: Assertion error (/deep_gemm/jit/compiler.hpp:176): false and "NVCC compilation failed"`,
  'fp8-arch': `${TRACEBACK}ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')`,
  p2p: `${TRACEBACK}RuntimeError: CUDART error: peer access is not supported between these two devices`,
  warmup:
    'Initialization failed. warmup error: Traceback (most recent call last):\n  File "/usr/lib/python3/dist-packages/sglang/srt/entrypoints/http_server.py", line 1402, in _execute_server_warmup\nAssertionError: ',
};

// The phase at which each failure strikes in a real start.
const FAILS_AT: Record<FailMode, 'init' | 'load' | 'kv' | 'graph' | 'warmup'> = {
  p2p: 'init',
  'fp8-arch': 'load',
  oom: 'load',
  'kv-memory': 'kv',
  'cuda-graph-oom': 'graph',
  nvcc: 'graph',
  warmup: 'warmup',
};

function die(mode: FailMode): never {
  raw(SIGNATURES[mode]);
  log('Received sigquit from a child process. It usually means the child failed.');
  process.exit(1);
}

export interface StartFacts {
  maxTotalTokens: number;
  contextLength: number;
  maxRunning: number;
  chunkedPrefill: number;
}

/** Everything before the HTTP port is bound; exits the process on an injected failure. */
export async function bootLog(args: FakeServeArgs, facts: StartFacts): Promise<void> {
  const step = args.slowStartMs / 5;
  const failAt = args.fail ? FAILS_AT[args.fail] : null;
  const check = (phase: string): void => {
    if (args.fail && failAt === phase) die(args.fail);
  };
  log(
    `server_args=ServerArgs(model_path='${args.modelPath}', served_model_name='${args.servedModelName ?? args.modelPath}', tp_size=${args.tpSize}, host='${args.host}', port=${args.port}, enable_return_hidden_states=${args.enableReturnHiddenStates ? 'True' : 'False'}, ...)`,
  );
  log('Init torch distributed begin.', true);
  if (args.tpSize > 1 && !args.disableCustomAllReduce) {
    log('Setup Custom allreduce failed with CUDART error: peer access is not supported between these two devices. To silence this warning, specify --disable-custom-all-reduce explicitly.', true);
  }
  check('init');
  log('Init torch distributed ends. elapsed=0.31 s, mem usage=0.12 GB', true);
  await sleep(step);
  log('Load weight begin. avail mem=22.93 GB', true);
  for (const pct of [0, 50, 100]) raw(`Loading safetensors checkpoint shards: ${String(pct).padStart(3)}% Completed | ${pct / 50}/2 [00:00<00:00, 9.71it/s]`);
  await sleep(step);
  check('load');
  log('Load weight end. elapsed=0.41 s, type=Qwen3_5MoeForConditionalGeneration, avail mem=14.08 GB, mem usage=8.85 GB.', true);
  log(`Using KV cache dtype: ${args.kvCacheDtype === 'fp8_e4m3' ? 'torch.float8_e4m3fn' : 'torch.bfloat16'}`, true);
  check('kv');
  log(`Mamba Cache is allocated. max_mamba_cache_size: ${facts.maxRunning * 3}, conv_state size: 0.10GB, ssm_state size: 4.38GB`, true);
  log(`KV Cache is allocated. #tokens: ${facts.maxTotalTokens}, K size: 2.50 GB, V size: 2.50 GB`, true);
  log('Memory pool end. avail mem=4.49 GB', true);
  await sleep(step);
  log('Capture cuda graph begin. This can take up to several minutes. avail mem=4.04 GB', true);
  log('Capture cuda graph bs [1, 2, 4, 8]', true);
  check('graph');
  raw('Capturing batches (bs=8 avail_mem=4.00 GB): 100%|██████████| 4/4 [00:00<00:00, 12.10it/s]');
  await sleep(step);
  log('Capture cuda graph end. Time elapsed: 0.33 s. mem usage=0.26 GB. avail mem=3.79 GB.', true);
  log(
    `max_total_num_tokens=${facts.maxTotalTokens}, chunked_prefill_size=${facts.chunkedPrefill}, max_prefill_tokens=16384, max_running_requests=${facts.maxRunning}, context_len=${facts.contextLength}, available_gpu_mem=3.79 GB`,
    true,
  );
}

export function uvicornLines(host: string, port: number): void {
  log(`INFO:     Started server process [${process.pid}]`);
  log('INFO:     Waiting for application startup.');
  log('INFO:     Application startup complete.');
  log(`INFO:     Uvicorn running on http://${host}:${port} (Press CTRL+C to quit)`);
}

export async function warmupLog(args: FakeServeArgs): Promise<void> {
  await sleep(args.slowStartMs / 5);
  while (args.warmupGate !== null && !existsSync(args.warmupGate)) await sleep(50);
  log('INFO:     127.0.0.1:40000 - "GET /get_model_info HTTP/1.1" 200 OK');
  log('Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, full token usage: 0.00, mamba usage: 0.00, #running-req: 0, #queue-req: 0', true);
  if (args.fail === 'warmup') die('warmup');
  log('INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK');
  log('The server is fired up and ready to roll!');
}

export function bindErrorLine(host: string, port: number, code: string): string {
  if (code === 'EADDRINUSE') return `ERROR:    [Errno 98] error while attempting to bind on address ('${host}', ${port}): address already in use`;
  if (code === 'EACCES') return `ERROR:    [Errno 13] error while attempting to bind on address ('${host}', ${port}): permission denied`;
  return `ERROR:    [Errno 99] error while attempting to bind on address ('${host}', ${port}): cannot assign requested address`;
}
