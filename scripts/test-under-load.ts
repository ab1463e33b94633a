// `npm run test:under-load`: the suite on a machine that is busy with other work, the way a shared
// CI box or a reviewer's laptop is. A bounded load generator keeps LOAD busy processes running
// (each stops by itself at the deadline, or as soon as this script is gone), while the suite runs
// RUNS times in a row; the first failing run stops it. Figures (wall time per run) are printed.
//   node scripts/test-under-load.ts [--runs 3] [--load 8] [--max-minutes 180] [-- <command...>]
// The command defaults to `npm test`; pass e.g. `-- npx vitest run test/integration/miner` for a subset.
import { spawn, type ChildProcess } from 'node:child_process';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} takes a whole number of at least 1`);
  return v;
}

const runs = flag('runs', 3);
const load = flag('load', 8);
// Three whole runs take about 40 min each on a loaded 2-core box (2026-12-04): the load must outlast them.
const maxMs = flag('max-minutes', 180) * 60_000;
const sep = process.argv.indexOf('--');
const command = sep >= 0 ? process.argv.slice(sep + 1) : ['npm', 'test'];
if (command.length === 0) throw new Error('nothing to run after --');

/**
 * One busy process: spins in short slices until the deadline, or stops at once when its parent
 * (this script) is gone, so a killed run never leaves the load behind.
 */
const BUSY = `
const end = Date.now() + Number(process.argv[1]);
const parent = process.ppid;
while (Date.now() < end && process.ppid === parent) { let x = 0; for (let i = 0; i < 2e6; i++) x += i; }
`;

function startLoad(): ChildProcess[] {
  return Array.from({ length: load }, () => spawn(process.execPath, ['-e', BUSY, String(maxMs)], { stdio: 'ignore' }));
}

function stopLoad(procs: ChildProcess[]): void {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
}

function runOnce(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', env: process.env });
    child.once('error', (e) => {
      process.stderr.write(`test:under-load: could not start ${command.join(' ')}: ${e.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const busy = startLoad();
const started = Date.now();
process.once('SIGINT', () => {
  stopLoad(busy);
  process.exit(130);
});
const figures: string[] = [];
let failed = false;
try {
  process.stdout.write(`test:under-load: ${load} busy processes (at most ${maxMs / 60_000} min), ${runs} run(s) of: ${command.join(' ')}\n`);
  for (let i = 1; i <= runs; i++) {
    const t0 = Date.now();
    const code = await runOnce();
    const s = ((Date.now() - t0) / 1000).toFixed(0);
    figures.push(`run ${i}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${s} s`);
    process.stdout.write(`test:under-load: ${figures.at(-1)}\n`);
    if (code !== 0) {
      failed = true;
      break;
    }
    if (Date.now() - started > maxMs) {
      figures.push(`the load stopped at its ${maxMs / 60_000} min bound: later runs would not be under load`);
      failed = i < runs;
      break;
    }
  }
} finally {
  stopLoad(busy);
}
process.stdout.write(`test:under-load: ${failed ? 'NOT passed' : `passed ${runs} time(s) in a row`}\n  ${figures.join('\n  ')}\n`);
process.exit(failed ? 1 : 0);
