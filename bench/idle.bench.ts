// The idle footprint (issue 30, item 4): `engy-panel headless` started on a fresh data dir, and on the
// simulated network's data dir as `engy-panel demo` prepares it, left alone for 30 s, then its resident
// memory read from /proc. A second, probed start of each (test/helpers/module-probe.ts) says what the
// memory holds: the modules loaded, grouped by package with the module that first asked for each (the
// why), each package's measured cost when imported alone, V8's heap spaces and the live heap by
// constructor. The goal (< 150 MB) is for the fresh data dir; the simulated one is printed beside it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { goal, procMemory } from './report.ts';
import type { ModuleProbeReport } from '../test/helpers/module-probe.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'engy-panel.mjs');
const PROBE = pathToFileURL(join(ROOT, 'test', 'helpers', 'module-probe.ts')).href;
const SETTLE_MS = 30_000;
const START_MS = 180_000;
const GOAL_MB = 150;

interface Reading {
  rssMb: number;
  peakMb: number;
  threads: number;
  load: string;
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const kb = (bytes: number): string => `${(bytes / 1e3).toFixed(0)} kB`;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function procStatus(pid: number): Reading {
  const m = procMemory(pid);
  return { rssMb: m.rssBytes / 1e6, peakMb: m.peakBytes / 1e6, threads: m.threads, load: load() };
}

/** Starts the engine on `dataDir`, waits for its URL and SETTLE_MS more, reads it; with `probeOut`, also the probe's report. */
async function idleEngine(dataDir: string, home: string, probeOut: string | null): Promise<{ reading: Reading; report: ModuleProbeReport | null }> {
  const rendererDir = join(home, 'no-ui');
  mkdirSync(rendererDir, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ENGY_RENDERER_DIR: rendererDir };
  const args = [BIN, 'headless', '--port', '0', '--data-dir', dataDir];
  if (probeOut) {
    Object.assign(env, { ENGY_MODULE_PROBE_OUT: probeOut, ENGY_MODULE_PROBE_HEAP: '1' });
    args.unshift(`--import=${PROBE}`);
  }
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const started = Date.now();
    while (!/Open: http/.test(out)) {
      if (child.exitCode !== null) throw new Error(`the engine exited with ${child.exitCode}:\n${out}`);
      if (Date.now() - started > START_MS) throw new Error(`the engine printed no URL in ${START_MS / 1000} s:\n${out}`);
      await sleep(100);
    }
    await sleep(SETTLE_MS);
    const reading = procStatus(child.pid!);
    let report: ModuleProbeReport | null = null;
    if (probeOut) {
      child.kill('SIGUSR2');
      const asked = Date.now();
      while (!existsSync(probeOut)) {
        if (Date.now() - asked > 120_000) throw new Error('the module probe wrote no report in 120 s');
        await sleep(200);
      }
      report = JSON.parse(readFileSync(probeOut, 'utf8')) as ModuleProbeReport;
    }
    return { reading, report };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const hard = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(hard);
    }
  }
}

/** `node_modules/<pkg>` for a dependency, else the project folder two levels deep. */
function groupOf(url: string): string {
  if (url.startsWith('node:')) return 'node: builtins';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (m) return m[1]!;
  const rel = url.replace(pathToFileURL(ROOT).href + '/', '');
  return rel
    .split('/')
    .slice(0, rel.startsWith('electron/engine/') ? 3 : 2)
    .join('/');
}

const short = (url: string | null): string => (url ?? '(entry)').replace(pathToFileURL(ROOT).href + '/', '');

/** RSS added by importing a package (by name, else the first file of it loaded) alone in a fresh Node, in MB. */
function aloneCostMb(pkg: string, firstUrl: string): number {
  for (const spec of [pkg, firstUrl]) {
    const script = `const b=process.memoryUsage().rss;await import(${JSON.stringify(spec)});await new Promise(r=>setTimeout(r,200));console.log(process.memoryUsage().rss-b)`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    const n = Number(r.stdout.trim().split('\n').pop());
    if (r.status === 0 && Number.isFinite(n)) return n / 1e6;
  }
  return Number.NaN;
}

/** The project module whose import chain brought `url` in: the first importer outside node_modules. */
function whyLoaded(url: string, parents: Map<string, string | null>): string {
  let at: string | null = parents.get(url) ?? null;
  for (let hops = 0; at && at.includes('/node_modules/') && hops < 200; hops++) at = parents.get(at) ?? null;
  return short(at);
}

function printSplit(r: ModuleProbeReport): void {
  const m = r.memory;
  console.log(`  heap: ${mb(m.heapUsed)} live of ${mb(m.heapTotal)} reserved; external ${mb(m.external)} (array buffers ${mb(m.arrayBuffers)}); the rest of RSS is code, Node and the stacks`);
  console.log(
    `  V8 spaces (reserved / used): ${r.heapSpaces
      .filter((s) => s.sizeMb >= 0.5)
      .map((s) => `${s.name} ${s.sizeMb.toFixed(1)}/${s.usedMb.toFixed(1)}`)
      .join(', ')} MB`,
  );
  const parents = new Map(r.modules.map((x) => [x.url, x.parent]));
  const groups = new Map<string, { files: number; bytes: number; first: string; why: string }>();
  for (const mod of r.modules) {
    const g = groupOf(mod.url);
    const cur = groups.get(g) ?? { files: 0, bytes: 0, first: mod.url, why: whyLoaded(mod.url, parents) };
    cur.files++;
    cur.bytes += mod.bytes;
    groups.set(g, cur);
  }
  const deps = [...groups.entries()].filter(([g]) => !g.startsWith('electron') && !g.startsWith('shared') && !g.startsWith('node:') && !g.startsWith('bin'));
  console.log(`  modules loaded: ${r.modules.length} (${mb(r.modules.reduce((s, x) => s + x.bytes, 0))} of source)`);
  console.log('  dependencies loaded (files, source, RSS the package adds imported alone in a fresh Node, the project module that brought it in):');
  const listed = deps.sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [g, v] of listed.slice(0, 16)) {
    console.log(`    ${g.padEnd(26)} ${String(v.files).padStart(4)} files ${kb(v.bytes).padStart(7)}  +${aloneCostMb(g, v.first).toFixed(1)} MB alone  <- ${v.why}`);
  }
  const rest = listed.slice(16);
  if (rest.length > 0) console.log(`    and ${rest.length} smaller packages (${kb(rest.reduce((n, [, v]) => n + v.bytes, 0))} of source): ${rest.map(([g]) => g).join(', ')}`);
  const own = [...groups.entries()].filter(([g]) => g.startsWith('electron') || g.startsWith('shared')).sort((a, b) => b[1].bytes - a[1].bytes);
  console.log(
    `  the project's own modules, by folder (files, source): ${own
      .slice(0, 12)
      .map(([g, v]) => `${g} ${v.files}/${kb(v.bytes)}`)
      .join(', ')}${own.length > 12 ? ', ...' : ''}`,
  );
  if (r.heapByConstructor) {
    console.log(
      `  live heap by constructor: ${r.heapByConstructor
        .slice(0, 12)
        .map((h) => `${h.name} ${h.mb.toFixed(1)} MB (${h.count})`)
        .join(', ')}`,
    );
  }
}

async function measure(label: string, prepare: (dataDir: string) => Promise<() => Promise<void>>): Promise<Reading> {
  const home = mkdtempSync(join(tmpdir(), 'engy-idle-bench-'));
  try {
    const plainDir = join(home, 'data-plain');
    const stopPlain = await prepare(plainDir);
    let plain: Reading;
    try {
      plain = (await idleEngine(plainDir, home, null)).reading;
    } finally {
      await stopPlain();
    }
    console.log(`${label}: RSS ${plain.rssMb.toFixed(1)} MB after ${SETTLE_MS / 1000} s idle (peak ${plain.peakMb.toFixed(1)} MB during start-up, ${plain.threads} threads), load ${plain.load}`);
    const probedDir = join(home, 'data-probed');
    const stopProbed = await prepare(probedDir);
    try {
      const { reading, report } = await idleEngine(probedDir, home, join(home, 'probe.json'));
      console.log(`  the split, from a second start with the module probe (RSS ${reading.rssMb.toFixed(1)} MB there; the probe's own records are in it):`);
      if (report) printSplit(report);
    } finally {
      await stopProbed();
    }
    return plain;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export async function bench(): Promise<void> {
  console.log(`idle headless engine: started, left ${SETTLE_MS / 1000} s, RSS read from /proc (machine load ${load()})`);
  const fresh = await measure('fresh data dir', async () => async () => undefined);
  const { startSimulatedNetwork } = await import('../test/doubles/sim-network/sim-network.ts');
  const sim = await measure('simulated network data dir (its chain, provider and gateway running in this process)', async (dataDir) => {
    const net = await startSimulatedNetwork({ dataDir });
    return () => net.stop();
  });
  goal('idle headless engine, fresh data dir, RSS', fresh.rssMb, 'MB', '<', GOAL_MB, `machine load ${fresh.load}; on the simulated network's data dir ${sim.rssMb.toFixed(0)} MB`);
}
