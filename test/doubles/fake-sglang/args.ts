// TEST DOUBLE (fake sglang): command-line parsing with the flags of
// `python -m sglang.launch_server` that engy panel passes (plus a few common ones it may pass),
// and the double's own knobs. Unknown flags are refused the way argparse refuses them
// (usage line + "error: unrecognized arguments", exit code 2).

export type FailMode = 'oom' | 'kv-memory' | 'cuda-graph-oom' | 'nvcc' | 'fp8-arch' | 'p2p' | 'warmup';
export const FAIL_MODES: readonly FailMode[] = ['oom', 'kv-memory', 'cuda-graph-oom', 'nvcc', 'fp8-arch', 'p2p', 'warmup'];

export interface FakeServeArgs {
  modelPath: string;
  servedModelName: string | null;
  tpSize: number;
  memFractionStatic: number | null;
  kvCacheDtype: string;
  contextLength: number | null;
  maxRunningRequests: number | null;
  chunkedPrefillSize: number | null;
  enableReturnHiddenStates: boolean;
  enableCacheReport: boolean;
  enableMetrics: boolean;
  host: string;
  port: number;
  cpuOffloadGb: number;
  disableCustomAllReduce: boolean;
  streamInterval: number;
  // Knobs of the double.
  numericsNoise: number;
  quantize: 'int4' | null;
  ttftMs: number;
  tokensPerS: number;
  crashAfterS: number | null;
  /** Seconds after the first healthy /health_generate (the moment a supervisor calls the serve ready). */
  crashAfterHealthyS: number | null;
  fail: FailMode | null;
  hang: boolean;
  slowStartMs: number;
  trimHiddenStates: boolean;
  sglangVersion: string;
  seed: number;
  maxTotalTokens: number;
  /** Overrides config.json's hidden_size (smaller rows for cheap tests). */
  hiddenSize: number | null;
  /** Warmup waits until this file exists: lets a test observe the bound-but-not-ready window. */
  warmupGate: string | null;
  /** Comma-separated absolute positions where the output is forced to spell 中 in its three byte tokens. */
  splitCharAt: string | null;
  timingLog: string | null;
}

type Kind = 'str' | 'int' | 'float' | 'bool';
interface FlagSpec {
  kind: Kind;
  key?: keyof FakeServeArgs;
}

// Flags the real server accepts that the double takes and ignores.
const IGNORED: Record<string, Kind> = {
  '--trust-remote-code': 'bool',
  '--log-level': 'str',
  '--log-level-http': 'str',
  '--log-requests': 'bool',
  '--dp-size': 'int',
  '--cuda-graph-max-bs': 'int',
  '--disable-cuda-graph': 'bool',
  '--enable-p2p-check': 'bool',
  '--watchdog-timeout': 'float',
  '--schedule-policy': 'str',
  '--skip-server-warmup': 'bool',
  '--reasoning-parser': 'str',
  '--tool-call-parser': 'str',
  '--weight-loader-drop-cache-after-load': 'bool',
  '--fp8-gemm-backend': 'str',
  '--mamba-ssm-dtype': 'str',
  '--api-key': 'str',
  '--tokenizer-path': 'str',
  '--random-seed': 'int',
  '--max-prefill-tokens': 'int',
  '--dtype': 'str',
  '--quantization': 'str',
  '--revision': 'str',
  '--download-dir': 'str',
  '--max-mamba-cache-size': 'int',
  '--mem-fraction': 'float',
};

const FLAGS: Record<string, FlagSpec> = {
  '--model-path': { kind: 'str', key: 'modelPath' },
  '--model': { kind: 'str', key: 'modelPath' },
  '--served-model-name': { kind: 'str', key: 'servedModelName' },
  '--tp-size': { kind: 'int', key: 'tpSize' },
  '--tp': { kind: 'int', key: 'tpSize' },
  '--tensor-parallel-size': { kind: 'int', key: 'tpSize' },
  '--mem-fraction-static': { kind: 'float', key: 'memFractionStatic' },
  '--kv-cache-dtype': { kind: 'str', key: 'kvCacheDtype' },
  '--context-length': { kind: 'int', key: 'contextLength' },
  '--max-running-requests': { kind: 'int', key: 'maxRunningRequests' },
  '--chunked-prefill-size': { kind: 'int', key: 'chunkedPrefillSize' },
  '--enable-return-hidden-states': { kind: 'bool', key: 'enableReturnHiddenStates' },
  '--enable-cache-report': { kind: 'bool', key: 'enableCacheReport' },
  '--enable-metrics': { kind: 'bool', key: 'enableMetrics' },
  '--host': { kind: 'str', key: 'host' },
  '--port': { kind: 'int', key: 'port' },
  '--cpu-offload-gb': { kind: 'float', key: 'cpuOffloadGb' },
  '--disable-custom-all-reduce': { kind: 'bool', key: 'disableCustomAllReduce' },
  '--stream-interval': { kind: 'int', key: 'streamInterval' },
  '--numerics-noise': { kind: 'float', key: 'numericsNoise' },
  '--quantize': { kind: 'str', key: 'quantize' },
  '--ttft-ms': { kind: 'float', key: 'ttftMs' },
  '--tokens-per-s': { kind: 'float', key: 'tokensPerS' },
  '--crash-after-s': { kind: 'float', key: 'crashAfterS' },
  '--crash-after-healthy-s': { kind: 'float', key: 'crashAfterHealthyS' },
  '--fail': { kind: 'str', key: 'fail' },
  '--hang': { kind: 'bool', key: 'hang' },
  '--slow-start-ms': { kind: 'float', key: 'slowStartMs' },
  '--trim-hidden-states': { kind: 'bool', key: 'trimHiddenStates' },
  '--sglang-version': { kind: 'str', key: 'sglangVersion' },
  '--seed': { kind: 'int', key: 'seed' },
  '--max-total-tokens': { kind: 'int', key: 'maxTotalTokens' },
  '--hidden-size': { kind: 'int', key: 'hiddenSize' },
  '--warmup-gate': { kind: 'str', key: 'warmupGate' },
  '--split-char-at': { kind: 'str', key: 'splitCharAt' },
  '--timing-log': { kind: 'str', key: 'timingLog' },
};

export function defaultArgs(): FakeServeArgs {
  return {
    modelPath: '',
    servedModelName: null,
    tpSize: 1,
    memFractionStatic: null,
    kvCacheDtype: 'auto',
    contextLength: null,
    maxRunningRequests: null,
    chunkedPrefillSize: null,
    enableReturnHiddenStates: false,
    enableCacheReport: false,
    enableMetrics: false,
    host: '127.0.0.1',
    port: 30000,
    cpuOffloadGb: 0,
    disableCustomAllReduce: false,
    streamInterval: 1,
    numericsNoise: 0,
    quantize: null,
    ttftMs: 20,
    tokensPerS: 400,
    crashAfterS: null,
    crashAfterHealthyS: null,
    fail: null,
    hang: false,
    slowStartMs: 0,
    trimHiddenStates: false,
    sglangVersion: '0.5.12.post1',
    seed: 53,
    maxTotalTokens: 1_048_576,
    hiddenSize: null,
    warmupGate: null,
    splitCharAt: null,
    timingLog: null,
  };
}

export class ArgError extends Error {}

export function parseArgs(argv: readonly string[]): FakeServeArgs {
  const out = defaultArgs() as unknown as Record<string, unknown>;
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const spec = FLAGS[flag] ?? (IGNORED[flag] ? { kind: IGNORED[flag] } : undefined);
    if (!spec) {
      unknown.push(raw);
      continue;
    }
    if (spec.kind === 'bool') {
      if (spec.key) out[spec.key] = true;
      continue;
    }
    const value = eq > 0 ? raw.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ArgError(`argument ${flag}: expected one argument`);
    let parsed: string | number = value;
    if (spec.kind === 'int') {
      if (!/^-?\d+$/.test(value)) throw new ArgError(`argument ${flag}: invalid int value: '${value}'`);
      parsed = Number(value);
    } else if (spec.kind === 'float') {
      if (!Number.isFinite(Number(value))) throw new ArgError(`argument ${flag}: invalid float value: '${value}'`);
      parsed = Number(value);
    }
    if (spec.key) out[spec.key] = parsed;
  }
  if (unknown.length > 0) throw new ArgError(`unrecognized arguments: ${unknown.join(' ')}`);
  const args = out as unknown as FakeServeArgs;
  if (!args.modelPath) throw new ArgError('the following arguments are required: --model-path');
  if (args.quantize !== null && args.quantize !== 'int4') throw new ArgError(`argument --quantize: invalid choice: '${String(args.quantize)}' (choose from 'int4')`);
  if (args.fail !== null && !FAIL_MODES.includes(args.fail)) throw new ArgError(`argument --fail: invalid choice: '${args.fail}' (choose from ${FAIL_MODES.map((m) => `'${m}'`).join(', ')})`);
  if (args.splitCharAt !== null && !/^\d+(,\d+)*$/.test(args.splitCharAt)) throw new ArgError(`argument --split-char-at: invalid value: '${args.splitCharAt}' (positions, comma-separated)`);
  return args;
}

export const USAGE = 'usage: launch_server.py [-h] --model-path MODEL_PATH [--served-model-name SERVED_MODEL_NAME] [--tp-size TP_SIZE] [--host HOST] [--port PORT] ...';
