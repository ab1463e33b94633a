// The one way Node-side code (engine, shell, scripts, benches, tests) loads @polkadot/* at runtime:
// their CommonJS builds, through require. Node's ESM loader walks ~730 modules for @polkadot/api
// and costs about 3 CPU seconds per process against about 1.2 for the CommonJS build (docs/testing.md,
// "What loading @polkadot/api costs"). All of them go through here because one package taken as
// CommonJS beside another taken as ESM loads two copies of @polkadot/util: polkadot-js prints its
// "multiple versions" warning and the two copies' classes fail each other's instanceof.
// `import type` from '@polkadot/*' stays free (erased); eslint.config.js refuses any other import.
// The renderer is not concerned: Vite bundles its @polkadot/extension-dapp as ESM for the browser.
import { createRequire } from 'node:module';

/** The packages Node-side code loads, typed by their own declarations (the CommonJS build exports the same names). */
export interface PolkadotPackages {
  '@polkadot/api': typeof import('@polkadot/api');
  '@polkadot/keyring': typeof import('@polkadot/keyring');
  '@polkadot/types': typeof import('@polkadot/types');
  '@polkadot/util': typeof import('@polkadot/util');
  '@polkadot/util-crypto': typeof import('@polkadot/util-crypto');
}

// Resolved from this file, so the built main (dist/electron/engine/lib) and app.asar find the same node_modules.
const requireCjs = createRequire(import.meta.url);

/**
 * A @polkadot package's CommonJS exports. Each package is loaded on its first call (require caches
 * it), so a caller pays only for the packages it names: `const { decodeAddress } = polkadot('@polkadot/util-crypto');`.
 */
export function polkadot<N extends keyof PolkadotPackages>(name: N): PolkadotPackages[N] {
  return requireCjs(name) as PolkadotPackages[N];
}
