// The long-body part of the miner bench (longBodies in miner.bench.ts) in a fresh process of its
// own, started with fork(): its memory per request is then measured over a baseline that no earlier
// part of the run has already grown (after the 64-stream part the bench's heap is grown, and the
// same bodies measured there added under 1 MiB per request: a figure of that run's history, not of
// the requests). Its goal lines go back to the parent's table over IPC.
import { longBodies } from './miner.bench.ts';
import { goals } from './report.ts';

try {
  await longBodies();
} catch (e) {
  console.log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exitCode = 1;
}
// The IPC channel keeps this process alive: let go of it once the goals are sent.
process.send?.({ goals }, () => process.disconnect());
