// A rig's full panel and its alerts, through the real test sshd to a fake rig engine (test/doubles/fleet):
// fleet.watch opens a relay that replays the rig's snapshots and passes live ones on, relayed invokes are
// answered by the rig (its refusals kept, fleet.* never sent), hostile relay frames are dropped, the token
// is in no event, and an unrenewed watch closes. Rig alerts: announced once (not on a reconnect's replay),
// posted to this panel's webhook only for the rig without a webhook of its own.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FleetService, WATCH_LEASE_MS } from '../../../electron/engine/fleet/fleet-service.ts';
import { panelPostsRigAlert, type RigAlertEvent } from '../../../electron/engine/fleet/rig-alerts.ts';
import { systemClock, type Clock } from '../../../electron/engine/lib/clock.ts';
import { LogHub, silentLogger } from '../../../electron/engine/lib/logger.ts';
import { AlertWebhook, AlertWebhookStore } from '../../../electron/engine/notify/alert-webhook.ts';
import { CONTRACT_VERSION } from '../../../shared/api.ts';
import type { RigRelayEvent } from '../../../shared/fleet.ts';
import { startFakeRigEngine, type FakeRigEngine } from '../../doubles/fleet/fake-rig-engine.ts';
import { startTestSshd, type TestSshd } from '../../helpers/sshd.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const printAccess = join(import.meta.dirname, '..', '..', 'doubles', 'fleet', 'print-access.mjs');
const temp = tempDirs('engy-rig-relay-');
// Generous: the machine running these may be loaded many times over its cores.
const poll = { timeout: 150_000, interval: 100 };

const notification = (id: number, active = true) => ({ id, active, severity: 'error', title: `alert ${id}`, body: `what to do about ${id}`, at: 1_000 + id, kind: 'miner-offline' });

describe('a rig full panel and rig alerts through the panel', () => {
  let sshd: TestSshd;
  let knownHosts: string;
  const cleanups: Array<() => unknown> = [];
  beforeAll(async () => {
    sshd = await startTestSshd();
    const dir = mkdtempSync(join(tmpdir(), 'engy-kh-'));
    knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, execFileSync('ssh-keyscan', ['-p', String(sshd.port), '127.0.0.1'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), { mode: 0o600 });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  }, 60_000);
  afterEach(async () => {
    for (const c of cleanups.splice(1).reverse()) await c();
  });
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await sshd?.stop();
  });

  async function rig(opts: Parameters<typeof startFakeRigEngine>[1] = {}): Promise<{ engine: FakeRigEngine; dataDir: string }> {
    const engine = await startFakeRigEngine('good', opts);
    cleanups.push(() => engine.close());
    const dataDir = temp();
    writeFileSync(join(dataDir, 'access.json'), JSON.stringify({ token: engine.token, port: engine.port, running: true, version: '0.1.0', contract: CONTRACT_VERSION }));
    return { engine, dataDir };
  }

  function panel(clock: Clock = systemClock): FleetService {
    const dir = temp();
    mkdirSync(join(dir, 'fleet'), { recursive: true });
    writeFileSync(join(dir, 'fleet', 'known_hosts'), execFileSync('cat', [knownHosts]), { mode: 0o600 });
    const fleet = new FleetService({
      dataDir: dir,
      log: silentLogger,
      clock,
      tools: { configFile: sshd.clientConfig },
      limits: { accessTimeoutMs: 45_000, invokeTimeoutMs: 30_000, backoffInitialMs: 300, backoffMaxMs: 1_500 },
    });
    cleanups.push(() => fleet.dispose());
    return fleet;
  }

  it('relays the rig: replay then live snapshots, its answers and refusals, never fleet.*, never a hostile frame or the token; an unrenewed watch closes', async () => {
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const { engine, dataDir } = await rig({ replay: { earnings: { totals: { day: { projectedTao: 1.25 } } } } });
    const fleet = panel(clock);
    const events: RigRelayEvent[] = [];
    fleet.onRelay((e) => events.push(e));
    const r = fleet.add({ target: sshd.target, name: 'rig-a', command: `${process.execPath} ${printAccess}`, dataDir });
    await expect.poll(() => fleet.snapshot().rigs[0]!.link, poll).toBe('online');

    fleet.watch(r.id, true);
    await expect.poll(() => events.some((e) => e.kind === 'state' && e.state === 'open'), poll).toBe(true);
    const topics = () => events.flatMap((e) => (e.kind === 'snapshot' ? [e.payload.topic] : []));
    // The replay: every snapshot the rig has, whole (not just the fields a Fleet row reads).
    await expect.poll(topics, poll).toEqual(expect.arrayContaining(['settings', 'earnings']));
    const earnings = events.find((e) => e.kind === 'snapshot' && e.payload.topic === 'earnings');
    expect(earnings).toMatchObject({ rigId: r.id, payload: { data: { totals: { day: { projectedTao: 1.25 } } } } });
    expect(engine.clientCount()).toBe(2); // the row's link and the relay
    engine.sendTopic('validator', { status: 'stopped', extra: 'kept' });
    await expect.poll(() => events.some((e) => e.kind === 'snapshot' && e.payload.topic === 'validator'), poll).toBe(true);

    // Hostile frames on the relay are dropped; the relay keeps passing good ones.
    engine.pushRaw('{not json');
    engine.pushRaw(JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic: '__proto__', version: 1, data: { polluted: true } } }));
    engine.pushRaw(JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic: 'x'.repeat(200), version: 1, data: 1 } }));
    engine.pushRaw(JSON.stringify({ kind: 'event', event: 'snapshot', payload: { topic: 'miners' } }));
    engine.pushRaw(JSON.stringify({ kind: 'event', event: 'logs', payload: 'not a list' }));
    engine.sendTopic('checkpoint', { state: 'absent' });
    await expect.poll(() => topics().includes('checkpoint'), poll).toBe(true);
    expect(topics()).not.toContain('__proto__');
    expect(topics().some((t) => t.length > 64)).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // Invokes: answered by the rig, its refusal kept (code and words, named for the rig).
    expect(await fleet.rigInvoke(r.id, 'earnings.refresh', null)).toEqual({ ok: true, value: null });
    expect(engine.invoked.map((i) => i.method)).toContain('earnings.refresh');
    const refused = await fleet.rigInvoke(r.id, 'mining.rehearse', null);
    expect(refused).toEqual({ ok: false, error: { code: 'conflict', message: 'rig-a: No serve is running: start mining first.' } });
    const fleetCall = await fleet.rigInvoke(r.id, 'fleet.addRig', { target: 'x@y', name: null, command: null, dataDir: null });
    expect(fleetCall.ok).toBe(false);
    expect(engine.invoked.map((i) => i.method)).not.toContain('fleet.addRig');
    expect(JSON.stringify(events)).not.toContain(engine.token);

    // Nobody renews the watch: past its lease it closes (the rig sees one client again), and invokes go over the row's link.
    offset += WATCH_LEASE_MS + 1_000;
    await expect.poll(() => fleet.watched(), { timeout: 120_000, interval: 250 }).toEqual([]);
    await expect.poll(() => engine.clientCount(), poll).toBe(1);
    expect(await fleet.rigInvoke(r.id, 'earnings.refresh', null)).toEqual({ ok: true, value: null });
    expect(fleet.snapshot().rigs[0]!.link).toBe('online');
  }, 400_000);

  it("announces each new rig alert once, and posts to this panel's webhook only the alerts of the rig without one", async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const server: Server = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(b) as Record<string, unknown>);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
    const hub = new LogHub();
    const store = new AlertWebhookStore({ secretsDir: join(temp(), 'secrets'), redactor: hub.redactor });
    store.set(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/secret`);
    const webhook = new AlertWebhook({ store, log: hub.logger('alerts'), rig: 'the-panel', sleep: async () => undefined });

    const quiet = { recent: [notification(1)], webhook: { configured: false } };
    const posting = { recent: [notification(1)], webhook: { configured: true } };
    const a = await rig({ replay: { notifications: quiet } });
    const b = await rig({ replay: { notifications: posting } });
    const fleet = panel();
    const announced: RigAlertEvent[] = [];
    fleet.onRigAlert((ev) => {
      announced.push(ev);
      // What the panel's compose module does with each (electron/compose/fleet-module.ts).
      if (panelPostsRigAlert(ev, [])) webhook.notify({ title: ev.alert.title, body: ev.alert.body, severity: ev.alert.severity, at: ev.alert.at, kind: ev.kind }, ev.alert.rigName);
    });
    const ra = fleet.add({ target: sshd.target, name: 'rig-a', command: `${process.execPath} ${printAccess}`, dataDir: a.dataDir });
    const rb = fleet.add({ target: sshd.target, name: 'rig-b', command: `${process.execPath} ${printAccess}`, dataDir: b.dataDir });
    const row = (id: string) => fleet.snapshot().rigs.find((x) => x.id === id)!;
    await expect.poll(() => [row(ra.id).openAlerts, row(rb.id).openAlerts], poll).toEqual([1, 1]);
    // Each rig's link on its own rig's engine (one client each: no window has a rig open here).
    await expect.poll(() => [a.engine.clientCount(), b.engine.clientCount()], poll).toEqual([1, 1]);
    // Alerts already open when the panel first reads a rig are listed (Alerts page), not announced again.
    expect(announced).toEqual([]);

    quiet.recent = [notification(2), notification(1)];
    posting.recent = [notification(2), notification(1)];
    a.engine.sendTopic('notifications', quiet);
    b.engine.sendTopic('notifications', posting);
    await expect.poll(() => announced.length, poll).toBe(2);
    expect(announced.map((e) => [e.alert.rigName, e.alert.id, e.alert.title, e.rigPostsItself]).sort()).toEqual([
      ['rig-a', 2, 'alert 2', false],
      ['rig-b', 2, 'alert 2', true],
    ]);
    await webhook.whenIdle();
    await expect.poll(() => bodies.length, poll).toBe(1);
    expect(bodies[0]).toMatchObject({ rig: 'rig-a', title: 'alert 2', severity: 'error' });
    expect(String(bodies[0]!.text)).toContain('engy panel on rig-a: alert 2');

    // A reconnect replays the same alerts: nothing is announced or posted twice.
    const infos = () => a.engine.invoked.filter((i) => i.method === 'app.info').length;
    const before = infos();
    fleet.retry(ra.id);
    await expect.poll(() => infos() > before && row(ra.id).link === 'online', poll).toBe(true);
    a.engine.sendTopic('notifications', quiet);
    await expect.poll(() => row(ra.id).openAlerts, poll).toBe(2);
    await webhook.whenIdle();
    expect(announced).toHaveLength(2);
    expect(bodies).toHaveLength(1);
    // A kind muted in this panel's settings is announced (tray) but not posted.
    expect(panelPostsRigAlert({ ...announced[0]!, rigPostsItself: false }, ['miner-offline'])).toBe(false);
  }, 400_000);
});
