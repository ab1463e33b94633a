#!/usr/bin/env node
// TEST DOUBLE, never shipped: stands in for `engy-panel headless --print-access --data-dir D` on a rig
// reached over the test sshd. It prints D/access.json as is (so a test can hand the panel any answer:
// a fake engine's port, another contract version, garbage), or sleeps first when D/slow exists.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

const i = process.argv.indexOf('--data-dir');
const dir = i >= 0 ? process.argv[i + 1] : '.';
if (existsSync(join(dir, 'slow'))) await sleep(Number(readFileSync(join(dir, 'slow'), 'utf8')) || 60_000);
process.stdout.write(readFileSync(join(dir, 'access.json'), 'utf8'));
