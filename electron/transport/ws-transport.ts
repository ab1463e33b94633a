import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClientFrame, ServerFrame } from '../../shared/api.ts';
import type { HandlerTable } from '../contract/handler-table.ts';
import { dispatch } from '../contract/handler-table.ts';
import type { SnapshotHub } from '../contract/snapshot-hub.ts';
import type { Disposable } from '../engine/lib/disposable.ts';

const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * The headless shell's transport: the same handler table as Electron IPC, over a WebSocket.
 * Authentication happens before the upgrade (see the HTTP server); this only speaks the contract.
 */
export class WsTransport implements Disposable {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly sub: Disposable;
  private readonly table: HandlerTable;
  private readonly hub: SnapshotHub;
  private readonly onInternal: ((e: unknown) => void) | undefined;

  constructor(table: HandlerTable, hub: SnapshotHub, onInternal?: (e: unknown) => void) {
    this.table = table;
    this.hub = hub;
    this.onInternal = onInternal;
    this.sub = hub.onEvent(({ event, payload }) => {
      const text = JSON.stringify({ kind: 'event', event, payload } satisfies ServerFrame);
      for (const client of this.wss.clients) if (client.readyState === client.OPEN) client.send(text);
    });
    this.wss.on('connection', (ws) => this.accept(ws));
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  get clientCount(): number {
    return this.wss.clients.size;
  }

  private accept(ws: WebSocket): void {
    for (const envelope of this.hub.current()) ws.send(JSON.stringify({ kind: 'event', event: 'snapshot', payload: envelope } satisfies ServerFrame));
    ws.on('message', (data) => {
      let frame: ClientFrame;
      try {
        frame = JSON.parse(String(data)) as ClientFrame;
      } catch {
        ws.close(1003, 'frames are JSON');
        return;
      }
      if (frame?.kind !== 'invoke' || typeof frame.id !== 'number') {
        ws.close(1003, 'unknown frame');
        return;
      }
      void dispatch(this.table, frame.method, frame.req, this.onInternal).then((result) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ kind: 'result', id: frame.id, result } satisfies ServerFrame));
      });
    });
  }

  async dispose(): Promise<void> {
    void this.sub.dispose();
    for (const c of this.wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
