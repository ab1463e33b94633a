// Upstream's newer tests/test_chain_client.py (after v0.4.4): no chain connection may leak across
// ticks, whatever fails. This engine opens a connection only for a tick that needs the chain and
// closes it at the end of that tick (see docs/validator.md, the table); these tests hold it to that.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChainPort } from '../../../electron/engine/chain/ports.ts';
import type { Clock } from '../../../electron/engine/lib/clock.ts';
import type { Logger } from '../../../electron/engine/lib/logger.ts';
import { MemoryValidatorHistory } from '../../../electron/engine/validator/history.ts';
import { ValidatorService } from '../../../electron/engine/validator/validator-service.ts';
import { MemoryChain } from '../../doubles/memory-chain.ts';
import { DEV_MASTER_URI, devKey, signedPayload } from '../../doubles/provider.ts';

const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };
const A = devKey('//MinerA').address;
const validator = devKey('//EngyDevValidator');

describe('chain connections (upstream test_chain_client.py)', () => {
  it('every connection a tick opened is closed by the end of the tick: applied, skipped, refused, failed mid-read', async () => {
    const chain = new MemoryChain({ block: 10_000 });
    chain.register(validator.address, { permit: true });
    chain.register(A);
    let handedOut = 0;
    const openChain = async (): Promise<ChainPort> => {
      const port = await chain.open();
      handedOut++;
      return port;
    };
    let now = 1_790_000_000_000;
    const clock: Clock = { now: () => now, setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };
    const payload = signedPayload({ epochIndex: 3, weights: [[A, 1]] });
    const svc = new ValidatorService({
      config: {
        providerUrl: 'https://engy.example',
        masterHotkey: devKey(DEV_MASTER_URI).address,
        netuid: 53,
        statePath: join(mkdtempSync(join(tmpdir(), 'engy-vconn-')), 'state.json'),
        resubmitBlocks: 120,
      },
      signer: validator,
      openChain,
      history: new MemoryValidatorHistory(),
      logger: silent,
      pollMs: 300_000,
      version: 'test',
      clock,
      heartbeat: false,
      fetch: (async () => new Response(JSON.stringify(payload), { status: 200 })) as typeof fetch,
    });
    const step = async (blocks: number) => {
      chain.block += blocks;
      now += blocks * 12_000;
      const r = await svc.runOnce();
      expect(chain.closes, r.tick.outcome).toBe(handedOut);
      return r.tick.outcome;
    };
    expect(await step(0)).toBe('applied');
    expect(await step(10)).toBe('skipped:too-soon'); // pre-gate: nothing opened
    expect(await step(90)).toBe('skipped:too-soon'); // opened, read the block, closed
    chain.rejectNext = { ok: false, kind: 'dispatch', code: 'NeuronNoValidatorPermit', message: 'no permit' };
    expect(await step(30)).toBe('submit-failed');
    // The node accepts the connection and then fails every read (the 429 outage): closed all the same.
    const failing = chain.subnetFacts.bind(chain);
    chain.subnetFacts = async () => {
      throw new Error('server rejected WebSocket connection: HTTP 429');
    };
    expect(await step(5)).toBe('chain-failed');
    chain.subnetFacts = failing;
    // A connection that cannot be made at all holds nothing.
    chain.down = true;
    expect(await step(5)).toBe('chain-failed');
    chain.down = false;
    expect(await step(5)).toBe('resubmitted');
    expect(handedOut).toBeGreaterThanOrEqual(5);
    await svc.dispose();
    expect(chain.closes).toBe(handedOut);
  });
});
