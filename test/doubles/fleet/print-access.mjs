#!/usr/bin/env node
// TEST DOUBLE, never shipped: stands in for `engy-panel headless --print-access --data-dir D` on a rig
// reached over the test sshd. It prints D/access.json as is (so a test can hand the panel any answer:
// a fake engine's port, another contract version, garbage), or sleeps first when D/slow exists.
// Each run appends its pid to D/pids, so a test can check that no run outlived it.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';

const i = process.argv.indexOf('--data-dir');
const dir = i >= 0 ? process.argv[i + 1] : '.';
appendFileSync(join(dir, 'pids'), `${process.pid}\n`);
// sshd signals nothing to a session's command when the session ends (no tty): when the panel gives up on
// a slow answer, or the test's sshd stops, the sleep below would go on as an orphan of init for its whole
// length, invisible to the test's child registry. Its stdin is no help (the panel gives ssh none, so it is
// at EOF from the start); the parent going is the sign, as for the load generator in scripts/.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 200).unref();
if (existsSync(join(dir, 'slow'))) await sleep(Number(readFileSync(join(dir, 'slow'), 'utf8')) || 60_000);
process.stdout.write(readFileSync(join(dir, 'access.json'), 'utf8'));
