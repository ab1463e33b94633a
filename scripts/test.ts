// `npm test`, the README's one test command. Two lanes run at once, because the test files mostly
// wait on simulated time and leave the cores partly idle (docs/testing.md), and the checks need
// nothing the tests produce:
//   tests:  build:main, build:renderer, then vitest (the desktop and e2e files boot dist/ and dist-renderer/);
//   checks: typecheck:no-emit, then lint, at a lower CPU priority so the tests' waits are served first.
// Each step is an npm script in package.json (the one home for its command). The tests lane prints
// as it goes; a check's output is held and printed whole when it ends, between two of the tests'
// lines, so the two never interleave. The first failing step stops the other lane (its process
// group gets SIGTERM, then SIGKILL), as do Ctrl-C and SIGTERM. Arguments go to vitest:
//   npm test -- --project unit
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';

interface Lane {
  name: string;
  /** npm script names, run one after the other. */
  scripts: string[];
  /** The last script gets this script's arguments (vitest's: `npm test -- --project unit`). */
  takesArgs: boolean;
  /** Print as it comes (line by line) instead of whole blocks per step. */
  live: boolean;
  /** Added niceness (0 = as this process). */
  nice: number;
}

const LANES: Lane[] = [
  { name: 'tests', scripts: ['build:main', 'build:renderer', 'test:vitest'], takesArgs: true, live: true, nice: 0 },
  { name: 'checks', scripts: ['typecheck:no-emit', 'lint'], takesArgs: false, live: false, nice: 10 },
];
/** How long a stopped step's process group has between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 10_000;

const extraArgs = process.argv.slice(2);
const running = new Set<ChildProcess>();
/** Steps this script stopped (their exit is not their own failure). */
const stopped = new WeakSet<ChildProcess>();
const results: string[] = [];
let stopping = false;
// The tests lane's unfinished line: a held block is printed only between whole lines.
let livePartial = '';

function out(text: string): void {
  process.stdout.write(text);
}

function writeLive(chunk: string): void {
  const text = livePartial + chunk;
  const cut = text.lastIndexOf('\n') + 1;
  livePartial = text.slice(cut);
  if (cut > 0) out(text.slice(0, cut));
}

function flushLive(): void {
  if (livePartial) out(`${livePartial}\n`);
  livePartial = '';
}

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(0)} s`;

/** Runs one npm script in its own process group; resolves with its exit code (1 for a signal or a failed start). */
function runStep(lane: Lane, script: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const held: string[] = [];
    if (lane.live) out(`\nnpm test [${lane.name}]: ${script}\n`);
    const env = { ...process.env };
    // Children write to pipes: keep their colours when this command runs in a terminal.
    if (process.stdout.isTTY && env.NO_COLOR === undefined) env.FORCE_COLOR ??= '1';
    const child = spawn('npm', ['run', script, ...(args.length > 0 ? ['--', ...args] : [])], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    running.add(child);
    if (lane.nice > 0 && child.pid !== undefined) {
      try {
        setPriority(child.pid, lane.nice);
      } catch {
        // Not permitted here: the step runs at the normal priority, only less politely.
      }
    }
    const take = (b: Buffer) => (lane.live ? writeLive(b.toString()) : held.push(b.toString()));
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let failedToStart = '';
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      running.delete(child);
      const rc = failedToStart ? 1 : (code ?? (signal ? 1 : 0));
      const verdict = rc === 0 ? 'passed' : stopped.has(child) ? 'stopped' : `FAILED (exit ${code ?? signal})`;
      const line = `npm test [${lane.name}]: ${script} ${verdict} in ${seconds(t0)}`;
      if (lane.live) {
        flushLive();
        out(`${failedToStart}${line}\n`);
      } else {
        const body = held.join('');
        out(`\n----- ${script} (${lane.name}) -----\n${failedToStart}${body}${body.endsWith('\n') || body === '' ? '' : '\n'}${line}\n-----\n`);
      }
      results.push(line);
      resolve(rc);
    };
    // Normally 'close' (all output read) follows 'exit' at once; a leftover grandchild holding the
    // pipe open must not hang the run, so after 5 s the step ends with what it printed.
    child.once('exit', (code, signal) => {
      // Whatever the step left in its group is orphaned now: it does not outlive the step.
      killGroup(child, 'SIGKILL');
      const late = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, 5_000);
      child.once('close', () => {
        clearTimeout(late);
        finish(code, signal);
      });
    });
    child.once('error', (e) => {
      failedToStart = `npm test: could not start npm run ${script}: ${e.message}\n`;
      // No process, so no 'exit' to wait for.
      if (child.pid === undefined) finish(null, null);
    });
  });
}

function killGroup(c: ChildProcess, sig: NodeJS.Signals): void {
  if (c.pid === undefined) return;
  try {
    process.kill(-c.pid, sig);
  } catch {
    // The group is already gone.
  }
}

/** SIGTERM to every running step's process group, SIGKILL to what is left after the grace. */
async function stopAll(): Promise<void> {
  stopping = true;
  const groups = [...running];
  for (const c of groups) stopped.add(c);
  for (const c of groups) killGroup(c, 'SIGTERM');
  const end = Date.now() + KILL_GRACE_MS;
  while (running.size > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  // Also after the leaders exit: a grandchild that ignored SIGTERM is still in the group.
  for (const c of groups) killGroup(c, 'SIGKILL');
}

async function runLane(lane: Lane): Promise<number> {
  for (const [i, script] of lane.scripts.entries()) {
    if (stopping) return 1;
    const rc = await runStep(lane, script, lane.takesArgs && i === lane.scripts.length - 1 ? extraArgs : []);
    if (rc !== 0) {
      if (!stopping) await stopAll();
      return rc;
    }
  }
  return 0;
}

// Ctrl-C reaches only this process's group: the steps run in groups of their own and are stopped here.
let interrupted: NodeJS.Signals | null = null;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    interrupted = sig;
    out(`\nnpm test: ${sig}, stopping every step\n`);
    void stopAll();
  });
}

const t0 = performance.now();
const codes = await Promise.all(LANES.map(runLane));
flushLive();
const failed = codes.some((c) => c !== 0);
out(`\nnpm test: ${interrupted ? `stopped by ${interrupted}` : failed ? 'FAILED' : 'passed'} in ${seconds(t0)}\n${results.map((r) => `  ${r}`).join('\n')}\n`);
process.exit(interrupted === 'SIGINT' ? 130 : interrupted ? 143 : failed ? 1 : 0);
