// TEST DOUBLE: the slice of Electron's ipcMain that bindIpcTransport uses, in plain Node, so the
// IPC transport runs the same contract tests as the WebSocket transport. Never shipped.
import type { EventSink, IpcMainLike } from '../../electron/transport/ipc-transport.ts';

type Listener = Parameters<IpcMainLike['handle']>[1];

export class FakeIpcMain implements IpcMainLike {
  private readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** What ipcRenderer.invoke does from a page at `url`. */
  async invoke(channel: string, url: string, ...args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`No handler registered for '${channel}'`);
    return h({ senderFrame: { url } }, ...args);
  }
}

export class RecordingSink implements EventSink {
  readonly sent: Array<{ channel: string; payload: unknown }> = [];
  destroyed = false;
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}
