import { builtinModules } from 'node:module';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * Layers by path (docs/architecture.md): each file belongs to one element, and an element imports
 * only the ones listed for it. Files in no element (tests, benches, scripts, configs) are free.
 */
const ELEMENTS = [
  { type: 'shared', pattern: 'shared/**', partialMatch: false },
  // Inside the engine: lib at the bottom, store below the domains (miner, validator, ...).
  { type: 'engine-lib', pattern: 'electron/engine/lib/**', partialMatch: false },
  { type: 'engine-store', pattern: 'electron/engine/store/**', partialMatch: false },
  { type: 'engine', pattern: 'electron/engine/**', partialMatch: false },
  { type: 'shell', pattern: 'electron/**', partialMatch: false },
  { type: 'renderer', pattern: 'renderer/**', partialMatch: false },
  { type: 'doubles', pattern: 'test/doubles/**', partialMatch: false },
  { type: 'tooling', pattern: '{test,bench,scripts}/**', partialMatch: false },
];

/** A policy per importing element: what it may import (everything else is refused). */
const may = (from, to, message) => ({ from: { element: { type: from } }, allow: to.map((t) => ({ to: { element: { type: t } } })), ...(message ? { message } : {}) });
const ALL = ['shared', 'engine-lib', 'engine-store', 'engine', 'shell', 'renderer', 'doubles', 'tooling'];
const ENGINE = ['engine-lib', 'engine-store', 'engine'];

export const LAYER_POLICIES = [
  may('shared', ['shared'], 'shared/ is imported by both sides: it imports only shared/.'),
  may('engine-lib', ['engine-lib', 'shared'], 'electron/engine/lib is the bottom layer: it imports only itself and shared/.'),
  may('engine-store', ['engine-store', 'engine-lib', 'shared'], 'electron/engine/store sits below the domains: it imports only itself, engine/lib and shared/ (move what it needs down).'),
  may('engine', [...ENGINE, 'shared'], 'electron/engine/** runs in plain Node under any shell: it imports only the engine and shared/, never a shell.'),
  may('shell', ['shell', ...ENGINE, 'shared'], 'Shipped code never imports test/doubles or the renderer.'),
  may('renderer', ['renderer', 'shared'], 'The renderer imports only renderer/ and shared/: it talks to the engine through shared/api.ts.'),
  may('doubles', ALL),
  may('tooling', ALL),
];

// Specifiers are matched whole, by regex: an ignore-style group such as 'fs/*' would also match a
// relative path that merely contains that segment.
const escape = (m) => m.replace(/[/]/g, '\\/');
/** Every spelling of a Node built-in (fs, node:fs, fs/promises, node:sqlite...): the browser has none. */
const NODE_BUILTINS_REGEX = `^(node:.*|(${builtinModules
  .filter((m) => !m.startsWith('_'))
  .map(escape)
  .join('|')})(\\/.*)?)$`;
/** Packages that need Node (sockets, native code, the OS): never in a browser bundle. */
const NODE_ONLY_PACKAGES = ['ws', 'systeminformation', 'prom-client', 'tokenizers', 'electron-updater', 'libsodium-wrappers-sumo'];
const ELECTRON_PATTERN = (message) => ({ regex: '^electron(\\/.*)?$', message });
const ELECTRON_RE = '/^electron($|\\u002F)/';
/** import('electron'), import type X = import('electron'), require('electron'): what no-restricted-imports does not see. */
const electronSyntax = (message) => [
  { selector: `ImportExpression[source.value=${ELECTRON_RE}]`, message },
  { selector: `TSImportType[argument.literal.value=${ELECTRON_RE}]`, message },
  { selector: `CallExpression[callee.name='require'][arguments.0.value=${ELECTRON_RE}]`, message },
];
const NODE_RE = `/^(node:|(${builtinModules
  .filter((m) => !m.startsWith('_'))
  .map((m) => m.replace(/[/]/g, '\\u002F'))
  .join('|')})($|\\u002F))/`;
const nodeSyntax = (message) => [{ selector: `ImportExpression[source.value=${NODE_RE}]`, message }];
/**
 * @polkadot/* at runtime only through electron/engine/lib/polkadot.ts (their CommonJS builds): an ESM import beside
 * it loads a second copy of @polkadot/util (instanceof fails across copies) and costs seconds of CPU per process.
 * Type imports are erased, so they stay free. The renderer is exempt: Vite bundles its extension-dapp as ESM.
 */
const POLKADOT_MESSAGE = "Load @polkadot/* with polkadot('@polkadot/...') from electron/engine/lib/polkadot.ts (one CommonJS copy); only `import type` may name it directly.";
const POLKADOT_PATTERN = { regex: '^@polkadot\\/', allowTypeImports: true, message: POLKADOT_MESSAGE };
const POLKADOT_RE = '/^@polkadot\\u002F/';
/** import('@polkadot/x') and require('@polkadot/x'): what no-restricted-imports does not see. */
const POLKADOT_SYNTAX = [
  { selector: `ImportExpression[source.value=${POLKADOT_RE}]`, message: POLKADOT_MESSAGE },
  { selector: `CallExpression[callee.name='require'][arguments.0.value=${POLKADOT_RE}]`, message: POLKADOT_MESSAGE },
];
/** A wait that falls back to vitest's 1 s default is a speed assertion in disguise: on a loaded CI box it fails. */
const statedWait = (callee, message) => [
  { selector: `CallExpression${callee}[arguments.length<2]`, message },
  // Options written out without a timeout (a number states one; options by name or spread may).
  { selector: `CallExpression${callee} > ObjectExpression.arguments:nth-child(2):not(:has(> Property[key.name='timeout'])):not(:has(> SpreadElement))`, message },
];
const TEST_SYNTAX = [
  ...statedWait("[callee.object.name='expect'][callee.property.name='poll']", 'expect.poll states its timeout ({ timeout: 20_000 }): the 1 s default fails on a loaded machine.'),
  ...statedWait(
    "[callee.object.name='vi'][callee.property.name=/^wait(For|Until)$/]",
    'vi.waitFor and vi.waitUntil state their timeout ({ timeout: 10_000 }): the 1 s default fails on a loaded machine.',
  ),
];

/** The layer rules on their own, so test/unit/lint/layers.test.ts lints probe files with exactly these. */
export const layerConfig = [
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.cts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': ELEMENTS,
      'boundaries/include': ['shared/**', 'electron/**', 'renderer/**', 'test/**', 'bench/**', 'scripts/**'],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.cts', '.js', '.mjs'] } },
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'disallow', policies: LAYER_POLICIES }],
    },
  },
  {
    // The one shipped file allowed to reach the doubles until `demo` gets its typed dev-only entry
    // point (issue 19, item 3; helper H2): it wires the simulated network from test/doubles.
    files: ['electron/cli/demo.ts'],
    rules: {
      'boundaries/dependencies': ['error', { default: 'disallow', policies: [...LAYER_POLICIES, may('shell', ['doubles'])] }],
    },
  },
  {
    // Engine: plain Node under any shell, so electron in no form (static, subpath, dynamic, type).
    files: ['electron/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [ELECTRON_PATTERN('Engine services run in plain Node: never import electron here (the desktop shell, electron/*.ts, is its only importer).'), POLKADOT_PATTERN] },
      ],
      'no-restricted-syntax': ['error', ...electronSyntax("Engine services run in plain Node: no import('electron') either."), ...POLKADOT_SYNTAX],
    },
  },
  {
    // The desktop shell and the CLI (electron/*.ts, electron/cli, ...) run in Node too.
    files: ['electron/**/*.ts', 'electron/**/*.cts'],
    ignores: ['electron/engine/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [POLKADOT_PATTERN] }],
      'no-restricted-syntax': ['error', ...POLKADOT_SYNTAX],
    },
  },
  {
    // Renderer: a browser page (Electron's sandboxed window or any browser on the headless port).
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ELECTRON_PATTERN('The renderer runs in a browser: it reaches the engine through shared/api.ts, never electron.'),
            { regex: NODE_BUILTINS_REGEX, message: 'The renderer runs in a browser: no Node module (node:*, fs, path, ...).' },
            { regex: `^(${NODE_ONLY_PACKAGES.join('|')})(\\/.*)?$`, message: 'The renderer runs in a browser: this package needs Node.' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        ...electronSyntax("The renderer runs in a browser: no import('electron')."),
        ...nodeSyntax('The renderer runs in a browser: no dynamic import of a Node module.'),
      ],
    },
  },
  {
    // Tests, benches and scripts run in Node; the desktop shell stays the only importer of electron.
    files: ['test/**/*.ts', 'test/**/*.tsx', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [ELECTRON_PATTERN('Only the desktop shell (electron/*.ts) imports electron.'), POLKADOT_PATTERN] }],
      'no-restricted-syntax': ['error', ...electronSyntax('Only the desktop shell (electron/*.ts) imports electron.'), ...TEST_SYNTAX, ...POLKADOT_SYNTAX],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ELECTRON_PATTERN('shared/ is imported by both sides: no electron.'),
            { regex: NODE_BUILTINS_REGEX, message: 'shared/ is imported by both sides: no Node module.' },
            { group: ['react', 'react-dom'], message: 'shared/ is imported by both sides: no react.' },
            // Packages too: only the schema library and the pure-JS hashes (the one SS58 codec) are shared by both sides.
            { regex: '^(?![./]|valibot$|@noble/hashes/)', message: 'shared/ imports only shared/ (valibot for its schemas, @noble/hashes for the SS58 codec).' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        ...electronSyntax("shared/ is imported by both sides: no import('electron')."),
        ...nodeSyntax('shared/ is imported by both sides: no dynamic import of a Node module.'),
      ],
    },
  },
  {
    files: ['renderer/**/*.tsx', 'renderer/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-renderer/', 'release/', 'test-results/', '.tools/', 'resources/**/*.py'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.cts'],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...layerConfig,
);
