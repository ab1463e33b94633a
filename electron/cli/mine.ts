// `engy-panel mine`: the headless miner daemon. It runs until SIGTERM/SIGINT whatever the gateway
// does (absent at start, dropping, restarting, refusing: the service re-dials with backoff), logs one
// line per state change, leg event and request outcome on stdout, and closes the legs, the database
// and the data-dir lock on the way out.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../engine/lib/fs-errors.ts';
import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { DEFAULT_GATEWAY_URL, DEFAULT_MODEL_ID } from '../../shared/network.ts';
import { clearTextGatewayProblem } from '../../shared/endpoint-rules.ts';
import { serveUrlProblem, workerNameProblem } from './arg-rules.ts';
import { composeEngine } from '../compose.ts';
import { CHECKPOINT_FIX } from '../compose/daemon-modules.ts';
import { installProcessGuards } from '../process-guards.ts';
import { toDisposable } from '../engine/lib/disposable.ts';
import { defineCommand, parseCommand, UsageError } from './args.ts';
import { cliCommand } from './run-command.ts';
import type { CliCommand } from './types.ts';

export const MINE = defineCommand({
  usage: `usage: engy-panel mine --serve-url URL[,URL] --checkpoint DIR [--gateway wss://...] [--model ID]
                      [--max-inflight N] [--worker-name NAME] [--data-dir D]
The miner key comes from the file named by ENGY_MINER_KEY_FILE, else the key stored with
\`engy-panel wallet miner-key\`. --max-inflight is the whole concurrency (default 24 = 3 per leg on 8 legs);
each serve must run --max-running-requests >= its share + 2.
`,
  options: {
    'serve-url': { kind: 'list' },
    checkpoint: { kind: 'string' },
    gateway: { kind: 'string' },
    model: { kind: 'string' },
    'max-inflight': { kind: 'int', min: 1, max: 4096 },
    'worker-name': { kind: 'string' },
    'data-dir': { kind: 'string' },
  },
});

/** The checkpoint folder as the miner needs it, or a sentence naming what is wrong and where. */
export function checkpointProblem(dir: string): string | null {
  let st;
  try {
    st = statSync(dir);
  } catch (e) {
    return describeError(e, { what: 'the checkpoint folder', fix: CHECKPOINT_FIX });
  }
  if (!st.isDirectory()) return `the checkpoint folder ${dir} is a file, not a folder: ${CHECKPOINT_FIX}.`;
  for (const name of ['tokenizer_config.json', 'tokenizer.json']) {
    const file = join(dir, name);
    if (!existsSync(file)) return `the checkpoint folder ${dir} has no ${name}: ${CHECKPOINT_FIX}.`;
    try {
      JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      if (e instanceof SyntaxError) return `${file} is not valid JSON (a damaged or partial download): download the checkpoint again, or ${CHECKPOINT_FIX}.`;
      return describeError(e, { what: `the checkpoint's ${name}`, fix: CHECKPOINT_FIX });
    }
  }
  return null;
}

/** The gateway URL, refused when it would carry the miner key in clear text over a network (the rule Settings applies too). */
export function gatewayProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `--gateway wants a wss:// URL, got "${raw}"`;
  }
  if (url.protocol !== 'wss:' && url.protocol !== 'ws:') return `--gateway wants a wss:// URL, got "${raw}"`;
  return clearTextGatewayProblem(raw, '--gateway');
}

export const run: CliCommand = cliCommand('mine', async (args, io) => {
  const { values: v } = parseCommand(args, MINE);
  const serveUrls = v['serve-url'] ?? [];
  const checkpoint = v.checkpoint;
  if (serveUrls.length === 0 || !checkpoint) throw new UsageError('--serve-url and --checkpoint are required', MINE.usage);
  const badArg = serveUrls.map(serveUrlProblem).find((p) => p !== null) ?? (v['worker-name'] !== undefined ? workerNameProblem(v['worker-name']) : null);
  if (badArg) throw new UsageError(badArg, MINE.usage);
  const gatewayUrl = v.gateway ?? io.env.ENGY_GATEWAY ?? DEFAULT_GATEWAY_URL;
  const badGateway = gatewayProblem(gatewayUrl);
  if (badGateway) throw new UsageError(badGateway, MINE.usage);
  const badCheckpoint = checkpointProblem(checkpoint);
  if (badCheckpoint) {
    io.stderr(`engy-panel mine: ${badCheckpoint}\n`);
    return 1;
  }
  const maxInflight = v['max-inflight'] ?? 24;
  const model = v.model ?? DEFAULT_MODEL_ID;
  const dataDir = v['data-dir'] ?? defaultHeadlessDataDir(io.env);

  let engine;
  try {
    engine = await composeEngine({
      profile: 'mine',
      dataDir,
      echo: (l) => io.stdout(`${l}\n`),
      runtime: { minLevel: 'info', keepAlive: true },
      mine: { gatewayUrl, serveUrls, checkpointDir: checkpoint, model, maxInflight, ...(v['worker-name'] ? { workerName: v['worker-name'] } : {}), env: io.env },
    });
  } catch (e) {
    io.stderr(`engy-panel mine: ${describeError(e)}\n`);
    return 1;
  }
  // A daemon left alone for weeks: a missed catch is logged, never the end of the process (electron/process-guards.ts).
  const built = engine;
  // Uninstalled with the engine, so an in-process caller (a test) gets its process back as it was.
  engine.runtime.add(toDisposable(installProcessGuards({ log: engine.logs.logger('process'), shutdown: () => built.dispose() })));
  try {
    return await engine.run(io.stopSignal);
  } catch (e) {
    engine.logs.logger('miner').error(`the miner stopped: ${describeError(e)}`);
    return 1;
  } finally {
    await engine.dispose().catch((e: unknown) => io.stderr(`engy-panel mine: cleanup: ${describeError(e)}\n`));
  }
});
