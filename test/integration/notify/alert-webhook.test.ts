// New alerts posted to the user's webhook, over a real local HTTP server standing in for Slack/Discord:
// what is sent, what is retried, what is said when it fails, and that the URL (a credential) stays a secret.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertWebhook, AlertWebhookStore, normaliseWebhookUrl, webhookPayload } from '../../../electron/engine/notify/alert-webhook.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import type { AppNotification } from '../../../shared/notifications.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const fresh = tempDirs('engy-webhook-');

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** A local endpoint answering each POST with the next handler (the last one repeats); records every body. */
async function endpoint(...handlers: Handler[]): Promise<{ url: string; bodies: Record<string, unknown>[] }> {
  const bodies: Record<string, unknown>[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      handlers[Math.min(n++, handlers.length - 1)]!(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T000/B000/secret-token-xyz`, bodies };
}

const status =
  (code: number): Handler =>
  (_q, res) =>
    res.writeHead(code).end('ok');
const alert = (over: Partial<AppNotification> = {}): AppNotification => ({
  id: 1,
  at: Date.UTC(2026, 11, 3, 9, 0),
  updatedAt: 0,
  active: true,
  endedAt: null,
  kind: 'miner-offline',
  severity: 'error',
  title: 'The miner is offline',
  body: 'It is not serving: nothing is earned until it reconnects.',
  action: null,
  ...over,
});

function setup(url: string | null, o: { timeoutMs?: number } = {}) {
  const hub = new LogHub();
  const store = new AlertWebhookStore({ secretsDir: join(fresh(), 'secrets'), redactor: hub.redactor });
  if (url) store.set(url);
  const sleeps: number[] = [];
  const hook = new AlertWebhook({ store, log: hub.logger('alerts'), rig: 'garage-rig', sleep: async (ms) => void sleeps.push(ms), ...o });
  return { hub, store, hook, sleeps };
}

describe('alert webhook', () => {
  it('refuses what is not an http(s) URL, with what to paste instead', () => {
    expect(normaliseWebhookUrl('  https://hooks.slack.com/services/T/B/x  ')).toBe('https://hooks.slack.com/services/T/B/x');
    for (const bad of ['', 'not a url', '__proto__', 'ftp://host/x', 'javascript:alert(1)', 'file:///etc/passwd', `https://x.io/${'a'.repeat(3000)}`]) {
      expect(() => normaliseWebhookUrl(bad), bad).toThrow(/webhook|web address|2048/);
    }
  });

  it('refuses a URL with a user name or password, never repeating it, and reads a stored one as "not set"', () => {
    const secret = 'http://user:PASS@hooks.example/SECRETPATH?k=Q';
    for (const bad of [secret, 'https://:PASS@hooks.example/x', 'https://user@hooks.example/x']) {
      let message = '';
      try {
        normaliseWebhookUrl(bad);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, bad).toBe(
        'That URL carries a user name or password (user:password@): chat webhooks never need one, and it would be sent in clear to every log. Paste the webhook URL without it.',
      );
    }
    const dir = join(fresh(), 'secrets');
    new AlertWebhookStore({ secretsDir: dir }).set('https://hooks.example/x');
    writeFileSync(join(dir, 'alert-webhook.txt'), `${secret}\n`);
    expect(new AlertWebhookStore({ secretsDir: dir }).get()).toBeNull();
  });

  it('never puts the URL in a delivery text, whatever the failure says', async () => {
    const url = 'https://hooks.example/SECRETPATH?k=Q';
    const hub = new LogHub();
    const store = new AlertWebhookStore({ secretsDir: join(fresh(), 'secrets'), redactor: hub.redactor });
    store.set(url);
    const hook = new AlertWebhook({
      store,
      log: hub.logger('alerts'),
      rig: 'r',
      sleep: async () => undefined,
      fetch: async (u) => {
        throw new TypeError(`Request to ${String(u)} failed: ${String(u)}`);
      },
    });
    hook.notify(alert());
    await expect.poll(() => hook.status().lastDelivery, { timeout: 20_000 }).not.toBeNull();
    const text = hook.status().lastDelivery!.text;
    expect(text).toMatch(/^cannot reach hooks\.example: /);
    expect(text).not.toContain('SECRETPATH');
    expect(text).not.toContain('k=Q');
  });

  it('keeps the URL 0600 in a 0700 folder, reads a damaged file as "not set", and forgets it on remove', () => {
    const dir = join(fresh(), 'secrets');
    const store = new AlertWebhookStore({ secretsDir: dir });
    store.set('https://discord.com/api/webhooks/1/abc');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'alert-webhook.txt')).mode & 0o777).toBe(0o600);
    expect(new AlertWebhookStore({ secretsDir: dir }).get()).toBe('https://discord.com/api/webhooks/1/abc');
    writeFileSync(join(dir, 'alert-webhook.txt'), 'gopher://\u0000garbage');
    expect(new AlertWebhookStore({ secretsDir: dir }).get()).toBeNull();
    store.set(null);
    expect(existsSync(join(dir, 'alert-webhook.txt'))).toBe(false);
    expect(store.get()).toBeNull();
  });

  it('posts the text chat webhooks read (Slack text, Discord content) with the fields, naming the rig', async () => {
    const ep = await endpoint(status(204));
    const { hook, hub } = setup(ep.url);
    hook.notify(alert());
    await expect.poll(() => hook.status().lastDelivery?.ok, { timeout: 20_000 }).toBe(true);
    expect(ep.bodies).toHaveLength(1);
    expect(ep.bodies[0]).toEqual({
      text: '🔴 engy panel on garage-rig: The miner is offline. It is not serving: nothing is earned until it reconnects.',
      content: '🔴 engy panel on garage-rig: The miner is offline. It is not serving: nothing is earned until it reconnects.',
      title: 'The miner is offline',
      body: 'It is not serving: nothing is earned until it reconnects.',
      severity: 'error',
      kind: 'miner-offline',
      at: '2026-12-03T09:00:00.000Z',
      rig: 'garage-rig',
    });
    expect(hook.status()).toMatchObject({ configured: true, host: ep.url.split('/')[2], lastDelivery: { ok: true, text: `taken by ${ep.url.split('/')[2]} (HTTP 204)` } });
    // The status never carries the URL, and a log line that did would be redacted.
    expect(JSON.stringify(hook.status())).not.toContain('secret-token-xyz');
    hub.logger('x').info(`oops ${ep.url}`);
    expect(
      hub
        .recent({})
        .map((l) => l.msg)
        .join('\n'),
    ).not.toContain('secret-token-xyz');
  });

  it("keeps a long alert under Discord's 2000 characters", () => {
    const p = webhookPayload(alert({ body: 'x'.repeat(5000) }), 'rig');
    expect(p.text!.length).toBeLessThanOrEqual(1900);
    expect(p.text!.endsWith('…')).toBe(true);
    expect(p.body).toHaveLength(5000);
  });

  it('retries a webhook that is down or busy, and gives up on one that refuses, saying why', async () => {
    const flaky = await endpoint(status(503), status(429), status(200));
    const a = setup(flaky.url);
    a.hook.notify(alert());
    await expect.poll(() => a.hook.status().lastDelivery?.ok, { timeout: 20_000 }).toBe(true);
    expect(flaky.bodies).toHaveLength(3);
    expect(a.sleeps).toEqual([5_000, 30_000]);

    const gone = await endpoint(status(404));
    const b = setup(gone.url);
    b.hook.notify(alert());
    await expect.poll(() => b.hook.status().lastDelivery, { timeout: 20_000 }).not.toBeNull();
    expect(gone.bodies).toHaveLength(1);
    expect(b.hook.status().lastDelivery).toMatchObject({ ok: false, text: expect.stringMatching(/answered HTTP 404: the webhook was deleted or the URL is wrong, paste it again$/) });
    expect(b.hub.recent({}).some((l) => l.level === 'warn' && l.msg.includes('"The miner is offline" could not be posted'))).toBe(true);
  });

  it('survives an endpoint that hangs, refuses connections, redirects or answers without end', async () => {
    const hang = await endpoint(() => undefined);
    const slow = setup(hang.url, { timeoutMs: 200 });
    slow.hook.notify(alert());
    await expect.poll(() => slow.hook.status().lastDelivery, { timeout: 20_000 }).not.toBeNull();
    expect(slow.hook.status().lastDelivery!.text).toBe(`${hang.url.split('/')[2]} did not answer within 0.2 s`);
    expect(hang.bodies).toHaveLength(3);

    const refused = setup('http://127.0.0.1:9/hook');
    refused.hook.notify(alert());
    await expect.poll(() => refused.hook.status().lastDelivery, { timeout: 20_000 }).not.toBeNull();
    expect(refused.hook.status().lastDelivery).toMatchObject({ ok: false, text: expect.stringMatching(/^cannot reach 127\.0\.0\.1:9: /) });

    const moved = await endpoint((_q, res) => res.writeHead(302, { location: 'http://example.invalid/' }).end());
    const m = setup(moved.url);
    m.hook.notify(alert());
    await expect.poll(() => m.hook.status().lastDelivery, { timeout: 20_000 }).not.toBeNull();
    expect(m.hook.status().lastDelivery).toMatchObject({
      ok: false,
      text: `${moved.url.split('/')[2]} answered HTTP 302, a redirect: a webhook is never followed elsewhere. Paste the address it points to (the final webhook URL).`,
    });
    expect(moved.bodies).toHaveLength(1); // a redirect is an answer, not an outage: not retried

    const endless = await endpoint((_q, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 97);
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      pump();
    });
    const e = setup(endless.url);
    e.hook.notify(alert());
    await expect.poll(() => e.hook.status().lastDelivery?.ok, { timeout: 20_000 }).toBe(true);
  });

  it('sends a test on demand, and refuses it with the reason when nothing takes it', async () => {
    await expect(setup(null).hook.test()).rejects.toThrow(/No webhook yet/);
    const ok = await endpoint(status(200));
    const a = setup(ok.url);
    expect((await a.hook.test()).lastDelivery?.ok).toBe(true);
    expect(ok.bodies[0]).toMatchObject({ title: 'Test alert', kind: 'test', rig: 'garage-rig' });
    const bad = await endpoint(status(500));
    const b = setup(bad.url);
    await expect(b.hook.test()).rejects.toThrow(/did not take the test alert: .*answered HTTP 500: it is down or busy/);
    expect(bad.bodies).toHaveLength(1); // a test is not retried: the user is waiting for the answer
  });

  it('keeps at most 20 alerts waiting for a webhook that is down, and stops posting once disposed', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const ep = await endpoint(status(200));
    const hub = new LogHub();
    const store = new AlertWebhookStore({ secretsDir: join(fresh(), 'secrets') });
    store.set(ep.url);
    // Every retry wait blocks until released: the first alert holds the queue like a webhook that is down.
    let posts = 0;
    const down = async () => {
      posts++;
      return new Response('', { status: 503 });
    };
    const hook = new AlertWebhook({ store, log: hub.logger('alerts'), rig: 'r', fetch: down, sleep: () => gate });
    for (let i = 0; i < 25; i++) hook.notify(alert({ id: i, title: `alert ${i}` }));
    expect(hub.recent({}).filter((l) => l.msg.includes('already wait for the webhook'))).toHaveLength(5);
    await expect.poll(() => posts, { timeout: 20_000 }).toBe(1); // the first alert was tried and now waits to retry
    hook.dispose();
    release();
    await hook.whenIdle();
    // Only the first alert's first attempt went out; the 19 behind it were dropped with the engine.
    expect(posts).toBe(1);
    expect(hook.status().lastDelivery).toBeNull();
    hook.notify(alert());
    await hook.whenIdle();
    expect(posts).toBe(1);
    expect(ep.bodies).toHaveLength(0);
  });

  it('posts nothing without a webhook, and posts alerts one at a time in order', async () => {
    const none = setup(null);
    none.hook.notify(alert());
    expect(none.hook.status()).toEqual({ configured: false, host: null, lastDelivery: null });
    const ep = await endpoint(status(200));
    const { hook } = setup(ep.url);
    for (let i = 0; i < 5; i++) hook.notify(alert({ id: i, title: `alert ${i}` }));
    await expect.poll(() => ep.bodies.length, { timeout: 20_000 }).toBe(5);
    expect(ep.bodies.map((b) => b.title)).toEqual(['alert 0', 'alert 1', 'alert 2', 'alert 3', 'alert 4']);
  });
});
