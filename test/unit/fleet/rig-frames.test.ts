// The one reader of what a rig's engine sends (the Fleet row's link and the full-panel relay both use it):
// hostile frames (not JSON, oversized, wrong types, `__proto__` keys) become counted refusals or safe values,
// never a thrown error, a polluted prototype, or the rig's words unbounded. And the invokes waiting on a
// socket: answered once, by their result, their deadline (on a manual clock) or the socket closing.
import { describe, expect, it } from 'vitest';
import { MAX_LOG_BATCH, readRigFrame } from '../../../electron/engine/fleet/rig-frames.ts';
import { PendingInvokes } from '../../../electron/engine/fleet/rig-invokes.ts';
import type { Result } from '../../../shared/result.ts';
import { ManualClock } from '../../doubles/manual-clock.ts';

const MAX = 64 * 1024;
const read = (frame: unknown, max = MAX) => readRigFrame('rig-a', Buffer.from(typeof frame === 'string' ? frame : JSON.stringify(frame)), max);
const snapshot = (payload: unknown) => read({ kind: 'event', event: 'snapshot', payload });
const result = (res: unknown) => read({ kind: 'result', id: 7, result: res });

describe('rig frames', () => {
  it('reads snapshots, results and log batches of the contract, from any of the shapes ws hands over', () => {
    expect(snapshot({ topic: 'miners', version: 3, data: [] })).toEqual({ kind: 'snapshot', topic: 'miners', version: 3, data: [] });
    // null data is a snapshot too ("no serve yet").
    expect(snapshot({ topic: 'serve', version: 1, data: null })).toEqual({ kind: 'snapshot', topic: 'serve', version: 1, data: null });
    expect(result({ ok: true, value: { a: 1 } })).toEqual({ kind: 'result', id: 7, result: { ok: true, value: { a: 1 } } });
    expect(result({ ok: true, value: null })).toEqual({ kind: 'result', id: 7, result: { ok: true, value: null } });
    const line = { seq: 1, ts: 2, level: 'info', source: 'miner', msg: 'hi' };
    expect(read({ kind: 'event', event: 'logs', payload: [line] })).toEqual({ kind: 'logs', lines: [line] });
    const text = JSON.stringify({ kind: 'result', id: 1, result: { ok: true, value: 'é' } });
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(Buffer.from('é'));
    // A message in fragments, split inside a character; and an ArrayBuffer.
    expect(readRigFrame('rig-a', [bytes.subarray(0, cut + 1), bytes.subarray(cut + 1)], MAX)).toEqual({ kind: 'result', id: 1, result: { ok: true, value: 'é' } });
    const ab = new ArrayBuffer(bytes.length);
    new Uint8Array(ab).set(bytes);
    expect(readRigFrame('rig-a', ab, MAX)).toEqual({ kind: 'result', id: 1, result: { ok: true, value: 'é' } });
  });

  it('keeps a refusal of the rig with its code when the panel knows it, its words bounded and named for the rig', () => {
    expect(result({ ok: false, error: { code: 'conflict', message: 'No serve is running.' } })).toEqual({
      kind: 'result',
      id: 7,
      result: { ok: false, error: { code: 'conflict', message: 'rig-a: No serve is running.' } },
    });
    const unknownCode = result({ ok: false, error: { code: '__proto__', message: 'x'.repeat(5000) } });
    expect(unknownCode).toMatchObject({ result: { ok: false, error: { code: 'unavailable' } } });
    const r = (unknownCode as { result: Result<unknown> }).result;
    expect(r.ok === false && r.error.message.length).toBe('rig-a: '.length + 1000);
  });

  it('reads a malformed result as the rig answering badly (the invoke is still answered)', () => {
    const malformed = { kind: 'result', id: 7, result: { ok: false, error: { code: 'unavailable', message: 'rig-a answered with a malformed result.' } } };
    for (const res of [
      undefined,
      null,
      'ok',
      [],
      { ok: true }, // no value
      { ok: 'true', value: 1 },
      { ok: false },
      { ok: false, error: 'boom' },
      { ok: false, error: { code: 'conflict', message: 42 } },
      { ok: 1, error: { code: 'conflict', message: 'not a refusal either' } },
      JSON.parse('{"__proto__": {"ok": true, "value": 1}}'),
    ]) {
      expect(result(res), JSON.stringify(res)).toEqual(malformed);
    }
  });

  it('refuses what is not JSON, not a frame, oversized, or of the wrong types, saying what it was', () => {
    expect(read('{not json')).toEqual({ kind: 'refused', what: 'a message that is not JSON' });
    expect(read('')).toEqual({ kind: 'refused', what: 'a message that is not JSON' });
    for (const f of ['null', '42', '"text"', '[1,2]']) expect(read(f), f).toEqual({ kind: 'refused', what: 'a message that is not a frame' });
    for (const f of [{}, { kind: 'hello' }, { kind: 'result', id: '7', result: { ok: true, value: 1 } }, { kind: 'result', result: { ok: true, value: 1 } }, { kind: ['event'] }]) {
      expect(read(f), JSON.stringify(f)).toEqual({ kind: 'refused', what: 'an unknown frame' });
    }
    const big = JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic: 'miners', version: 1, data: 'x'.repeat(2000) } });
    expect(read(big, 1000)).toEqual({ kind: 'refused', what: `a message of ${big.length} bytes (over 1000)` });
    expect(read(big, big.length)).toMatchObject({ kind: 'snapshot', topic: 'miners' });
    for (const payload of [undefined, 'miners', [], {}, { topic: 7, version: 1, data: 1 }, { topic: 'x'.repeat(65), version: 1, data: 1 }, { topic: '9lives', version: 1, data: 1 }]) {
      expect(snapshot(payload), JSON.stringify(payload)).toEqual({ kind: 'refused', what: 'a snapshot without a topic' });
    }
    for (const payload of [{ topic: 'miners' }, { topic: 'miners', version: '1', data: [] }, { topic: 'miners', version: 1 }]) {
      expect(snapshot(payload), JSON.stringify(payload)).toEqual({ kind: 'refused', what: 'a miners snapshot without its version and data' });
    }
    for (const payload of [undefined, 'line', { seq: 1 }]) {
      expect(read({ kind: 'event', event: 'logs', payload }), JSON.stringify(payload)).toEqual({ kind: 'refused', what: 'a log batch that is not a list' });
    }
  });

  it('never lets a `__proto__` key become a topic or pollute a prototype', () => {
    expect(read('{"kind":"event","event":"snapshot","payload":{"topic":"__proto__","version":1,"data":{"polluted":true}}}')).toEqual({ kind: 'refused', what: 'a snapshot without a topic' });
    expect(read('{"kind":"event","event":"snapshot","payload":{"topic":"constructor","version":1,"data":{"polluted":true}}}')).toMatchObject({ kind: 'snapshot', topic: 'constructor' });
    // `__proto__` as a frame's own key: the frame is read by its own fields only.
    expect(read('{"__proto__":{"kind":"event","event":"snapshot"},"kind":"event","event":"snapshot","payload":{"topic":"miners","version":1,"data":{"__proto__":{"polluted":true}}}}')).toMatchObject({
      kind: 'snapshot',
      topic: 'miners',
    });
    expect(read('{"__proto__":{"kind":"result","id":1}}')).toEqual({ kind: 'refused', what: 'an unknown frame' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('cuts a log batch to its last lines and drops entries that are not objects', () => {
    const lines = Array.from({ length: MAX_LOG_BATCH + 5 }, (_, i) => ({ seq: i, ts: i, level: 'info', source: 's', msg: `m${i}` }));
    const f = read({ kind: 'event', event: 'logs', payload: [1, 'x', null, [], ...lines] });
    expect(f.kind === 'logs' && f.lines.map((l) => l.seq)).toEqual(lines.slice(-MAX_LOG_BATCH).map((l) => l.seq));
    expect(read({ kind: 'event', event: 'logs', payload: [1, 'x'] })).toEqual({ kind: 'logs', lines: [] });
  });

  it('ignores events neither socket reads', () => {
    expect(read({ kind: 'event', event: 'progress', payload: { anything: 1 } })).toEqual({ kind: 'other-event' });
    expect(read({ kind: 'event' })).toEqual({ kind: 'other-event' });
  });
});

describe('pending invokes to a rig', () => {
  const sink = () => {
    const sent: unknown[] = [];
    return { sent, send: (frame: string) => void sent.push(JSON.parse(frame)) };
  };

  it('numbers each invoke, answers it with its result once, and drops a result nobody waits for', async () => {
    const clock = new ManualClock();
    const inv = new PendingInvokes(clock, 'rig-a');
    const ws = sink();
    const a = inv.send(ws, 'app.info', null, 15_000);
    const b = inv.send(ws, 'mining.start', { x: 1 }, 15_000);
    expect(ws.sent).toEqual([
      { kind: 'invoke', id: 1, method: 'app.info', req: null },
      { kind: 'invoke', id: 2, method: 'mining.start', req: { x: 1 } },
    ]);
    inv.settle(2, { ok: true, value: 'started' });
    inv.settle(2, { ok: true, value: 'again' });
    inv.settle(99, { ok: true, value: 'stray' });
    inv.settle(1, { ok: true, value: 'info' });
    expect(await Promise.all([a, b])).toEqual([
      { ok: true, value: 'info' },
      { ok: true, value: 'started' },
    ]);
    expect(clock.pending()).toBe(0);
  });

  it('answers `timeout` at the deadline on its clock, and a late result is dropped', async () => {
    const clock = new ManualClock();
    const inv = new PendingInvokes(clock, 'rig-a');
    let answer: Result<unknown> | null = null;
    void inv.send(sink(), 'mining.stop', null, 60_000).then((r) => (answer = r));
    await clock.advance(59_999);
    expect(answer).toBeNull();
    await clock.advance(1);
    expect(answer).toEqual({ ok: false, error: { code: 'timeout', message: 'rig-a did not answer mining.stop in 60 s: it may be overloaded; check it, then retry.' } });
    inv.settle(1, { ok: true, value: 'late' });
    expect(answer).toMatchObject({ error: { code: 'timeout' } });
  });

  it('answers every waiting invoke when the socket goes, and one whose send throws at once', async () => {
    const clock = new ManualClock();
    const inv = new PendingInvokes(clock, 'rig-a');
    const ws = sink();
    const waiting = [inv.send(ws, 'a.b', null, 1000), inv.send(ws, 'c.d', null, 1000)];
    inv.failAll('The connection to rig-a closed before it answered.');
    for (const r of await Promise.all(waiting)) expect(r).toEqual({ ok: false, error: { code: 'unavailable', message: 'The connection to rig-a closed before it answered.' } });
    const broken = {
      send: () => {
        throw new Error('WebSocket is not open: readyState 2 (CLOSING)');
      },
    };
    expect(await inv.send(broken, 'e.f', null, 1000)).toEqual({ ok: false, error: { code: 'unavailable', message: 'rig-a: WebSocket is not open: readyState 2 (CLOSING)' } });
    expect(clock.pending()).toBe(0);
  });
});
