// Nothing is wired twice: a module, a handler or a topic claimed a second time stops the start with the
// name of what was doubled. And a service's snapshot is read once per burst of changes and handed to
// every subscriber as a value (ChangeFeed), instead of each subscriber reading it again; settings go out
// with the change itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SnapshotEnvelope } from '../../../shared/api.ts';
import type { Settings } from '../../../shared/settings.ts';
import { composeEngine } from '../../../electron/compose.ts';
import { SnapshotHub } from '../../../electron/contract/snapshot-hub.ts';
import { DisposableStack } from '../../../electron/engine/lib/disposable.ts';
import { Emitter } from '../../../electron/engine/lib/emitter.ts';
import type { Runtime } from '../../../electron/runtime.ts';
import { ChangeFeed } from '../../../electron/compose/change-feed.ts';
import { Wiring } from '../../../electron/compose/wiring.ts';

describe('Wiring', () => {
  it('refuses a module, a handler or a topic wired twice, and a contract with a method missing', async () => {
    const stack = new DisposableStack();
    const w = new Wiring({} as Runtime, new SnapshotHub(), stack);
    w.module('settings');
    expect(() => w.module('settings')).toThrow('the settings module is wired twice');
    w.handle({ 'app.info': () => ({}) as never });
    expect(() => w.handle({ 'app.info': () => ({}) as never })).toThrow('the handler app.info is wired twice');
    const changes = new Emitter<void>();
    w.bind(
      'update',
      () => null,
      (l) => changes.event(l),
    );
    expect(() =>
      w.bind(
        'update',
        () => null,
        (l) => changes.event(l),
      ),
    ).toThrow('the topic update is wired twice');
    const feed = stack.add(
      new ChangeFeed(
        () => null,
        (l) => changes.event(l),
      ),
    );
    expect(() => w.publish('update', feed, (v) => v)).toThrow('the topic update is wired twice');
    expect(() => w.publishEach('update', null, () => ({ dispose: () => undefined }))).toThrow('the topic update is wired twice');
    expect(() => w.table()).toThrow(/no handler wired for hardware\.report, /);
    await stack.dispose();
  });
});

describe('ChangeFeed', () => {
  it('reads once per burst and at most once per gap, and gives every subscriber the same value', async () => {
    let t = 0;
    let reads = 0;
    const changes = new Emitter<void>();
    const feed = new ChangeFeed(
      () => ({ n: ++reads }),
      (l) => changes.event(l),
      { minGapMs: 10_000, now: () => t },
    );
    const a: number[] = [];
    const b: { n: number }[] = [];
    feed.onDidView((v) => a.push(v.n));
    feed.onDidView((v) => b.push(v));
    expect(feed.current).toEqual({ n: 1 });
    t = 20_000; // past the gap: the burst's read waits only for the burst to end
    for (let i = 0; i < 5; i++) changes.fire();
    await expect.poll(() => a, { timeout: 20_000 }).toEqual([2]);
    expect(reads).toBe(2);
    expect(b[0]).toBe(feed.current);
    // A change inside the gap waits for it: the clock the test holds decides, never the wall clock.
    changes.fire();
    await new Promise((r) => setTimeout(r, 20));
    expect(a).toEqual([2]);
    feed.flush();
    expect(a).toEqual([2, 3]);
    await feed.dispose();
    changes.fire();
    await new Promise((r) => setTimeout(r, 80));
    expect(reads).toBe(3);
  });
});

describe('the settings topic', () => {
  it('is published with the change, before settings.update answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-settings-topic-'));
    const engine = await composeEngine({ profile: 'desktop', dataDir: dir });
    try {
      const seen: boolean[] = [];
      const sub = engine.hub.onEvent((e) => {
        const env = e.payload as SnapshotEnvelope;
        if (e.event === 'snapshot' && env.topic === 'settings') seen.push((env.data as Settings).desktop.keepRunningOnClose);
      });
      await engine.table['settings.update']({ desktop: { keepRunningOnClose: true } } as never);
      // No timer has run yet: the event went out synchronously with the change.
      expect(seen).toEqual([true]);
      await sub.dispose();
    } finally {
      await engine.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
