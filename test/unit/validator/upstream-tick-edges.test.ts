// Upstream's tests/test_validator.py and test_sync.py cases at the tick level that had no counterpart
// here (see docs/validator.md, the table): runTick against the in-memory chain and an in-memory fetch.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../../electron/engine/lib/logger.ts';
import { runTick, type TickConfig, type TickDeps } from '../../../electron/engine/validator/tick.ts';
import { pregateBlockMs, type BlockTime } from '../../../electron/engine/validator/schedule.ts';
import { MAX_PAYLOAD_BYTES } from '../../../electron/engine/validator/constants.ts';
import { MemoryChain } from '../../doubles/memory-chain.ts';
import { DEV_MASTER_URI, devKey, signedPayload } from '../../doubles/provider.ts';

const master = devKey(DEV_MASTER_URI);
const OWNER = devKey('//EngyDevOwner').address;
const A = devKey('//MinerA').address;
const GHOST = devKey('//NotRegistered').address;
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

/** A tick's deps in a process that has measured nothing yet (a restart): no pre-gate, so the tick reaches the chain. */
function freshDeps(r: Rig, openChain: TickDeps['openChain'] = () => r.chain.open(), blockTime: BlockTime = { ms: null, unreadable: false }): TickDeps {
  return { openChain, signer: validator, now: () => r.nowMs, logger: silentLogger, fetch: (async () => r.answer()) as typeof fetch, blockTime, sleep: async () => {} };
}

describe('tick edges (upstream test_validator.py / test_sync.py)', () => {
  it('fetches the v1 route of the configured provider', async () => {
    const r = rig();
    expect((await r.tick()).tick.outcome).toBe('applied');
    expect(r.urls).toEqual(['https://engy.example/api/subnet/v1/epoch/latest']);
  });

  it('a new epoch records every state field', async () => {
    const r = rig();
    const p = signedPayload({ epochIndex: 12, weights: [[A, 65535]] });
    r.answer = () => json(p);
    expect((await r.tick()).tick.outcome).toBe('applied');
    expect(r.state()).toEqual({
      last_applied: 12,
      last_submit_block: 10_000,
      last_submit_ts: r.nowMs / 1000,
      last_submit_ms: r.nowMs,
      cached_weights: [[A, 65535]],
      cached_digest: p.digest,
    });
  });

  it('a non-object response (a list, a string, a number, null) is refused, never thrown', async () => {
    for (const body of [[1, 2, 3], 'nope', 5, null]) {
      const r = rig();
      r.answer = () => json(body);
      const rep = await r.tick();
      expect(rep.tick.outcome, JSON.stringify(body)).toBe('rejected:malformed');
      expect(r.chain.submissions).toEqual([]);
    }
  });

  it('an oversized response is a fetch failure, whether announced or streamed', async () => {
    const big = 'x'.repeat(MAX_PAYLOAD_BYTES + 10);
    for (const answer of [() => new Response(`"${big}"`, { status: 200 }), () => new Response(new Blob([`"${big}"`]).stream(), { status: 200 })]) {
      const r = rig();
      r.answer = answer;
      const rep = await r.tick();
      expect(rep.tick.outcome).toBe('fetch-failed');
      expect(rep.provider.error).toMatch(/byte cap/);
      expect(r.chain.opens).toBe(0);
    }
  });

  it('a 404 (no epoch result published yet) is a fetch failure from a provider that was reached, not an outage', async () => {
    const r = rig();
    r.answer = () => new Response('{"detail":"Not Found"}', { status: 404 });
    const rep = await r.tick();
    expect(rep.tick).toMatchObject({ outcome: 'fetch-failed', detail: expect.stringMatching(/^the provider has not published an epoch result yet \(provider answered HTTP 404\)/) });
    expect(rep.provider).toEqual({ ok: true, error: null });
    r.answer = () => new Response('busy', { status: 503 });
    expect((await r.tick()).provider).toEqual({ ok: false, error: 'provider answered HTTP 503' });
    expect(r.chain.submissions).toEqual([]);
  });

  it('an HTTP error and a body that is not JSON are contained as fetch failures', async () => {
    const r = rig();
    r.answer = () => new Response('busy', { status: 503 });
    expect((await r.tick()).tick.outcome).toBe('fetch-failed');
    r.answer = () => new Response('<html>', { status: 200 });
    expect((await r.tick()).tick).toMatchObject({ outcome: 'fetch-failed', detail: expect.stringMatching(/not JSON/) });
    r.answer = () => {
      throw new TypeError('fetch failed');
    };
    expect((await r.tick()).tick.outcome).toBe('fetch-failed');
    // No payload and no cache: nothing to submit, so the chain is not even opened.
    expect(r.chain.opens).toBe(0);
  });

  it('an unreachable chain is contained and leaves the state file alone', async () => {
    const r = rig();
    await r.tick();
    const before = readFileSync(r.cfg.statePath, 'utf8');
    r.answer = () => json(signedPayload({ epochIndex: 13, weights: [[A, 1]] }));
    r.chain.down = true;
    const rep = await r.tick();
    expect(rep.tick.outcome).toBe('chain-failed');
    expect(rep.tick.detail).toMatch(/cannot reach the chain/);
    expect(readFileSync(r.cfg.statePath, 'utf8')).toBe(before);
  });

  it('a failed resubmit is retried on the next poll, not a full interval later', async () => {
    const r = rig();
    await r.tick();
    advance(r, 120);
    r.chain.rejectNext = { ok: false, kind: 'dispatch', code: 'NeuronNoValidatorPermit', message: 'no permit' };
    expect((await r.tick()).tick.outcome).toBe('submit-failed');
    expect(r.state()).toMatchObject({ last_submit_block: 10_000 });
    advance(r, 25); // one 300 s poll later
    const again = await r.tick();
    expect(again.tick.outcome).toBe('resubmitted');
    expect(r.state()).toMatchObject({ last_submit_block: 10_145 });
  });

  it('an unregistered hotkey is dropped and logged, the rest still lands', async () => {
    const r = rig();
    r.answer = () =>
      json(
        signedPayload({
          epochIndex: 12,
          weights: [
            [A, 3],
            [GHOST, 1],
          ],
        }),
      );
    const rep = await r.tick();
    expect(rep.tick.outcome).toBe('applied');
    expect(r.chain.landed()[0]).toMatchObject({ uids: [r.chain.uids.get(A)], weights: [65535] });
    expect(r.logs.join('\n')).toMatch(new RegExp(`1 payload hotkey\\(s\\) not registered on chain, holding 25\\.0% of the weight: dropped ${GHOST}`));
  });

  it('an epoch rollover is no special window: the next epoch goes as soon as it is served', async () => {
    const r = rig();
    await r.tick();
    advance(r, 1);
    r.answer = () => json(signedPayload({ epochIndex: 13, weights: [[A, 1]] }));
    // One block after the last submission: only the chain's rate limit stands in the way, and it says so.
    const rep = await r.tick();
    expect(rep.tick.outcome).toBe('submit-failed');
    expect(rep.tick.detail).toMatch(/Custom:6/);
    advance(r, 100);
    expect((await r.tick()).tick).toMatchObject({ outcome: 'applied', epochIndex: 13 });
    // However much wall-clock time passes, the same payload simply resubmits on its block cadence.
    advance(r, 120);
    r.nowMs += 30 * 86_400_000;
    expect((await r.tick()).tick).toMatchObject({ outcome: 'resubmitted', epochIndex: 13 });
  });

  it('every outcome says something, and a skipped tick says when it will act', async () => {
    const r = rig();
    const seen = new Map<string, string>();
    const note = async () => {
      const rep = await r.tick();
      seen.set(rep.tick.outcome, rep.tick.detail);
    };
    await note(); // applied
    advance(r, 10);
    await note(); // skipped:too-soon
    r.answer = () => new Response('', { status: 503 });
    advance(r, 120);
    await note(); // resubmitted:cached
    r.chain.down = true;
    r.answer = () => json(signedPayload({ epochIndex: 14, weights: [[A, 1]] }));
    await note(); // chain-failed
    expect([...seen.keys()].sort()).toEqual(['applied', 'chain-failed', 'resubmitted:cached', 'skipped:too-soon']);
    for (const [k, d] of seen) expect(d.length, k).toBeGreaterThan(10);
    expect(seen.get('skipped:too-soon')).toMatch(/next resubmit in ~\d+ min/);
    expect(seen.get('applied')).toMatch(/next resubmit in 120 blocks \(~24 min\)/);
  });

  it('a corrupt cached vector in the state file is dropped with a warning and never reaches the chain', async () => {
    const r = rig();
    writeFileSync(r.cfg.statePath, JSON.stringify({ last_applied: 12, last_submit_block: 9_999, cached_weights: [['__proto__', 70_000]] }));
    r.answer = () => new Response('', { status: 503 });
    const rep = await r.tick();
    expect(rep.tick.outcome).toBe('fetch-failed');
    expect(rep.warnings.join(' ')).toMatch(/cached_weights/);
    expect(r.chain.submissions).toEqual([]);
  });
});

describe('block numbers and burn warnings (upstream test_chain.py / test_validator.py)', () => {
  it('only a positive safe integer counts as a block number; anything else falls back to the wall clock', async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, true, '10200', null]) {
      const r = rig();
      await r.tick();
      advance(r, 50); // 10 min: the blocks (if believed) would say due below, the clock says not yet
      r.chain.block = 10_200;
      const port = await r.chain.open();
      const lying = Object.create(port) as typeof port;
      lying.blockNumber = async () => bad as unknown as number;
      const rep = await runTick(
        r.cfg,
        freshDeps(r, async () => lying),
      );
      expect(rep.tick.outcome, String(bad)).toBe('skipped:too-soon');
      expect(rep.chain.block, String(bad)).toBeNull();
    }
  });

  it('a burn to the owner and a real distribution are not flagged; a sole recipient elsewhere is, and still goes', async () => {
    const r = rig();
    r.answer = () =>
      json(
        signedPayload({
          epochIndex: 12,
          weights: [
            [OWNER, 65535],
            [A, 0],
          ],
        }),
      );
    const burn = await r.tick();
    expect(burn.tick.outcome).toBe('applied');
    expect(burn.warnings).toEqual([]);
    advance(r, 120);
    r.answer = () =>
      json(
        signedPayload({
          epochIndex: 13,
          weights: [
            [OWNER, 1],
            [A, 1],
          ],
        }),
      );
    expect((await r.tick()).warnings).toEqual([]);
    advance(r, 120);
    r.answer = () => json(signedPayload({ epochIndex: 14, weights: [[A, 65535]] }));
    const odd = await r.tick();
    expect(odd.tick.outcome).toBe('applied');
    expect(odd.warnings.join(' ')).toMatch(new RegExp(`all its weight to ${A}, not the subnet owner ${OWNER}`));
    expect(r.logs.join('\n')).not.toMatch(new RegExp(`all its weight to ${OWNER}`));
  });
});

describe('what a skipped tick says (upstream test_validator.py)', () => {
  it('names the epoch and the blocks still to wait when the chain says not yet', async () => {
    const r = rig();
    await r.tick();
    advance(r, 100); // past the pre-gate (80%), 20 blocks short of the interval
    const rep = await r.tick();
    expect(rep.tick.outcome).toBe('skipped:too-soon');
    expect(rep.tick.detail).toMatch(/^epoch 12 already submitted at block 10000; next resubmit in 20 blocks \(~4 min\)$/);
    expect(r.chain.submissions).toHaveLength(1);
  });
});

describe('standby edges (upstream test_validator.py)', () => {
  it('a standby submission anchors the resubmit interval like any other', async () => {
    const r = rig();
    r.answer = () => json(signedPayload({ epochIndex: 12, weights: [[GHOST, 65535]] }));
    expect((await r.tick()).tick.outcome).toBe('standby:burn');
    expect(r.state()).toMatchObject({ last_applied: 12, last_submit_block: 10_000, cached_weights: null });
    advance(r, 100);
    expect((await r.tick()).tick.outcome).toBe('skipped:too-soon');
    advance(r, 20);
    expect((await r.tick()).tick.outcome).toBe('standby:burn');
    expect(r.chain.landed().map((s) => s.block)).toEqual([10_000, 10_120]);
  });

  it('a vector that lands nothing with no owner registered names the dropped hotkeys and the owner', async () => {
    const r = rig();
    r.chain.replace(OWNER, 'someone-else');
    r.answer = () => json(signedPayload({ epochIndex: 12, weights: [[GHOST, 65535]] }));
    const rep = await r.tick();
    expect(rep.tick.outcome).toBe('submit-failed');
    expect(rep.tick.detail).toContain(`the owner hotkey ${OWNER} is not registered`);
    expect(r.logs.join('\n')).toContain(`dropped ${GHOST}`);
    expect(r.chain.submissions).toEqual([]);
  });
});

describe('the resubmit interval counts from the chain (issue 32 item 9)', () => {
  /** A tick from a process that has measured nothing yet (a restart): no pre-gate. */
  const freshTick = (r: Rig) => runTick(r.cfg, freshDeps(r));
  const myUid = async (r: Rig) => (await (await r.chain.open()).neuron(53, validator.address)).uid!;

  it("never resubmits sooner than the interval after the previous inclusion, restart included: the chain's LastUpdate for this uid", async () => {
    const r = rig();
    expect((await r.tick()).tick.outcome).toBe('applied');
    expect(r.state()).toMatchObject({ last_submit_block: 10_000 });
    // The extrinsic was included two blocks after the block the tick read (a slow pool).
    r.chain.lastUpdate.set(await myUid(r), 10_002);
    advance(r, 120);
    const early = await freshTick(r);
    expect(early.tick.outcome).toBe('skipped:too-soon');
    expect(early.tick.detail).toMatch(/already submitted at block 10002; next resubmit in 2 blocks/);
    advance(r, 2);
    expect((await freshTick(r)).tick.outcome).toBe('resubmitted');
    expect(r.chain.landed().map((s) => s.block)).toEqual([10_000, 10_122]);
  });

  it('a block below the last inclusion (a reorganised chain, a lagging node) waits instead of submitting', async () => {
    const r = rig();
    await r.tick();
    r.chain.block = 9_990;
    r.nowMs += 3_600_000; // the wall clock says long overdue: the blocks decide
    const rep = await freshTick(r);
    expect(rep.tick.outcome).toBe('skipped:too-soon');
    expect(rep.tick.detail).toMatch(/next resubmit in 130 blocks/);
    expect(r.chain.submissions).toHaveLength(1);
  });

  it('a reset chain, where this uid never set weights (LastUpdate 0), is resubmitted to at once', async () => {
    const r = rig();
    await r.tick();
    r.chain.lastUpdate.set(await myUid(r), 0);
    r.chain.block = 50;
    r.nowMs += 60_000;
    expect((await freshTick(r)).tick.outcome).toBe('resubmitted');
    expect(r.chain.landed().map((s) => s.block)).toEqual([10_000, 50]);
  });

  it('a block time the chain could not tell this time is read again on the next contact, not assumed to be 12 s', async () => {
    const r = rig();
    const port = await r.chain.open();
    let answer: number | null = null;
    const young = Object.assign(Object.create(port) as typeof port, { blockTimeMs: async () => answer });
    const deps = (blockTime: BlockTime): TickDeps => freshDeps(r, async () => young, blockTime);
    const first = await runTick(r.cfg, deps({ ms: null, unreadable: false }));
    expect(first.blockMs).toBe('unreadable');
    // One minute later: a 12 s guess would skip for 19 minutes; unmeasured, the tick goes to the chain.
    r.nowMs += 60_000;
    answer = 1_000; // (1 s blocks: the resubmission is 2 minutes away, nothing to wait for inside the tick)
    const second = await runTick(r.cfg, deps({ ms: null, unreadable: false }));
    expect(second.chain.contacted).toBe(true);
    expect(second.blockMs).toBe(1_000);
    // A port that offers no block time at all keeps the nominal 12 s for the pre-gate.
    expect(pregateBlockMs({ ms: null, unreadable: true })).toBe(12_000);
    expect(pregateBlockMs({ ms: null, unreadable: false })).toBeNull();
    const noOffer = Object.create(port) as typeof port;
    Object.defineProperty(noOffer, 'blockTimeMs', { value: undefined });
    r.nowMs += 60_000;
    const rep = await runTick(r.cfg, { ...deps({ ms: null, unreadable: false }), openChain: async () => noOffer });
    expect(rep.blockMs).toBe('not-offered');
  });
});
