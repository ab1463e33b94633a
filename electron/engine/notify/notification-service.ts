import type { AppNotification, NotificationsSnapshot } from '../../../shared/notifications.ts';
import type { NotificationKind } from '../../../shared/settings.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Alert } from './alert-rules.ts';

const KEEP = 50;

/**
 * Turns alert conditions into notifications: one per condition while it lasts (no repeats on every
 * snapshot), muted kinds dropped. The desktop shell shows each new one as an OS notification.
 */
export class NotificationService {
  private readonly active = new Map<string, Set<string>>();
  private recent: AppNotification[] = [];
  private nextId = 1;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly fresh = new Emitter<AppNotification>();
  readonly onNotification = this.fresh.event;
  private readonly muted: () => readonly NotificationKind[];
  private readonly now: () => number;

  constructor(muted: () => readonly NotificationKind[], now: () => number = Date.now) {
    this.muted = muted;
    this.now = now;
  }

  snapshot(): NotificationsSnapshot {
    return { recent: this.recent };
  }

  /** Feed the current alerts of one source (miner, serve, validator); cleared conditions re-arm. */
  update(source: string, alerts: Alert[]): void {
    const before = this.active.get(source) ?? new Set<string>();
    const now = new Set(alerts.map((a) => a.key));
    this.active.set(source, now);
    let changed = false;
    for (const a of alerts) {
      if (before.has(a.key) || this.muted().includes(a.kind)) continue;
      const n: AppNotification = { id: this.nextId++, at: this.now(), kind: a.kind, severity: a.severity, title: a.title, body: a.body };
      this.recent = [n, ...this.recent].slice(0, KEEP);
      this.fresh.fire(n);
      changed = true;
    }
    if (changed) this.changes.fire();
  }
}
