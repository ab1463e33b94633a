// One variant of mining-start.bench.ts, in a fresh process: loads a checkpoint's prompt builder the way
// the variant says while a 1 ms heartbeat watches the loop, then prints one JSON line (the longest gap
// between beats, the loop delay's max, the load's wall time, resident and peak memory).
//   current:   PromptBuilder.load, as MinerService.start calls it (the tokenizer on its own thread);
//   reference: the load before round 16: the binding's Tokenizer.fromFile on this thread, then the fast
//              encoder compiled on its worker (the template's parse, a few ms, is left out of it).
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Tokenizer } from 'tokenizers';
import { loadAsciiBpe } from '../electron/engine/miner/ascii-bpe-off-thread.ts';
import { PromptBuilder } from '../electron/engine/miner/prompt-builder.ts';
import { procMemory } from './report.ts';

const [variant, dir] = process.argv.slice(2) as ['current' | 'reference', string];
// Let the process settle (module loading is not what is measured).
await new Promise((r) => setTimeout(r, 200));

const delay = monitorEventLoopDelay({ resolution: 1 });
let last = performance.now();
let longest = 0;
const beat = setInterval(() => {
  const now = performance.now();
  longest = Math.max(longest, now - last);
  last = now;
}, 1);
delay.enable();
const t0 = performance.now();
let close = (): void => undefined;
if (variant === 'current') {
  const pb = await PromptBuilder.load(dir);
  close = () => pb.close();
} else {
  Tokenizer.fromFile(join(dir, 'tokenizer.json'));
  await loadAsciiBpe(join(dir, 'tokenizer.json'));
}
const loadMs = performance.now() - t0;
// One more beat after the load, so a stall at its very end is counted.
await new Promise((r) => setTimeout(r, 20));
delay.disable();
clearInterval(beat);
const mem = procMemory('self');
console.log(JSON.stringify({ variant, longestGapMs: longest, delayMaxMs: delay.max / 1e6, loadMs, rssMb: mem.rssBytes / 2 ** 20, peakMb: mem.peakBytes / 2 ** 20 }));
close();
