// `npm run bench [-- name...]`: runs every bench/*.bench.ts (each exports `async function bench()`)
// in this one process and prints their reports. Timing lives here, never in the tests.
import { readdirSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { goals } from './report.ts';

const only = process.argv.slice(2);
const dir = import.meta.dirname;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(`engy panel benchmarks: node ${process.versions.node}, ${availableParallelism()} x ${cpus()[0]?.model ?? 'cpu'}, load ${load}`);
if (loadavg()[0]! > availableParallelism()) console.log('note: the machine is busy; CPU times below are more telling than wall times');

let failed = 0;
for (const f of files) {
  console.log(`\n== ${f}`);
  try {
    const mod = (await import(pathToFileURL(`${dir}/${f}`).href)) as { bench?: () => Promise<void> };
    if (typeof mod.bench !== 'function') throw new Error('exports no bench() function');
    await mod.bench();
  } catch (e) {
    failed++;
    console.log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}
if (goals.length > 0) {
  console.log(`\n== goals: ${goals.filter((g) => g.met).length} of ${goals.length} met`);
  for (const g of goals) console.log(`  ${g.line.replace(/^goal /, '')}`);
}
process.exitCode = failed > 0 ? 1 : 0;
