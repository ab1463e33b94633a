import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { RuntimeVersion } from '@polkadot/types/interfaces';
import type { SignerPayloadJSON } from '@polkadot/types/types';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { AppFailure } from '../../../shared/errors.ts';
import { keySignerFromPair } from '../../../electron/engine/chain/key-signer.ts';
import { MODULE_ERROR_TEXT, POOL_CUSTOM_TEXT } from '../../../electron/engine/chain/chain-errors.ts';
import { PolkadotChainClient } from '../../../electron/engine/chain/polkadot-chain-client.ts';
import { startDevChain, type RunningDevChain } from '../../doubles/dev-chain/index.ts';
import { devKeys, sn53Seed, SN53, TAO, type DevKeys } from '../../doubles/dev-chain/sn53-seed.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { Metadata, TypeRegistry } = polkadot('@polkadot/types');
const { blake2AsU8a, signatureVerify } = polkadot('@polkadot/util-crypto');

let dev: RunningDevChain;
let client: PolkadotChainClient;
let keys: DevKeys;

beforeAll(async () => {
  keys = await devKeys();
  dev = await startDevChain({ port: 0, blockMs: 40, startBlocks: 3, seed: sn53Seed(keys, { weightsRateLimit: 10_000 }) });
  client = await PolkadotChainClient.connect({ endpoint: dev.url, connectTimeoutMs: 10_000, submitTimeoutMs: 10_000, reconnectMs: 200 });
});

afterAll(async () => {
  await client?.close();
  await dev?.close();
});

describe('PolkadotChainClient reads against the dev chain', () => {
  it('reads the subnet facts with the derived quantities', async () => {
    const f = await client.subnetFacts(SN53);
    expect(f).toMatchObject({
      netuid: 53,
      tempo: 360,
      weightsRateLimit: 10_000,
      // floor(13889 * 360 / 1000): the spec-424 effective cutoff.
      activityCutoff: 5000,
      commitRevealEnabled: false,
      weightsVersionKey: 0n,
      ownerHotkey: keys.owner.address,
      burnRao: TAO,
      subnetworkN: 5,
      stakeThresholdRao: 0n,
      minAllowedWeights: 1,
    });
    expect(f.block).toBeGreaterThanOrEqual(3);
    const s = dev.state.subnet(SN53);
    expect(f.nextEpochBlock).toBe((s?.lastEpochBlock ?? -1) + 360);
    expect((await client.subnetFacts(7)).commitRevealEnabled).toBe(true);
  });

  it('says when the subnet does not exist', async () => {
    await expect(client.subnetFacts(99)).rejects.toMatchObject({ code: 'not-found' });
  });

  it('reads a neuron: uid, permit, stake, last update, immunity left', async () => {
    const n = await client.neuron(SN53, keys.noPermit.address);
    expect(n).toMatchObject({ hotkey: keys.noPermit.address, uid: 2, validatorPermit: false, lastUpdate: 0, stakeRao: 5n * TAO });
    // Seeded neurons register at the dev chain's first block; the default ImmunityPeriod is 4096 blocks.
    const block = await client.blockNumber();
    expect(n.immunityBlocksLeft).toBeGreaterThan(4096 - block - 5);
    expect(n.immunityBlocksLeft).toBeLessThanOrEqual(4096);
    const v = await client.neuron(SN53, keys.validator.address);
    expect(v).toMatchObject({ uid: 1, validatorPermit: true, stakeRao: 1000n * TAO });
    expect(await client.neuron(SN53, keys.stranger.address)).toMatchObject({ uid: null, validatorPermit: false, lastUpdate: null, stakeRao: 0n });
  });

  it('reads the metagraph (hotkeys by uid) and the hotkey -> uid map', async () => {
    const m = await client.hotkeyUids(SN53);
    expect(m.get(keys.miners[1].address)).toBe(4);
    expect(m.get(keys.owner.address)).toBe(0);
    const g = await client.metagraph(SN53);
    expect(g.hotkeys.length).toBeGreaterThanOrEqual(5);
    expect(g.hotkeys[3]).toBe(keys.miners[0].address);
    expect(g.validatorPermit.slice(0, 3)).toEqual([false, true, false]);
  });

  it('follows new blocks until unsubscribed', async () => {
    const seen: number[] = [];
    let sub: { dispose(): void | Promise<void> } | undefined;
    await new Promise<void>((resolve) => {
      void client
        .subscribeNewBlocks((n) => {
          seen.push(n);
          if (seen.length === 3) resolve();
        })
        .then((s) => (sub = s));
    });
    await sub?.dispose();
    expect(seen[1]).toBe((seen[0] ?? -1) + 1);
    expect(seen[2]).toBe((seen[0] ?? -1) + 2);
  });

  it('reads balances and earnings', async () => {
    expect(await client.freeBalance(keys.poorColdkey.address)).toBe(TAO / 100n);
    expect(await client.freeBalance(keys.stranger.address)).toBe(0n);
    const e = await client.earningsFacts(SN53, 3);
    expect(e.incentive).toBeCloseTo(49151 / 65535, 9);
    expect(e.emissionRao).toBe(2n * TAO);
    expect(e.alphaPriceTao).toBeCloseTo(0.02, 12);
    // 2 alpha per epoch, 20 epochs a day at tempo 360.
    expect(e.alphaPerDay).toBeCloseTo(40, 9);
    expect(e.taoPerDayAtSpot).toBeCloseTo(0.8, 9);
    expect((await client.blockNumber()) >= e.block).toBe(true);
  });

  it('reads the miner pool from the same subnet read: each paid miner uid, validators and unpaid uids left out', async () => {
    const p = await client.minerPool(SN53);
    expect(p).toMatchObject({ netuid: 53, tempo: 360 });
    expect(p.alphaPriceTao).toBeCloseTo(0.02, 12);
    // uid 3: 2 alpha per epoch -> 0.8 TAO a day; uid 4: 0.5 alpha per epoch -> 0.2 TAO a day (20 epochs a day).
    expect(p.minerTaoPerDay).toHaveLength(2);
    expect(p.minerTaoPerDay[0]).toBeCloseTo(0.8, 9);
    expect(p.minerTaoPerDay[1]).toBeCloseTo(0.2, 9);
    expect((await client.blockNumber()) >= p.block).toBe(true);
  });
});

describe('PolkadotChainClient set_weights', () => {
  it('lands: weights and LastUpdate change, and the extrinsic is exactly set_weights(53, uids, weights, 0), validly signed', async () => {
    const before = dev.chain.submitted.length;
    const out = await client.setWeights(keySignerFromPair(keys.validator), SN53, [0, 3, 4], [100, 60000, 5435], 0n);
    expect(out).toMatchObject({ ok: true });
    if (!out.ok) return;
    expect(dev.state.weightsOf(SN53, 1)).toEqual([
      [0, 109],
      [3, 65535],
      [4, 5936],
    ]);
    expect(dev.state.lastUpdateOf(SN53, 1)).toBe(out.blockNumber);
    expect((await client.neuron(SN53, keys.validator.address)).lastUpdate).toBe(out.blockNumber);

    // Decode what went over the wire with a registry of our own, from the fixture metadata.
    const sent = dev.chain.submitted.slice(before);
    expect(sent).toHaveLength(1);
    const registry = new TypeRegistry();
    const metadata = new Metadata(registry, readFileSync(new URL('../../fixtures/chain/finney-metadata.scale', import.meta.url)));
    registry.setMetadata(metadata);
    const ext = registry.createType('Extrinsic', sent[0]?.hex);
    expect(ext.method.section).toBe('subtensorModule');
    expect(ext.method.method).toBe('setWeights');
    expect(ext.method.toJSON()).toEqual({ callIndex: '0x0700', args: { netuid: 53, dests: [0, 3, 4], weights: [100, 60000, 5435], version_key: 0 } });
    expect(ext.signer.toString()).toBe(keys.validator.address);
    // Mortal for 128 blocks, as the SDK sets it (CHAIN.md 3.5, DEFAULT_PERIOD); version_key 0 as the reference sends it.
    expect(ext.era.isMortalEra).toBe(true);
    expect(ext.era.asMortalEra.period.toNumber()).toBe(128);
    // The signing payload, rebuilt from the extrinsic's own fields: era's birth block and genesis from the chain.
    const birth = ext.era.asMortalEra.birth(out.blockNumber - 1);
    const payload = registry.createType(
      'ExtrinsicPayload',
      {
        method: ext.method.toHex(),
        era: ext.era.toHex(),
        nonce: ext.nonce.toNumber(),
        tip: ext.tip.toString(),
        mode: ext.mode.toNumber(),
        specVersion: 424,
        transactionVersion: 1,
        genesisHash: dev.chain.genesisHash,
        blockHash: dev.chain.block(birth)?.hash ?? '0x',
      },
      { version: 4 },
    );
    const bytes = payload.toU8a({ method: true });
    const msg = bytes.length > 256 ? blake2AsU8a(bytes) : bytes;
    expect(signatureVerify(msg, ext.signature, keys.validator.address)).toMatchObject({ isValid: true, crypto: 'sr25519' });
    // And the same check fails for another signer, so it proves something.
    expect(signatureVerify(msg, ext.signature, keys.noPermit.address).isValid).toBe(false);
  });

  it('too fast: the pool refusal maps to the rate-limit sentence', async () => {
    const out = await client.setWeights(keySignerFromPair(keys.validator), SN53, [3], [1], 0n);
    expect(out).toEqual({ ok: false, kind: 'pool', code: 'Custom:6', message: POOL_CUSTOM_TEXT[6]?.message, extrinsicHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  });

  it('no permit: ExtrinsicFailed NeuronNoValidatorPermit, in plain words', async () => {
    const out = await client.setWeights(keySignerFromPair(keys.noPermit), SN53, [3, 4], [1, 1], 0n);
    expect(out).toMatchObject({ ok: false, kind: 'dispatch', code: 'NeuronNoValidatorPermit', message: MODULE_ERROR_TEXT['NeuronNoValidatorPermit'] });
    expect(dev.state.lastUpdateOf(SN53, 2)).toBe(0);
  });

  it('not registered: refused with the register-first sentence', async () => {
    const out = await client.setWeights(keySignerFromPair(keys.stranger), SN53, [3], [1], 0n);
    expect(out).toMatchObject({ ok: false, kind: 'pool', code: 'Custom:19' });
    if (!out.ok) expect(out.message).toMatch(/not registered/);
  });

  it('commit-reveal on: refused without sending anything', async () => {
    const before = dev.chain.submitted.length;
    const out = await client.setWeights(keySignerFromPair(keys.validator), 7, [0], [1], 0n);
    expect(out).toEqual({ ok: false, kind: 'refused', code: 'CommitRevealEnabled', message: MODULE_ERROR_TEXT['CommitRevealEnabled'] });
    expect(dev.chain.submitted.length).toBe(before);
  });

  it('refuses malformed vectors before signing', async () => {
    expect(await client.setWeights(keySignerFromPair(keys.validator), SN53, [1, 2], [1], 0n)).toMatchObject({ ok: false, code: 'BadInput' });
    expect(await client.setWeights(keySignerFromPair(keys.validator), SN53, [1], [70000], 0n)).toMatchObject({ ok: false, code: 'BadInput' });
  });
});

describe('PolkadotChainClient registration', () => {
  it('burned_register: pays the burn and gets a uid', async () => {
    const coldkey = keySignerFromPair(keys.coldkey);
    const before = await client.freeBalance(keys.coldkey.address);
    const out = await client.burnedRegister(coldkey, SN53, keys.stranger.address);
    expect(out).toMatchObject({ ok: true });
    expect(await client.freeBalance(keys.coldkey.address)).toBe(before - TAO);
    expect((await client.neuron(SN53, keys.stranger.address)).uid).toBe(5);
  });

  it('a payload-signing coldkey (browser wallet shape) registers through the client', async () => {
    const pair = keys.coldkey;
    const browserLike = {
      address: pair.address,
      sign: (): Uint8Array => {
        throw new Error('a browser extension cannot sign raw bytes');
      },
      signPayload: (payload: SignerPayloadJSON) => Promise.resolve({ id: 1, ...client.api.registry.createType('ExtrinsicPayload', payload, { version: payload.version }).sign(pair) }),
    };
    const hotkey = new Keyring({ type: 'sr25519' }).addFromUri('//Engy//ViaBrowser').address;
    expect(await client.burnedRegister(browserLike, SN53, hotkey)).toMatchObject({ ok: true });
    expect((await client.neuron(SN53, hotkey)).uid).not.toBeNull();
  });

  it('already registered', async () => {
    const out = await client.burnedRegister(keySignerFromPair(keys.coldkey), SN53, keys.stranger.address);
    expect(out).toMatchObject({ ok: false, kind: 'dispatch', code: 'HotKeyAlreadyRegisteredInSubNet' });
  });

  it('balance below the burn', async () => {
    const out = await client.burnedRegister(keySignerFromPair(keys.poorColdkey), SN53, '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM');
    expect(out).toMatchObject({ ok: false, kind: 'dispatch', code: 'NotEnoughBalanceToStake' });
    if (!out.ok) expect(out.message).toMatch(/Add TAO to the coldkey/);
  });

  it('register_limit: refuses above the cap, registers under it', async () => {
    const cold = keySignerFromPair(keys.coldkey);
    const fresh = new Keyring({ type: 'sr25519' }).addFromUri('//Engy//Fresh').address;
    const capped = await client.registerLimit(cold, SN53, fresh, TAO / 2n);
    expect(capped).toMatchObject({ ok: false, kind: 'dispatch', code: 'RegistrationPriceLimitExceeded' });
    expect((await client.neuron(SN53, fresh)).uid).toBeNull();
    const ok = await client.registerLimit(cold, SN53, fresh, 2n * TAO);
    expect(ok).toMatchObject({ ok: true });
    expect((await client.neuron(SN53, fresh)).uid).not.toBeNull();
  });
});

describe('PolkadotChainClient connection', () => {
  it('says clearly when the endpoint is unreachable', async () => {
    const closed = await startDevChain({ port: 0, blockMs: 0 });
    const url = closed.url;
    await closed.close();
    const err = await PolkadotChainClient.connect({ endpoint: url, connectTimeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppFailure);
    expect(err).toMatchObject({ code: 'chain-unreachable' });
    expect((err as AppFailure).message).toContain(url);
    expect((err as AppFailure).message).not.toContain('[object');
    // The causes alone, for sentences that name the URL themselves (said once, never "..").
    expect((err as AppFailure).detail).toBeTruthy();
    expect((err as AppFailure).detail).not.toContain(url);
    expect((err as AppFailure).detail).not.toMatch(/ECONNREFUSED|\.$/);
  });

  it('tries the endpoints in order and uses the first that answers', async () => {
    const closed = await startDevChain({ port: 0, blockMs: 0 });
    const deadUrl = closed.url;
    await closed.close();
    const c = await PolkadotChainClient.connect({ endpoint: [deadUrl, dev.url], connectTimeoutMs: 5000 });
    try {
      expect(c.endpoint).toBe(dev.url);
      expect((await c.subnetFacts(SN53)).tempo).toBe(360);
    } finally {
      await c.close();
    }
  });

  it('gives up after the connect timeout when the endpoint accepts but never answers', async () => {
    // A TCP listener that never completes the websocket handshake: the connect must not hang.
    const sockets = new Set<Socket>();
    const silent = createServer((sock) => sockets.add(sock));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const { port } = silent.address() as AddressInfo;
    try {
      const err = await PolkadotChainClient.connect({ endpoint: `ws://127.0.0.1:${port}`, connectTimeoutMs: 400 }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'chain-unreachable', message: expect.stringContaining('no answer within') });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('reuses cached metadata on the next connect instead of downloading it', async () => {
    const entry = client.metadataCacheEntry();
    expect(entry.key).toBe(`${dev.chain.genesisHash}-424`);
    const downloads = () => (dev.rpcCalls.get('state_getMetadata') ?? 0) + (dev.rpcCalls.get('state_call:Metadata_metadata_at_version') ?? 0);
    const before = downloads();
    const again = await PolkadotChainClient.connect({ endpoint: dev.url, metadataCache: { [entry.key]: entry.hex } });
    try {
      expect(downloads()).toBe(before);
      expect((await again.subnetFacts(SN53)).tempo).toBe(360);
    } finally {
      await again.close();
    }
    const fresh = await PolkadotChainClient.connect({ endpoint: dev.url });
    await fresh.close();
    expect(downloads()).toBeGreaterThan(before);
  });

  it('reconnects after the connection drops and reads again', async () => {
    const events: string[] = [];
    const sub = client.onConnection((e) => events.push(e.state));
    const reconnected = new Promise<void>((resolve) => {
      const s = client.onConnection((e) => {
        if (e.state === 'connected') {
          void s.dispose();
          resolve();
        }
      });
    });
    dev.dropConnections();
    await reconnected;
    await sub.dispose();
    expect(events).toEqual(['disconnected', 'connected']);
    expect((await client.subnetFacts(SN53)).tempo).toBe(360);
  });
});

describe('PolkadotChainClient submission edge cases', () => {
  it('a submission that shares a block with an earlier one fails at dispatch with SettingWeightsTooFast', async () => {
    // No block timer: a block is sealed only once two transactions wait in the pool, so they share it and
    // both pass the pool's rate check; the chain refuses the second when it applies it.
    const manual = await startDevChain({ port: 0, blockMs: 0, startBlocks: 3, seed: sn53Seed(keys) });
    const c = await PolkadotChainClient.connect({ endpoint: manual.url, connectTimeoutMs: 10_000, submitTimeoutMs: 10_000 });
    const driver = setInterval(() => {
      if (manual.chain.pending().length >= 2) manual.produceBlock();
    }, 10);
    try {
      // The earlier one, signed outside the client (nonce 0), goes straight into the pool.
      const { registry, decorated, version } = manual.chain.rt;
      const first = registry.createType('Extrinsic', decorated.tx['subtensorModule']?.['setWeights']?.(SN53, [3], [1], 0));
      first.sign(keys.validator, {
        blockHash: manual.chain.genesisHash,
        genesisHash: manual.chain.genesisHash,
        nonce: 0,
        runtimeVersion: registry.createType('RuntimeVersion', version) as RuntimeVersion,
      });
      expect(manual.chain.submit(first.toHex())).toMatchObject({ ok: true });
      const out = await c.setWeights(keySignerFromPair(keys.validator), SN53, [4], [1], 0n);
      expect(out).toEqual({
        ok: false,
        kind: 'dispatch',
        code: 'SettingWeightsTooFast',
        message: MODULE_ERROR_TEXT['SettingWeightsTooFast'],
        extrinsicHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(manual.state.applied.map((a) => a.error)).toEqual([null, 'SettingWeightsTooFast']);
      expect(manual.state.weightsOf(SN53, 1)).toEqual([[3, 65535]]);
    } finally {
      clearInterval(driver);
      await c.close();
      await manual.close();
    }
  });

  it('a drop while waiting for inclusion is a transport outcome; the transaction may still land', async () => {
    const manual = await startDevChain({ port: 0, blockMs: 0, startBlocks: 3, seed: sn53Seed(keys) });
    const c = await PolkadotChainClient.connect({ endpoint: manual.url, connectTimeoutMs: 10_000, submitTimeoutMs: 10_000, reconnectMs: 100 });
    try {
      const pending = c.setWeights(keySignerFromPair(keys.validator), SN53, [3], [1], 0n);
      while (manual.chain.pending().length === 0) await new Promise((r) => setTimeout(r, 5));
      manual.dropConnections();
      expect(await pending).toMatchObject({ ok: false, kind: 'transport', code: 'disconnected', extrinsicHash: expect.stringMatching(/^0x/) });
      manual.produceBlock();
      expect(manual.state.lastUpdateOf(SN53, 1)).toBe(manual.chain.best.number);
    } finally {
      await c.close();
      await manual.close();
    }
  });

  it('sends one transaction at a time per signer, so concurrent sends do not collide on the nonce', async () => {
    const signer = keySignerFromPair(keys.coldkey);
    const hot = (uri: string) => new Keyring({ type: 'sr25519' }).addFromUri(uri).address;
    const [a, b] = await Promise.all([client.burnedRegister(signer, SN53, hot('//Engy//Concurrent1')), client.burnedRegister(signer, SN53, hot('//Engy//Concurrent2'))]);
    expect(a).toMatchObject({ ok: true });
    expect(b).toMatchObject({ ok: true });
  });
});
