// `node bench/ab.ts <base-rev> [--pairs N]`: the miner bench's first token, this checkout (as it is on
// disk, uncommitted changes included) against another build, in alternated whole runs of
// `node bench/run.ts miner`. One run's ratio moves 0.1-0.3x on a two-core box and whole days drift,
// so two builds are compared only run against run, taking turns (base-head, then head-base), over
// several pairs (docs/performance.md). Every run's output is kept in a folder this prints; the base
// build is a temporary git worktree that shares this checkout's node_modules and is removed at the end.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRun, summarise, type Pair } from './ab-report.ts';

const ROOT = join(import.meta.dirname, '..');
/** A whole miner bench takes 70-90 s here; a run past this is stuck and is killed. */
const RUN_TIMEOUT_MS = 15 * 60_000;

function usage(why: string): never {
  console.error(`${why}\nusage: node bench/ab.ts <base-rev> [--pairs N]   (N from 1 to 20, default 3)`);
  process.exit(2);
}

const args = process.argv.slice(2);
const baseRev = args[0];
if (baseRev === undefined || baseRev.startsWith('-')) usage('Name the build to compare against (a commit, tag or branch).');
const pairsAt = args.indexOf('--pairs');
const pairs = pairsAt < 0 ? 3 : Number(args[pairsAt + 1]);
if (!Number.isInteger(pairs) || pairs < 1 || pairs > 20) usage('--pairs takes a whole number from 1 to 20.');

let commit: string;
try {
  commit = execFileSync('git', ['rev-parse', '--verify', `${baseRev}^{commit}`], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  usage(`"${baseRev}" is not a commit of this repository.`);
}

const logs = mkdtempSync(join(tmpdir(), 'engy-ab-'));
const baseDir = join(logs, 'base');
execFileSync('git', ['worktree', 'add', '--detach', baseDir, commit], { cwd: ROOT, stdio: 'ignore' });
symlinkSync(join(ROOT, 'node_modules'), join(baseDir, 'node_modules'), 'dir');

let running: ChildProcess | null = null;
function cleanUp(): void {
  // The bench's own children stop when it goes (IPC close, and fake serves with their parent).
  if (running?.pid !== undefined && running.exitCode === null) {
    try {
      process.kill(-running.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  try {
    execFileSync('git', ['worktree', 'remove', '--force', baseDir], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    console.error(`could not remove the worktree ${baseDir}: run \`git worktree prune\` once it is deleted`);
  }
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    cleanUp();
    process.exit(130);
  });
}

function runBench(cwd: string, log: string): Promise<string> {
  return new Promise((resolve) => {
    const out = createWriteStream(log);
    // Its own process group, so a stuck run is killed whole.
    const child = spawn(process.execPath, ['bench/run.ts', 'miner'], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running = child;
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    const timer = setTimeout(() => {
      out.write(`\n[ab] killed after ${RUN_TIMEOUT_MS / 60_000} min\n`);
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, RUN_TIMEOUT_MS);
    child.on('close', () => {
      clearTimeout(timer);
      running = null;
      out.end(() => resolve(readFileSync(log, 'utf8')));
    });
  });
}

console.log(`comparing this checkout (head) with ${baseRev} (${commit.slice(0, 10)}, base) over ${pairs} pair(s); logs in ${logs}`);
const results: Pair[] = [];
try {
  for (let i = 1; i <= pairs; i++) {
    const pair: Pair = { base: null, head: null };
    // Turns alternate, so neither build always runs on the warmer box.
    const order: ('base' | 'head')[] = i % 2 === 1 ? ['base', 'head'] : ['head', 'base'];
    for (const side of order) {
      const output = await runBench(side === 'base' ? baseDir : ROOT, join(logs, `pair-${i}-${side}.log`));
      const figures = readRun(output);
      pair[side] = figures;
      console.log(
        `  pair ${i} ${side}: ${figures === null ? 'no first-token figure (see its log)' : `${figures.ratio.toFixed(2)}x direct, relay ${figures.relay?.toFixed(2) ?? '-'}x, load ${figures.load ?? '-'}`}`,
      );
    }
    results.push(pair);
  }
} finally {
  cleanUp();
}
console.log(`\n${summarise(results, { base: 'base', head: 'head' })}\nlogs: ${logs}`);
