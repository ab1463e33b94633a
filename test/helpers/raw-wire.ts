// Byte-exact HTTP and WebSocket for hostile-input tests: what a browser or the `ws` client would
// never send (bad escapes, lone surrogates, unmasked or oversized frames) goes on the wire as is.
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/** Sends `request` and collects the reply until the server closes or `ms` passes; '' if nothing came. */
export function rawExchange(port: number, request: string | Buffer, ms = 5000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(done, ms);
    socket.on('data', (d) => {
      reply += d.toString('latin1');
      // One response is enough: a keep-alive server would otherwise hold the socket open.
      const end = reply.indexOf('\r\n\r\n');
      if (end >= 0) {
        const len = /content-length:\s*(\d+)/i.exec(reply.slice(0, end));
        if (len && reply.length >= end + 4 + Number(len[1])) done();
      }
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.write(request);
  });
}

/** The status code of a raw HTTP reply, or 0 when the server sent none. */
export function statusOf(reply: string): number {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(reply);
  return m ? Number(m[1]) : 0;
}

export function httpGet(path: string, headers: Record<string, string>): string {
  return `GET ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Connection: close\r\n\r\n`;
}

/** One client-to-server WebSocket frame (masked, as RFC 6455 requires unless `mask` is false). */
export function wsFrame(payload: Buffer | string, opcode = 1, mask = true, fin = true): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const len = body.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (len < 126) head[1] = len;
  else if (len < 65536) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  if (!mask) return Buffer.concat([head, body]);
  head[1]! |= 0x80;
  const key = randomBytes(4);
  const masked = Buffer.alloc(len);
  for (let i = 0; i < len; i++) masked[i] = body[i]! ^ key[i % 4]!;
  return Buffer.concat([head, key, masked]);
}

export interface RawWs {
  socket: Socket;
  /** The status line and headers the server answered the upgrade with. */
  response: string;
  status: number;
}

/** Performs the upgrade by hand and returns the socket right after the 101 (or the refusal). */
export function rawWsUpgrade(port: number, path: string, headers: Record<string, string>, ms = 5000): Promise<RawWs> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(() => reject(new Error(`no upgrade answer in ${ms} ms: ${JSON.stringify(got)}`)), ms);
    const onData = (d: Buffer) => {
      got += d.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.off('data', onData);
      resolve({ socket, response: got.slice(0, end), status: statusOf(got) });
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
    const all = { Host: `127.0.0.1:${port}`, Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13', ...headers };
    socket.write(
      `GET ${path} HTTP/1.1\r\n${Object.entries(all)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    );
  });
}

/** Resolves with the close code the server sent (0 if the socket just ended), within `ms`. */
export function closeCodeOf(socket: Socket, ms = 10_000): Promise<number> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => resolve(-1), ms);
    const finish = (code: number) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(code);
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      // Walk server frames (unmasked) looking for a close frame (opcode 8).
      let off = 0;
      while (buf.length - off >= 2) {
        const op = buf[off]! & 0x0f;
        let len = buf[off + 1]! & 0x7f;
        let hdr = 2;
        if (len === 126) {
          if (buf.length - off < 4) break;
          len = buf.readUInt16BE(off + 2);
          hdr = 4;
        } else if (len === 127) {
          if (buf.length - off < 10) break;
          len = Number(buf.readBigUInt64BE(off + 2));
          hdr = 10;
        }
        if (buf.length - off < hdr + len) break;
        if (op === 8) return finish(len >= 2 ? buf.readUInt16BE(off + hdr) : 0);
        off += hdr + len;
      }
      buf = buf.subarray(off);
    });
    socket.on('close', () => finish(0));
  });
}

/** Every text frame the server sent and its close code (0 if the socket just ended, -1 on timeout). */
export function textsUntilClose(socket: Socket, ms = 20_000): Promise<{ texts: string[]; code: number }> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const texts: string[] = [];
    const timer = setTimeout(() => finish(-1), ms);
    function finish(code: number): void {
      clearTimeout(timer);
      socket.destroy();
      resolve({ texts, code });
    }
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      let off = 0;
      while (buf.length - off >= 2) {
        const op = buf[off]! & 0x0f;
        let len = buf[off + 1]! & 0x7f;
        let hdr = 2;
        if (len === 126) {
          if (buf.length - off < 4) break;
          len = buf.readUInt16BE(off + 2);
          hdr = 4;
        } else if (len === 127) {
          if (buf.length - off < 10) break;
          len = Number(buf.readBigUInt64BE(off + 2));
          hdr = 10;
        }
        if (buf.length - off < hdr + len) break;
        if (op === 8) return finish(len >= 2 ? buf.readUInt16BE(off + hdr) : 0);
        if (op === 1) texts.push(buf.subarray(off + hdr, off + hdr + len).toString('utf8'));
        off += hdr + len;
      }
      buf = buf.subarray(off);
    });
    socket.on('close', () => finish(0));
  });
}
