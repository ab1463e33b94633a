// The desktop main thread while the engine proves two 4096-token bodies (parse as the body arrives,
// then TOPLOC proofs): event-loop lag p99 of the thread that paints menus and answers the window,
// with the engine in that thread (before) and in a utility process (electron/engine-process.ts),
// measured with the stand-in electron's utilityProcess, which is a real child process.
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { goal, ms } from './report.ts';
import { proveBodies, TOKENS } from './prove-bodies.ts';

const BODIES = 2;
const GOAL_MS = 5;

async function measure(work: () => Promise<void>): Promise<{ p99: number; max: number; wallMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  // Something for the loop to do, as a window's IPC and timers give it: the lag is seen between turns.
  const tick = setInterval(() => undefined, 2);
  h.enable();
  const t0 = performance.now();
  await work();
  const wallMs = performance.now() - t0;
  h.disable();
  clearInterval(tick);
  return { p99: h.percentile(99) / 1e6, max: h.max / 1e6, wallMs };
}

export async function bench(): Promise<void> {
  const inProcess = await measure(() => proveBodies(BODIES));

  const { app, utilityProcess } = await import('../test/doubles/electron/electron.ts');
  await app.whenReady();
  const child = utilityProcess.fork(new URL('./engine-proof-child.ts', import.meta.url).pathname, [], { stdio: 'inherit' });
  try {
    await new Promise<void>((ok, fail) => {
      child.on('message', (m: { ready?: boolean }) => m.ready && ok());
      child.once('exit', (code: number) => fail(new Error(`the utility child exited (${code}) before it was ready`)));
    });
    const offThread = await measure(
      () =>
        new Promise<void>((ok, fail) => {
          child.on('message', (m: { ok?: boolean; message?: string }) => {
            if (m.ok === true) ok();
            else if (m.ok === false) fail(new Error(m.message));
          });
          child.postMessage({ count: BODIES });
        }),
    );
    console.log(`main-thread event-loop lag while the engine proves ${BODIES} x ${TOKENS}-token bodies:`);
    console.log(`  engine in main's thread (in-process): p99 ${ms(inProcess.p99)}, max ${ms(inProcess.max)}, work ${ms(inProcess.wallMs, 0)}`);
    console.log(`  engine in a utility process:          p99 ${ms(offThread.p99)}, max ${ms(offThread.max)}, work ${ms(offThread.wallMs, 0)}`);
    // A few-ms goal cannot be judged when the machine runs more than it has cores: the bench's own
    // thread then waits for a core, which reads as lag whatever the engine does.
    const load = loadavg()[0]!;
    const busy = load > availableParallelism() ? `load ${load.toFixed(1)} on ${availableParallelism()} cores` : null;
    goal('desktop main-thread lag p99 while proving (utility process)', offThread.p99, 'ms', '<', GOAL_MS, `in-process it was ${ms(inProcess.p99)} (max ${ms(inProcess.max, 0)})`, busy);
  } finally {
    child.kill();
  }
}
