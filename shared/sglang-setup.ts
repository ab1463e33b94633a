// sglang on this machine, as the Setup page's Serve step sees it: what each runtime found, and the
// panel's own-environment install with its progress and log.
import type { RuntimeReport } from './serve.ts';

export type SglangInstallState = 'idle' | 'running' | 'done' | 'failed' | 'cancelled';

export interface SglangInstallView {
  state: SglangInstallState;
  /** creating-venv | downloading | installing | done, as pip's lines tell it. */
  step: string | null;
  /** The last lines pip printed (at most 200), newest last. */
  log: string[];
  /** Packages downloaded so far, and the size pip printed for the newest. */
  downloads: number;
  lastDownload: string | null;
  error: string | null;
  startedAt: number | null;
  finishedAt: number | null;
}

export interface SglangSetupSnapshot {
  /** null until the first detection ran. */
  runtimes: RuntimeReport | null;
  detecting: boolean;
  install: SglangInstallView;
  /** What the own-environment install needs, stated before it starts. */
  needs: { diskGiB: number; minutes: string; into: string };
}

/** Whether a checkpoint folder can take the download: exists or creatable, writable, room enough. */
export interface CheckpointFolderVerdict {
  ok: boolean;
  /** Exists or can be created, and this user can write it (room aside). */
  usable: boolean;
  exists: boolean;
  /** A complete checkpoint is already there (no room needed). */
  complete: boolean;
  freeBytes: number | null;
  needBytes: number;
  sentence: string;
}
