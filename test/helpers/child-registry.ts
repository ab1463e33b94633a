// Every child process a test file starts through node:child_process (spawn, fork, exec,
// execFile), so the vitest setup can fail the file when one is still running after its last
// hook: a helper that forgets to kill leaves engines, serves and browsers eating a shared machine.
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { syncBuiltinESMExports } from 'node:module';

export interface TrackedChild {
  child: ChildProcess;
  /** What was started, for the failure message (the executable and its first arguments). */
  what: string;
}

const INSTALLED = Symbol.for('engy.test.childRegistry');

interface Registry {
  children: TrackedChild[];
}

type Holder = { [INSTALLED]?: Registry };

function running(c: ChildProcess): boolean {
  return c.pid !== undefined && c.exitCode === null && c.signalCode === null;
}

function describeStart(args: unknown[]): string {
  const parts = [args[0], ...(Array.isArray(args[1]) ? (args[1] as unknown[]).slice(0, 3) : [])];
  return parts
    .map((p) => String(p))
    .join(' ')
    .slice(0, 200);
}

/**
 * Wraps node:child_process's starters once per process (the CommonJS object and, through
 * syncBuiltinESMExports, every ESM import of them), recording each child they return.
 */
export function installChildRegistry(): Registry {
  const holder = globalThis as Holder;
  if (holder[INSTALLED]) return holder[INSTALLED];
  const registry: Registry = { children: [] };
  holder[INSTALLED] = registry;
  const cp = createRequire(import.meta.url)('node:child_process') as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ['spawn', 'fork', 'exec', 'execFile'] as const) {
    const original = cp[name]!;
    cp[name] = function tracked(this: unknown, ...args: unknown[]) {
      const child = original.apply(this, args) as ChildProcess;
      registry.children.push({ child, what: describeStart(args) });
      return child;
    };
  }
  syncBuiltinESMExports();
  return registry;
}

/** Forget what earlier files started (each file is judged on its own children). */
export function resetChildren(r: Registry): void {
  r.children.length = 0;
}

/**
 * The children still running once the file is done, after `graceMs` for those already told to stop
 * (a SIGTERM sent without waiting for the exit). The survivors are then killed, and returned.
 */
export async function reapSurvivors(r: Registry, graceMs: number, poll = 100): Promise<TrackedChild[]> {
  const end = Date.now() + graceMs;
  while (r.children.some((t) => running(t.child)) && Date.now() < end) await new Promise((res) => setTimeout(res, poll));
  const survivors = r.children.filter((t) => running(t.child));
  for (const s of survivors) s.child.kill('SIGKILL');
  return survivors;
}
