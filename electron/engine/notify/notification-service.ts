import type { AppNotification, NotificationsSnapshot } from '../../../shared/notifications.ts';
import type { NotificationKind } from '../../../shared/settings.ts';
import { Emitter } from '../lib/emitter.ts';
import { actionOf, type Alert } from './alert-rules.ts';
import type { NotificationStore } from './notification-store.ts';

const KEEP = 200;
/**
 * A condition back within this long after it cleared reopens its notification instead of raising a new one:
 * a flapping link is one alert (one OS notification, one dismissal), its duration counted from the first drop.
 */
export const REOPEN_WITHIN_MS = 5 * 60_000;
/** How often an ongoing alert's "still seen" time is saved, so an engine stop can tell how long it had lasted. */
const SEEN_SAVE_MS = 60_000;

/**
 * Turns alert conditions into notifications: one per condition while it lasts (its text updated in
 * place as the condition changes, never repeated per snapshot), marked cleared when it ends and kept
 * in a history. Muted kinds are dropped. The desktop shell shows each new one as an OS notification.
 */
export class NotificationService {
  /** Per source: condition key -> notification id. */
  private readonly active = new Map<string, Map<string, number>>();
  /** Condition key -> the notification it closed last, and when: a condition back soon reopens it. */
  private readonly closed = new Map<string, { id: number; at: number }>();
  private recent: AppNotification[] = [];
  private nextId = 1;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly fresh = new Emitter<AppNotification>();
  readonly onNotification = this.fresh.event;
  private readonly muted: () => readonly NotificationKind[];
  private readonly now: () => number;
  private readonly store: NotificationStore | null;

  /** With a store, the history of earlier runs is loaded; alerts ongoing when the engine stopped are closed as interrupted. */
  constructor(muted: () => readonly NotificationKind[], now: () => number = Date.now, store: NotificationStore | null = null) {
    this.muted = muted;
    this.now = now;
    this.store = store;
    if (!store) return;
    const started = now();
    this.recent = store.load(KEEP).map((n) => (n.active ? { ...n, active: false, interruptedAt: started } : n));
    for (const n of this.recent) if (n.interruptedAt === started) store.save(n);
    this.nextId = this.recent.reduce((m, n) => Math.max(m, n.id), 0) + 1;
    store.prune(KEEP);
  }

  /** The alerts; the composed engine adds the webhook's status to make the `notifications` topic. */
  snapshot(): Pick<NotificationsSnapshot, 'recent'> {
    return { recent: this.recent };
  }

  /** The id of an open notification for this key, from any source (two sources can see one outage). */
  private openId(key: string): number | undefined {
    for (const m of this.active.values()) {
      const id = m.get(key);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  private patch(id: number, f: (n: AppNotification) => AppNotification): void {
    this.recent = this.recent.map((n) => {
      if (n.id !== id) return n;
      const next = f(n);
      this.store?.save(next);
      return next;
    });
  }

  /** Feed the current alerts of one source (miner, serve, validator, earnings); cleared conditions re-arm. */
  update(source: string, alerts: Alert[]): void {
    const now = this.now();
    const before = this.active.get(source) ?? new Map<string, number>();
    const next = new Map<string, number>();
    let changed = false;
    for (const a of alerts) {
      if (this.muted().includes(a.kind) || next.has(a.key)) continue;
      const id = before.get(a.key) ?? this.openId(a.key);
      if (id !== undefined) {
        next.set(a.key, id);
        const cur = this.recent.find((n) => n.id === id);
        if (cur && (cur.title !== a.title || cur.body !== a.body || cur.severity !== a.severity)) {
          this.patch(id, (n) => ({ ...n, title: a.title, body: a.body, severity: a.severity, updatedAt: now, seenAt: now }));
          changed = true;
        } else if (cur && now - (cur.seenAt ?? cur.updatedAt) >= SEEN_SAVE_MS) {
          this.patch(id, (n) => ({ ...n, seenAt: now }));
          changed = true;
        }
        continue;
      }
      const last = this.closed.get(a.key);
      if (last && now - last.at <= REOPEN_WITHIN_MS && this.recent.some((n) => n.id === last.id)) {
        // Back soon after it cleared: the same notification again (no new OS notification, a dismissal holds).
        this.closed.delete(a.key);
        next.set(a.key, last.id);
        this.patch(last.id, (n) => ({ ...n, active: true, endedAt: null, title: a.title, body: a.body, severity: a.severity, updatedAt: now, seenAt: now }));
        changed = true;
        continue;
      }
      const n: AppNotification = {
        id: this.nextId++,
        at: now,
        updatedAt: now,
        seenAt: now,
        active: true,
        endedAt: null,
        kind: a.kind,
        severity: a.severity,
        title: a.title,
        body: a.body,
        action: a.action ?? actionOf(a.kind),
      };
      next.set(a.key, n.id);
      this.recent = [n, ...this.recent].slice(0, KEEP);
      this.store?.save(n);
      if (this.store && n.id % KEEP === 0) this.store.prune(KEEP);
      this.fresh.fire(n);
      changed = true;
    }
    this.active.set(source, next);
    for (const [key, id] of before) {
      if (next.has(key) || this.openId(key) === id) continue;
      this.closed.set(key, { id, at: now });
      this.patch(id, (n) => ({ ...n, active: false, endedAt: now, updatedAt: now, seenAt: now }));
      changed = true;
    }
    if (changed) this.changes.fire();
  }
}
