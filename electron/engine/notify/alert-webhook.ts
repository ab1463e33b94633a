// New alerts posted to a webhook the user chose (Slack, Discord, Mattermost, Google Chat, a self-hosted
// relay): the one way a rig nobody looks at can say "I stopped earning". The URL is a credential (a chat
// webhook URL lets anyone post), so it lives in the secrets folder (0600), is registered with the log
// redactor, and never reaches a snapshot: the UI sees the host and the last delivery only.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppFailure } from '../../../shared/errors.ts';
import type { AlertWebhookStatus, AppNotification } from '../../../shared/notifications.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { Emitter } from '../lib/emitter.ts';
import { defaultFetch, readBodyCapped, type FetchFn } from '../lib/fetch.ts';
import type { Logger, SecretRedactor } from '../lib/logger.ts';
import { describeNetworkError } from '../lib/network-words.ts';

const FILE = 'alert-webhook.txt';
/** Discord refuses a message over 2000 characters; Slack and the others take more. */
const MAX_TEXT = 1900;
/** Alerts waiting for a webhook that is down: beyond this, new ones are logged and not posted. */
const MAX_PENDING = 20;

/** Trimmed, http(s), at most 2048 characters; anything else is refused with what to paste instead. */
export function normaliseWebhookUrl(input: string): string {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppFailure('bad-request', 'That is not a web address: paste the whole webhook URL, starting with https://.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppFailure('bad-request', `A webhook URL starts with https:// (or http:// on your own network), not ${url.protocol}//.`);
  // fetch refuses such URLs anyway, and its refusal would repeat the whole URL (password included).
  if (url.username !== '' || url.password !== '') {
    throw new AppFailure(
      'bad-request',
      'That URL carries a user name or password (user:password@): chat webhooks never need one, and it would be sent in clear to every log. Paste the webhook URL without it.',
    );
  }
  if (text.length > 2048) throw new AppFailure('bad-request', 'That URL is longer than 2048 characters: paste the webhook URL alone.');
  return url.toString();
}

/** The webhook URL in the secrets folder: 0600 in a 0700 folder, like the miner key's plain file. */
export class AlertWebhookStore {
  private readonly dir: string;
  private readonly redactor: SecretRedactor | undefined;
  private cached: string | null | undefined;

  constructor(o: { secretsDir: string; redactor?: SecretRedactor }) {
    this.dir = o.secretsDir;
    this.redactor = o.redactor;
  }

  get(): string | null {
    if (this.cached !== undefined) return this.cached;
    const file = join(this.dir, FILE);
    let url: string | null = null;
    try {
      if (existsSync(file)) url = normaliseWebhookUrl(readFileSync(file, 'utf8'));
    } catch {
      url = null; // a damaged or hand-edited file reads as "not set": the Settings field says so
    }
    if (url) this.redactor?.register(url);
    this.cached = url;
    return url;
  }

  set(input: string | null): void {
    const file = join(this.dir, FILE);
    if (input === null || input.trim() === '') {
      rmSync(file, { force: true });
      this.cached = null;
      return;
    }
    const url = normaliseWebhookUrl(input);
    this.redactor?.register(url);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    writeFileAtomic(file, `${url}\n`, 0o600);
    this.cached = url;
  }
}

export interface AlertWebhookOptions {
  store: AlertWebhookStore;
  log: Logger;
  /** Named in every message, so alerts from several rigs in one channel are told apart. */
  rig: string;
  fetch?: FetchFn;
  now?: () => number;
  timeoutMs?: number;
  /** Waits before the 2nd and 3rd attempts when the webhook is down or busy. */
  retryDelaysMs?: readonly number[];
  sleep?: (ms: number) => Promise<void>;
}

/** The JSON every common chat webhook takes: `text` (Slack, Mattermost, Google Chat), `content` (Discord), and the fields. */
type Postable = Pick<AppNotification, 'title' | 'body' | 'severity' | 'at'> & { kind: string };

export function webhookPayload(n: Postable, rig: string): Record<string, string> {
  const line = `${n.severity === 'error' ? '🔴' : '🟠'} engy panel on ${rig}: ${n.title}. ${n.body}`;
  const text = line.length > MAX_TEXT ? `${line.slice(0, MAX_TEXT - 1)}…` : line;
  return { text, content: text, title: n.title, body: n.body, severity: n.severity, kind: n.kind, at: new Date(n.at).toISOString(), rig };
}

export class AlertWebhook {
  private readonly o: AlertWebhookOptions;
  private last: AlertWebhookStatus['lastDelivery'] = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private disposed = false;

  constructor(o: AlertWebhookOptions) {
    this.o = o;
  }

  /** Resolves once every alert handed to `notify` so far was posted or given up. */
  whenIdle(): Promise<void> {
    return this.queue;
  }

  /** Stops posting: what still waits is dropped (the engine is going away). */
  dispose(): void {
    this.disposed = true;
  }

  status(): AlertWebhookStatus {
    const url = this.o.store.get();
    return { configured: url !== null, host: url ? new URL(url).host : null, lastDelivery: this.last };
  }

  set(url: string | null): AlertWebhookStatus {
    this.o.store.set(url);
    this.last = null;
    this.o.log.info(url ? `alerts: new alerts will be posted to ${new URL(this.o.store.get()!).host}` : 'alerts: the webhook was removed');
    this.changes.fire();
    return this.status();
  }

  /**
   * Posts a new alert in the background, one at a time, in order; a failure is recorded and logged,
   * never thrown. `rig` names another rig the alert came from (a fleet rig's, forwarded by this panel).
   */
  notify(n: Postable, rig: string = this.o.rig): void {
    if (this.o.store.get() === null || this.disposed) return;
    // A webhook down for hours while alerts keep coming must not grow a backlog without end.
    if (this.pending >= MAX_PENDING) {
      this.o.log.warn(`alerts: "${n.title}" was not posted: ${MAX_PENDING} alerts already wait for the webhook`);
      return;
    }
    this.pending++;
    this.queue = this.queue
      .then(() => this.deliver(n, true, rig))
      .finally(() => this.pending--)
      .then(
        () => undefined,
        (e: unknown) => this.o.log.warn(`alerts: the webhook post failed unexpectedly: ${String(e)}`),
      );
  }

  /** Posts a test alert now and says whether it was taken (refused with the reason when not). */
  async test(): Promise<AlertWebhookStatus> {
    if (this.o.store.get() === null) throw new AppFailure('bad-request', 'No webhook yet: paste its URL and save it first.');
    const now = (this.o.now ?? Date.now)();
    const ok = await this.deliver({ title: 'Test alert', body: 'If you can read this, the panel can reach you here when the rig needs you.', severity: 'warn', kind: 'test', at: now }, false);
    if (!ok) throw new AppFailure('unavailable', `The webhook did not take the test alert: ${this.last?.text ?? 'no answer'}.`);
    return this.status();
  }

  private async deliver(n: Postable, retry = true, rig: string = this.o.rig): Promise<boolean> {
    const url = this.o.store.get();
    if (url === null) return false;
    const delays = retry ? (this.o.retryDelaysMs ?? [5_000, 30_000]) : [];
    const sleep = this.o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));
    const body = JSON.stringify(webhookPayload(n, rig));
    let outcome = { ok: false, text: '', retryable: false };
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt > 0) await sleep(delays[attempt - 1]!);
      if (this.disposed) return false;
      outcome = await this.post(url, body);
      if (outcome.ok || !outcome.retryable) break;
    }
    this.last = { at: (this.o.now ?? Date.now)(), ok: outcome.ok, text: outcome.text };
    if (!outcome.ok) this.o.log.warn(`alerts: "${n.title}" could not be posted to the webhook: ${outcome.text}`);
    this.changes.fire();
    return outcome.ok;
  }

  private async post(url: string, body: string): Promise<{ ok: boolean; text: string; retryable: boolean }> {
    const host = new URL(url).host;
    try {
      // A redirect is read, never followed (the body would go to an address the user never gave).
      const res = await (this.o.fetch ?? defaultFetch)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 10_000),
        redirect: 'manual',
      });
      // The answer is not needed; read a little of it at most, so a hostile endpoint cannot make us buffer more.
      await readBodyCapped(res, 64 * 1024).catch(() => null);
      if (res.ok) return { ok: true, text: `taken by ${host} (HTTP ${res.status})`, retryable: false };
      if (res.status >= 300 && res.status < 400) {
        return { ok: false, text: `${host} answered HTTP ${res.status}, a redirect: a webhook is never followed elsewhere. Paste the address it points to (the final webhook URL).`, retryable: false };
      }
      const retryable = res.status === 429 || res.status >= 500;
      const hint = res.status === 404 || res.status === 401 || res.status === 403 ? ': the webhook was deleted or the URL is wrong, paste it again' : retryable ? ': it is down or busy' : '';
      return { ok: false, text: `${host} answered HTTP ${res.status}${hint}`, retryable };
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      // The failure's own words may quote the URL (a credential): only its host is ever said.
      const { pathname, search } = new URL(url);
      let why = describeNetworkError(e).split(url).join(host);
      for (const part of [pathname, search]) if (part.length > 1) why = why.split(part).join('…');
      return { ok: false, text: timedOut ? `${host} did not answer within ${+((this.o.timeoutMs ?? 10_000) / 1000).toFixed(1)} s` : `cannot reach ${host}: ${why}`, retryable: true };
    }
  }
}
