// The chaos run of `engy-panel validate` (a real child process) against the dev chain and the provider
// double: provider outages (503, connection resets, refused connections, garbage), chain connections
// dropped, and the chain's RPC server down for a while and back on its port. Shared by
// test/integration/validator/chaos.test.ts (asserts) and bench/chaos.bench.ts (reports).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SubmissionRecord, TickRecord } from '../../shared/validator.ts';
import { dataPaths } from '../../electron/engine/lib/paths.ts';
import { Database } from '../../electron/engine/store/database.ts';
import { SqliteValidatorHistory } from '../../electron/engine/validator/history.ts';
import { readState } from '../../electron/engine/validator/state-file.ts';
import { startRpcServer, type RpcServer } from '../doubles/dev-chain/rpc-server.ts';
import { startProviderDouble } from '../doubles/provider.ts';
import { waitUntil } from './mine-chaos.ts';
import { MINER_A, MINER_B, startValidatorRig } from './validator-rig.ts';
import { spawnLogged } from './logged-child.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface ValidateChaosReport {
  faults: { providerOutages: number; chainDrops: number; chainDown: number };
  rssBeforeKiB: number;
  rssAfterKiB: number;
  lastApplied: number | null;
  submissions: SubmissionRecord[];
  ticks: TickRecord[];
  /** set_weights the chain accepted from this hotkey, per epoch index the state recorded. */
  acceptedWeightSets: number;
  exitCode: number | null;
  log: string;
  seconds: number;
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

export async function runValidateChaos(): Promise<ValidateChaosReport> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'engy-vchaos-'));
  const { hot, walletPath, dev } = await startValidatorRig(join(dir, 'wallets'));
  const chainPort = Number(new URL(dev.url).port);
  let rpc: RpcServer | null = null;
  const blocks = setInterval(() => dev.produceBlock(), 100);
  const provider = await startProviderDouble();
  provider.publish(4, [
    [MINER_A, 1],
    [MINER_B, 3],
  ]);
  const dataDir = join(dir, 'data');
  const statePath = join(dataDir, 'validator', 'state.json');
  const faults = { providerOutages: 0, chainDrops: 0, chainDown: 0 };
  const child = spawnLogged(
    [
      join(ROOT, 'bin/engy-panel.mjs'),
      'validate',
      '--wallet',
      'val',
      '--hotkey',
      'hk',
      '--wallet-path',
      walletPath,
      '--chain',
      dev.url,
      '--api',
      provider.url,
      '--master',
      provider.masterHotkey,
      '--poll-s',
      '1',
      '--resubmit-blocks',
      '25',
      '--data-dir',
      dataDir,
    ],
    { PATH: process.env.PATH, HOME: dir },
  );
  const { proc, alive, count, log: ctx } = child;
  const ticks = () => count(/\[tick\] /g);
  /** Waits for `n` more completed ticks (each tick logs one `[tick]` line). */
  const moreTicks = async (n: number, what: string) => {
    const from = ticks();
    await waitUntil(() => ticks() >= from + n || !alive(), 30_000, what, ctx);
    if (!alive()) throw new Error(`the validator died during ${what}:\n${ctx()}`);
  };
  try {
    // The first tick loads @polkadot/api and the chain's metadata: slow on a loaded machine.
    await waitUntil(() => readState(statePath).state.lastApplied === 4 || !alive(), 120_000, 'epoch 4 applied', ctx);
    await moreTicks(2, 'steady ticks');
    const rssBefore = rssKiB(proc.pid!);

    // Provider outages, one after another: each is said once, the cached vector carries on, and the
    // provider is said to answer again when it does.
    const lines = (re: RegExp) => count(re);
    const outage = async (what: string, begin: () => Promise<void> | void, end: () => Promise<void> | void) => {
      const down = lines(/\[health\] the provider is unreachable/g);
      const up = lines(/\[health\] the provider answers again/g);
      await begin();
      await waitUntil(() => lines(/\[health\] the provider is unreachable/g) > down || !alive(), 30_000, `the provider outage (${what}) to be noticed`, ctx);
      await moreTicks(1, `a tick during the provider outage (${what})`);
      faults.providerOutages += 1;
      await end();
      await waitUntil(() => lines(/\[health\] the provider answers again/g) > up || !alive(), 30_000, `the provider to answer again after ${what}`, ctx);
    };
    for (const mode of ['outage-503', 'reset', 'garbage'] as const) {
      await outage(
        mode,
        () => void (provider.mode = mode),
        () => void (provider.mode = 'ok'),
      );
    }
    await outage(
      'refused connections',
      () => provider.refuse(),
      () => provider.resume(),
    );

    // The chain's RPC server down when a new epoch needs it: ticks say the chain is unreachable, and
    // once the server is back on its port (the same chain behind it) the epoch lands exactly once.
    {
      const down = lines(/\[health\] the chain is unreachable/g);
      await dev.close();
      provider.publish(5, [
        [MINER_A, 2],
        [MINER_B, 2],
      ]);
      await waitUntil(() => lines(/\[health\] the chain is unreachable/g) > down || !alive(), 60_000, 'the chain outage to be noticed', ctx);
      faults.chainDown += 1;
      rpc = await startRpcServer(dev.chain, chainPort);
      await waitUntil(() => readState(statePath).state.lastApplied === 5 || !alive(), 60_000, 'epoch 5 applied after the chain came back', ctx);
    }
    // Chain connections dropped while the next epoch is being submitted.
    {
      provider.publish(6, [
        [MINER_A, 3],
        [MINER_B, 1],
      ]);
      const landed = () => readState(statePath).state.lastApplied === 6;
      for (let i = 0; i < 3 && !landed(); i++) {
        rpc.dropConnections();
        faults.chainDrops += 1;
        await new Promise((r) => setTimeout(r, 300));
      }
      await waitUntil(() => landed() || !alive(), 60_000, 'epoch 6 applied through dropped connections', ctx);
    }
    await moreTicks(2, 'steady ticks after the storm');
    const rssAfter = rssKiB(proc.pid!);
    proc.kill('SIGTERM');
    const exitCode = await child.exited;

    const db = new Database(dataPaths(dataDir).database);
    let submissions: SubmissionRecord[];
    let tickRows: TickRecord[];
    try {
      const h = new SqliteValidatorHistory(db);
      submissions = h.recentSubmissions(1000);
      tickRows = h.recentTicks(5000);
    } finally {
      db.close();
    }
    const acceptedWeightSets = dev.state.applied.filter((a) => a.method === 'set_weights' && a.signer === hot.address && a.error === null).length;
    return {
      faults,
      rssBeforeKiB: rssBefore,
      rssAfterKiB: rssAfter,
      lastApplied: readState(statePath).state.lastApplied,
      submissions,
      ticks: tickRows,
      acceptedWeightSets,
      exitCode,
      log: ctx(),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    clearInterval(blocks);
    if (alive()) proc.kill('SIGKILL');
    await rpc?.close();
    await dev.close().catch(() => undefined);
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
