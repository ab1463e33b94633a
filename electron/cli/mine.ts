// `engy-panel mine`: the headless miner daemon. It runs until SIGTERM/SIGINT whatever the gateway
// does (absent at start, dropping, restarting, refusing: the service re-dials with backoff), logs one
// line per state change, leg event and request outcome on stdout, and closes the legs, the database
// and the data-dir lock on the way out.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { detectHardware } from '../engine/hardware/detect.ts';
import { describeError } from '../engine/lib/fs-errors.ts';
import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { helloHw } from '../engine/miner/hello-hw.ts';
import { defaultWorkerName } from '../engine/miner/identity.ts';
import { MinerService } from '../engine/miner/miner-service.ts';
import { DEFAULT_GATEWAY_URL, DEFAULT_MODEL_ID } from '../../shared/network.ts';
import { createProofPort } from '../engine/miner/proof-adapter.ts';
import { persistentWorkerId } from '../engine/miner/worker-id-store.ts';
import { ProofPool } from '../engine/proof/proof-pool.ts';
import { MinerKeyStore } from '../engine/wallet/miner-key-store.ts';
import { clearTextGatewayProblem } from '../../shared/endpoint-rules.ts';
import { serveUrlProblem, workerNameProblem } from './arg-rules.ts';
import { openRuntime } from '../runtime.ts';
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

const CHECKPOINT_FIX = 'point --checkpoint at the downloaded model folder (`engy-panel serve checkpoint --download` fetches it)';

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

  let rt;
  try {
    rt = await openRuntime({ dataDir, echo: (l) => io.stdout(`${l}\n`), minLevel: 'info', keepAlive: true });
  } catch (e) {
    io.stderr(`engy-panel mine: ${describeError(e)}\n`);
    return 1;
  }
  // A daemon left alone for weeks: a missed catch is logged, never the end of the process (electron/process-guards.ts).
  const guarded = rt;
  // Uninstalled with the runtime, so an in-process caller (a test) gets its process back as it was.
  rt.add(toDisposable(installProcessGuards({ log: rt.logs.logger('process'), shutdown: () => guarded.dispose() })));
  const log = rt.logs.logger('miner');
  try {
    const keys = new MinerKeyStore({ secretsDir: rt.paths.secrets, env: io.env, redactor: rt.logs.redactor, logger: rt.logs.logger('keys') });
    try {
      keys.get();
    } catch (e) {
      io.stderr(`engy-panel mine: no miner key: ${describeError(e)}\n`);
      return 1;
    }
    const keyStatus = keys.status();
    if (keyStatus.storage === 'env-file' && keyStatus.warning) log.warn(`miner key: ${keyStatus.warning}`);

    const workerName = v['worker-name'] ?? defaultWorkerName(hostname(), model, serveUrls);
    const id = persistentWorkerId(rt.paths.workerIds, { workerName, model, maxInflight });
    if (id.saveError) log.warn(`the worker id could not be saved (${id.saveError}): the next start will need a new qualification`);
    const pool = rt.add(new ProofPool());
    const miner = rt.add(
      new MinerService({
        gatewayUrl,
        serveUrls,
        checkpointDir: checkpoint,
        model,
        maxInflight,
        workerName,
        workerId: id.workerId,
        minerKey: () => keys.get(),
        redactor: rt.logs.redactor,
        hw: async () => helloHw(await detectHardware({ dataDir, includeOtherGpus: false })),
        versions: rt.versions,
        proof: createProofPort(pool),
        log,
        db: rt.db,
        audit: { sampleRate: 0.01, minIntervalMs: 300_000 },
      }),
    );
    // One line per change of state: a retry countdown ("retrying in 4 s") is the same state, already
    // logged once per attempt by the service.
    let last = '';
    rt.add(
      miner.onDidChange((s) => {
        const line = `${s.phase}: ${s.detail}`;
        const key = line.replace(/;? ?retrying in \d+ s/, '');
        if (key !== last) log.info(`state ${line}`);
        last = key;
      }),
    );
    try {
      await miner.start();
    } catch (e) {
      log.error(`cannot start the miner: ${describeError(e, { what: 'the checkpoint folder', fix: CHECKPOINT_FIX })}`);
      return 1;
    }
    const snap = miner.snapshot();
    log.info(`worker ${snap.workerName} id ${snap.workerId} (${id.reused ? 'kept from the last start' : 'new'}) model_root ${snap.modelRoot ?? '?'}`);
    if (snap.legsWarning) log.warn(snap.legsWarning);
    const sig = await io.stopSignal;
    log.info(`${sig}: closing the legs`);
    return 0;
  } catch (e) {
    log.error(`the miner stopped: ${describeError(e)}`);
    return 1;
  } finally {
    await rt.dispose().catch((e: unknown) => io.stderr(`engy-panel mine: cleanup: ${describeError(e)}\n`));
  }
});
