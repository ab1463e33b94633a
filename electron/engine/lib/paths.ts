import { homedir } from 'node:os';
import { join } from 'node:path';

/** Headless data dir: `$XDG_CONFIG_HOME/engy-panel` (or ~/.config/engy-panel). Electron passes `userData` instead. */
export function defaultHeadlessDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'engy-panel');
}

export interface DataPaths {
  root: string;
  settings: string;
  database: string;
  logs: string;
  checkpoints: string;
  secrets: string;
  lock: string;
  /** The miner's worker ids, kept across restarts (miner/worker-id-store.ts). */
  workerIds: string;
}

export function dataPaths(root: string): DataPaths {
  return {
    root,
    settings: join(root, 'settings.json'),
    database: join(root, 'engy-panel.sqlite'),
    logs: join(root, 'logs'),
    checkpoints: join(root, 'checkpoints'),
    secrets: join(root, 'secrets'),
    lock: join(root, 'engine.lock'),
    workerIds: join(root, 'miner', 'worker-ids.json'),
  };
}
