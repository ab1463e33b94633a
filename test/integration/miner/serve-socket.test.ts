// postGenerate to an `http:` serve reads over one socket whose reads all land in one reused buffer
// (issue 30): the same contract as Node's client path (errors, timeout, abort, early close), body
// slices handed on as views of that buffer, and no read while onBytes's promise is pending.
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServeAgents, destroyServeAgents, postGenerate, ServeHttpError } from '../../../electron/engine/miner/serve-http.ts';
import { READ_BUFFER_BYTES } from '../../../electron/engine/miner/serve-socket.ts';

interface RawServe {
  url: string;
  /** Every request's raw bytes, per connection. */
  requests: string[];
  sockets: Socket[];
  close: () => Promise<void>;
}

/** A TCP serve that answers each connection with `answer` once the request's body is in (or never, if it returns). */
async function rawServe(answer: (sock: Socket, request: string) => void): Promise<RawServe> {
  const requests: string[] = [];
  const sockets: Socket[] = [];
  const server = net.createServer((sock) => {
    sockets.push(sock);
    sock.on('error', () => undefined);
    let got = '';
    let answered = false;
    sock.on('data', (d) => {
      got += d.toString('latin1');
      const headEnd = got.indexOf('\r\n\r\n');
      if (headEnd < 0 || answered) return;
      const len = Number(/content-length: (\d+)/i.exec(got)?.[1] ?? 0);
      if (got.length - headEnd - 4 < len) return;
      answered = true;
      requests.push(got);
      answer(sock, got);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sockets,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function serveWith(answer: (sock: Socket, request: string) => void): Promise<RawServe> {
  const s = await rawServe(answer);
  closers.push(s.close);
  return s;
}

// Unused by the socket path (an `http:` serve), but part of postGenerate's signature.
const agents = createServeAgents();
afterAll(() => destroyServeAgents(agents));

async function generate(
  url: string,
  opts: { timeoutMs?: number; signal?: AbortSignal; onBytes?: (b: Buffer) => void | Promise<void>; keep?: boolean } = {},
): Promise<{ body: Buffer; views: Buffer[] }> {
  const parts: Buffer[] = [];
  const views: Buffer[] = [];
  const keep = opts.keep ?? true;
  await postGenerate(
    url,
    { input_ids: [1, 2, 3], rid: 'r' },
    agents.generate,
    (c) => {
      if (keep) {
        views.push(c);
        parts.push(Buffer.from(c));
      }
      return opts.onBytes?.(c);
    },
    { timeoutMs: opts.timeoutMs ?? 20_000, signal: opts.signal },
  );
  return { body: Buffer.concat(parts), views };
}

describe('postGenerate over the reused-buffer socket', () => {
  it('sends one well-formed request per connection and reads a content-length answer', async () => {
    const s = await serveWith((sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 13\r\n\r\n{"text":"ok"}'));
    expect((await generate(s.url)).body.toString()).toBe('{"text":"ok"}');
    expect((await generate(s.url)).body.toString()).toBe('{"text":"ok"}');
    expect(s.sockets).toHaveLength(2);
    const req = s.requests[0]!;
    expect(req.startsWith('POST /generate HTTP/1.1\r\n')).toBe(true);
    expect(req).toMatch(/\r\nconnection: close\r\n/);
    expect(req).toMatch(/\r\ncontent-type: application\/json\r\n/);
    expect(JSON.parse(req.slice(req.indexOf('\r\n\r\n') + 4))).toEqual({ input_ids: [1, 2, 3], rid: 'r' });
  });

  it("reads a large chunked body from Node's own server, every slice a view of one reused buffer", async () => {
    // 6 MiB in 1000 writes of varying size: chunk lines and CRLFs fall at every place in the reads.
    const pieces = Array.from({ length: 1000 }, (_, i) => Buffer.alloc(1 + ((i * 7919) % 12_000), i % 251));
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const p of pieces) res.write(p);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const { body, views } = await generate(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(body.equals(Buffer.concat(pieces))).toBe(true);
    const buffers = new Set(views.map((v) => v.buffer));
    expect(buffers.size).toBe(1);
    expect(views.every((v) => v.buffer.byteLength >= READ_BUFFER_BYTES && v.length <= READ_BUFFER_BYTES)).toBe(true);
  });

  it('reads a close-delimited body to the connection end', async () => {
    const s = await serveWith((sock) => {
      sock.write('HTTP/1.0 200 OK\r\n\r\ndata: {"text":"a"}\n\n');
      sock.end('data: [DONE]\n\n');
    });
    expect((await generate(s.url)).body.toString()).toBe('data: {"text":"a"}\n\ndata: [DONE]\n\n');
  });

  it("rejects a 4xx with sglang's error envelope as ServeHttpError, and caps a huge 5xx body", async () => {
    const env = '{"object":"error","message":"max_new_tokens is too large","type":"BadRequestError","param":null,"code":400}';
    const s = await serveWith((sock) => sock.write(`HTTP/1.1 400 Bad Request\r\ncontent-length: ${env.length}\r\n\r\n${env}`));
    const err = await generate(s.url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServeHttpError);
    expect(err).toMatchObject({ status: 400, message: 'serve 400: max_new_tokens is too large' });

    const huge = 'x'.repeat(1024 * 1024);
    const s2 = await serveWith((sock) => sock.write(`HTTP/1.1 503 Service Unavailable\r\ntransfer-encoding: chunked\r\n\r\n${huge.length.toString(16)}\r\n${huge}\r\n0\r\n\r\n`));
    const err2 = (await generate(s2.url).catch((e: unknown) => e)) as ServeHttpError;
    expect(err2.status).toBe(503);
    expect(err2.message).toBe(`serve 503: ${'x'.repeat(200)}`);
  });

  it('rejects with a sentence when the serve closes mid-chunk, or sends no HTTP', async () => {
    const s = await serveWith((sock) => sock.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n100\r\ndata: {"te'));
    await expect(generate(s.url)).rejects.toThrow(/closed the connection before the end of its answer/);
    const s2 = await serveWith((sock) => sock.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    await expect(generate(s2.url)).rejects.toThrow(/HTTP\/1.1 status line/);
    const s3 = await serveWith((sock) => sock.destroy());
    await expect(generate(s3.url)).rejects.toThrow(/closed the connection before the end|ECONNRESET/);
  });

  it('ends at content-length even when the serve sends more, and hands none of the extra on', async () => {
    const s = await serveWith((sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokGARBAGE'));
    expect((await generate(s.url)).body.toString()).toBe('ok');
  });

  it('times out with a sentence when the serve never answers', async () => {
    const s = await serveWith(() => undefined);
    // A short explicit timeout: the socket's own idle timer (serve-socket has no injected clock).
    await expect(generate(s.url, { timeoutMs: 300 })).rejects.toThrow('no answer from the serve within 0 s');
    await expect.poll(() => s.sockets[0]?.destroyed || s.sockets[0]?.readableEnded, { timeout: 20_000 }).toBe(true);
  });

  it('fails with the socket error when nothing listens', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    await expect(generate(`http://127.0.0.1:${port}`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('aborts mid-stream: rejects with an AbortError and closes the connection', async () => {
    let streaming: Socket | null = null;
    const s = await serveWith((sock) => {
      streaming = sock;
      sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      sock.write('5\r\nfirst\r\n');
    });
    const ac = new AbortController();
    const p = generate(s.url, { signal: ac.signal, onBytes: () => ac.abort() });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => streaming !== null && (streaming as Socket).readableEnded, { timeout: 20_000 }).toBe(true);
    // Already aborted: no connection at all.
    await expect(generate(s.url, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(s.sockets).toHaveLength(1);
  });

  it("rejects with onBytes's own error (a cancelled job) or its promise's rejection, and closes the connection", async () => {
    const streaming: Socket[] = [];
    const s = await serveWith((sock) => {
      streaming.push(sock);
      sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n');
    });
    const cancelled = new Error('the request was cancelled');
    await expect(
      generate(s.url, {
        onBytes: () => {
          throw cancelled;
        },
      }),
    ).rejects.toBe(cancelled);
    await expect(generate(s.url, { onBytes: () => Promise.reject(new Error('the parser failed')) })).rejects.toThrow('the parser failed');
    await expect.poll(() => streaming.length === 2 && streaming.every((x) => x.readableEnded || x.destroyed), { timeout: 20_000 }).toBe(true);
  });

  it('reads nothing more while onBytes has a promise pending, then the rest of the body', async () => {
    // 48 MiB, far more than the socket buffers on both ends hold: a reader that kept reading would take it all.
    const total = 48 * 1024 * 1024;
    let written = 0;
    let waitingDrain = false;
    const s = await serveWith((sock) => {
      sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${total}\r\n\r\n`);
      const block = Buffer.alloc(256 * 1024, 0x61);
      const more = (): void => {
        waitingDrain = false;
        while (written < total) {
          written += block.length;
          if (!sock.write(block)) {
            waitingDrain = true;
            sock.once('drain', more);
            return;
          }
        }
      };
      more();
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let holding = false;
    let bytesWhileHeld = 0;
    let bytes = 0;
    const p = generate(s.url, {
      keep: false,
      onBytes: (c) => {
        bytes += c.length;
        if (holding) bytesWhileHeld += c.length;
        if (bytes === c.length) {
          holding = true;
          return held;
        }
        return undefined;
      },
    });
    // The serve fills the socket buffers, then waits for a drain that cannot come while we hold.
    let last = -1;
    await expect
      .poll(
        () => {
          const stable = written === last;
          last = written;
          return holding && waitingDrain && stable;
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBe(true);
    expect(bytesWhileHeld).toBe(0);
    expect(written).toBeLessThan(total);
    holding = false;
    release();
    await p;
    expect(bytes).toBe(total);
  });
});
