import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../../shared/api.ts';
import type { HandlerTable } from '../contract/handler-table.ts';
import { dispatch } from '../contract/handler-table.ts';
import type { SnapshotHub } from '../contract/snapshot-hub.ts';
import { toDisposable, type Disposable } from '../engine/lib/disposable.ts';
import type { Result } from '../../shared/result.ts';

/** The slice of Electron's ipcMain this adapter uses: injected so it is testable in plain Node. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: { senderFrame: { url: string } | null }, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface EventSink {
  send(channel: string, payload: unknown): void;
  isDestroyed(): boolean;
}

/**
 * The desktop window's transport: the same handler table as the WebSocket transport. Only
 * frames from the app's own page (trustedOrigin) are answered.
 */
export function bindIpcTransport(
  ipcMain: IpcMainLike,
  table: HandlerTable,
  hub: SnapshotHub,
  sinks: () => EventSink[],
  isTrustedUrl: (url: string) => boolean,
  /** Internal failures of a handler, logged as the WebSocket path logs them (the window only sees a sentence). */
  onInternal?: (e: unknown) => void,
): Disposable {
  ipcMain.handle(IPC_INVOKE_CHANNEL, async (event, method, req) => {
    if (!event.senderFrame || !isTrustedUrl(event.senderFrame.url)) {
      return { ok: false, error: { code: 'unauthorized', message: 'Only the engy panel window may call the engine.' } };
    }
    return dispatch(table, method, req, onInternal);
  });
  const sub = hub.onEvent((e) => {
    for (const s of sinks()) if (!s.isDestroyed()) s.send(IPC_EVENT_CHANNEL, e);
  });
  return toDisposable(() => {
    ipcMain.removeHandler(IPC_INVOKE_CHANNEL);
    void sub.dispose();
  });
}

/**
 * The desktop window's transport when the engine runs in its own process: the same trust check,
 * then the request goes to `invoke` (the engine host's relay), which answers a Result.
 */
export function bindIpcRelay(ipcMain: IpcMainLike, invoke: (method: unknown, req: unknown) => Promise<Result<unknown>>, isTrustedUrl: (url: string) => boolean): Disposable {
  ipcMain.handle(IPC_INVOKE_CHANNEL, async (event, method, req) => {
    if (!event.senderFrame || !isTrustedUrl(event.senderFrame.url)) {
      return { ok: false, error: { code: 'unauthorized', message: 'Only the engy panel window may call the engine.' } };
    }
    return invoke(method, req);
  });
  return toDisposable(() => ipcMain.removeHandler(IPC_INVOKE_CHANNEL));
}

/** What a newly loaded window needs first: every current snapshot. */
export function replaySnapshots(hub: SnapshotHub, sink: EventSink): void {
  for (const payload of hub.current()) sink.send(IPC_EVENT_CHANNEL, { event: 'snapshot', payload });
}
