import type { AppNotification } from '../../../../shared/notifications.ts';
import { duration } from './format.ts';

/** The live text of a notification's state: how long it has lasted, when it cleared, or that an engine stop cut it short. */
export function notificationStatus(n: AppNotification, now: number): string {
  if (n.active) return `ongoing for ${duration(now - n.at)}`;
  // The last time it was seen ongoing, not its last text change: a 7-minute outage never reads "after 0 s".
  if (n.interruptedAt !== undefined) return `still ongoing after ${duration(Math.max(n.seenAt ?? 0, n.updatedAt) - n.at)} when the engine stopped; a new alert opens if it remains`;
  return `cleared after ${duration((n.endedAt ?? n.updatedAt) - n.at)}`;
}
