import { toDisposable, type Disposable } from './disposable.ts';

export type Listener<T> = (value: T) => void;

/** Where a listener's failure goes: the shells point this at their logger; stderr until then. */
export type ListenerErrorReporter = (error: unknown, origin: string) => void;

const toStderr: ListenerErrorReporter = (error, origin) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`an event listener failed (subscribed at ${origin}): ${text}\n`);
};
let reporter = toStderr;
/** Set while reporting: a logger whose own listener fails reports to stderr, never recursively. */
let reporting = false;

export function setListenerErrorReporter(r: ListenerErrorReporter): void {
  reporter = r;
}

/** The subscriber's own frame in the stack at subscribe time: which code's listener failed. */
function callerOrigin(): string {
  const lines = (new Error().stack ?? '').split('\n').slice(1);
  const frame = lines.find((l) => !l.includes('/emitter.ts') && !l.includes('/emitter.js'));
  return frame?.trim().replace(/^at\s+/, '') ?? 'unknown';
}

/**
 * A tiny typed event. A listener that throws is reported with where it subscribed, and the
 * others still run: one bad subscriber never stops the rest or the process.
 */
export class Emitter<T> {
  private readonly listeners = new Map<Listener<T>, string>();
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.set(listener, callerOrigin());
    return toDisposable(() => {
      this.listeners.delete(listener);
    });
  };
  fire(value: T): void {
    for (const [l, origin] of [...this.listeners]) {
      try {
        l(value);
      } catch (e) {
        const nested = reporting;
        reporting = true;
        try {
          (nested ? toStderr : reporter)(e, origin);
        } catch {
          // a reporter that throws is ignored: isolation is the point
        } finally {
          reporting = nested;
        }
      }
    }
  }
  get size(): number {
    return this.listeners.size;
  }
  clear(): void {
    this.listeners.clear();
  }
}
