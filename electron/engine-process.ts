// The desktop app's engine process: an Electron utilityProcess that main forks (electron/engine-host.ts).
// It composes the same engine as every shell and answers the contract over `process.parentPort`, so
// /generate parsing, proofs and synchronous SQLite never block the thread that paints menus and
// answers the window. It never imports electron: what only main can do (safeStorage, the updater,
// notifications, opening a browser) goes over the relay (electron/engine-relay-protocol.ts).
import * as v from 'valibot';
import { composeEngine, type Engine } from './compose.ts';
import { dispatch } from './contract/handler-table.ts';
import { describeError, installProcessGuards } from './process-guards.ts';
import { Emitter } from './engine/lib/emitter.ts';
import { keyedSecretBox } from './engine/wallet/keyed-secret-box.ts';
import { errorMessage } from '../shared/errors.ts';
import { MainToEngineSchema, type EngineToMain, type MainToEngine, type UpdateOp } from './engine-relay-protocol.ts';
import type { UpdateSnapshot } from './update-controller.ts';
import type { UpdateControl } from './update-slot.ts';

interface ParentPort {
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
if (!port) {
  console.error("electron/engine-process.ts runs only as the desktop app's utility process (it needs process.parentPort).");
  process.exit(2);
}
const post = (m: EngineToMain): void => port.postMessage(m);

/** How long a drain may take (the gateway drains for up to 900 s too). */
const DRAIN_LIMIT_MS = 900_000;

let engine: Engine | null = null;
let stopping = false;
let nextUpdateCall = 1;
const updateCalls = new Map<number, { ok: (v: boolean) => void; fail: (e: Error) => void }>();

/** The updater that lives in main, as the engine's UpdateSlot sees it: snapshots in, actions out. */
class RelayedUpdater implements UpdateControl {
  private last: UpdateSnapshot;
  private readonly changes = new Emitter<UpdateSnapshot>();
  readonly onDidChange = this.changes.event;
  constructor(first: UpdateSnapshot) {
    this.last = first;
  }
  receive(s: UpdateSnapshot): void {
    this.last = s;
    this.changes.fire(s);
  }
  snapshot(): UpdateSnapshot {
    return this.last;
  }
  private call(op: UpdateOp): Promise<boolean> {
    const id = nextUpdateCall++;
    return new Promise((ok, fail) => {
      updateCalls.set(id, { ok, fail });
      post({ kind: 'update-call', id, op });
    });
  }
  async checkNow(): Promise<void> {
    await this.call('check');
  }
  async download(): Promise<void> {
    await this.call('download');
  }
  restartToUpdate(): Promise<boolean> {
    return this.call('restart');
  }
}
let updater: RelayedUpdater | null = null;
let detachUpdater: (() => Promise<void>) | null = null;

async function drain(e: Engine): Promise<void> {
  const deadline = Date.now() + DRAIN_LIMIT_MS;
  while (e.mining.busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
  await e.mining.stop();
}

async function start(m: Extract<MainToEngine, { kind: 'start' }>): Promise<void> {
  try {
    engine = await composeEngine({
      dataDir: m.dataDir,
      shell: 'electron',
      secretBox: m.boxKey ? keyedSecretBox(Buffer.from(m.boxKey)) : null,
      openExternal: (url) => post({ kind: 'open-external', url }),
    });
  } catch (e) {
    post({ kind: 'boot-failed', message: errorMessage(e) });
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 100).unref();
    return;
  }
  const e = engine;
  installProcessGuards({ log: e.logs.logger('process'), shutdown: () => e.dispose() });
  e.hub.onEvent((ev) => post({ kind: 'event', event: ev.event, payload: ev.payload }));
  e.mining.onDidChange(() => post({ kind: 'busy', busy: e.mining.busy() }));
  e.notifications.onNotification((n) => post({ kind: 'notify', title: n.title, body: n.body }));
  // A rig's new alert pops from the tray too, named for its rig (the Alerts page lists it under the rig).
  e.fleet.onRigAlert(({ alert }) => post({ kind: 'notify', title: `${alert.rigName}: ${alert.title}`, body: alert.body }));
  // Everything already published, so main can show a window at once; live events follow.
  for (const payload of e.hub.current()) post({ kind: 'event', event: 'snapshot', payload });
  post({ kind: 'ready' });
}

async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    await detachUpdater?.();
    await engine?.dispose();
  } catch (e) {
    console.error(`stopping the engine failed: ${describeError(e)}`);
  }
  post({ kind: 'stopped' });
  setTimeout(() => process.exit(0), 50);
}

async function onMessage(raw: unknown): Promise<void> {
  const parsed = v.safeParse(MainToEngineSchema, raw);
  if (!parsed.success) {
    engine?.logs.logger('desktop').warn('a message from the desktop shell had an unknown shape and was dropped');
    return;
  }
  const m = parsed.output as MainToEngine;
  switch (m.kind) {
    case 'start':
      if (!engine) await start(m);
      return;
    case 'invoke': {
      const e = engine;
      const result = e
        ? await dispatch(e.table, m.method, m.req, (err) => e.logs.logger('desktop').error(`a window request failed inside the engine: ${describeError(err)}`))
        : { ok: false, error: { code: 'unavailable', message: 'The engine is still starting: try again in a moment.' } };
      post({ kind: 'result', id: m.id, result });
      return;
    }
    case 'update': {
      if (!engine) return;
      if (m.snapshot && !updater) {
        updater = new RelayedUpdater(m.snapshot);
        const sub = engine.updates.attach(updater);
        detachUpdater = async () => {
          await sub.dispose();
        };
      } else if (m.snapshot) updater?.receive(m.snapshot);
      return;
    }
    case 'update-reply': {
      const call = updateCalls.get(m.id);
      updateCalls.delete(m.id);
      if (m.ok) call?.ok(m.value ?? true);
      else call?.fail(new Error(m.message ?? 'the updater failed'));
      return;
    }
    case 'drain': {
      if (!engine) return post({ kind: 'drained', id: m.id, ok: true });
      try {
        await drain(engine);
        post({ kind: 'drained', id: m.id, ok: true });
      } catch (e) {
        post({ kind: 'drained', id: m.id, ok: false, message: errorMessage(e) });
      }
      return;
    }
    case 'resume':
      engine?.logs.logger('desktop').info('system resumed from sleep: re-checking the hardware');
      void engine?.hardware.get(true);
      return;
    case 'shutdown':
      await shutdown();
      return;
  }
}

port.on('message', (e) => void onMessage(e.data));
