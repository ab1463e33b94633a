import type { NotificationKind } from './settings.ts';

export interface AppNotification {
  id: number;
  at: number;
  kind: NotificationKind;
  severity: 'warn' | 'error';
  title: string;
  /** What happened and what to do. */
  body: string;
}

export interface NotificationsSnapshot {
  recent: AppNotification[];
}
