import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RegistrationService } from '../../../electron/engine/wallet/registration-service.ts';
import { createHotkey } from '../../../electron/engine/wallet/hotkey-create.ts';
import { RegistrationChain } from '../../doubles/registration-chain.ts';
import { DEV_MNEMONIC_B, TEST_KDF, appFailure, tempWalletDirs, writeColdkey } from '../../doubles/btcli-wallet.ts';

const TAO = 1_000_000_000n;
const dirs = tempWalletDirs();
afterEach(() => dirs.cleanup());

let walletPath: string;
let coldkey: string;
let hotkey: string;
let chain: RegistrationChain;
let service: RegistrationService;

beforeEach(async () => {
  walletPath = dirs.make();
  coldkey = (await writeColdkey({ walletPath, wallet: 'owner', mnemonic: DEV_MNEMONIC_B, password: 'pw', kdf: TEST_KDF })).address;
  hotkey = (await createHotkey({ walletPath, wallet: 'owner', hotkey: 'miner1', source: { kind: 'generate' } })).ss58Address;
  chain = new RegistrationChain({ block: 5000 });
  chain.burnRao = 1n * TAO;
  chain.balances.set(coldkey, 3n * TAO);
  service = new RegistrationService({ chain, walletPath, kdf: TEST_KDF, env: {} });
});

const password = { kind: 'password', wallet: 'owner', password: 'pw' } as const;

describe('RegistrationService', () => {
  it('shows the status, cost and coldkey balance of an unregistered hotkey', async () => {
    const s = await service.status({ hotkey, wallet: 'owner' });
    expect(s.registration).toMatchObject({ netuid: 53, hotkey, registered: false, uid: null, validatorPermit: false, stakeRao: '0' });
    expect(s.quote).toEqual({ netuid: 53, costRao: String(TAO), coldkey, coldkeyFreeRao: String(3n * TAO), canAfford: true, block: 5000 });
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it('registers with register_limit, signed by the decrypted coldkey', async () => {
    const r = await service.register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: 2n * TAO });
    expect(r).toMatchObject({ netuid: 53, hotkey, uid: 0, quotedCostRao: String(TAO) });
    expect(chain.registrations).toHaveLength(1);
    expect(chain.registrations[0]).toMatchObject({ coldkey, hotkey, method: 'register_limit', limitPriceRao: 2n * TAO, paidRao: TAO });
    expect(chain.registrations[0]!.outcome.ok).toBe(true);
    const after = await service.status({ hotkey, wallet: 'owner' });
    expect(after.registration.registered).toBe(true);
    expect(after.quote.coldkeyFreeRao).toBe(String(2n * TAO));
  });

  it('registers with burned_register', async () => {
    const r = await service.register({ hotkey, coldkey: password, mode: 'burned-register' });
    expect(r.uid).toBe(0);
    expect(chain.registrations[0]?.method).toBe('burned_register');
  });

  it('refuses with plain words when the balance is too low, before asking the coldkey', async () => {
    chain.balances.set(coldkey, TAO / 2n);
    const e = await appFailure(service.register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: 2n * TAO }));
    expect(e.code).toBe('chain-rejected');
    expect(e.message).toBe(`Coldkey ${coldkey} has 0.5 τ, less than the 1 τ registration costs: add TAO to the coldkey and try again.`);
    expect(chain.registrations).toHaveLength(0);
  });

  it('says the hotkey is already registered, with its uid', async () => {
    chain.base.register('5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty');
    const uid = chain.base.register(hotkey);
    const e = await appFailure(service.register({ hotkey, coldkey: password, mode: 'burned-register' }));
    expect(e.message).toBe(`Hotkey ${hotkey} is already registered on subnet 53 as uid ${uid}: nothing to pay, you can start mining or validating with it.`);
    expect(e.detail).toBe('HotKeyAlreadyRegisteredInSubNet');
  });

  it('refuses a price above the cap, whether seen before sending or by the chain', async () => {
    const before = await appFailure(service.register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: TAO / 2n }));
    expect(before.message).toBe('Registration now costs 1 τ, above your limit of 0.5 τ: raise the limit or wait for the price to fall (it decays every block).');
    expect(chain.registrations).toHaveLength(0);

    // The price moves between the quote and inclusion: register_limit protects the user on chain.
    chain.beforeSubmit = () => {
      chain.burnRao = 2n * TAO;
    };
    const onChain = await appFailure(service.register({ hotkey, coldkey: password, mode: 'register-limit', maxCostRao: (3n * TAO) / 2n }));
    expect(onChain.detail).toBe('RegistrationPriceLimitExceeded');
    expect(onChain.message).toMatch(/^Registration now costs 2 τ, above your limit of 1\.5 τ/);
    expect(chain.registrations[0]?.paidRao).toBe(0n);
  });

  it('reports a wrong coldkey password, a missing cap and an unanswered submit', async () => {
    expect((await appFailure(service.register({ hotkey, coldkey: { ...password, password: 'nope' }, mode: 'burned-register' }))).code).toBe('wallet-bad-password');
    expect(chain.registrations).toHaveLength(0);
    expect((await appFailure(service.register({ hotkey, coldkey: password, mode: 'register-limit' }))).code).toBe('bad-request');
    chain.dropNext = true;
    const lost = await appFailure(service.register({ hotkey, coldkey: password, mode: 'burned-register' }));
    expect(lost.code).toBe('chain-unreachable');
    expect(lost.message).toMatch(/may have landed/);
  });
});
