// A preload (`node --import test/helpers/module-probe.ts ...`) for the idle-footprint test and bench:
// it records every module the process loads (and which module first imported it) through Node's
// synchronous module hooks, and on SIGUSR2 writes a report to $ENGY_MODULE_PROBE_OUT: the loaded
// modules, process.memoryUsage(), V8's heap spaces and, with $ENGY_MODULE_PROBE_HEAP=1, the live heap
// summarised by constructor from a heap snapshot. A worker thread started in the process (the proof
// pool's) appends a line to `$ENGY_MODULE_PROBE_OUT.workers`. Dev-only: never imported by shipped code.
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

export interface ModuleProbeReport {
  /** Every module URL loaded, with the URL of the module that first asked for it (null for the entry). */
  modules: { url: string; parent: string | null; bytes: number }[];
  memory: NodeJS.MemoryUsage;
  heapSpaces: { name: string; sizeMb: number; usedMb: number }[];
  /** Live heap by constructor (objects) or by kind (strings, code, arrays...), largest first; absent unless asked for. */
  heapByConstructor?: { name: string; count: number; mb: number }[];
}

const out = process.env.ENGY_MODULE_PROBE_OUT;

if (out && !isMainThread) {
  appendFileSync(`${out}.workers`, `${threadId}\n`);
} else if (out) {
  const parents = new Map<string, string | null>();
  const bytes = new Map<string, number>();
  registerHooks({
    resolve(specifier, context, next) {
      const r = next(specifier, context);
      if (!parents.has(r.url)) parents.set(r.url, context.parentURL ?? null);
      return r;
    },
    load(url, context, next) {
      const r = next(url, context);
      const src = r.source;
      bytes.set(url, typeof src === 'string' ? Buffer.byteLength(src) : src ? (src as ArrayBufferView).byteLength : 0);
      return r;
    },
  });
  process.on('SIGUSR2', () => {
    const memory = process.memoryUsage();
    const report: ModuleProbeReport = {
      modules: [...bytes.keys()].map((url) => ({ url, parent: parents.get(url) ?? null, bytes: bytes.get(url) ?? 0 })),
      memory,
      heapSpaces: getHeapSpaceStatistics().map((s) => ({ name: s.space_name, sizeMb: s.space_size / 1e6, usedMb: s.space_used_size / 1e6 })),
    };
    if (process.env.ENGY_MODULE_PROBE_HEAP === '1') report.heapByConstructor = heapByConstructor();
    // Written whole, then renamed: a reader polling for the file never sees half of it.
    writeFileSync(`${out}.tmp`, JSON.stringify(report));
    renameSync(`${out}.tmp`, out);
  });
}

/** The heap snapshot's nodes summed by constructor name (objects) or by node kind (everything else). */
function heapByConstructor(): { name: string; count: number; mb: number }[] {
  const file = writeHeapSnapshot(`${out}.heapsnapshot`);
  const text = readFileSync(file, 'utf8');
  rmSync(file, { force: true });
  const snap = JSON.parse(text) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  const f = snap.snapshot.meta.node_fields;
  const width = f.length;
  const [iType, iName, iSize] = [f.indexOf('type'), f.indexOf('name'), f.indexOf('self_size')];
  const types = snap.snapshot.meta.node_types[0];
  const sums = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]!]!;
    const key = type === 'object' ? snap.strings[snap.nodes[i + iName]!]! : `(${type})`;
    const s = sums.get(key) ?? { count: 0, size: 0 };
    s.count++;
    s.size += snap.nodes[i + iSize]!;
    sums.set(key, s);
  }
  return [...sums.entries()].map(([name, s]) => ({ name, count: s.count, mb: s.size / 1e6 })).sort((a, b) => b.mb - a.mb);
}
