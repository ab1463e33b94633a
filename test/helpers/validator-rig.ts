// A validator's hotkey in a btcli-layout wallet (wallet "val", hotkey "hk") and the dev chain seeded with
// subnet 53 where that hotkey holds a permit and stake: what the `engy-panel validate` process tests run.
// Built from the daemon tests' own helpers, so the wallet layout and the seed live in one place.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyringPair } from '@polkadot/keyring/types';
import type { RunningDevChain } from '../doubles/dev-chain/index.ts';
import { makeHotkeyWallet, startDaemonChain } from '../integration/validator/daemon-child.ts';

export { MINER_A, MINER_B, OWNER } from '../integration/validator/harness.ts';

export async function startValidatorRig(walletPath = mkdtempSync(join(tmpdir(), 'engy-wallets-'))): Promise<{ hot: KeyringPair; walletPath: string; dev: RunningDevChain }> {
  const { hot } = makeHotkeyWallet(walletPath);
  const dev = await startDaemonChain(hot.address);
  return { hot, walletPath, dev };
}
