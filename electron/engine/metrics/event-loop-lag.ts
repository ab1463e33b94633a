import { monitorEventLoopDelay } from 'node:perf_hooks';
import { toDisposable, type Disposable } from '../lib/disposable.ts';

/**
 * Samples the engine's event-loop delay (the max over each window, in seconds) into `onSample`.
 * It is also the one series every engine exports, miner or validator, so the fleet dashboard lists
 * instances from it. The histogram runs inside libuv: no timer of ours competes with real work.
 */
export function watchEventLoopLag(onSample: (seconds: number) => void, windowMs = 10_000): Disposable {
  const h = monitorEventLoopDelay({ resolution: 20 });
  h.enable();
  const timer = setInterval(() => {
    // max is in nanoseconds; the resolution itself is counted as delay, so subtract it.
    onSample(Math.max(0, h.max / 1e9 - 0.02));
    h.reset();
  }, windowMs);
  timer.unref();
  onSample(0);
  return toDisposable(() => {
    clearInterval(timer);
    h.disable();
  });
}
