#!/usr/bin/env node
// Runs the compiled CLI when built (packaged app, `npm run build`), else the TypeScript
// sources directly: Node >= 22.18 strips types natively, so a fresh checkout needs no build step.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`engy-panel needs Node.js >= 22.18 (this is ${process.versions.node}). Install Node 24 and try again.\n`);
  process.exit(1);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'electron', 'cli', 'main.js');
const entry = existsSync(built) && !process.env.ENGY_FROM_SOURCE ? built : join(root, 'electron', 'cli', 'main.ts');
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
