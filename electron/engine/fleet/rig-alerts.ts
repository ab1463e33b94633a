// Alerts from every rig (docs/fleet.md, "Alerts from every rig"): which of a rig's alerts are new to
// this panel, and whether the panel posts one to its own webhook. Pure, so the once-only rules are
// tested without a rig.
import type { RigAlert, RigConfig } from '../../../shared/fleet.ts';
import type { RigNotification } from './rig-topics.ts';

/**
 * A new alert on a rig, for the tray and the webhook. `rigPostsItself`: the rig has a webhook of its
 * own (or does not say), so this panel does not post the alert again.
 */
export interface RigAlertEvent {
  alert: RigAlert;
  kind: string;
  rigPostsItself: boolean;
}

/**
 * Announces each rig alert once. The first notifications snapshot a rig sends this panel marks what is
 * already there as seen (the Alerts page lists the open ones; the rig announced them when they began);
 * after that, an active alert with an id not seen before is new. A reconnect replays the same ids, so
 * nothing is announced twice; the rig keeps its ids across its own restarts (they are in its database).
 */
export class RigAlertTracker {
  private readonly seen = new Map<string, Set<number>>();

  take(cfg: RigConfig, recent: readonly RigNotification[], rigWebhook: boolean | null): RigAlertEvent[] {
    const seen = this.seen.get(cfg.id);
    this.seen.set(cfg.id, new Set(recent.map((n) => n.id)));
    if (!seen) return [];
    return recent
      .filter((n) => n.active && !seen.has(n.id))
      .map((n) => ({
        alert: { rigId: cfg.id, rigName: cfg.name, id: n.id, at: n.at, severity: n.severity === 'error' ? 'error' : 'warn', title: n.title, body: n.body },
        kind: n.kind,
        rigPostsItself: rigWebhook !== false,
      }));
  }

  forget(rigId: string): void {
    this.seen.delete(rigId);
  }
}

/** The panel posts a rig's new alert to its own webhook only when the rig says it has none, and the kind is not muted here. */
export function panelPostsRigAlert(ev: RigAlertEvent, muted: readonly string[]): boolean {
  return !ev.rigPostsItself && !muted.includes(ev.kind);
}
