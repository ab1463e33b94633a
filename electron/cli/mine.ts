// `engy-panel mine`: the headless miner daemon. One log line per leg event and request outcome
// on stdout; SIGTERM/SIGINT closes the legs and exits cleanly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectHardware } from '../engine/hardware/detect.ts';
import { LogHub } from '../engine/lib/logger.ts';
import { dataPaths, defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { helloHw } from '../engine/miner/hello-hw.ts';
import { DEFAULT_GATEWAY, DEFAULT_MODEL, MinerService } from '../engine/miner/miner-service.ts';
import { createProofPort } from '../engine/miner/proof-adapter.ts';
import { ProofPool } from '../engine/proof/proof-pool.ts';
import { Database } from '../engine/store/database.ts';
import { MinerKeyStore } from '../engine/wallet/miner-key-store.ts';
import { flagNumber, flagString, parseArgs } from './args.ts';
import type { CliCommand } from './types.ts';

const USAGE = `usage: engy-panel mine --serve-url URL[,URL] --checkpoint DIR [--gateway wss://...] [--model ID]
                      [--max-inflight N] [--worker-name NAME] [--data-dir D]
The miner key comes from the file named by ENGY_MINER_KEY_FILE, else the key stored with
\`engy-panel wallet miner-key\`. --max-inflight is the whole concurrency (default 24 = 3 per leg on 8 legs);
each serve must run --max-running-requests >= its share + 2.
`;

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export const run: CliCommand = async (args, io) => {
  const p = parseArgs(args, ['help']);
  if (p.flags.has('help')) {
    io.stdout(USAGE);
    return 0;
  }
  const serveUrls = (flagString(p, 'serve-url') ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const checkpoint = flagString(p, 'checkpoint');
  let maxInflight: number;
  try {
    maxInflight = flagNumber(p, 'max-inflight') ?? 24;
  } catch (e) {
    io.stderr(`engy-panel mine: ${(e as Error).message}\n`);
    return 2;
  }
  if (serveUrls.length === 0 || !checkpoint || !Number.isInteger(maxInflight) || maxInflight < 1) {
    io.stderr(`engy-panel mine: --serve-url and --checkpoint are required, --max-inflight a positive integer\n\n${USAGE}`);
    return 2;
  }
  const dataDir = flagString(p, 'data-dir') ?? defaultHeadlessDataDir(io.env);
  const paths = dataPaths(dataDir);
  const hub = new LogHub({ dir: paths.logs, echo: (l) => io.stdout(`${l}\n`), minLevel: 'info' });
  const log = hub.logger('miner');
  const keys = new MinerKeyStore({ secretsDir: paths.secrets, env: io.env, redactor: hub.redactor, logger: hub.logger('keys') });
  try {
    keys.get();
  } catch (e) {
    io.stderr(`engy-panel mine: no miner key: ${(e as Error).message}\n`);
    return 1;
  }
  const db = new Database(paths.database);
  const pool = new ProofPool();
  const miner = new MinerService({
    gatewayUrl: flagString(p, 'gateway') ?? io.env.ENGY_GATEWAY ?? DEFAULT_GATEWAY,
    serveUrls,
    checkpointDir: checkpoint,
    model: flagString(p, 'model') ?? DEFAULT_MODEL,
    maxInflight,
    workerName: flagString(p, 'worker-name'),
    minerKey: () => keys.get(),
    redactor: hub.redactor,
    hw: async () => helloHw(await detectHardware({ dataDir, includeOtherGpus: false })),
    versions: { 'engy-panel': version(), node: process.versions.node },
    proof: createProofPort(pool),
    log,
    db,
    audit: { sampleRate: 0.01, minIntervalMs: 300_000 },
  });
  let last = '';
  const sub = miner.onDidChange((s) => {
    const line = `${s.phase}: ${s.detail}`;
    if (line !== last) log.info(`state ${line}`);
    last = line;
  });
  try {
    await miner.start();
    const snap = miner.snapshot();
    log.info(`worker ${snap.workerName} id ${snap.workerId} model_root ${snap.modelRoot ?? '?'}`);
    if (snap.legsWarning) log.warn(snap.legsWarning);
    const sig = await io.stopSignal;
    log.info(`${sig}: closing the legs`);
    return 0;
  } catch (e) {
    log.error(`cannot start the miner: ${(e as Error).message}`);
    return 1;
  } finally {
    await miner.dispose();
    await sub.dispose();
    await pool.dispose();
    db.close();
    hub.flush();
  }
};
