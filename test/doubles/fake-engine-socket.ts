// TEST DOUBLE, never shipped: a browser WebSocket stand-in and a fake Electron preload bridge, so
// the renderer's engine store and its transports run in plain Node without a DOM or an engine.
import type { SnapshotEnvelope, ServerFrame } from '../../shared/api.ts';
import type { Result } from '../../shared/result.ts';
import type { SocketLike } from '../../renderer/src/lib/api.ts';

export class FakeSocket implements SocketLike {
  readyState = 0;
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
  readonly sent: Array<{ kind: string; id: number; method: string; req: unknown }> = [];
  readonly url: string;
  constructor(url: string) {
    this.url = url;
  }
  send(text: string): void {
    this.sent.push(JSON.parse(text) as { kind: string; id: number; method: string; req: unknown });
  }
  close(): void {
    this.drop();
  }
  // Driven by the test, playing the engine:
  accept(): void {
    this.readyState = 1;
    this.onopen?.();
  }
  frame(f: ServerFrame): void {
    this.onmessage?.({ data: JSON.stringify(f) });
  }
  snapshot(env: SnapshotEnvelope): void {
    this.frame({ kind: 'event', event: 'snapshot', payload: env });
  }
  answer(id: number, result: Result<unknown>): void {
    this.frame({ kind: 'result', id, result });
  }
  drop(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.();
  }
}

/** Opens FakeSockets and lets the test run the client's reconnect timer by hand. */
export class FakeSocketHub {
  readonly sockets: FakeSocket[] = [];
  readonly timers: Array<{ fn: () => void; ms: number }> = [];
  open = (url: string): FakeSocket => {
    const s = new FakeSocket(url);
    this.sockets.push(s);
    return s;
  };
  schedule = (fn: () => void, ms: number): void => {
    this.timers.push({ fn, ms });
  };
  get last(): FakeSocket {
    return this.sockets[this.sockets.length - 1]!;
  }
  runTimers(): void {
    for (const t of this.timers.splice(0)) t.fn();
  }
}

/** The preload's `window.engy`: answers invokes from a table and lets the test push events. */
export class FakeBridge {
  private readonly listeners = new Set<(e: { event: 'snapshot' | 'logs'; payload: unknown }) => void>();
  readonly calls: string[] = [];
  private readonly answers: Record<string, unknown>;
  constructor(answers: Record<string, unknown>) {
    this.answers = answers;
  }
  invoke = async (method: string): Promise<Result<unknown>> => {
    this.calls.push(method);
    return Object.hasOwn(this.answers, method) ? { ok: true, value: this.answers[method] } : { ok: false, error: { code: 'unknown-method', message: method } };
  };
  on = (listener: (e: { event: 'snapshot' | 'logs'; payload: unknown }) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  push(event: 'snapshot' | 'logs', payload: unknown): void {
    for (const l of this.listeners) l({ event, payload });
  }
}
