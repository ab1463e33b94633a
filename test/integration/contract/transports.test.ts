import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, type ServerFrame } from '../../../shared/api.ts';
import type { Result } from '../../../shared/result.ts';
import { startHeadless, type RunningHeadless } from '../../../electron/headless.ts';
import { bindIpcTransport } from '../../../electron/transport/ipc-transport.ts';
import { FakeIpcMain, RecordingSink } from '../../doubles/fake-ipc-main.ts';

const TRUSTED = 'file:///app/dist-renderer/index.html';

class WsCaller {
  private id = 0;
  private readonly waiting = new Map<number, (r: Result<unknown>) => void>();
  readonly events: ServerFrame[] = [];
  private readonly watchers = new Set<() => void>();
  private readonly ws: WebSocket;
  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (d) => {
      const f = JSON.parse(String(d)) as ServerFrame;
      if (f.kind === 'result') this.waiting.get(f.id)?.(f.result);
      else {
        this.events.push(f);
        for (const w of [...this.watchers]) w();
      }
    });
  }
  /** Resolves once `enough(events)` holds: on the event that makes it true, or at once if it already does. */
  until(enough: (events: ServerFrame[]) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!enough(this.events)) return;
        this.watchers.delete(check);
        resolve();
      };
      this.watchers.add(check);
      check();
    });
  }
  call(method: string, req: unknown): Promise<Result<unknown>> {
    const id = ++this.id;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ kind: 'invoke', id, method, req }));
    });
  }
}

/** The same calls through both transports must give the same answers. */
const CASES: Array<[string, unknown]> = [
  ['app.info', null],
  ['settings.get', null],
  ['settings.update', { theme: 'dark', desktop: { runAtLogin: true } }],
  ['settings.update', { theme: 'purple' }],
  ['settings.update', { network: 'mainnet' }],
  ['settings.update', { mining: { workerName: '../etc/passwd' } }],
  ['hardware.report', { refresh: false }],
  ['hardware.report', { refresh: 'yes' }],
  ['logs.recent', { limit: 5, query: 'engine started' }],
  ['wallet.registerWithBrowser', { mode: 'sneaky', limitTao: '1' }],
  ['wallet.registerWithBrowser', { mode: 'register-limit', limitTao: '1' }],
  ['no.such.method', null],
  ['app.info', { sneaky: 1 }],
];

function stable(r: Result<unknown>): unknown {
  // Timestamps, the per-engine data dir and the free disk (measured by each engine at its own moment, while
  // the disk is shared) differ between the two engines; the shapes and verdicts must not.
  const text = JSON.stringify(r, (k, v: unknown) => (k === 'at' || k === 'ts' || k === 'seq' || k === 'dataDir' || k === 'diskPath' || k === 'diskFreeGiB' || k === 'freeBytes' ? undefined : v));
  return JSON.parse(text.replace(/\/tmp\/engy-(ws|ipc)-\w+/g, '<data dir>').replace(/\d+\.\d GiB (free|more)/g, 'N GiB $1'));
}

describe('one contract, two transports', () => {
  let headless: RunningHeadless;
  let ipcEngine: RunningHeadless;
  let ws: WebSocket;
  let caller: WsCaller;
  const ipc = new FakeIpcMain();
  const sink = new RecordingSink();

  beforeAll(async () => {
    const env = process.env;
    process.env = { ...env, PATH: '/nonexistent' };
    headless = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: mkdtempSync(join(tmpdir(), 'engy-ws-')) });
    ipcEngine = await startHeadless({ host: '127.0.0.1', port: 0, dataDir: mkdtempSync(join(tmpdir(), 'engy-ipc-')) });
    await Promise.all([headless.engine.hardware.get(), ipcEngine.engine.hardware.get()]);
    process.env = env;
    bindIpcTransport(
      ipc,
      ipcEngine.engine.table,
      ipcEngine.engine.hub,
      () => [sink],
      (u) => u.startsWith('file:///app/dist-renderer/'),
    );
    ws = new WebSocket(`ws://127.0.0.1:${headless.server.port}/ws?token=${headless.server.token}`);
    caller = new WsCaller(ws);
    await new Promise((r) => ws.once('open', r));
  });
  afterAll(async () => {
    ws?.close();
    await headless?.stop();
    await ipcEngine?.stop();
  });

  it.each(CASES)('%s %j answers the same over WebSocket and IPC', async (method, req) => {
    const overWs = await caller.call(method, req);
    const overIpc = (await ipc.invoke(IPC_INVOKE_CHANNEL, TRUSTED, method, req)) as Result<unknown>;
    expect(stable(overWs)).toEqual(stable(overIpc));
  });

  it('refuses malformed input with bad-request and unknown methods with unknown-method', async () => {
    const bad = await caller.call('settings.update', { theme: 'purple' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    const unknown = await caller.call('no.such.method', null);
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
    const ok = await caller.call('settings.update', { theme: 'light' });
    expect(ok).toMatchObject({ ok: true, value: { theme: 'light' } });
  });

  it('IPC answers only the app page, never another origin', async () => {
    const r = (await ipc.invoke(IPC_INVOKE_CHANNEL, 'https://evil.example/', 'settings.get', null)) as Result<unknown>;
    expect(r).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
  });

  it('pushes versioned snapshots on change over both transports', async () => {
    const settingsFrames = (events: ServerFrame[]) => events.filter((e) => e.kind === 'event' && e.event === 'snapshot' && (e.payload as { topic: string }).topic === 'settings');
    const before = settingsFrames(caller.events).length;
    // The hub publishes on change and coalesces bursts: ask for a theme other than the one last sent.
    const last = settingsFrames(caller.events).at(-1) as { payload: { data: { theme: string } } } | undefined;
    const theme = last?.payload.data.theme === 'dark' ? 'light' : 'dark';
    await caller.call('settings.update', { theme });
    await ipc.invoke(IPC_INVOKE_CHANNEL, TRUSTED, 'settings.update', { theme });
    // Wait for the snapshot the update published, not for a guessed time.
    await caller.until((events) => settingsFrames(events).length > before);
    const wsSnaps = caller.events.filter((e) => e.kind === 'event' && e.event === 'snapshot').map((e) => (e as { payload: { topic: string; version: number } }).payload);
    const settingsVersions = wsSnaps.filter((p) => p.topic === 'settings').map((p) => p.version);
    expect(settingsVersions.length).toBeGreaterThanOrEqual(2);
    expect([...settingsVersions].sort((a, b) => a - b)).toEqual(settingsVersions);
    const ipcSnaps = sink.sent.filter((s) => s.channel === IPC_EVENT_CHANNEL).map((s) => s.payload as { event: string; payload: { topic: string } });
    expect(ipcSnaps.some((s) => s.event === 'snapshot' && s.payload.topic === 'settings')).toBe(true);
  });

  it('the sandboxed preload uses the same channel names as shared/api.ts', () => {
    const preload = readFileSync(join(import.meta.dirname, '..', '..', '..', 'electron', 'preload.cts'), 'utf8');
    expect(preload).toContain(`'${IPC_INVOKE_CHANNEL}'`);
    expect(preload).toContain(`'${IPC_EVENT_CHANNEL}'`);
  });
});
