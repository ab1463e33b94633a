// Which rig alerts are news to the panel (announced once: tray, in-page tray, maybe the webhook) and
// which the panel posts to its own webhook (only for a rig without one, kinds not muted here).
import { describe, expect, it } from 'vitest';
import { panelPostsRigAlert, RigAlertTracker } from '../../../electron/engine/fleet/rig-alerts.ts';
import type { RigConfig } from '../../../shared/fleet.ts';

const rig: RigConfig = { id: 'aaaaaaaaaaaa', name: 'rig-a', target: 'op@rig-a', command: 'engy-panel', dataDir: null };
const n = (id: number, active = true, severity = 'error') => ({ id, active, severity, title: `t${id}`, body: `b${id}`, at: id, kind: 'serve-crashed' });

describe('rig alerts', () => {
  it('announces nothing from the first snapshot, then each new active id once', () => {
    const t = new RigAlertTracker();
    expect(t.take(rig, [n(1), n(2)], false)).toEqual([]);
    const news = t.take(rig, [n(3), n(1), n(2)], false);
    expect(news).toEqual([{ alert: { rigId: rig.id, rigName: 'rig-a', id: 3, at: 3, severity: 'error', title: 't3', body: 'b3' }, kind: 'serve-crashed', rigPostsItself: false }]);
    // The same list again (a reconnect's replay): nothing new.
    expect(t.take(rig, [n(3), n(1), n(2)], false)).toEqual([]);
    // A new id that is already cleared is not news; an unknown severity reads as a warning.
    expect(t.take(rig, [n(4, false), n(5, true, '__proto__'), n(3)], true).map((e) => [e.alert.id, e.alert.severity, e.rigPostsItself])).toEqual([[5, 'warn', true]]);
  });

  it('keeps rigs apart, and a removed rig starts over', () => {
    const t = new RigAlertTracker();
    const other = { ...rig, id: 'bbbbbbbbbbbb', name: 'rig-b' };
    t.take(rig, [], null);
    expect(t.take(other, [n(1)], null)).toEqual([]);
    expect(t.take(rig, [n(1)], null)).toHaveLength(1);
    t.forget(rig.id);
    expect(t.take(rig, [n(1), n(2)], null)).toEqual([]);
  });

  it('posts to the panel webhook only for a rig that says it has none, and never a muted kind', () => {
    const t = new RigAlertTracker();
    t.take(rig, [], false);
    const [quiet] = t.take(rig, [n(1)], false);
    expect(panelPostsRigAlert(quiet!, [])).toBe(true);
    expect(panelPostsRigAlert(quiet!, ['serve-crashed'])).toBe(false);
    t.take({ ...rig, id: 'cccccccccccc' }, [], null);
    const [silent] = t.take({ ...rig, id: 'cccccccccccc' }, [n(1)], null);
    expect(silent!.rigPostsItself).toBe(true);
    expect(panelPostsRigAlert(silent!, [])).toBe(false);
  });
});
