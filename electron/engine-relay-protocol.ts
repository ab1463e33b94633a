// The messages between the desktop main process and its engine process (electron/engine-process.ts,
// an Electron utilityProcess), over the utility process's parentPort (structured clone). The
// contract itself is unchanged: `invoke`/`result` carry shared/api.ts requests and Results, `event`
// carries the snapshot hub's events. The rest is what main keeps and the engine needs (or the
// reverse): safeStorage's data key, the updater, desktop notifications, the drain before an update.
import * as v from 'valibot';
import type { UpdateSnapshot } from './update-controller.ts';

export type MainToEngine =
  /** First message: where the data lives, and the data key main opened with safeStorage (null: no OS keyring). */
  | { kind: 'start'; dataDir: string; boxKey: Uint8Array | null }
  | { kind: 'invoke'; id: number; method: string; req: unknown }
  | { kind: 'update'; snapshot: UpdateSnapshot | null }
  | { kind: 'update-reply'; id: number; ok: boolean; value?: boolean; message?: string }
  | { kind: 'drain'; id: number }
  | { kind: 'resume' }
  | { kind: 'shutdown' };

export type UpdateOp = 'check' | 'download' | 'restart';

export type EngineToMain =
  | { kind: 'ready' }
  | { kind: 'boot-failed'; message: string }
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'event'; event: string; payload: unknown }
  | { kind: 'busy'; busy: boolean }
  | { kind: 'notify'; title: string; body: string }
  | { kind: 'open-external'; url: string }
  | { kind: 'update-call'; id: number; op: UpdateOp }
  | { kind: 'drained'; id: number; ok: boolean; message?: string }
  | { kind: 'stopped' };

const id = v.pipe(v.number(), v.integer(), v.minValue(0));

/** What main accepts from the engine process: anything else is logged and dropped. */
export const EngineToMainSchema = v.variant('kind', [
  v.object({ kind: v.literal('ready') }),
  v.object({ kind: v.literal('boot-failed'), message: v.pipe(v.string(), v.maxLength(4000)) }),
  v.object({ kind: v.literal('result'), id, result: v.unknown() }),
  v.object({ kind: v.literal('event'), event: v.picklist(['snapshot', 'logs', 'rig']), payload: v.unknown() }),
  v.object({ kind: v.literal('busy'), busy: v.boolean() }),
  v.object({ kind: v.literal('notify'), title: v.pipe(v.string(), v.maxLength(500)), body: v.pipe(v.string(), v.maxLength(4000)) }),
  v.object({ kind: v.literal('open-external'), url: v.pipe(v.string(), v.maxLength(2000)) }),
  v.object({ kind: v.literal('update-call'), id, op: v.picklist(['check', 'download', 'restart']) }),
  v.object({ kind: v.literal('drained'), id, ok: v.boolean(), message: v.optional(v.string()) }),
  v.object({ kind: v.literal('stopped') }),
]);

/** What the engine process accepts from main. */
export const MainToEngineSchema = v.variant('kind', [
  v.object({ kind: v.literal('start'), dataDir: v.pipe(v.string(), v.minLength(1)), boxKey: v.nullable(v.instance(Uint8Array)) }),
  v.object({ kind: v.literal('invoke'), id, method: v.string(), req: v.unknown() }),
  v.object({ kind: v.literal('update'), snapshot: v.nullable(v.custom<UpdateSnapshot>((x) => typeof x === 'object' && x !== null && 'state' in x)) }),
  v.object({ kind: v.literal('update-reply'), id, ok: v.boolean(), value: v.optional(v.boolean()), message: v.optional(v.string()) }),
  v.object({ kind: v.literal('drain'), id }),
  v.object({ kind: v.literal('resume') }),
  v.object({ kind: v.literal('shutdown') }),
]);
