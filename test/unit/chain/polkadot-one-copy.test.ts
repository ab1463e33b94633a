// The engine, its CLI and the dev-chain double load ONE copy of each @polkadot package: the CommonJS build,
// through electron/engine/lib/polkadot.ts. A module that imported one of them as ESM again would add a second
// copy of @polkadot/util (two sets of classes failing each other's instanceof, seconds of CPU per process).
// Every copy registers itself in polkadot-js's own registry (globalThis.__polkadotjs, detectPackage), so the
// check holds whatever ran earlier in this worker: a copy once loaded stays listed.
import { describe, expect, it } from 'vitest';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';

interface RegistryEntry {
  path: string;
  type?: string;
  version: string;
}

describe('@polkadot packages load once, as CommonJS', { timeout: 60_000 }, () => {
  it('the chain client, keyring, types, wallet and validator code together register one CommonJS copy of each package', async () => {
    // What the engine side loads: the chain client and its connection, the signers and key files, the validator's
    // payload check, the CLI, and the dev chain the tests run against.
    await Promise.all([
      import('../../../electron/engine/chain/open-chain.ts'),
      import('../../../electron/engine/chain/polkadot-chain-client.ts'),
      import('../../../electron/engine/chain/connect-api.ts'),
      import('../../../electron/engine/chain/key-signer.ts'),
      import('../../../electron/engine/wallet/engine-signer.ts'),
      import('../../../electron/engine/wallet/keypair-from-keyfile.ts'),
      import('../../../electron/engine/wallet/coldkey-create.ts'),
      import('../../../electron/engine/wallet/hotkey-create.ts'),
      import('../../../electron/engine/validator/payload-verify.ts'),
      import('../../../electron/engine/validator/commit-reveal.ts'),
      import('../../../electron/engine/roles/wallet-controller.ts'),
      import('../../../electron/cli/validator.ts'),
      import('../../../test/doubles/dev-chain/index.ts'),
    ]);
    const { Keyring } = polkadot('@polkadot/keyring');
    const { TypeRegistry } = polkadot('@polkadot/types');
    const { ApiPromise } = polkadot('@polkadot/api');
    await polkadot('@polkadot/util-crypto').cryptoWaitReady();
    const pair = new Keyring({ type: 'sr25519' }).addFromUri('//Engy//OneCopy');
    expect(pair.address).toMatch(/^5/);
    expect(new TypeRegistry().createType('u32', 7).toNumber()).toBe(7);
    expect(typeof ApiPromise.create).toBe('function');

    const registry = (globalThis as { __polkadotjs?: Record<string, RegistryEntry[]> }).__polkadotjs ?? {};
    const names = Object.keys(registry);
    // The packages named above and those they pull in (util, x-global, wasm-crypto, rpc-core, ...) all registered.
    expect(names).toEqual(expect.arrayContaining(['@polkadot/api', '@polkadot/keyring', '@polkadot/types', '@polkadot/util', '@polkadot/util-crypto']));
    const copies = Object.fromEntries(names.map((n) => [n, registry[n]!.map((e) => e.type ?? 'unknown')]));
    expect(copies).toEqual(Object.fromEntries(names.map((n) => [n, ['cjs']])));
  });
});
