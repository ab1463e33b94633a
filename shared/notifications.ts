import type { NotificationKind } from './settings.ts';

/** The page that explains a notification (its action button opens it). */
export const NOTIFICATION_PAGES = ['mine', 'validate', 'earnings', 'history', 'logs', 'settings', 'setup'] as const;
export type NotificationPage = (typeof NOTIFICATION_PAGES)[number];

export interface AppNotification {
  id: number;
  /** When the condition started. */
  at: number;
  /** When its text last changed (a condition that lasts keeps one notification and updates it). */
  updatedAt: number;
  /** While the condition lasts; false once it cleared (then `endedAt` says when). */
  active: boolean;
  endedAt: number | null;
  /** The last time the engine saw the condition ongoing (saved about once a minute): after an engine stop, how long it had lasted. */
  seenAt?: number;
  /** Set when the engine stopped while this was ongoing (its end was not seen); a condition that remains opens a new one. */
  interruptedAt?: number;
  kind: NotificationKind;
  severity: 'warn' | 'error';
  title: string;
  /** What happened and what to do. */
  body: string;
  action: { page: NotificationPage; label: string } | null;
}

/** Where new alerts are also posted (a chat or push webhook), for a rig nobody is looking at. Never the URL itself: it is a credential. */
export interface AlertWebhookStatus {
  configured: boolean;
  /** The host it posts to ("discord.com"), enough to recognise it. */
  host: string | null;
  /** The last post: when, whether it was taken, and in words what happened. */
  lastDelivery: { at: number; ok: boolean; text: string } | null;
}

export interface NotificationsSnapshot {
  /** Newest first, active and cleared alike: the history page lists them all. */
  recent: AppNotification[];
  webhook: AlertWebhookStatus;
}
