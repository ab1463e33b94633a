#!/usr/bin/env node
// Runs the TypeScript sources when they are here (a checkout: Node >= 22.18 strips types natively,
// so no build step and never a stale build), else the compiled CLI (an installed package).
import { existsSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`engy-panel needs Node.js >= 22.18 (this is ${process.versions.node}). Install Node 24 and try again.\n`);
  process.exit(1);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'electron', 'cli', 'main.js');
const source = join(root, 'electron', 'cli', 'main.ts');
const entry = existsSync(source) ? source : built;
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
