// RegistrationService over the real @polkadot/api client against the dev chain double: the extrinsics
// are signed by a btcli coldkey decrypted from its $NACL file and checked by the dev chain's pool.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChainPort, KeySigner } from '../../../electron/engine/chain/ports.ts';
import { PolkadotChainClient } from '../../../electron/engine/chain/polkadot-chain-client.ts';
import { createHotkey } from '../../../electron/engine/wallet/hotkey-create.ts';
import { RegistrationService } from '../../../electron/engine/wallet/registration-service.ts';
import { startDevChain, type RunningDevChain } from '../../doubles/dev-chain/index.ts';
import { DEV_MNEMONIC_B, TEST_KDF, appFailure, tempWalletDirs, writeColdkey } from '../../doubles/btcli-wallet.ts';

const TAO = 1_000_000_000n;
const OWNER_HOTKEY = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
const dirs = tempWalletDirs();
let walletPath: string;
let coldkey: string;
let dev: RunningDevChain;
let client: PolkadotChainClient;

beforeAll(async () => {
  walletPath = dirs.make();
  coldkey = (await writeColdkey({ walletPath, wallet: 'owner', mnemonic: DEV_MNEMONIC_B, password: 'pw', kdf: TEST_KDF })).address;
  dev = await startDevChain({
    port: 0,
    blockMs: 40,
    startBlocks: 3,
    seed: { subnets: [{ netuid: 53, burnRao: TAO, ownerHotkey: OWNER_HOTKEY, neurons: [{ hotkey: OWNER_HOTKEY }] }], balances: { [coldkey]: 3n * TAO } },
  });
  client = await PolkadotChainClient.connect({ endpoint: dev.url, connectTimeoutMs: 10_000, submitTimeoutMs: 15_000, reconnectMs: 200 });
});

afterAll(async () => {
  await client?.close();
  await dev?.close();
  dirs.cleanup();
});

/** The dev chain serves storage as of its last block: wait for one after seeding state directly. */
async function nextBlock(): Promise<void> {
  const start = dev.state.block;
  while (dev.state.block <= start) await new Promise((r) => setTimeout(r, 10));
}

let n = 0;
let hotkey: string;
beforeEach(async () => {
  hotkey = (await createHotkey({ walletPath, wallet: 'owner', hotkey: `h${++n}`, source: { kind: 'generate' } })).ss58Address;
  dev.state.setBalance(coldkey, 3n * TAO);
  dev.state.subnet(53)!.burnRao = TAO;
  await nextBlock();
});
afterEach(() => {
  dev.state.setBalance(coldkey, 3n * TAO);
});

/** A ChainPort whose state changes right before the extrinsic goes out, so the chain itself must refuse it. */
function changingUnderFoot(inner: ChainPort, change: () => void): ChainPort {
  return Object.assign(Object.create(inner) as ChainPort, {
    burnedRegister: (c: KeySigner, netuid: number, h: string) => (change(), inner.burnedRegister(c, netuid, h)),
    registerLimit: (c: KeySigner, netuid: number, h: string, cap: bigint) => (change(), inner.registerLimit(c, netuid, h, cap)),
  });
}

const password = { kind: 'password', wallet: 'owner', password: 'pw' } as const;
const service = (chain: ChainPort = client) => new RegistrationService({ chain, walletPath, kdf: TEST_KDF, env: {} });

describe('registration against the dev chain', () => {
  it('registers with register_limit and then shows the uid', async () => {
    const before = await service().status({ hotkey, wallet: 'owner' });
    expect(before.registration.registered).toBe(false);
    expect(before.quote).toMatchObject({ costRao: String(TAO), coldkey, coldkeyFreeRao: String(3n * TAO), canAfford: true });

    const r = await service().register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: 2n * TAO });
    expect(r.uid).toBeGreaterThan(0);
    const applied = dev.state.applied.at(-1)!;
    expect(applied).toMatchObject({ signer: coldkey, method: 'register_limit', error: null });
    const after = await service().status({ hotkey, wallet: 'owner' });
    expect(after.registration).toMatchObject({ registered: true, uid: r.uid });
    expect(after.quote.coldkeyFreeRao).toBe(String(2n * TAO));
  });

  it('says the hotkey is already registered (before sending, and when the chain refuses)', async () => {
    await service().register({ hotkey, coldkey: password, mode: 'burned-register' });
    const e = await appFailure(service().register({ hotkey, coldkey: password, mode: 'burned-register' }));
    expect(e.message).toMatch(new RegExp(`^Hotkey ${hotkey} is already registered on subnet 53 as uid \\d+: nothing to pay`));

    const other = (await createHotkey({ walletPath, wallet: 'owner', hotkey: `race${n}`, source: { kind: 'generate' } })).ss58Address;
    const racing = changingUnderFoot(client, () => void dev.state.addNeuron(53, { hotkey: other, coldkey }));
    const onChain = await appFailure(service(racing).register({ hotkey: other, coldkey: password, mode: 'burned-register' }));
    expect(onChain.detail).toBe('HotKeyAlreadyRegisteredInSubNet');
    expect(dev.state.applied.at(-1)).toMatchObject({ signer: coldkey, error: 'HotKeyAlreadyRegisteredInSubNet' });
    expect(onChain.message).toMatch(/is already registered on subnet 53/);
  });

  it('says the balance is too low (before sending, and when the chain refuses)', async () => {
    dev.state.setBalance(coldkey, TAO / 4n);
    await nextBlock();
    const e = await appFailure(service().register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: 2n * TAO }));
    expect(e.message).toBe(`Coldkey ${coldkey} has 0.25 τ, less than the 1 τ registration costs: add TAO to the coldkey and try again.`);

    dev.state.setBalance(coldkey, 3n * TAO);
    await nextBlock();
    const draining = changingUnderFoot(client, () => dev.state.setBalance(coldkey, TAO / 2n));
    const onChain = await appFailure(service(draining).register({ hotkey, coldkey: password, mode: 'burned-register' }));
    expect(onChain.detail).toBe('NotEnoughBalanceToStake');
    expect(dev.state.applied.at(-1)).toMatchObject({ signer: coldkey, method: 'burned_register', error: 'NotEnoughBalanceToStake' });
    expect(onChain.message).toMatch(/has 0\.5 τ, less than the 1 τ registration costs/);
  });

  it('refuses a price above the cap (before sending, and when the chain refuses)', async () => {
    const e = await appFailure(service().register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: TAO / 2n }));
    expect(e.message).toBe('Registration now costs 1 τ, above your limit of 0.5 τ: raise the limit or wait for the price to fall (it decays every block).');

    const rising = changingUnderFoot(client, () => void (dev.state.subnet(53)!.burnRao = 2n * TAO));
    const onChain = await appFailure(service(rising).register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: (3n * TAO) / 2n }));
    expect(onChain.detail).toBe('RegistrationPriceLimitExceeded');
    expect(dev.state.applied.at(-1)).toMatchObject({ signer: coldkey, method: 'register_limit', error: 'RegistrationPriceLimitExceeded' });
    expect(onChain.message).toMatch(/^Registration now costs 2 τ, above your limit of 1\.5 τ/);
    expect((await service().status({ hotkey })).registration.registered).toBe(false);
  });
});
