// The hand-written HTTP/1.1 response reader behind the miner's /generate socket (issue 30): every
// framing split at every byte offset, the three body framings, and hostile heads and chunk lines.
import { describe, expect, it } from 'vitest';
import { HttpFramingError, HttpResponseReader, MAX_HEAD_BYTES, type ResponseHead } from '../../../electron/engine/miner/http-response-reader.ts';

interface Read {
  head: ResponseHead | null;
  body: string;
  done: boolean;
}

/** Feeds `parts` in order as a socket would (one reused buffer: each part copied over the last), then EOF if asked. */
function read(parts: Buffer[], eof = false): Read {
  const reused = Buffer.alloc(Math.max(1, ...parts.map((p) => p.length)));
  const got: Buffer[] = [];
  const reader = new HttpResponseReader(() => (view) => void got.push(Buffer.from(view)));
  for (const p of parts) {
    // Garbage first: a reader that kept a view past its call would see it.
    reused.fill(0x2a);
    p.copy(reused);
    let pos = 0;
    while (pos < p.length && !reader.done) pos = reader.feed(reused, pos, p.length);
  }
  if (eof) reader.eof();
  return { head: reader.head, body: Buffer.concat(got).toString('latin1'), done: reader.done };
}

/** Every way to cut `wire` in two, and every byte on its own. */
function splits(wire: Buffer): Buffer[][] {
  const out: Buffer[][] = [[wire], Array.from(wire, (b) => Buffer.from([b]))];
  for (let i = 1; i < wire.length; i++) out.push([wire.subarray(0, i), wire.subarray(i)]);
  return out;
}

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('HttpResponseReader framings, split at every byte offset', () => {
  it('content-length', () => {
    const wire = b('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"text":"ok"}');
    for (const parts of splits(wire)) {
      const r = read(parts);
      expect(r).toEqual({ head: { status: 200, headers: { 'content-type': 'application/json', 'content-length': '13' } }, body: '{"text":"ok"}', done: true });
    }
  });

  it('chunked, with chunk extensions and trailers', () => {
    const wire = b('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6;name=value\r\ndata: \r\n009\r\n{"a":1}\n\n\r\n0;last\r\nX-Trailer: 1\r\nY: 2\r\n\r\n');
    for (const parts of splits(wire)) {
      const r = read(parts);
      expect(r.done).toBe(true);
      expect(r.body).toBe('data: {"a":1}\n\n');
    }
  });

  it('close-delimited: the body ends with the connection', () => {
    const wire = b('HTTP/1.0 200 OK\r\n\r\ndata: {"text":"x"}\n\n');
    for (const parts of splits(wire)) {
      const r = read(parts, true);
      expect(r.done).toBe(true);
      expect(r.body).toBe('data: {"text":"x"}\n\n');
    }
  });

  it('bare LF line ends, a 100 Continue before the answer, repeated headers joined', () => {
    const wire = b('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\nA: 1\nA: 2\nContent-Length: 2\n\nhi');
    for (const parts of splits(wire)) {
      const r = read(parts);
      expect(r.head).toEqual({ status: 201, headers: { a: '1, 2', 'content-length': '2' } });
      expect(r.body).toBe('hi');
    }
  });

  it("a 4xx with sglang's error envelope is read like any body", () => {
    const env = '{"error":{"message":"max_new_tokens is too large","type":"BadRequestError","code":400}}';
    const r = read([b(`HTTP/1.1 400 Bad Request\r\ncontent-length: ${env.length}\r\n\r\n${env}`)]);
    expect(r.head?.status).toBe(400);
    expect(r.body).toBe(env);
  });

  it('204 and content-length 0 end at the head', () => {
    expect(read([b('HTTP/1.1 204 No Content\r\n\r\n')]).done).toBe(true);
    expect(read([b('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')])).toMatchObject({ done: true, body: '' });
  });

  it('never hands on bytes beyond content-length, and stops reading at the end', () => {
    const reader = new HttpResponseReader(() => (view) => void got.push(view.toString('latin1')));
    const got: string[] = [];
    const wire = b('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcEXTRA BYTES');
    const pos = reader.feed(wire, 0, wire.length);
    expect(got.join('')).toBe('abc');
    expect(reader.done).toBe(true);
    expect(wire.subarray(pos).toString()).toBe('EXTRA BYTES');
  });

  it('hands body bytes on as views of the buffer fed, not copies', () => {
    const seen: Buffer[] = [];
    const reader = new HttpResponseReader(() => (view) => void seen.push(view));
    const wire = b('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
    reader.feed(wire, 0, wire.length);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.buffer).toBe(wire.buffer);
  });
});

describe('HttpResponseReader backpressure', () => {
  it('stops right after a slice whose sink returned a promise, and resumes where it stopped', () => {
    const got: string[] = [];
    let waits = 0;
    const reader = new HttpResponseReader(() => (view) => {
      got.push(view.toString('latin1'));
      waits++;
      return Promise.resolve();
    });
    const wire = b('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n');
    let pos = reader.feed(wire, 0, wire.length);
    expect(got).toEqual(['ab']);
    expect(reader.takeWait()).toBeInstanceOf(Promise);
    expect(reader.takeWait()).toBeNull();
    pos = reader.feed(wire, pos, wire.length);
    expect(got).toEqual(['ab', 'cde']);
    expect(reader.takeWait()).not.toBeNull();
    reader.feed(wire, pos, wire.length);
    expect(reader.done).toBe(true);
    expect(waits).toBe(2);
  });
});

describe('HttpResponseReader refuses hostile answers with a sentence', () => {
  const refuses = (wire: string | Buffer, pattern: RegExp, eof = false): void => {
    const buf = typeof wire === 'string' ? b(wire) : wire;
    let err: unknown = null;
    try {
      read([buf], eof);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HttpFramingError);
    expect((err as Error).message).toMatch(pattern);
  };

  it('a malformed status line', () => {
    refuses('HTP/1.1 200 OK\r\n\r\n', /status line/);
    refuses('HTTP/1.1 2000 OK\r\n\r\n', /status line/);
    refuses('HTTP/2 200\r\n\r\n', /status line/);
    refuses('{"text":"not http"}\n\n', /status line/);
  });

  it('a malformed header line, including a bare name and a __proto__ that is just a header', () => {
    refuses('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', /malformed header/);
    refuses('HTTP/1.1 200 OK\r\n: empty name\r\n\r\n', /malformed header/);
    const r = read([b('HTTP/1.1 200 OK\r\n__proto__: {"polluted":1}\r\nContent-Length: 0\r\n\r\n')]);
    expect(r.head?.headers['__proto__']).toBe('{"polluted":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a head over the cap, sent in one piece or in many', () => {
    const big = `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    refuses(big, /over 64 KiB/);
    const pieces = Array.from({ length: 40 }, (_, i) => b(`X-H${i}: ${'b'.repeat(2000)}\r\n`));
    // A head that never ends is refused at the cap, not gathered for ever.
    expect(() => read([b('HTTP/1.1 200 OK\r\n'), ...pieces])).toThrow(/over 64 KiB/);
    // Just under the cap is fine.
    expect(read([b('HTTP/1.1 200 OK\r\n'), ...pieces.slice(0, 30), b('Content-Length: 1\r\n\r\nz')]).body).toBe('z');
  });

  it('negative, non-hex, empty and huge chunk sizes', () => {
    const chunked = (line: string): string => `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${line}\r\n`;
    refuses(chunked('-1'), /not hexadecimal/);
    refuses(chunked('zz'), /not hexadecimal/);
    refuses(chunked(''), /not hexadecimal/);
    refuses(chunked('0x10'), /not hexadecimal/);
    refuses(chunked('fffffffffffffffff'), /too large/);
    refuses(chunked(`1;${'e'.repeat(5000)}`), /chunk-size line is longer/);
    // Leading zeros are still the same size.
    expect(read([b(`${chunked('00000000000000000001')}x\r\n0\r\n\r\n`)]).body).toBe('x');
  });

  it('a chunk longer than its size line says', () => {
    refuses('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcdef\r\n0\r\n\r\n', /longer than its size line/);
    refuses('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n', /longer than its size line/);
  });

  it('a bad or contradictory content-length, and an unknown transfer coding', () => {
    refuses('HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n', /content-length/);
    refuses('HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n', /content-length/);
    refuses('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n', /content-length/);
    refuses('HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n', /content-length/);
    refuses('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', /transfer coding/);
    expect(read([b('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc')]).body).toBe('abc');
  });

  it('trailers over the cap', () => {
    const trailers = Array.from({ length: 40 }, (_, i) => `T${i}: ${'t'.repeat(2000)}\r\n`).join('');
    refuses(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${trailers}\r\n`, /trailer section/);
  });

  it('the connection closing mid-head, mid-chunk, mid-length or before the last chunk', () => {
    refuses('HTTP/1.1 200 OK\r\nContent-Le', /closed the connection before the end/, true);
    refuses('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nabc', /closed the connection before the end/, true);
    refuses('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', /closed the connection before the end/, true);
    refuses('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', /closed the connection before the end/, true);
    refuses('', /closed the connection before the end/, true);
  });

  it('a 101 switch', () => {
    refuses('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n', /switched protocols/);
  });
});
