// The renderer's mirror of engine state, driven through its real transports with fake sockets.
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotEnvelope } from '../../../shared/api.ts';
import { bindEngineStore, newEngineStore } from '../../../renderer/src/stores/engine-store.ts';
import { createApi, WsClient } from '../../../renderer/src/lib/api.ts';
import { FakeBridge, FakeSocketHub } from '../../doubles/fake-engine-socket.ts';

const settingsAt = (version: number, theme: 'dark' | 'light') => ({ topic: 'settings', version, data: { theme } }) as unknown as SnapshotEnvelope;
const miningAt = (version: number, phase: string) => ({ topic: 'serve', version, data: { phase } }) as unknown as SnapshotEnvelope;
const flush = () => new Promise<void>((r) => setTimeout(r, 0));

function wsStore() {
  const hub = new FakeSocketHub();
  const store = newEngineStore();
  const api = bindEngineStore(store, (onState) => {
    const c = new WsClient('ws://engine/ws', hub.open, hub.schedule);
    c.onState = onState;
    return c.start();
  });
  return { hub, store, api };
}

describe('engine store over the WebSocket transport', () => {
  it('connects, replays, then keeps only newer versions per topic', () => {
    const { hub, store } = wsStore();
    expect(store.getState().connection).toBe('connecting');
    hub.last.accept();
    expect(store.getState().connection).toBe('open');
    hub.last.snapshot(settingsAt(3, 'dark'));
    hub.last.snapshot(settingsAt(5, 'light'));
    hub.last.snapshot(settingsAt(4, 'dark')); // late and older: ignored
    expect(store.getState().snapshots.settings?.version).toBe(5);
    expect((store.getState().snapshots.settings?.data as { theme: string }).theme).toBe('light');
  });

  it("takes a restarted engine's state although its versions start again at 1", () => {
    const { hub, store } = wsStore();
    hub.last.accept();
    hub.last.snapshot(miningAt(40, 'active'));
    hub.last.snapshot(settingsAt(12, 'dark'));
    hub.last.drop(); // the engine crashed
    expect(store.getState().connection).toBe('closed');
    expect(store.getState().detail.attempts).toBe(1);
    expect(store.getState().detail.nextRetryAt).not.toBeNull();
    hub.runTimers(); // reconnect
    expect(hub.sockets).toHaveLength(2);
    hub.last.accept(); // onopen fires before the replay, as in a browser
    hub.last.snapshot(miningAt(1, 'stopped'));
    hub.last.snapshot(settingsAt(1, 'light'));
    expect((store.getState().snapshots.serve?.data as unknown as { phase: string }).phase).toBe('stopped');
    expect(store.getState().snapshots.settings?.version).toBe(1);
    // Live updates after the replay follow the new engine's versions.
    hub.last.snapshot(miningAt(2, 'starting'));
    hub.last.snapshot(miningAt(1, 'stopped'));
    expect((store.getState().snapshots.serve?.data as unknown as { phase: string }).phase).toBe('starting');
  });

  it('keeps retrying with growing delays and counts the attempts for the banner', () => {
    const { hub, store } = wsStore();
    hub.last.drop();
    hub.runTimers();
    hub.last.drop();
    hub.runTimers();
    hub.last.drop();
    expect(store.getState().detail.attempts).toBe(3);
    const delays = hub.timers.map((t) => t.ms);
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(1500); // 2 s +-20 % on the third try
    hub.runTimers();
    hub.last.accept();
    expect(store.getState().connection).toBe('open');
    expect(store.getState().detail.attempts).toBe(0);
  });

  it('fails invokes fast while away and answers pending ones when the connection drops', async () => {
    const { hub, api } = wsStore();
    const away = await api.invoke('settings.get', null);
    expect(away).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    hub.last.accept();
    const pending = api.invoke('settings.get', null);
    expect(hub.last.sent.map((f) => f.method)).toContain('settings.get');
    hub.last.drop();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });

  it('fetches app.info on every open and ignores frames that are not JSON', async () => {
    const { hub, store } = wsStore();
    hub.last.accept();
    await flush();
    const ask = hub.last.sent.find((f) => f.method === 'app.info')!;
    hub.last.onmessage?.({ data: 'not json' });
    hub.last.answer(ask.id, { ok: true, value: { version: '9.9.9', shell: 'headless' } });
    await flush();
    expect(store.getState().info?.version).toBe('9.9.9');
  });

  it('keeps the last 5000 log lines', () => {
    const { hub, store } = wsStore();
    hub.last.accept();
    const line = (i: number) => ({ ts: i, level: 'info', source: 't', msg: `l${i}` });
    hub.last.frame({ kind: 'event', event: 'logs', payload: Array.from({ length: 4000 }, (_, i) => line(i)) });
    hub.last.frame({ kind: 'event', event: 'logs', payload: Array.from({ length: 2000 }, (_, i) => line(4000 + i)) });
    const logs = store.getState().logs;
    expect(logs).toHaveLength(5000);
    expect(logs[0]!.msg).toBe('l1000');
    expect(logs[4999]!.msg).toBe('l5999');
  });
});

describe('engine store over the Electron bridge', () => {
  const g = globalThis as { window?: unknown };
  afterEach(() => {
    delete g.window;
  });

  it('opens synchronously, yet the store has its api before it asks for app.info', async () => {
    const bridge = new FakeBridge({ 'app.info': { version: '1.2.3', shell: 'electron' } });
    g.window = { engy: bridge };
    const store = newEngineStore();
    bindEngineStore(store, createApi);
    await flush();
    expect(store.getState().connection).toBe('open');
    expect(bridge.calls).toEqual(['app.info']);
    expect(store.getState().info).toMatchObject({ version: '1.2.3', shell: 'electron' });
    bridge.push('snapshot', settingsAt(2, 'dark'));
    bridge.push('snapshot', settingsAt(1, 'light'));
    expect(store.getState().snapshots.settings?.version).toBe(2);
  });

  it('survives a transport that reports open before its factory returns', async () => {
    const bridge = new FakeBridge({ 'app.info': { version: '4.5.6', shell: 'electron' } });
    g.window = { engy: bridge };
    const store = newEngineStore();
    bindEngineStore(store, (onState) => {
      onState('open', { attempts: 0, nextRetryAt: null }); // the old createApi's order
      return createApi(() => undefined);
    });
    await flush();
    expect(store.getState().info?.version).toBe('4.5.6');
  });
});

describe('a rotated token', () => {
  it('tells the banner the engine refuses this page when the HTTP probe says 401', async () => {
    const hub = new FakeSocketHub();
    const store = newEngineStore();
    let probes = 0;
    bindEngineStore(store, (onState) => {
      const c = new WsClient('ws://engine/ws', hub.open, hub.schedule, async () => (probes++, true));
      c.onState = onState;
      return c.start();
    });
    hub.last.accept();
    hub.last.drop();
    await flush();
    expect(probes).toBe(0); // one loss is just a restart
    expect(store.getState().detail.refused).toBeUndefined();
    hub.runTimers();
    hub.last.drop(); // refused again
    await flush();
    expect(probes).toBe(1);
    expect(store.getState().detail.refused).toBe(true);
    expect(store.getState().connection).toBe('closed');
  });
});
