// TEST DOUBLE: makes `import ... from 'electron'` and `require('electron')` resolve to the stand-in
// (electron.ts) in a process started with `node --import <this file>`. A synchronous in-thread hook
// (module.registerHooks) rather than a node_modules folder on NODE_PATH: it covers ESM imports and
// CommonJS requires alike (electron-updater requires electron from node_modules), needs no copy of
// the app's dependencies, and cannot pick up the real `electron` package (which exports a path string).
import { registerHooks } from 'node:module';

const STAND_IN = new URL('./electron.ts', import.meta.url).href;

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'electron') return { url: STAND_IN, format: 'module-typescript', shortCircuit: true };
    return next(specifier, context);
  },
});
