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
  { type: 'engine', pattern: 'electron/engine/**', partialMatch: false },
  { type: 'shell', pattern: 'electron/**', partialMatch: false },
  { type: 'renderer', pattern: 'renderer/**', partialMatch: false },
  { type: 'doubles', pattern: 'test/doubles/**', partialMatch: false },
  { type: 'tooling', pattern: '{test,bench,scripts}/**', partialMatch: false },
];

/** A policy per importing element: what it may import (everything else is refused). */
const may = (from, to, message) => ({ from: { element: { type: from } }, allow: to.map((t) => ({ to: { element: { type: t } } })), ...(message ? { message } : {}) });
const ALL = ['shared', 'engine', 'shell', 'renderer', 'doubles', 'tooling'];

export const LAYER_POLICIES = [
  may('shared', ['shared'], 'shared/ is imported by both sides: it imports only shared/.'),
  may('engine', ['engine', 'shared'], 'electron/engine/** runs in plain Node under any shell: it imports only the engine and shared/, never a shell.'),
  may('shell', ['shell', 'engine', 'shared'], 'Shipped code never imports test/doubles or the renderer.'),
  may('renderer', ['renderer', 'shared'], 'The renderer imports only renderer/ and shared/: it talks to the engine through shared/api.ts.'),
  may('doubles', ALL),
  may('tooling', ALL),
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
    files: ['electron/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Engine services run in plain Node: never import electron here.' }] }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['electron', 'node:*', 'react', 'react-dom', 'fs', 'path', 'os', 'child_process'], message: 'shared/ is imported by both sides: no electron, node or react.' },
            // Packages too: only the schema library is shared by both sides.
            { regex: '^(?![./]|valibot$)', message: 'shared/ imports only shared/ (and valibot for its schemas).' },
          ],
        },
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
  {
    // A wait on a condition states its timeout: the 1 s default lies on a loaded machine.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='expect'][callee.property.name='poll'][arguments.length<2]", message: 'expect.poll states its timeout ({ timeout: 20_000 }): the 1 s default fails on a loaded machine.' },
      ],
    },
  },
  ...layerConfig,
);
