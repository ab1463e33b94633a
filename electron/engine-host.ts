// Main's side of the engine process: forks electron/engine-process.ts as a utilityProcess, relays the
// contract to it, keeps the latest snapshot per topic (for a window that loads later), and restarts
// the process with backoff when it dies. The window never goes down with it: invokes made while it is
// away are answered `unavailable`, and the `engine` event tells the page what is happening.
import * as v from 'valibot';
import type { EngineProcessState, SnapshotEnvelope, SnapshotTopic, SnapshotTopics } from '../shared/api.ts';
import { err, type Result } from '../shared/result.ts';
import { Emitter } from './engine/lib/emitter.ts';
import { EngineToMainSchema, type EngineToMain, type MainToEngine, type UpdateOp } from './engine-relay-protocol.ts';
import type { UpdateSnapshot } from './update-controller.ts';

/** The slice of Electron's utilityProcess the host uses (injected: main passes Electron's). */
export interface UtilityChild {
  readonly pid?: number | undefined;
  postMessage(message: unknown): void;
  kill(): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
}
export type ForkUtility = () => UtilityChild;

export interface EngineHostOptions {
  fork: ForkUtility;
  dataDir: string;
  /** The safeStorage-sealed data key, opened (null without an OS keyring). */
  boxKey: Uint8Array | null;
  log: (level: 'info' | 'warn' | 'error', line: string) => void;
  /** Backoff before restart attempt n (1-based); default 1 s, 2 s, 4 s … 30 s. */
  backoffMs?: (attempt: number) => number;
  /** How long the engine may take to stop on quit before it is killed. */
  stopLimitMs?: number;
  now?: () => number;
}

const defaultBackoff = (n: number): number => Math.min(30_000, 1000 * 2 ** (n - 1));
/** A process that ran this long before dying starts the backoff over. */
const STABLE_MS = 60_000;

export class EngineHost {
  private readonly o: Required<EngineHostOptions>;
  private child: UtilityChild | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (r: Result<unknown>) => void>();
  private readonly drains = new Map<number, { ok: () => void; fail: (e: Error) => void }>();
  private readonly latest = new Map<SnapshotTopic, SnapshotEnvelope>();
  private status: EngineProcessState = { state: 'starting' };
  private attempts = 0;
  private startedAt = 0;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private stopping = false;
  private busyNow = false;
  private lastUpdate: UpdateSnapshot | null = null;

  private readonly events = new Emitter<{ event: string; payload: unknown }>();
  /** Contract events (snapshot, logs) and `engine` state changes, for the windows. */
  readonly onEvent = this.events.event;
  private readonly notes = new Emitter<{ title: string; body: string }>();
  readonly onNotification = this.notes.event;
  private readonly opens = new Emitter<string>();
  readonly onOpenExternal = this.opens.event;
  private readonly snapshots = new Emitter<SnapshotTopic>();
  /** A topic's snapshot changed (main reads settings and the miners from here). */
  readonly onSnapshot = this.snapshots.event;
  /** Update actions the page asked for: main's UpdateController runs them. */
  updateAction: (op: UpdateOp) => Promise<boolean> = async () => false;

  constructor(o: EngineHostOptions) {
    this.o = { backoffMs: defaultBackoff, stopLimitMs: 30_000, now: Date.now, ...o };
  }

  state(): EngineProcessState {
    return this.status;
  }

  pid(): number | undefined {
    return this.child?.pid;
  }

  snapshot<T extends SnapshotTopic>(topic: T): SnapshotTopics[T] | undefined {
    return this.latest.get(topic)?.data as SnapshotTopics[T] | undefined;
  }

  /** Every topic's latest snapshot, for a window that just loaded. */
  current(): SnapshotEnvelope[] {
    return [...this.latest.values()];
  }

  busy(): boolean {
    return this.busyNow;
  }

  /** Starts the first engine process; rejects with its own words if it cannot start at all. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => this.spawn(resolve, reject));
  }

  invoke(method: string, req: unknown): Promise<Result<unknown>> {
    if (!this.child || this.status.state !== 'running') {
      const why = this.status.state === 'restarting' ? 'The engine stopped unexpectedly and is restarting: try again in a few seconds.' : 'The engine is not running: restart engy panel.';
      return Promise.resolve(err('unavailable', why));
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send({ kind: 'invoke', id, method, req });
    });
  }

  /** Finishes in-flight mining requests in the engine (before an update restarts the app). */
  drain(): Promise<void> {
    if (!this.child || this.status.state !== 'running') return Promise.resolve();
    const id = this.nextId++;
    return new Promise((ok, fail) => {
      this.drains.set(id, { ok, fail });
      this.send({ kind: 'drain', id });
    });
  }

  /** The updater's state, relayed to the engine's `update` topic (and again after each restart). */
  setUpdate(s: UpdateSnapshot): void {
    this.lastUpdate = s;
    this.send({ kind: 'update', snapshot: s });
  }

  resumed(): void {
    this.send({ kind: 'resume' });
  }

  /** Stops the engine (it disposes its services), killing it if it takes longer than the limit. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    this.send({ kind: 'shutdown' });
    const limit = new Promise<'late'>((r) => setTimeout(() => r('late'), this.o.stopLimitMs).unref());
    if ((await Promise.race([exited, limit])) === 'late') {
      this.o.log('warn', `the engine did not stop within ${this.o.stopLimitMs / 1000} s: ended it`);
      child.kill();
      await exited;
    }
    this.setState({ state: 'stopped' });
  }

  private send(m: MainToEngine): void {
    try {
      this.child?.postMessage(m);
    } catch (e) {
      this.o.log('warn', `could not reach the engine process: ${String(e)}`);
    }
  }

  private setState(s: EngineProcessState): void {
    this.status = s;
    this.events.fire({ event: 'engine', payload: s });
  }

  private spawn(onReady?: () => void, onFail?: (e: Error) => void): void {
    const child = this.o.fork();
    this.child = child;
    let ready = false;
    let bootError: string | null = null;
    child.on('message', (raw) => {
      if (this.child !== child) return;
      const parsed = v.safeParse(EngineToMainSchema, raw);
      if (!parsed.success) return this.o.log('warn', 'the engine process sent a message of unknown shape: dropped');
      const m = parsed.output as EngineToMain;
      if (m.kind === 'ready') {
        ready = true;
        this.startedAt = this.o.now();
        this.setState({ state: 'running' });
        if (this.lastUpdate) this.send({ kind: 'update', snapshot: this.lastUpdate });
        onReady?.();
      } else if (m.kind === 'boot-failed') bootError = m.message;
      else this.onMessage(m);
    });
    child.once('exit', (code) => {
      if (this.child !== child) return;
      this.child = null;
      this.failPending();
      if (this.stopping) return;
      if (!ready && onFail) {
        onFail(new Error(bootError ?? `the engine process exited (code ${code}) before it was ready`));
        return;
      }
      if (this.o.now() - this.startedAt > STABLE_MS) this.attempts = 0;
      this.attempts++;
      const wait = this.o.backoffMs(this.attempts);
      const reason = bootError ?? `the engine process exited with code ${code}`;
      this.o.log('error', `${reason}: restarting it in ${Math.round(wait / 1000)} s (attempt ${this.attempts})`);
      this.setState({ state: 'restarting', attempt: this.attempts, nextRetryAt: this.o.now() + wait, reason });
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.stopping) this.spawn();
      }, wait);
    });
    this.send({ kind: 'start', dataDir: this.o.dataDir, boxKey: this.o.boxKey });
  }

  private onMessage(m: EngineToMain): void {
    switch (m.kind) {
      case 'result': {
        const done = this.pending.get(m.id);
        this.pending.delete(m.id);
        done?.(m.result as Result<unknown>);
        return;
      }
      case 'event': {
        if (m.event === 'snapshot') {
          const env = m.payload as SnapshotEnvelope;
          this.latest.set(env.topic, env);
          this.snapshots.fire(env.topic);
        }
        this.events.fire({ event: m.event, payload: m.payload });
        return;
      }
      case 'busy':
        this.busyNow = m.busy;
        return;
      case 'notify':
        this.notes.fire({ title: m.title, body: m.body });
        return;
      case 'open-external':
        this.opens.fire(m.url);
        return;
      case 'update-call':
        void this.updateAction(m.op).then(
          (value) => this.send({ kind: 'update-reply', id: m.id, ok: true, value }),
          (e: unknown) => this.send({ kind: 'update-reply', id: m.id, ok: false, message: e instanceof Error ? e.message : String(e) }),
        );
        return;
      case 'drained': {
        const d = this.drains.get(m.id);
        this.drains.delete(m.id);
        if (m.ok) d?.ok();
        else d?.fail(new Error(m.message ?? 'the drain failed'));
        return;
      }
      case 'ready':
      case 'boot-failed':
      case 'stopped':
        // handled where the process is spawned
        return;
    }
  }

  /** The process is gone: nothing it was doing will answer. */
  private failPending(): void {
    for (const done of this.pending.values()) done(err('unavailable', 'The engine stopped while handling this request: try again when it is back.'));
    this.pending.clear();
    for (const d of this.drains.values()) d.fail(new Error('the engine stopped while draining'));
    this.drains.clear();
    this.busyNow = false;
  }
}
