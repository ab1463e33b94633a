// TEST DOUBLE: a fake `python -m sglang.launch_server` for engy panel's tests and demo. Same CLI
// flags, routes, log lines and failure signatures as sglang 0.5.12 (see README.md here and
// /work/shared/SGLANG.md), backed by a tiny deterministic model instead of a GPU.
// Run: node test/doubles/fake-sglang/main.ts --model-path test/fixtures/checkpoint-tiny --port 0 ...
import { createServer } from 'node:http';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { ArgError, parseArgs, USAGE, type FakeServeArgs } from './args.ts';
import { Detokenizer } from './detokenizer.ts';
import { FakeEngine } from './engine.ts';
import { modelFor } from './model.ts';
import { PrefixCache } from './prefix-cache.ts';
import { decideTrim } from './trim-decision.ts';
import { route, type ServeState } from './routes.ts';
import { bindErrorLine, bootLog, log, raw, uvicornLines, warmupLog } from './startup-log.ts';
import { loadCheckpointSpec } from './vocab-plan.ts';

function parseOrExit(argv: string[]): FakeServeArgs {
  try {
    return parseArgs(argv);
  } catch (e) {
    if (!(e instanceof ArgError)) throw e;
    raw(`${USAGE}\nlaunch_server.py: error: ${e.message}`);
    process.exit(2);
  }
}

/**
 * `--timing-log FILE`: appends a line per streamed /generate through an async stream, so the
 * serve's loop never waits on the disk for it (the bench reads it after its rounds).
 */
function timingLog(path: string | null): ((line: string) => void) | null {
  if (path === null) return null;
  const out = createWriteStream(path, { flags: 'a' });
  out.on('error', (e) => log(`timing log ${path}: ${e.message}`));
  return (line) => void out.write(line);
}

/**
 * `FAKE_SGLANG_EXIT_WITH_PARENT=1` (environment; every test and bench spawner sets it): exit once this
 * process has a new parent, i.e. the process that started it (a test, a bench, the app's supervisor
 * running in a test) is gone however it went, even killed before its cleanup ran. Not on by default: a
 * real sglang outlives a crashed panel, and the serve registry's reaping of it is tested as such.
 */
function exitWithParent(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid === parent) return;
    log('the process that started this fake serve is gone; exiting.');
    process.exit(0);
  }, 500).unref();
}

async function main(): Promise<void> {
  const args = parseOrExit(process.argv.slice(2));
  if (process.env.FAKE_SGLANG_EXIT_WITH_PARENT === '1') exitWithParent();
  const spec = loadCheckpointSpec(args.modelPath);
  const config = JSON.parse(readFileSync(join(args.modelPath, 'config.json'), 'utf8')) as { model_type?: string; architectures?: string[]; text_config?: { max_position_embeddings?: number } };
  const contextLength = args.contextLength ?? config.text_config?.max_position_embeddings ?? 262144;
  const maxRunning = args.maxRunningRequests ?? 8;
  const model = modelFor({ hiddenSize: args.hiddenSize ?? spec.hiddenSize, vocab: spec.vocab, seed: args.seed });
  const cache = new PrefixCache(args.maxTotalTokens);

  // The trim hook prints at interpreter start, before any sglang line.
  const trim = decideTrim(args.trimHiddenStates, args.sglangVersion, process.env);
  if (trim.line !== null) raw(trim.line);
  const trimActive = trim.active;
  const detok = new Detokenizer(args.modelPath);
  const engine = new FakeEngine(args, model, cache, detok, trimActive);
  await bootLog(args, { maxTotalTokens: args.maxTotalTokens, contextLength, maxRunning, chunkedPrefill: args.chunkedPrefillSize ?? -1 });

  let tokenizer: Tokenizer | null = null;
  const state: ServeState = {
    args,
    engine,
    cache,
    ready: false,
    draining: false,
    trimActive,
    contextLength,
    maxTotalTokens: args.maxTotalTokens,
    encode: async (text) => {
      tokenizer ??= Tokenizer.fromFile(join(args.modelPath, 'tokenizer.json'));
      return (await tokenizer.encode(text)).getIds();
    },
    decode: (ids) => detok.decode(ids, false),
    modelType: config.model_type ?? 'qwen3_5_moe',
    architectures: config.architectures ?? [],
    timing: timingLog(args.timingLog),
  };
  const server = createServer((req, res) => void route(state, req, res));
  server.keepAliveTimeout = 5000;
  server.on('error', (e: NodeJS.ErrnoException) => {
    raw(bindErrorLine(args.host, args.port, e.code ?? ''));
    process.exit(1);
  });
  await new Promise<void>((resolve) => server.listen(args.port, args.host, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : args.port;
  uvicornLines(args.host, port);
  await warmupLog(args);
  state.ready = true;

  if (args.hang) engine.hung = true;
  const crashIn = (s: number): void =>
    void setTimeout(() => {
      raw(
        'Traceback (most recent call last):\n  File "/usr/lib/python3/dist-packages/sglang/srt/managers/scheduler.py", line 2967, in run_scheduler_process\n    scheduler.event_loop_overlap()\nRuntimeError: CUDA error: an illegal memory access was encountered',
      );
      log('Received sigquit from a child process. It usually means the child failed.');
      process.exit(1);
    }, s * 1000).unref();
  if (args.crashAfterS !== null) crashIn(args.crashAfterS);
  // Counted from the first healthy answer, not from ready: a supervisor on a loaded box may take longer
  // than the crash delay to ask, and would then never see the serve ready at all.
  const afterHealthy = args.crashAfterHealthyS;
  if (afterHealthy !== null) {
    state.onHealthy = () => {
      state.onHealthy = undefined;
      crashIn(afterHealthy);
    };
  }
  process.on('SIGTERM', () => {
    log('SIGTERM received. signum=15 frame=None. Draining requests and shutting down...');
    state.draining = true;
    // Checked often, reported every 5 s as sglang does.
    let lastReport = -Infinity;
    const check = (): void => {
      const n = engine.metrics.running + engine.metrics.queued;
      if (n === 0) process.exit(0);
      if (performance.now() - lastReport >= 5000) {
        lastReport = performance.now();
        log(`Gracefully exiting... Remaining number of requests ${n}.`);
      }
      setTimeout(check, 100);
    };
    check();
  });
  process.on('SIGINT', () => {
    log('INFO:     Shutting down');
    process.exit(0);
  });
}

void main();
