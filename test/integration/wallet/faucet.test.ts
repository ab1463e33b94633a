// The simulated network's faucet through the engine: the dev chain with and without one, the wallet controller on
// the simulated and the real network, and hostile answers and requests on both sides of the wire.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { defaultSettings } from '../../../shared/settings.ts';
import WebSocket from 'ws';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { MinerKeyStore } from '../../../electron/engine/wallet/miner-key-store.ts';
import { WalletController } from '../../../electron/engine/roles/wallet-controller.ts';
import { PolkadotChainClient } from '../../../electron/engine/chain/polkadot-chain-client.ts';
import { FAUCET_DRIP_METHOD, readFaucetDrip, readFaucetOffer } from '../../../electron/engine/chain/dev-faucet.ts';
import type { ChainPort } from '../../../electron/engine/chain/ports.ts';
import { AppFailure } from '../../../shared/errors.ts';
import { startDevChain, type RunningDevChain } from '../../doubles/dev-chain/index.ts';
import { devKeys, sn53Seed, TAO } from '../../doubles/dev-chain/sn53-seed.ts';
import { FakeSecretBox } from '../../doubles/secret-box.ts';
import { TEST_KDF, tempWalletDirs } from '../../doubles/btcli-wallet.ts';

const LABEL = 'Simulated network faucet (test)';
let withFaucet: RunningDevChain;
let plain: RunningDevChain;
const dirs = tempWalletDirs();
const opened: ChainPort[] = [];

beforeAll(async () => {
  const keys = await devKeys();
  withFaucet = await startDevChain({ port: 0, blockMs: 50, startBlocks: 3, seed: sn53Seed(keys), faucet: { netuid: 53, feeRao: TAO / 10n, label: LABEL } });
  plain = await startDevChain({ port: 0, blockMs: 50, startBlocks: 3, seed: sn53Seed(keys) });
}, 60_000);

afterEach(() => dirs.cleanup());

afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => undefined);
  await withFaucet?.close();
  await plain?.close();
});

const connect = async (url: string): Promise<ChainPort> => {
  const c = await PolkadotChainClient.connect({ endpoint: url, connectTimeoutMs: 15_000, reconnectMs: 200 });
  opened.push(c);
  return c;
};

async function controller(network: 'simulated' | 'mainnet', chainUrl: string) {
  const hub = new LogHub();
  const walletPath = dirs.make();
  // The network is fixed when the settings are written (the panel never switches it at run time).
  const d = defaultSettings();
  writeFileSync(join(walletPath, 'settings.json'), JSON.stringify({ ...d, network, wallet: { path: walletPath, name: null, hotkey: null }, validating: { ...d.validating, chainUrl } }));
  const settings = new SettingsStore(join(walletPath, 'settings.json'), hub.logger('settings'));
  const minerKeys = new MinerKeyStore({ secretsDir: join(walletPath, 'secrets'), secretBox: new FakeSecretBox(false), env: {}, redactor: hub.redactor });
  let dials = 0;
  const wallet = new WalletController({
    settings,
    minerKeys,
    logs: hub,
    kdf: TEST_KDF,
    openChain: async (url) => {
      dials++;
      return connect(url);
    },
  });
  return { wallet, settings, dials: () => dials };
}

const failure = async (p: Promise<unknown>): Promise<AppFailure> => {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AppFailure);
  return e as AppFailure;
};

describe('the simulated network faucet', () => {
  it('is offered on the simulated network, funds a new coldkey with the burn plus fees once, and says so', { timeout: 120_000 }, async () => {
    const { wallet, settings } = await controller('simulated', withFaucet.url);
    // Before a coldkey exists: the faucet is there, with nowhere to pay yet.
    const before = await wallet.refreshFaucet();
    expect(before).toMatchObject({ label: LABEL, dripTao: '1.1 τ', burnTao: '1 τ', feeTao: '0.1 τ', coldkey: null, balanceTao: null, enough: null });
    expect(wallet.snapshot().faucet).toEqual(before);
    expect((await failure(wallet.fundFromFaucet())).code).toBe('wallet-not-found');

    const cold = await wallet.createColdkey('fresh', 'a-long-enough-password');
    settings.update({ wallet: { name: 'fresh', hotkey: null } });
    expect(await wallet.refreshFaucet()).toMatchObject({ coldkey: cold.ss58Address, balanceTao: '0 τ', enough: false });

    const funded = await wallet.fundFromFaucet();
    expect(funded).toMatchObject({ coldkey: cold.ss58Address, balanceTao: '1.1 τ', enough: true, lastCreditedTao: '1.1 τ' });
    expect(withFaucet.state.freeBalance(cold.ss58Address)).toBe(TAO + TAO / 10n);
    // A second drip tops up to one drip's worth, never beyond: nothing more is minted.
    expect((await wallet.fundFromFaucet()).lastCreditedTao).toBe('0 τ');
    expect(withFaucet.state.freeBalance(cold.ss58Address)).toBe(TAO + TAO / 10n);
  });

  it('is never offered on the real network, and refused there without dialing the chain', { timeout: 60_000 }, async () => {
    const { wallet, dials } = await controller('mainnet', withFaucet.url);
    expect(await wallet.refreshFaucet()).toBeNull();
    expect(wallet.snapshot().faucet).toBeNull();
    expect((await failure(wallet.fundFromFaucet())).code).toBe('simulated-only');
    expect(dials()).toBe(0);
  });

  it('is not offered by a chain without one (a real node lists no faucet method), and a drip is refused in words', { timeout: 60_000 }, async () => {
    const { wallet, settings } = await controller('simulated', plain.url);
    expect(await wallet.refreshFaucet()).toBeNull();
    await wallet.createColdkey('fresh', 'a-long-enough-password');
    settings.update({ wallet: { name: 'fresh', hotkey: null } });
    const e = await failure(wallet.fundFromFaucet());
    expect(e.code).toBe('unavailable');
    expect(e.message).toMatch(/no faucet/);
  });

  it('an unreachable chain is a sentence, not a crash', { timeout: 60_000 }, async () => {
    const { wallet } = await controller('simulated', 'ws://127.0.0.1:9');
    const e = await failure(wallet.refreshFaucet());
    expect(e.code).toBe('chain-unreachable');
  });
});

describe('hostile input on the faucet wire', () => {
  it('the dev chain refuses malformed, oversized and wrongly typed addresses, and keeps serving', { timeout: 30_000 }, async () => {
    const ws = new WebSocket(withFaucet.url);
    try {
      await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
      let id = 0;
      const call = (params: unknown[]) =>
        new Promise<{ result?: unknown; error?: { message: string } }>((resolve) => {
          const my = ++id;
          const onMsg = (d: WebSocket.RawData) => {
            const m = JSON.parse(String(d)) as { id: number; result?: unknown; error?: { message: string } };
            if (m.id !== my) return;
            ws.off('message', onMsg);
            resolve(m);
          };
          ws.on('message', onMsg);
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: my, method: FAUCET_DRIP_METHOD, params }));
        });
      for (const bad of [[], ['not-an-address'], ['5'.repeat(5000)], [42], [{ __proto__: { x: 1 } }], [null]]) {
        const r = await call(bad);
        expect(r.error?.message, JSON.stringify(bad).slice(0, 40)).toMatch(/SS58 address/);
        expect(r.result).toBeUndefined();
      }
      const ok = await call([(await devKeys()).stranger.address]);
      expect(readFaucetDrip(ok.result)).toMatchObject({ creditedRao: TAO + TAO / 10n });
    } finally {
      ws.close();
    }
  });

  it('the engine accepts only well-formed faucet answers', () => {
    const offer = { label: 'x', netuid: 53, dripRao: '1100000000', burnRao: '1000000000', feeRao: '100000000' };
    expect(readFaucetOffer(offer)).toEqual({ label: 'x', netuid: 53, dripRao: 1_100_000_000n, burnRao: 1_000_000_000n, feeRao: 100_000_000n });
    for (const bad of [
      null,
      'offer',
      [],
      { ...offer, dripRao: -1 },
      { ...offer, dripRao: '1e9' },
      { ...offer, netuid: 70_000 },
      { ...offer, label: '' },
      { ...offer, label: 'y'.repeat(500) },
      JSON.parse('{"__proto__": {"label": "x"}}'),
    ]) {
      expect(readFaucetOffer(bad)).toBeNull();
    }
    const drip = { address: '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY', creditedRao: '0', freeRao: '5', block: 3 };
    expect(readFaucetDrip(drip)).toEqual({ address: drip.address, creditedRao: 0n, freeRao: 5n, block: 3 });
    for (const bad of [{ ...drip, address: 'x' }, { ...drip, block: -1 }, { ...drip, freeRao: 5 }, {}]) expect(readFaucetDrip(bad)).toBeNull();
  });
});
