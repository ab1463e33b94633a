import { resolve } from 'node:path';
import { build, defineConfig, type InlineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const RENDERER = resolve(import.meta.dirname, 'renderer');

/**
 * @polkadot/extension-dapp needs only the SS58 codec from @polkadot/util-crypto; the package root also
 * starts its WebAssembly at import, which a page without 'wasm-unsafe-eval' in its CSP refuses (the
 * signing page's CSP has none). Its address module alone does the same in plain JS.
 */
const UTIL_CRYPTO_ADDRESS_ONLY = { find: /^@polkadot\/util-crypto$/, replacement: '@polkadot/util-crypto/address' };

/**
 * The browser-wallet signing page (renderer/sign.html), built beside the UI into `<outDir>/signing/`
 * under fixed names (sign.html, sign.js, sign.css): the engine serves exactly those three files from its
 * one-shot loopback server, and electron-builder ships that folder as extraResources/signing.
 */
export function signingPageConfig(outDir: string): InlineConfig {
  return {
    configFile: false,
    root: RENDERER,
    base: './',
    publicDir: false,
    logLevel: 'warn',
    resolve: { alias: [UTIL_CRYPTO_ADDRESS_ONLY] },
    build: {
      outDir,
      emptyOutDir: true,
      sourcemap: false,
      // @polkadot/util-crypto carries its WebAssembly inline: one self-contained page, never split.
      chunkSizeWarningLimit: 2500,
      modulePreload: false,
      rollupOptions: {
        input: resolve(RENDERER, 'sign.html'),
        output: { codeSplitting: false, entryFileNames: 'sign.js', assetFileNames: 'sign[extname]' },
      },
    },
  };
}

/** Builds the signing page once the UI is written, so `vite build` (npm run build:renderer) yields both. */
function signingPage(): Plugin {
  let outDir = '';
  return {
    name: 'engy-signing-page',
    apply: 'build',
    configResolved(c) {
      outDir = resolve(c.root, c.build.outDir);
    },
    async closeBundle() {
      await build(signingPageConfig(resolve(outDir, 'signing')));
    },
  };
}

// The renderer is built once and served by both shells: loaded from disk by Electron
// (relative base) and over HTTP by the headless engine.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react(), signingPage()],
  build: {
    outDir: '../dist-renderer',
    emptyOutDir: true,
    // No source maps in the served build: 1.2 MB nobody needs over a tunnel (the server refuses .map anyway).
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
});
