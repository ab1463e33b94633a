import { resolve } from 'node:path';
import { build, defineConfig, type InlineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { sourcesFingerprint, writeStamp } from './electron/renderer-stamp.ts';

const RENDERER = resolve(import.meta.dirname, 'renderer');

/**
 * @polkadot/extension-dapp uses only the SS58 codec from @polkadot/util-crypto, which would bring 225 kB of
 * WebAssembly (refused by the signing page's CSP, heavy over a tunnel): shared/ss58.ts is the
 * same codec in plain JS (test/unit/renderer/ss58.test.ts proves it against util-crypto).
 */
const SS58_IN_PLAIN_JS = { find: /^@polkadot\/util-crypto$/, replacement: resolve(import.meta.dirname, 'shared', 'ss58.ts') };

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
    resolve: { alias: [SS58_IN_PLAIN_JS] },
    build: {
      outDir,
      emptyOutDir: true,
      sourcemap: false,
      // One self-contained script: the engine serves exactly sign.html, sign.js and sign.css.
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

/**
 * Records which sources this build was made from (dist-renderer/.build-stamp.json), taken when the build
 * starts so an edit made during it reads as newer: `engy-panel headless` in a checkout rebuilds when the
 * sources no longer match (electron/renderer-build.ts).
 */
function buildStamp(): Plugin {
  let outDir = '';
  let sources = '';
  return {
    name: 'engy-build-stamp',
    apply: 'build',
    configResolved(c) {
      outDir = resolve(c.root, c.build.outDir);
    },
    buildStart() {
      sources = sourcesFingerprint(import.meta.dirname);
    },
    closeBundle() {
      writeStamp(outDir, sources);
    },
  };
}

// The renderer is built once and served by both shells: loaded from disk by Electron
// (relative base) and over HTTP by the headless engine.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react(), signingPage(), buildStamp()],
  resolve: { alias: [SS58_IN_PLAIN_JS] },
  build: {
    outDir: '../dist-renderer',
    emptyOutDir: true,
    // No source maps in the served build: 1.2 MB nobody needs over a tunnel (the server refuses .map anyway).
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
});
