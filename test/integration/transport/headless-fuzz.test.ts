// Hostile and random input against a real `engy-panel headless` process: after every case the
// engine must still be running and answering. Every reproduction from the hardening issue is here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startHeadlessChild, type HeadlessChild } from '../../helpers/headless-process.ts';
import { closeCodeOf, httpGet, rawExchange, rawWsUpgrade, statusOf, textsUntilClose, wsFrame } from '../../helpers/raw-wire.ts';
import { xorshiftRandom } from '../../helpers/xorshift.ts';
import { cookieNameFor } from '../../../electron/transport/http-guards.ts';

describe('the headless transport survives hostile input', () => {
  let engine: HeadlessChild;
  let port: number;
  let host: string;

  /** The engine process is alive and answers an authenticated request. */
  async function assertAlive(context: string): Promise<void> {
    expect(engine.child.exitCode, `engine exited after ${context}:\n${engine.output()}`).toBeNull();
    const res = await fetch(`${engine.origin}/metrics`, { headers: { authorization: `Bearer ${engine.token}` } });
    expect(res.status, `engine did not answer after ${context}`).toBe(200);
    await res.arrayBuffer();
  }

  /** A connected client that answers invokes by id. */
  async function client(): Promise<{ ws: WebSocket; call: (frame: unknown) => Promise<unknown> }> {
    const ws = new WebSocket(`ws://${host}/ws?token=${engine.token}`);
    ws.on('error', () => undefined);
    await new Promise((r, j) => (ws.once('open', r), ws.once('unexpected-response', () => j(new Error('upgrade refused')))));
    const call = (frame: unknown) =>
      new Promise<unknown>((resolve) => {
        const id = (frame as { id?: unknown }).id;
        const onMsg = (d: Buffer) => {
          const f = JSON.parse(String(d)) as { kind: string; id?: number; result?: unknown };
          if (f.kind === 'result' && f.id === id) {
            ws.off('message', onMsg);
            resolve(f.result);
          }
        };
        ws.on('message', onMsg);
        ws.send(JSON.stringify(frame));
      });
    return { ws, call };
  }

  beforeAll(async () => {
    engine = await startHeadlessChild({ ...process.env });
    port = Number(new URL(engine.origin).port);
    host = `127.0.0.1:${port}`;
  });
  afterAll(async () => {
    const code = await engine?.stop();
    expect(code).toBe(0);
  });

  it('answers malformed cookies, paths and escapes with 400, never an exception', async () => {
    const ours = cookieNameFor(engine.token);
    const cases: Array<[string, string, Record<string, string>, number[]]> = [
      // [label, path, headers, accepted statuses]
      ["the issue's unauthenticated cookie", '/', { Host: host, Cookie: 'engy_token=%' }, [401]],
      ['our cookie with a bad escape', '/', { Host: host, Cookie: `${ours}=%` }, [400]],
      ['our cookie with a lone surrogate escape', '/', { Host: host, Cookie: `${ours}=%ED%A0%80` }, [400]],
      ["someone else's broken cookie beside ours", '/metrics', { Host: host, Cookie: `other=%; ${ours}=${engine.token}` }, [200]],
      ['GET /%', '/%', { Host: host, Authorization: `Bearer ${engine.token}` }, [400]],
      ['GET /%E0%A4%A', '/%E0%A4%A', { Host: host, Authorization: `Bearer ${engine.token}` }, [400]],
      ['a NUL escape', '/%00/index.html', { Host: host, Authorization: `Bearer ${engine.token}` }, [400]],
      ['a traversal', '/..%2F..%2Fetc%2Fpasswd', { Host: host, Authorization: `Bearer ${engine.token}` }, [200, 404, 503]],
      ['a source map', '/assets/index.js.map', { Host: host, Authorization: `Bearer ${engine.token}` }, [404]],
      ['a foreign Host', '/', { Host: 'evil.example:7853', Authorization: `Bearer ${engine.token}` }, [421]],
      ['a rebinding Host on our port', '/metrics', { Host: `attacker.test:${port}`, Authorization: `Bearer ${engine.token}` }, [421]],
      ['a Host with junk', '/', { Host: 'a b@c', Authorization: `Bearer ${engine.token}` }, [400, 421]],
      ['an absolute-form target', `http://evil.example/`, { Host: host, Authorization: `Bearer ${engine.token}` }, [400]],
      ['a bearer with bytes beyond ASCII', '/', { Host: host, Authorization: 'Bearer \u00ff\u00fe' }, [401]],
      ['a huge header', '/', { Host: host, 'X-Fill': 'a'.repeat(20_000) }, [431]],
    ];
    for (const [label, path, headers, ok] of cases) {
      const reply = await rawExchange(port, Buffer.from(httpGet(path, headers), 'latin1'));
      expect(ok, `${label}: got ${JSON.stringify(reply.slice(0, 80))}`).toContain(statusOf(reply));
      await assertAlive(label);
    }
  });

  it('survives garbage request lines and random paths, headers and cookies', async () => {
    const rnd = xorshiftRandom(0x5eed);
    const pick = (s: string) => s[Math.floor(rnd() * s.length)]!;
    const alphabet = '%/.\\?#&=;:@!$\'()*+,~-_ aZ09\u00e9\u0000\u00ff[]{}<>"`|^';
    const junk = (n: number) => Array.from({ length: n }, () => pick(alphabet)).join('');
    const raw = ['GARBAGE\r\n\r\n', 'GET\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', '\r\n\r\n', `GET /${'a'.repeat(10_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`];
    for (const r of raw) {
      const reply = await rawExchange(port, Buffer.from(r, 'latin1'), 3000);
      expect(statusOf(reply) === 0 || statusOf(reply) >= 400).toBe(true);
      await assertAlive(JSON.stringify(r.slice(0, 40)));
    }
    for (let i = 0; i < 60; i++) {
      const path = `/${junk(1 + Math.floor(rnd() * 40))}`;
      const headers: Record<string, string> = { Host: rnd() < 0.8 ? host : junk(12), Cookie: `${junk(8)}=${junk(20)}; ${cookieNameFor(engine.token)}=${rnd() < 0.5 ? engine.token : junk(30)}` };
      if (rnd() < 0.5) headers.Authorization = `Bearer ${junk(30)}`;
      if (rnd() < 0.3) headers['Accept-Encoding'] = junk(20);
      const reply = await rawExchange(port, Buffer.from(httpGet(path, headers), 'latin1'), 3000);
      const status = statusOf(reply);
      expect(status === 0 || status < 500 || status === 503, `${path} -> ${reply.slice(0, 60)}`).toBe(true);
    }
    await assertAlive('60 random requests');
  });

  it("opens the WebSocket only for the page's own origin and a Host it answers for", async () => {
    const tokened = `/ws?token=${engine.token}`;
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['no token', '/ws', {}, 401],
      ["another local port's page", tokened, { Origin: 'http://127.0.0.1:9999' }, 403],
      ['a foreign site', tokened, { Origin: 'https://evil.example' }, 403],
      ['an opaque origin', tokened, { Origin: 'null' }, 403],
      ['a foreign Host', tokened, { Host: 'evil.example', Origin: 'http://evil.example' }, 421],
      ['the page itself', tokened, { Origin: `http://${host}` }, 101],
      ['a non-browser client with the token', tokened, {}, 101],
      ['the page through a tunnel on another local port', tokened, { Host: 'localhost:17853', Origin: 'http://localhost:17853' }, 101],
      ['a malformed Sec-WebSocket-Key', tokened, { 'Sec-WebSocket-Key': 'not base64 of 16 bytes' }, 400],
      ['an unknown WebSocket version', tokened, { 'Sec-WebSocket-Version': '99' }, 400],
      ['a path other than /ws', `/other?token=${engine.token}`, {}, 401],
    ];
    for (const [label, path, headers, status] of cases) {
      const up = await rawWsUpgrade(port, path, headers);
      expect(up.status, label).toBe(status);
      up.socket.destroy();
      await assertAlive(label);
    }
  });

  it('answers prototype-named keys, wrong types and junk frames with a Result or a close, never a crash', async () => {
    const { ws, call } = await client();
    let id = 1;
    const frames: unknown[] = [];
    for (const key of ['hasOwnProperty', '__proto__', 'valueOf', 'constructor', 'toString', 'isPrototypeOf']) {
      frames.push({ kind: 'invoke', id: id++, method: 'settings.update', req: JSON.parse(`{"${key}": 1}`) });
      frames.push({ kind: 'invoke', id: id++, method: 'wallet.createHotkey', req: JSON.parse(`{"${key}": "x", "wallet": "w"}`) });
      frames.push({ kind: 'invoke', id: id++, method: 'settings.update', req: JSON.parse(`{"mining": {"${key}": 1}}`) });
      frames.push({ kind: 'invoke', id: id++, method: key, req: null });
    }
    frames.push({ kind: 'invoke', id: id++, method: { toString: 'settings.get' }, req: null });
    frames.push({ kind: 'invoke', id: id++, method: ['settings.get'], req: null });
    frames.push({ kind: 'invoke', id: id++, method: 'settings.update', req: 'dark' });
    frames.push({ kind: 'invoke', id: id++, method: 'logs.recent', req: { limit: 1e308 } });
    for (const f of frames) {
      const r = (await call(f)) as { ok: boolean; error?: { code: string } };
      expect(r.ok, JSON.stringify(f)).toBe(false);
      expect(['bad-request', 'unknown-method']).toContain(r.error?.code);
    }
    // The well-formed request still works on the same connection.
    expect(await call({ kind: 'invoke', id: id++, method: 'settings.get', req: null })).toMatchObject({ ok: true });
    ws.close();
    await assertAlive('prototype-named keys');

    // Frames that are not the protocol close the connection (1003), and the engine goes on.
    const junk: Array<[string, Buffer]> = [
      ['not JSON', wsFrame('{nope')],
      ['a JSON array', wsFrame('[1,2]')],
      ['a frame with a __proto__ kind', wsFrame('{"__proto__": {"kind": "invoke"}, "id": 1, "method": "app.info"}')],
      ['a string id', wsFrame('{"kind": "invoke", "id": "1", "method": "app.info"}')],
      ['binary', wsFrame(Buffer.from([0, 1, 2]), 2)],
    ];
    for (const [label, frame] of junk) {
      const up = await rawWsUpgrade(port, `/ws?token=${engine.token}`, {});
      expect(up.status).toBe(101);
      const closed = closeCodeOf(up.socket);
      up.socket.write(frame);
      expect(await closed, label).toBe(1003);
      await assertAlive(label);
    }
    // A burst of requests followed by a fatal frame, in one write: every earlier request is answered, then 1003.
    for (const [label, fatal] of [
      ['not JSON', wsFrame('{nope')],
      ['binary', wsFrame(Buffer.from([0, 1, 2]), 2)],
    ] as Array<[string, Buffer]>) {
      const up = await rawWsUpgrade(port, `/ws?token=${engine.token}`, {});
      const seen = textsUntilClose(up.socket);
      up.socket.write(Buffer.concat([1, 2, 3].map((n) => wsFrame(JSON.stringify({ kind: 'invoke', id: n, method: n === 2 ? 'app.info' : 'settings.get', req: null }))).concat(fatal)));
      const { texts, code } = await seen;
      const answered = texts
        .map((t) => JSON.parse(t) as { kind: string; id?: number })
        .filter((f) => f.kind === 'result')
        .map((f) => f.id);
      expect(answered.sort(), label).toEqual([1, 2, 3]);
      expect(code, label).toBe(1003);
      await assertAlive(`a burst ending in ${label}`);
    }

    // Protocol violations (unmasked frame, reserved opcode, invalid UTF-8) are ws's to refuse.
    for (const [label, frame] of [
      ['an unmasked frame', wsFrame('{}', 1, false)],
      ['a reserved opcode', wsFrame('x', 3)],
      ['invalid UTF-8 text', wsFrame(Buffer.from([0xc3, 0x28]))],
    ] as Array<[string, Buffer]>) {
      const up = await rawWsUpgrade(port, `/ws?token=${engine.token}`, {});
      const closed = closeCodeOf(up.socket);
      up.socket.write(frame);
      expect([1002, 1007], label).toContain(await closed);
      await assertAlive(label);
    }
  });

  it('closes a frame over 1 MiB with 1009 and goes on', async () => {
    const up = await rawWsUpgrade(port, `/ws?token=${engine.token}`, {});
    expect(up.status).toBe(101);
    const closed = closeCodeOf(up.socket);
    up.socket.write(wsFrame(JSON.stringify({ kind: 'invoke', id: 1, method: 'app.info', req: { pad: 'x'.repeat(1024 * 1024 + 10) } })));
    expect(await closed).toBe(1009);
    await assertAlive('an oversized frame');
  });

  it('answers 503 beyond its connection cap and takes clients again once they leave', async () => {
    const open: WebSocket[] = [];
    let refused = 0;
    for (let i = 0; i < 34; i++) {
      const ws = new WebSocket(`ws://${host}/ws?token=${engine.token}`);
      ws.on('error', () => undefined);
      const status = await new Promise<number>((resolve) => {
        ws.once('open', () => resolve(101));
        ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
      });
      if (status === 101) open.push(ws);
      else {
        expect(status).toBe(503);
        refused++;
      }
    }
    expect(open.length).toBe(32);
    expect(refused).toBe(2);
    await Promise.all(open.map((ws) => new Promise((r) => (ws.once('close', r), ws.close()))));
    // The server forgets a client when its side of the close completes: poll until a slot is free.
    let status = 0;
    for (let i = 0; i < 50 && status !== 101; i++) {
      const again = await rawWsUpgrade(port, `/ws?token=${engine.token}`, {});
      status = again.status;
      again.socket.destroy();
      if (status !== 101) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(101);
    await assertAlive('the connection cap');
  });
});
