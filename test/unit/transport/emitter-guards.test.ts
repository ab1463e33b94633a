import { afterEach, describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { Emitter, setListenerErrorReporter } from '../../../electron/engine/lib/emitter.ts';
import { installProcessGuards } from '../../../electron/process-guards.ts';

afterEach(() => setListenerErrorReporter((e) => process.stderr.write(`${String(e)}\n`)));

describe('Emitter', () => {
  it('isolates a listener that throws, reports where it subscribed, and still calls the rest', () => {
    const reports: Array<{ error: unknown; origin: string }> = [];
    setListenerErrorReporter((error, origin) => reports.push({ error, origin }));
    const e = new Emitter<number>();
    const seen: number[] = [];
    e.event((v) => seen.push(v));
    e.event(() => {
      throw new Error('bad subscriber');
    });
    e.event((v) => seen.push(v * 10));
    expect(() => e.fire(2)).not.toThrow();
    expect(seen).toEqual([2, 20]);
    expect(reports).toHaveLength(1);
    expect(String(reports[0]!.error)).toContain('bad subscriber');
    // The origin names this test file: the subscriber's own code, not the emitter.
    expect(reports[0]!.origin).toContain('emitter-guards.test.ts');
  });

  it('survives a reporter that throws, and a listener that throws a non-Error', () => {
    setListenerErrorReporter(() => {
      throw new Error('reporter broken');
    });
    const e = new Emitter<void>();
    let after = 0;
    e.event(() => {
      throw 'a string';
    });
    e.event(() => after++);
    expect(() => e.fire()).not.toThrow();
    expect(after).toBe(1);
  });

  it('unsubscribes', () => {
    const e = new Emitter<number>();
    const seen: number[] = [];
    const d = e.event((v) => seen.push(v));
    e.fire(1);
    void d.dispose();
    e.fire(2);
    expect(seen).toEqual([1]);
    expect(e.size).toBe(0);
  });
});

class FakeProcess extends EventEmitter {
  exits: number[] = [];
  exit(code?: number): never {
    this.exits.push(code ?? 0);
    return undefined as never;
  }
}

describe('process guards', () => {
  function setup() {
    const proc = new FakeProcess();
    const lines: string[] = [];
    let stopped = 0;
    const uninstall = installProcessGuards({
      log: { error: (m) => lines.push(`error ${m}`), warn: (m) => lines.push(`warn ${m}`) },
      shutdown: async () => {
        stopped++;
      },
      proc: proc as unknown as NodeJS.Process,
    });
    return { proc, lines, stopped: () => stopped, uninstall };
  }

  it('logs an unhandled rejection and goes on', () => {
    const g = setup();
    g.proc.emit('unhandledRejection', new Error('nobody awaited me'));
    expect(g.lines.join('\n')).toContain('nobody awaited me');
    expect(g.proc.exits).toEqual([]);
    expect(g.stopped()).toBe(0);
    g.uninstall();
  });

  it('treats a peer hanging up as a warning, not a reason to stop', () => {
    const g = setup();
    g.proc.emit('uncaughtException', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(g.lines[0]).toMatch(/^warn .*EPIPE/);
    expect(g.proc.exits).toEqual([]);
    g.uninstall();
  });

  it('stops cleanly with one clear line after an uncaught exception', async () => {
    const g = setup();
    g.proc.emit('uncaughtException', new TypeError('x is undefined'));
    g.proc.emit('uncaughtException', new TypeError('a second one while stopping'));
    await new Promise<void>((resolve) => {
      const check = () => (g.proc.exits.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    expect(g.stopped()).toBe(1);
    expect(g.proc.exits).toEqual([70]);
    expect(g.lines.some((l) => l.includes('stops now because its state may be inconsistent'))).toBe(true);
    expect(g.lines.some((l) => l.includes('a second one while stopping'))).toBe(true);
    g.uninstall();
    expect(g.proc.listenerCount('uncaughtException')).toBe(0);
  });
});
