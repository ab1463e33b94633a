// `engy-panel wallet status|register` against the dev chain double, as an operator without a display runs them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../electron/cli/wallet.ts';
import { recordingIo } from '../../helpers/cli-io.ts';
import { startDevChain, type RunningDevChain } from '../../doubles/dev-chain/index.ts';
import { DEV_MNEMONIC_A, tempWalletDirs, writeColdkey } from '../../doubles/btcli-wallet.ts';
import { createHotkey } from '../../../electron/engine/wallet/hotkey-create.ts';

const TAO = 1_000_000_000n;
const dirs = tempWalletDirs();
let dev: RunningDevChain;
let walletPath: string;
let coldkey: string;
let hotkey: string;

const io = recordingIo;

beforeAll(async () => {
  walletPath = dirs.make();
  // An unencrypted coldkey (`btcli w new_coldkey --no-use-password`): no 512 MiB KDF in this test.
  coldkey = (await writeColdkey({ walletPath, wallet: 'op', mnemonic: DEV_MNEMONIC_A })).address;
  hotkey = (await createHotkey({ walletPath, wallet: 'op', hotkey: 'miner', source: { kind: 'generate' } })).ss58Address;
  dev = await startDevChain({ port: 0, blockMs: 40, startBlocks: 2, seed: { subnets: [{ netuid: 53, burnRao: TAO }], balances: { [coldkey]: 2n * TAO } } });
});
afterAll(async () => {
  await dev?.close();
  dirs.cleanup();
});

describe('engy-panel wallet status / register', () => {
  it('shows an unregistered hotkey, registers it under a cap, then shows its uid', async () => {
    const flags = ['--wallet', 'op', '--hotkey', 'miner', '--wallet-path', walletPath, '--chain', dev.url];
    const before = io();
    expect(await run(['status', ...flags], before)).toBe(0);
    expect(before.out).toContain(`hotkey     ${hotkey}`);
    expect(before.out).toContain('registered no');
    expect(before.out).toMatch(/cost {7}1 τ/);
    expect(before.out).toContain(`coldkey    ${coldkey}  free 2 τ`);

    const tooLow = io();
    expect(await run(['register', ...flags, '--max-cost', '0.5'], tooLow)).toBe(1);
    expect(tooLow.err).toContain('Registration now costs 1 τ, above your limit of 0.5 τ');

    const reg = io();
    expect(await run(['register', ...flags, '--max-cost', '1.5'], reg)).toBe(0);
    expect(reg.out).toMatch(new RegExp(`^Registered ${hotkey} on subnet 53 as uid 0 in block \\d+ \\(cost 1 τ\\)`));

    const after = io();
    expect(await run(['status', ...flags, '--json'], after)).toBe(0);
    const s = JSON.parse(after.out) as { registration: { registered: boolean; uid: number }; quote: { coldkeyFreeRao: string } };
    expect(s.registration).toMatchObject({ registered: true, uid: 0 });
    expect(s.quote.coldkeyFreeRao).toBe(String(TAO));
  });
});
