// Each layer rule of eslint.config.js fires on a probe file placed (virtually) in the layer it
// guards, and stays quiet on an allowed import, so none of them can pass vacuously.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
// The real config's layer blocks (a computed specifier: the config is plain JS without types).
const { layerConfig } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { layerConfig: Linter.Config[] };
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], languageOptions: { parser: tseslint.parser, parserOptions: { ecmaFeatures: { jsx: true } } } }, ...layerConfig],
});

/** The rule ids that fire on `code` as if it were the file at `path` (the file need not exist). */
async function fired(path: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return r!.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('layers by path', { timeout: 60_000 }, () => {
  it('shared/ imports only shared/: neither the engine, the renderer, nor a package such as ws', async () => {
    expect(await fired('shared/probe.ts', "import { systemClock } from '../electron/engine/lib/clock.ts';\nexport const c = systemClock;\n")).toContain('boundaries/dependencies');
    expect(await fired('shared/probe.ts', "import { useEngine } from '../renderer/src/stores/engine-store.ts';\nexport const u = useEngine;\n")).toContain('boundaries/dependencies');
    expect(await fired('shared/probe.ts', "import { WebSocket } from 'ws';\nexport const W = WebSocket;\n")).toContain('no-restricted-imports');
    expect(await fired('shared/probe.ts', "import type { LogLine } from './logs.ts';\nexport type L = LogLine;\n")).toEqual([]);
  });

  it('electron/engine/** imports neither a shell file nor electron', async () => {
    expect(await fired('electron/engine/lib/probe.ts', "import { createMainWindow } from '../../window.ts';\nexport const w = createMainWindow;\n")).toContain('boundaries/dependencies');
    expect(await fired('electron/engine/lib/probe.ts', "import { composeEngine } from '../../compose.ts';\nexport const c = composeEngine;\n")).toContain('boundaries/dependencies');
    expect(await fired('electron/engine/lib/probe.ts', "import { app } from 'electron';\nexport const a = app;\n")).toContain('no-restricted-imports');
    expect(
      await fired('electron/engine/lib/probe.ts', "import type { LogLine } from '../../../shared/logs.ts';\nimport { Emitter } from './emitter.ts';\nexport const e = new Emitter<LogLine>();\n"),
    ).toEqual([]);
  });

  it('renderer/ imports only renderer/ and shared/', async () => {
    expect(await fired('renderer/src/probe.ts', "import { systemClock } from '../../electron/engine/lib/clock.ts';\nexport const c = systemClock;\n")).toContain('boundaries/dependencies');
    expect(
      await fired(
        'renderer/src/probe.ts',
        "import type { LogLine } from '../../shared/logs.ts';\nimport { useEngine } from './stores/engine-store.ts';\nexport const u: [typeof useEngine, LogLine?] = [useEngine];\n",
      ),
    ).toEqual([]);
  });

  it('shipped code never imports test/doubles; electron/cli/demo.ts is the one exempt entry', async () => {
    const toDoubles = (from: string) => `import { MemoryChain } from '${from}test/doubles/memory-chain.ts';\nexport const m = MemoryChain;\n`;
    expect(await fired('electron/engine/lib/probe.ts', toDoubles('../../../'))).toContain('boundaries/dependencies');
    expect(await fired('electron/cli/probe.ts', toDoubles('../../'))).toContain('boundaries/dependencies');
    expect(await fired('electron/probe.ts', toDoubles('../'))).toContain('boundaries/dependencies');
    expect(await fired('electron/cli/demo.ts', toDoubles('../../'))).toEqual([]);
    // Tests may use the doubles.
    expect(await fired('test/unit/probe.test.ts', toDoubles('../../'))).toEqual([]);
  });

  it('engine layers: lib at the bottom, store below the domains', async () => {
    const toMiner = (from: string) => `import { RequestRecords } from '${from}';\nexport const r = RequestRecords;\n`;
    expect(await fired('electron/engine/lib/probe.ts', toMiner('../miner/request-records.ts'))).toContain('boundaries/dependencies');
    expect(await fired('electron/engine/lib/probe.ts', "import { openDatabase } from '../store/database.ts';\nexport const o = openDatabase;\n")).toContain('boundaries/dependencies');
    expect(await fired('electron/engine/store/probe.ts', toMiner('../miner/request-records.ts'))).toContain('boundaries/dependencies');
    expect(await fired('electron/engine/store/probe.ts', "import { systemClock } from '../lib/clock.ts';\nexport const c = systemClock;\n")).toEqual([]);
    expect(
      await fired(
        'electron/engine/miner/probe.ts',
        "import { openDatabase } from '../store/database.ts';\nimport { systemClock } from '../lib/clock.ts';\nexport const o = [openDatabase, systemClock];\n",
      ),
    ).toEqual([]);
  });

  it('the engine never touches electron: no subpath, no dynamic import, no type import', async () => {
    expect(await fired('electron/engine/miner/probe.ts', "import { app } from 'electron/main';\nexport const a = app;\n")).toContain('no-restricted-imports');
    expect(await fired('electron/engine/miner/probe.ts', "export const load = () => import('electron');\n")).toContain('no-restricted-syntax');
    expect(await fired('electron/engine/miner/probe.ts', "export type App = import('electron').App;\n")).toContain('no-restricted-syntax');
  });

  it('the renderer runs in a browser: no electron, no Node module, no Node-only package', async () => {
    const imp = (spec: string) => `import * as m from '${spec}';\nexport const x = m;\n`;
    for (const spec of ['electron', 'electron/renderer', 'node:fs', 'fs', 'fs/promises', 'node:sqlite', 'child_process', 'ws']) {
      expect(await fired('renderer/src/probe.ts', imp(spec)), spec).toContain('no-restricted-imports');
    }
    expect(await fired('renderer/src/probe.tsx', "export const load = () => import('electron');\n")).toContain('no-restricted-syntax');
    expect(await fired('renderer/src/probe.ts', "export const load = () => import('node:sqlite');\n")).toContain('no-restricted-syntax');
    expect(await fired('renderer/src/probe.ts', "export const load = () => import('path');\n")).toContain('no-restricted-syntax');
    expect(await fired('renderer/src/probe.ts', imp('react'))).toEqual([]);
  });

  it('shared/ is neither side: no Node module, no electron, not even dynamically', async () => {
    expect(await fired('shared/probe.ts', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n")).toContain('no-restricted-imports');
    expect(await fired('shared/probe.ts', "import { createHash } from 'crypto';\nexport const h = createHash;\n")).toContain('no-restricted-imports');
    expect(await fired('shared/probe.ts', "export const load = () => import('electron');\n")).toContain('no-restricted-syntax');
    expect(await fired('shared/probe.ts', "export const load = () => import('node:os');\n")).toContain('no-restricted-syntax');
  });

  it('the desktop shell is the only importer of electron', async () => {
    expect(await fired('electron/probe.ts', "import { app } from 'electron';\nexport const a = app;\n")).toEqual([]);
    expect(await fired('test/unit/probe.test.ts', "import { app } from 'electron';\nexport const a = app;\n")).toContain('no-restricted-imports');
    expect(await fired('scripts/probe.ts', "export const load = () => import('electron');\n")).toContain('no-restricted-syntax');
  });

  it('@polkadot/* loads at runtime only through electron/engine/lib/polkadot.ts (one CommonJS copy); type imports stay free', async () => {
    const valueImport = "import { decodeAddress } from '@polkadot/util-crypto';\nexport const d = decodeAddress;\n";
    for (const path of ['electron/engine/chain/probe.ts', 'electron/cli/probe.ts', 'electron/probe.ts', 'test/unit/probe.test.ts', 'test/doubles/probe.ts', 'bench/probe.ts', 'scripts/probe.ts']) {
      expect(await fired(path, valueImport), path).toContain('no-restricted-imports');
    }
    expect(await fired('electron/engine/chain/probe.ts', "import '@polkadot/api-augment';\n")).toContain('no-restricted-imports');
    expect(await fired('electron/engine/chain/probe.ts', "export const load = () => import('@polkadot/api');\n")).toContain('no-restricted-syntax');
    expect(await fired('test/integration/probe.test.ts', "export const load = () => import('@polkadot/keyring');\n")).toContain('no-restricted-syntax');
    expect(await fired('electron/cli/probe.ts', "declare const require: (id: string) => unknown;\nexport const u = require('@polkadot/util');\n")).toContain('no-restricted-syntax');
    expect(
      await fired(
        'electron/engine/chain/probe.ts',
        "import type { ApiPromise } from '@polkadot/api';\nimport { polkadot } from '../lib/polkadot.ts';\nexport const create: typeof ApiPromise.create = polkadot('@polkadot/api').ApiPromise.create;\n",
      ),
    ).toEqual([]);
    expect(await fired('test/unit/probe.test.ts', "import type { KeyringPair } from '@polkadot/keyring/types';\nexport type P = KeyringPair;\n")).toEqual([]);
    // The renderer is a browser bundle: Vite takes extension-dapp as ESM there.
    expect(await fired('renderer/src/probe.ts', "export const dapp = () => import('@polkadot/extension-dapp');\n")).toEqual([]);
  });

  it('tests state the timeout of every expect.poll', async () => {
    const poll = (opts: string) => `import { expect } from 'vitest';\nawait expect.poll(() => 1${opts}).toBe(1);\n`;
    expect(await fired('test/unit/probe.test.ts', poll(''))).toContain('no-restricted-syntax');
    expect(await fired('test/unit/probe.test.ts', poll(', { timeout: 20_000 }'))).toEqual([]);
    expect(await fired('test/unit/probe.test.ts', poll(', { interval: 50 }'))).toContain('no-restricted-syntax');
  });

  it('tests state the timeout of every vi.waitFor and vi.waitUntil', async () => {
    const wait = (fn: string, opts: string) =>
      `import { vi } from 'vitest';\nawait vi.${fn}(() => f(g(1))${opts});\ndeclare function f(x: unknown): boolean;\ndeclare function g(x: number): number;\n`;
    for (const fn of ['waitFor', 'waitUntil']) {
      expect(await fired('test/unit/probe.test.ts', wait(fn, ''))).toContain('no-restricted-syntax');
      expect(await fired('test/integration/probe.test.ts', wait(fn, ',\n  { interval: 20 }'))).toContain('no-restricted-syntax');
      expect(await fired('test/unit/probe.test.ts', wait(fn, ', { timeout: 10_000 }'))).toEqual([]);
      expect(await fired('test/unit/probe.test.ts', wait(fn, ', { interval: 20, timeout: 10_000 }'))).toEqual([]);
      expect(await fired('test/unit/probe.test.ts', wait(fn, ', 10_000'))).toEqual([]);
      // Options by name: their timeout cannot be seen here, and the wait may state it.
      expect(await fired('test/unit/probe.test.ts', `const o = { timeout: 5_000 };\n${wait(fn, ', o')}`)).toEqual([]);
      expect(await fired('test/unit/probe.test.ts', `const o = { timeout: 5_000 };\n${wait(fn, ', { ...o, interval: 20 }')}`)).toEqual([]);
    }
    // Nested: the inner call's options do not state the outer's timeout.
    expect(await fired('test/unit/probe.test.ts', "import { vi } from 'vitest';\nawait vi.waitFor(() => h({ timeout: 1 }));\ndeclare function h(x: unknown): boolean;\n")).toContain(
      'no-restricted-syntax',
    );
  });

  it('react hooks are checked in the renderer', async () => {
    const conditional = "import { useState } from 'react';\nexport function P(p: { on: boolean }) {\n  if (p.on) {\n    const [x] = useState(0);\n    return x;\n  }\n  return null;\n}\n";
    expect(await fired('renderer/src/probe.tsx', conditional)).toContain('react-hooks/rules-of-hooks');
  });
});
