import { describe, expect, it, vi } from 'vitest';
import { DeltaCoalescer } from '../../../electron/engine/miner/delta-coalescer.ts';
import type { StreamDelta } from '../../../electron/engine/miner/frames.ts';
import { errorResponseFrame, parseGatewayFrame } from '../../../electron/engine/miner/frames.ts';
import { derivePhase, PhaseHistory, type PhaseInputs } from '../../../electron/engine/miner/miner-state.ts';
import { leadingText, SseTextScanner } from '../../../electron/engine/miner/sse-text.ts';

describe('SSE text scanner', () => {
  it('reads cumulative text from events split anywhere, and the end marker', () => {
    const events: (string | null | 'DONE')[] = [];
    const s = new SseTextScanner((e) => events.push(e.done ? 'DONE' : e.text));
    const body = Buffer.from('data: {"text": "He", "meta_info": {}}\n\ndata: {"text": "Hello \\u00e9\\"x", "meta_info": {}}\n\ndata: [DONE]\n\n');
    for (let i = 0; i < body.length; i += 7) s.push(body.subarray(i, i + 7));
    s.end();
    expect(events).toEqual(['He', 'Hello é"x', 'DONE']);
  });

  it('takes text from the prefix of an event too large to hold', () => {
    const got: (string | null)[] = [];
    const s = new SseTextScanner((e) => got.push(e.text), 64);
    s.push(Buffer.from(`data: {"text": "short", "meta_info": {"hidden_states": [${'0.5,'.repeat(100)}1]}}\n`));
    expect(got).toEqual(['short']);
    expect(leadingText('{"text":"a\\nb", "x": 1')).toBe('a\nb');
    expect(leadingText('{"meta_info": {}, "text": "late"}')).toBeNull();
  });

  it('reports an error event', () => {
    const errors: (string | null)[] = [];
    new SseTextScanner((e) => errors.push(e.error)).push(Buffer.from('data: {"error": {"message": "boom"}}\n'));
    expect(errors).toEqual(['boom']);
  });
});

describe('frames', () => {
  it('parses gateway frames and refuses malformed ones with a reason', () => {
    expect(parseGatewayFrame('{"type":"deny","reason":"unknown miner key"}')).toEqual({ ok: true, frame: { type: 'deny', reason: 'unknown miner key' } });
    expect(parseGatewayFrame('{"type":"serve","corr_id":"c","request":{"messages":[]},"stream":true}')).toMatchObject({ ok: true, frame: { stream: true } });
    expect(parseGatewayFrame('{"type":"serve","corr_id":"c"}')).toEqual({ ok: false, reason: 'serve without request.messages', corrId: 'c' });
    expect(parseGatewayFrame('nope')).toEqual({ ok: false, reason: 'frame is not JSON' });
    expect(parseGatewayFrame('{"type":"shout"}')).toEqual({ ok: false, reason: 'unknown frame type "shout"' });
  });

  it('caps the error message of a failed response at 300 characters and keeps its kind and status', () => {
    const f = errorResponseFrame('c', 'r', { message: 'x'.repeat(1000), type: 'ServeError', status: 502 });
    expect(f.error!.message).toHaveLength(300);
    expect(f.error).toMatchObject({ type: 'ServeError', status: 502 });
    expect(f.commitment).toBeNull();
  });
});

describe('delta coalescer', () => {
  it('merges deltas of one kind into one frame per flush', () => {
    const sent: StreamDelta[] = [];
    const c = new DeltaCoalescer((d) => sent.push(d), 60_000);
    c.push([{ reasoning_content: 'a' }, { reasoning_content: 'b' }]);
    c.push([{ content: 'c' }, { content: 'd' }]);
    c.close();
    expect(sent).toEqual([{ reasoning_content: 'ab' }, { content: 'cd' }]);
    c.push([{ content: 'late' }]);
    c.flush();
    expect(sent).toHaveLength(2);
  });

  it('sends the first delta at once, holds later ones to one frame per window, and flushes the rest on close', () => {
    vi.useFakeTimers();
    try {
      let t = 1000;
      const sent: { at: number; d: StreamDelta }[] = [];
      const c = new DeltaCoalescer(
        (d) => sent.push({ at: t, d }),
        50,
        () => t,
      );
      c.push([{ content: 'a' }]);
      expect(sent).toEqual([{ at: 1000, d: { content: 'a' } }]);
      t = 1010;
      c.push([{ content: 'b' }]);
      t = 1030;
      c.push([{ content: 'c' }]);
      expect(sent).toHaveLength(1);
      t = 1050;
      vi.advanceTimersByTime(40);
      expect(sent.map((s) => s.d)).toEqual([{ content: 'a' }, { content: 'bc' }]);
      // A quiet spell longer than the window: the next delta goes out at once again.
      t = 1200;
      c.push([{ reasoning_content: 'd' }]);
      expect(sent).toHaveLength(3);
      t = 1210;
      c.push([{ content: 'e' }]);
      c.close();
      expect(sent.map((s) => s.d)).toEqual([{ content: 'a' }, { content: 'bc' }, { reasoning_content: 'd' }, { content: 'e' }]);
      // Frames inside the stream never come closer than the window (the final flush may).
      const gaps = sent.slice(1, -1).map((s, i) => s.at - sent[i]!.at);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50);
      vi.advanceTimersByTime(1000);
      expect(sent).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops what is pending when closed without a flush, and sends nothing for an empty push', () => {
    let t = 0;
    const sent: StreamDelta[] = [];
    const c = new DeltaCoalescer(
      (d) => sent.push(d),
      50,
      () => t,
    );
    c.push([]);
    expect(sent).toHaveLength(0);
    c.push([{ content: 'x' }]);
    t = 10;
    c.push([{ content: 'y' }]);
    c.close(false);
    expect(sent).toEqual([{ content: 'x' }]);
  });
});

describe('miner phase', () => {
  const base: PhaseInputs = {
    stopped: false,
    startingServe: false,
    failure: null,
    withdrawn: null,
    planned: 8,
    live: 8,
    admitted: 8,
    denyReasons: [],
    wasComplete: true,
    servedOk: 0,
    firstServeAt: null,
    now: 1000,
    probeWindowMs: 600_000,
    probeMinRequests: 20,
  };
  it('walks connecting -> waiting -> probing -> active, and says pulled after active', () => {
    expect(derivePhase({ ...base, live: 5, admitted: 5, wasComplete: false }, false)).toEqual({ phase: 'connecting', detail: 'connecting (5 of 8 legs)' });
    expect(derivePhase({ ...base, live: 7, admitted: 7 }, false).phase).toBe('reconnecting');
    expect(derivePhase(base, false).phase).toBe('waiting-for-probe');
    expect(derivePhase({ ...base, firstServeAt: 900, servedOk: 3 }, false).phase).toBe('probing');
    expect(derivePhase({ ...base, firstServeAt: 0, servedOk: 30, now: 700_000 }, false).phase).toBe('active');
    expect(derivePhase({ ...base, denyReasons: ['latency'] }, true)).toEqual({ phase: 'pulled', detail: 'pulled: latency' });
    expect(derivePhase({ ...base, denyReasons: ['unknown miner key'] }, false)).toEqual({ phase: 'denied', detail: 'denied: unknown miner key' });
  });

  it('says a worker waiting for its serve is starting, not stopped (Start was pressed: the page offers Stop)', () => {
    expect(derivePhase({ ...base, stopped: true, startingServe: true }, false)).toEqual({ phase: 'starting-serve', detail: 'starting the serve' });
    expect(derivePhase({ ...base, stopped: true }, false).phase).toBe('stopped');
  });

  it('keeps a history of transitions, updating the detail within one phase', () => {
    const h = new PhaseHistory(3);
    expect(h.update(1, 'connecting', 'connecting (1 of 8 legs)')).toBe(true);
    expect(h.update(2, 'connecting', 'connecting (2 of 8 legs)')).toBe(false);
    h.update(3, 'waiting-for-probe', 'w');
    h.update(4, 'probing', 'p');
    h.update(5, 'active', 'a');
    expect(h.list().map((t) => t.phase)).toEqual(['waiting-for-probe', 'probing', 'active']);
    expect(h.everActive()).toBe(true);
  });
});
