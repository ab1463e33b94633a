// Shared set-up for the validator loop tests: the provider double on a real socket, the memory chain,
// a temp state file, a controllable wall clock (real timers) and a log capture.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { PolkadotChainClient } from '../../../electron/engine/chain/polkadot-chain-client.ts';
import type { Clock } from '../../../electron/engine/lib/clock.ts';
import type { Logger } from '../../../electron/engine/lib/logger.ts';
import { MemoryValidatorHistory, type ValidatorHistory } from '../../../electron/engine/validator/history.ts';
import { ValidatorService, type ValidatorServiceOptions } from '../../../electron/engine/validator/validator-service.ts';
import type { DevChainSeed, SeedSubnet } from '../../doubles/dev-chain/index.ts';
import { MemoryChain } from '../../doubles/memory-chain.ts';
import { devKey, startProviderDouble, type DevKey, type ProviderDouble } from '../../doubles/provider.ts';

export const OWNER = devKey('//EngyDevOwner');
export const MINER_A = devKey('//MinerA').address;
export const MINER_B = devKey('//MinerB').address;
export const MINER_C = devKey('//MinerC').address;
export const STRANGER = devKey('//NotRegistered').address;

/** Subnet 53 on the dev chain: the owner, the validator's hotkey (funded, staked, permit unless told) and two miners. */
export function validatorSeed(hot: string, subnet: Partial<SeedSubnet> = {}, o: { permit?: boolean } = {}): DevChainSeed {
  return {
    balances: { [hot]: '1000000000' },
    subnets: [
      {
        netuid: 53,
        weightsRateLimit: 5,
        ownerHotkey: OWNER.address,
        neurons: [{ hotkey: OWNER.address, validatorPermit: true }, { hotkey: hot, validatorPermit: o.permit ?? true, stakeRao: '1000000000000' }, { hotkey: MINER_A }, { hotkey: MINER_B }],
        ...subnet,
      },
    ],
  };
}

export interface Harness {
  provider: ProviderDouble;
  chain: MemoryChain;
  validator: DevKey;
  svc: ValidatorService;
  statePath: string;
  dir: string;
  logs: string[];
  history: ValidatorHistory;
  now(): number;
  /** Move the chain and the wall clock forward together (12 s a block). */
  advance(blocks: number): void;
  /** Move only the wall clock. */
  advanceMs(ms: number): void;
  stateJson(): Record<string, unknown> | null;
  close(): Promise<void>;
}

export function captureLogger(lines: string[]): Logger {
  const mk = (level: string) => (msg: string) => {
    lines.push(`${level} ${msg}`);
  };
  const l: Logger = { debug: mk('debug'), info: mk('info'), warn: mk('warn'), error: mk('error'), child: () => l };
  return l;
}

export async function makeHarness(over: Partial<ValidatorServiceOptions> & { resubmitBlocks?: number } = {}): Promise<Harness> {
  const provider = await startProviderDouble();
  const chain = new MemoryChain({ ownerHotkey: OWNER.address, block: 10_000 });
  const validator = devKey('//EngyDevValidator');
  chain.register(OWNER.address, { permit: true });
  chain.register(validator.address, { permit: true, stake: 5_000_000_000n });
  chain.register(MINER_A);
  chain.register(MINER_B);
  chain.register(MINER_C);
  const dir = mkdtempSync(join(tmpdir(), 'engy-validator-'));
  const statePath = join(dir, 'state.json');
  let now = 1_790_000_000_000;
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
  const logs: string[] = [];
  const history = over.history ?? new MemoryValidatorHistory();
  let closed = false;
  const svc = new ValidatorService({
    config: { providerUrl: provider.url, masterHotkey: provider.masterHotkey, netuid: 53, statePath, resubmitBlocks: over.resubmitBlocks ?? 120, fetchTimeoutMs: 5_000 },
    signer: validator,
    openChain: () => chain.open(),
    history,
    logger: captureLogger(logs),
    pollMs: 300_000,
    version: 'engy-panel test',
    clock,
    ...over,
  });
  return {
    provider,
    chain,
    validator,
    svc,
    statePath,
    dir,
    logs,
    history,
    now: () => now,
    advance(blocks) {
      chain.block += blocks;
      now += blocks * 12_000;
    },
    advanceMs(ms) {
      now += ms;
    },
    stateJson() {
      try {
        return JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, unknown>;
      } catch {
        return null;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await svc.dispose();
      await provider.close();
    },
  };
}

/** `makeHarness` for a suite: every harness a test makes is closed after that test, whatever happened. */
export function harnessPerTest(): typeof makeHarness {
  const open: Harness[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });
  return async (over) => {
    const h = await makeHarness(over);
    open.push(h);
    return h;
  };
}

/** A ValidatorService on the real @polkadot/api client against a dev chain URL (no heartbeat, 5-min poll). */
export function devChainService(o: { url: string; provider: ProviderDouble; signer: DevKey; statePath: string; logs: string[]; resubmitBlocks?: number }): ValidatorService {
  return new ValidatorService({
    config: { providerUrl: o.provider.url, masterHotkey: o.provider.masterHotkey, netuid: 53, statePath: o.statePath, resubmitBlocks: o.resubmitBlocks ?? 25 },
    signer: o.signer,
    openChain: () => PolkadotChainClient.connect({ endpoint: o.url }),
    history: new MemoryValidatorHistory(),
    logger: captureLogger(o.logs),
    pollMs: 300_000,
    version: 'engy-panel test',
    heartbeat: false,
  });
}
