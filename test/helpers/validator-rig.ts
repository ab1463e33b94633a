// A validator's hotkey in a btcli-layout wallet (wallet "val", hotkey "hk") and the dev chain seeded with
// subnet 53 where that hotkey holds a permit and stake: what the `engy-panel validate` process tests run.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyring } from '@polkadot/keyring';
import type { KeyringPair } from '@polkadot/keyring/types';
import { mnemonicGenerate } from '@polkadot/util-crypto';
import { startDevChain, type RunningDevChain } from '../doubles/dev-chain/index.ts';
import { devKey } from '../doubles/provider.ts';

export const OWNER = devKey('//EngyDevOwner');
export const MINER_A = devKey('//MinerA').address;
export const MINER_B = devKey('//MinerB').address;

export async function startValidatorRig(walletPath = mkdtempSync(join(tmpdir(), 'engy-wallets-'))): Promise<{ hot: KeyringPair; walletPath: string; dev: RunningDevChain }> {
  const phrase = mnemonicGenerate();
  const hot = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromMnemonic(phrase);
  mkdirSync(join(walletPath, 'val', 'hotkeys'), { recursive: true });
  const hex = `0x${Buffer.from(hot.publicKey).toString('hex')}`;
  writeFileSync(join(walletPath, 'val', 'hotkeys', 'hk'), JSON.stringify({ secretPhrase: phrase, ss58Address: hot.address, publicKey: hex, accountId: hex }));
  const dev = await startDevChain({
    port: 0,
    blockMs: 0,
    startBlocks: 10,
    seed: {
      balances: { [hot.address]: '1000000000' },
      subnets: [
        {
          netuid: 53,
          weightsRateLimit: 5,
          ownerHotkey: OWNER.address,
          neurons: [{ hotkey: OWNER.address, validatorPermit: true }, { hotkey: hot.address, validatorPermit: true, stakeRao: '1000000000000' }, { hotkey: MINER_A }, { hotkey: MINER_B }],
        },
      ],
    },
  });
  return { hot, walletPath, dev };
}
