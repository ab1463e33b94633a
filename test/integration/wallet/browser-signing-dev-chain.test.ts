// The whole "sign in your browser" path against the dev chain: @polkadot/api builds register_limit, the
// browserColdkeySigner serves the real (Vite-built) page to Chromium, the wallet-extension double
// (test/doubles/wallet-extension.ts) signs the SignerPayloadJSON as polkadot{.js} does, and the dev chain's
// pool verifies the signature and registers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import type { KeyringPair } from '@polkadot/keyring/types';
import type { SignerPayloadJSON } from '@polkadot/types/types';
import { PolkadotChainClient } from '../../../electron/engine/chain/polkadot-chain-client.ts';
import { signingMessage } from '../../../electron/engine/chain/key-signer.ts';
import { browserColdkeySigner } from '../../../electron/engine/wallet/browser-signer.ts';
import { startDevChain, type RunningDevChain } from '../../doubles/dev-chain/index.ts';
import { installWalletExtension } from '../../doubles/wallet-extension.ts';
import { launchBrowser } from '../../helpers/browser.ts';
import { ensureRendererBuilt } from '../../helpers/desktop-main.ts';

const { Keyring } = polkadot('@polkadot/keyring');
const { cryptoWaitReady, signatureVerify } = polkadot('@polkadot/util-crypto');

const TAO = 1_000_000_000n;
let dev: RunningDevChain;
let client: PolkadotChainClient;
let browser: Browser;
let coldkey: KeyringPair;
let hotkey: KeyringPair;

beforeAll(async () => {
  await cryptoWaitReady();
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  coldkey = keyring.addFromUri('//EngyBrowserColdkey');
  hotkey = keyring.addFromUri('//EngyBrowserHotkey');
  // 500 ms blocks: the transaction is mortal (about 64 blocks), and a page on a loaded machine may take
  // seconds to sign; at 40 ms blocks its era would end before the signature comes back ("bad signature").
  dev = await startDevChain({ port: 0, blockMs: 500, startBlocks: 2, seed: { subnets: [{ netuid: 53, burnRao: TAO }], balances: { [coldkey.address]: 2n * TAO } } });
  client = await PolkadotChainClient.connect({ endpoint: dev.url, connectTimeoutMs: 10_000, submitTimeoutMs: 15_000 });
  browser = await launchBrowser();
  await ensureRendererBuilt();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await dev?.close();
});

describe('browser-wallet registration on the dev chain', () => {
  it('registers a hotkey with a signature made in the browser', async () => {
    const { registry } = client.api;
    const context = await browser.newContext();
    try {
      // The chain's own registry: the double signs exactly the payload subtensor checks.
      await installWalletExtension(context, { accounts: [{ pair: coldkey, name: 'coldkey' }], registry });
      const page = await context.newPage();
      const signer = browserColdkeySigner({
        address: coldkey.address,
        describe: () => `Register ${hotkey.address} on subnet 53 for at most 1.5 τ`,
        open: (url) => void page.goto(url),
        verify: (payload, sig) => {
          const bytes = registry.createType('ExtrinsicPayload', payload as unknown as SignerPayloadJSON, { version: (payload as unknown as SignerPayloadJSON).version }).toU8a({ method: true });
          return signatureVerify(signingMessage(bytes), sig, coldkey.address).isValid;
        },
      });

      const tx = client.api.tx['subtensorModule']!['registerLimit']!(53, hotkey.address, (3n * TAO) / 2n);
      const included = await new Promise<string>((resolve, reject) => {
        tx.signAndSend(coldkey.address, { signer }, (r) => {
          // The dev chain may report Finalized without a separate InBlock.
          if (r.status.isInBlock) resolve(r.status.asInBlock.toHex());
          else if (r.status.isFinalized) resolve(r.status.asFinalized.toHex());
          if (r.isError) reject(new Error(r.status.type));
        }).catch(reject);
      });
      expect(included).toMatch(/^0x[0-9a-f]{64}$/);
      await page.waitForSelector('#status.ok');
      expect(dev.state.applied.at(-1)).toMatchObject({ signer: coldkey.address, method: 'register_limit', error: null });
      expect((await client.neuron(53, hotkey.address)).uid).toBe(0);
    } finally {
      await context.close();
    }
  });
});
