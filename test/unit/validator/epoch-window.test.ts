// A master-signed epoch_index far beyond any plausible epoch (2^53-1) must not be applied: once it
// was, every real epoch after it was refused as older. runTick against the in-memory chain and fetch.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../electron/engine/lib/logger.ts';
import { runTick, type TickConfig, type TickDeps } from '../../../electron/engine/validator/tick.ts';
import { MAX_EPOCH_INDEX, MAX_EPOCH_JUMP } from '../../../electron/engine/validator/constants.ts';
import { MemoryChain } from '../../doubles/memory-chain.ts';
import { DEV_MASTER_URI, devKey, signedPayload } from '../../doubles/provider.ts';

const master = devKey(DEV_MASTER_URI);
const OWNER = devKey('//EngyDevOwner').address;
const A = devKey('//MinerA').address;
const validator = devKey('//EngyDevValidator');

interface Rig {
  chain: MemoryChain;
  cfg: TickConfig;
  logs: string[];
  urls: string[];
  /** What the in-memory provider answers next. */
  answer: () => Response;
  nowMs: number;
  tick(): ReturnType<typeof runTick>;
  state(): Record<string, unknown>;
}

function rig(): Rig {
  const chain = new MemoryChain({ ownerHotkey: OWNER, block: 10_000 });
  chain.register(OWNER, { permit: true });
  chain.register(validator.address, { permit: true, stake: 5_000_000_000n });
  chain.register(A);
  const dir = mkdtempSync(join(tmpdir(), 'engy-vtick-up-'));
  const logs: string[] = [];
  const mk = (level: string) => (m: string) => void logs.push(`${level} ${m}`);
  const logger: Logger = { debug: mk('debug'), info: mk('info'), warn: mk('warn'), error: mk('error'), child: () => logger };
  const r: Rig = {
    chain,
    cfg: { providerUrl: 'https://engy.example/', masterHotkey: master.address, netuid: 53, statePath: join(dir, 'state.json'), resubmitBlocks: 120 },
    logs,
    urls: [],
    answer: () => json(signedPayload({ epochIndex: 12, weights: [[A, 65535]] })),
    nowMs: 1_790_000_000_000,
    tick() {
      const deps: TickDeps = {
        openChain: () => chain.open(),
        signer: validator,
        now: () => r.nowMs,
        logger,
        fetch: (async (url: string | URL | Request) => {
          r.urls.push(String(url));
          return r.answer();
        }) as typeof fetch,
        sleep: async () => {},
      };
      return runTick(r.cfg, deps);
    },
    state: () => JSON.parse(readFileSync(r.cfg.statePath, 'utf8')) as Record<string, unknown>,
  };
  return r;
}

const json = (v: unknown, init: ResponseInit = {}) => new Response(JSON.stringify(v), { status: 200, headers: { 'content-type': 'application/json' }, ...init });

/** Move the chain and the wall clock together (12 s a block). */
function advance(r: Rig, blocks: number): void {
  r.chain.block += blocks;
  r.nowMs += blocks * 12_000;
}

/** An ordinary window: the double dates epochs from their index, which an absurd index cannot be. */
const WINDOW = { startMs: Date.UTC(2026, 11, 1), endMs: Date.UTC(2026, 11, 2) };

describe('the epoch window', () => {
  it('refuses an epoch absurdly far past the applied one, and keeps applying the real next epoch', async () => {
    const r = rig();
    expect((await r.tick()).tick.outcome).toBe('applied');
    expect(r.state().last_applied).toBe(12);

    r.answer = () => json(signedPayload({ epochIndex: Number.MAX_SAFE_INTEGER, weights: [[A, 65535]], window: WINDOW }));
    advance(r, 10);
    const absurd = await r.tick();
    // With a vector cached the tick carries on with it (as for any refused payload): never the absurd epoch.
    expect(absurd.verified).toBeNull();
    expect(absurd.tick.outcome).not.toBe('applied');
    expect(r.state().last_applied).toBe(12);
    expect(r.logs.some((l) => l.includes(`epoch ${Number.MAX_SAFE_INTEGER} is implausibly far past the applied epoch 12`))).toBe(true);

    r.answer = () => json(signedPayload({ epochIndex: 12 + MAX_EPOCH_JUMP + 1, weights: [[A, 65535]], window: WINDOW }));
    advance(r, 10);
    expect((await r.tick()).verified).toBeNull();
    expect(r.logs.filter((l) => l.startsWith('warn') && l.includes('implausibly far past the applied epoch 12'))).toHaveLength(2);

    r.answer = () => json(signedPayload({ epochIndex: 13, weights: [[A, 65535]] }));
    advance(r, 150); // past the chain's weights rate limit
    expect((await r.tick()).tick.outcome).toBe('applied');
    expect(r.state().last_applied).toBe(13);
  });

  it('refuses an absurd epoch on a first start too (nothing applied yet)', async () => {
    const r = rig();
    r.answer = () => json(signedPayload({ epochIndex: MAX_EPOCH_INDEX + 1, weights: [[A, 65535]], window: WINDOW }));
    const t = await r.tick();
    expect(t.tick.outcome, t.tick.detail).toBe('rejected:implausible-epoch');
    r.answer = () => json(signedPayload({ epochIndex: 7, weights: [[A, 65535]] }));
    expect((await r.tick()).tick.outcome).toBe('applied');
  });
});
