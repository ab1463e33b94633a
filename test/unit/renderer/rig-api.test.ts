// A rig's full panel in the renderer: the pages' store fed by the panel's `rig` events for that rig only,
// invokes sent as fleet.rigInvoke naming the rig, the watch renewed while open and stopped when closed,
// and the pages' api switched to the rig and back (engine-store's openRig / closeRig).
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineApi, EventMap, EventName, SnapshotEnvelope } from '../../../shared/api.ts';
import type { Result } from '../../../shared/result.ts';
import { RigScopedApi, WATCH_RENEW_MS } from '../../../renderer/src/lib/rig-api.ts';
import { bindEngineStore, closeRig, connectEngine, engineApi, newEngineStore, openRig, panelApi, usePanel, useScope } from '../../../renderer/src/stores/engine-store.ts';

/** The panel's engine as the renderer sees it: records invokes, lets the test send events. */
class FakePanel implements EngineApi {
  calls: Array<{ method: string; req: unknown }> = [];
  answer: (method: string) => Result<unknown> = () => ({ ok: true, value: null });
  private readonly listeners = new Map<string, Set<(p: unknown) => void>>();
  invoke(method: string, req: unknown): Promise<Result<never>> {
    this.calls.push({ method, req });
    return Promise.resolve(this.answer(method) as Result<never>);
  }
  on<E extends EventName>(event: E, l: (p: EventMap[E]) => void): () => void {
    let s = this.listeners.get(event);
    if (!s) this.listeners.set(event, (s = new Set()));
    s.add(l as (p: unknown) => void);
    return () => s.delete(l as (p: unknown) => void);
  }
  fire<E extends EventName>(event: E, payload: EventMap[E]): void {
    for (const l of this.listeners.get(event) ?? []) l(payload);
  }
  count(event: string): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}

const env = (topic: string, version: number, data: unknown) => ({ topic, version, data }) as unknown as SnapshotEnvelope;
const flush = () => new Promise<void>((r) => setTimeout(r, 0));

function scoped(panel: FakePanel, rigId = 'aaaaaaaaaaaa') {
  const ticks: Array<() => void> = [];
  let stopped = 0;
  const store = newEngineStore();
  let rig!: RigScopedApi;
  bindEngineStore(store, (onState) => {
    rig = new RigScopedApi(panel, rigId, onState, (fn) => {
      ticks.push(fn);
      return () => void stopped++;
    });
    return rig.start();
  });
  return { store, rig, ticks, stopped: () => stopped };
}

describe('a rig full panel in the renderer', () => {
  afterEach(() => closeRig());

  it("fills its own store from that rig's relayed events only, replay first, and asks for a fresh watch", async () => {
    const panel = new FakePanel();
    const { store } = scoped(panel);
    expect(panel.calls[0]).toEqual({ method: 'fleet.watch', req: { id: 'aaaaaaaaaaaa', fresh: true } });
    expect(store.getState().connection).toBe('connecting');
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'state', state: 'open', detail: 'Connected' });
    expect(store.getState().connection).toBe('open');
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'snapshot', payload: env('earnings', 7, { totals: 1 }) });
    panel.fire('rig', { rigId: 'bbbbbbbbbbbb', kind: 'snapshot', payload: env('earnings', 9, { totals: 'other rig' }) });
    panel.fire('snapshot', env('earnings', 11, { totals: 'the panel' }));
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'logs', payload: [{ at: 1, level: 'info', source: 'app', text: 'hello' }] as never });
    expect(store.getState().snapshots.earnings).toEqual(env('earnings', 7, { totals: 1 }));
    expect(store.getState().logs).toHaveLength(1);
    // The relay reopened (the rig's engine restarted): its replay starts again at version 1 and is taken.
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'state', state: 'closed', detail: 'gone' });
    expect(store.getState().connection).toBe('closed');
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'state', state: 'open', detail: 'back' });
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'snapshot', payload: env('earnings', 1, { totals: 2 }) });
    expect(store.getState().snapshots.earnings?.version).toBe(1);
    await flush();
    // app.info, read on open, went to the rig through the panel.
    expect(panel.calls.filter((c) => c.method === 'fleet.rigInvoke').map((c) => c.req)).toContainEqual({ id: 'aaaaaaaaaaaa', method: 'app.info', req: null });
  });

  it('sends invokes as fleet.rigInvoke, renews the watch (not fresh), and stops everything when disposed', async () => {
    const panel = new FakePanel();
    panel.answer = (m) => (m === 'fleet.rigInvoke' ? { ok: false, error: { code: 'conflict', message: 'rig-a: No serve is running.' } } : { ok: true, value: null });
    const { rig, ticks, stopped } = scoped(panel);
    const r = await rig.invoke('mining.rehearse', null);
    expect(r).toEqual({ ok: false, error: { code: 'conflict', message: 'rig-a: No serve is running.' } });
    expect(panel.calls.at(-1)).toEqual({ method: 'fleet.rigInvoke', req: { id: 'aaaaaaaaaaaa', method: 'mining.rehearse', req: null } });
    expect(ticks).toHaveLength(1);
    expect(WATCH_RENEW_MS).toBeLessThan(60_000 / 2);
    ticks[0]!();
    expect(panel.calls.at(-1)).toEqual({ method: 'fleet.watch', req: { id: 'aaaaaaaaaaaa', fresh: false } });
    rig.dispose();
    expect(stopped()).toBe(1);
    expect(panel.count('rig')).toBe(0);
  });

  it('a refused watch (the rig was removed) shows the rig as away', async () => {
    const panel = new FakePanel();
    panel.answer = () => ({ ok: false, error: { code: 'not-found', message: 'That rig is no longer in the fleet.' } });
    const { store } = scoped(panel);
    await flush();
    expect(store.getState().connection).toBe('closed');
  });

  it('openRig points the pages at the rig and closeRig back at the panel; the panel store is never touched', async () => {
    const panel = new FakePanel();
    connectEngine(() => panel);
    expect(engineApi()).toBe(panelApi());
    openRig({ id: 'aaaaaaaaaaaa', name: 'rig-a' });
    expect(useScope.getState().rig).toEqual({ id: 'aaaaaaaaaaaa', name: 'rig-a' });
    expect(engineApi()).not.toBe(panelApi());
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'state', state: 'open', detail: '' });
    panel.fire('rig', { rigId: 'aaaaaaaaaaaa', kind: 'snapshot', payload: env('settings', 1, { theme: 'light' }) });
    expect(useScope.getState().store!.getState().snapshots.settings?.data).toEqual({ theme: 'light' });
    expect(usePanel.getState().snapshots.settings).toBeUndefined();
    await engineApi().invoke('mining.stop', null);
    expect(panel.calls).toContainEqual({ method: 'fleet.rigInvoke', req: { id: 'aaaaaaaaaaaa', method: 'mining.stop', req: null } });
    closeRig();
    expect(useScope.getState()).toMatchObject({ rig: null, store: null, api: null });
    expect(engineApi()).toBe(panelApi());
    expect(panel.count('rig')).toBe(0);
  });
});
