// The base every entry builds from (desktop, headless, `mine`, `validate`, `demo`): the data dir
// prepared with owner-only modes, its instance lock taken, stale temp files swept, logging, the
// database (a damaged one moved aside), the app version, and one shutdown stack. compose.ts adds
// the panel's services on top; the daemons add their one service. Never imports electron.
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DisposableStack, toDisposable, type Disposable } from './engine/lib/disposable.ts';
import { removeStaleTemps } from './engine/lib/atomic-file.ts';
import { describeError } from './engine/lib/fs-errors.ts';
import { checkDataDir, DataDirRefused, makeDirs } from './engine/lib/data-dir-guard.ts';
import { acquireInstanceLock, type InstanceLock, type LockHost } from './engine/lib/instance-lock.ts';
import { LogHub } from './engine/lib/logger.ts';
import type { LogLevel } from '../shared/logs.ts';
import { resourcesDir } from './engine/lib/model-catalog.ts';
import { dataPaths, type DataPaths } from './engine/lib/paths.ts';
import { openDatabase, type Database, type DatabaseRecovery } from './engine/store/database.ts';
import { AppFailure } from '../shared/errors.ts';

export interface RuntimeOptions {
  dataDir: string;
  /** Echo log lines (the daemons and the headless engine print to stdout). */
  echo?: (line: string) => void;
  minLevel?: LogLevel;
  /**
   * Hold the process open until disposed. The engine's timers are unref'd (they must never keep a
   * quitting app alive), so a daemon waiting out a gateway or chain outage needs one ref'd handle.
   */
  keepAlive?: boolean;
  /** Folders outside the data dir the entry writes atomically (a custom validator state file's). */
  tempDirs?: string[];
  lockHost?: LockHost;
  now?: () => number;
}

/** Something the engine repaired at start that the user should hear about. */
export interface StartupWarning {
  title: string;
  body: string;
}

export interface Runtime {
  paths: DataPaths;
  logs: LogHub;
  lock: InstanceLock;
  db: Database;
  version: string;
  versions: Record<string, string>;
  warnings: StartupWarning[];
  /** Everything built on the runtime registers here; disposed in reverse order, the lock last. */
  add<T extends Disposable>(item: T): T;
  dispose(): Promise<void>;
}

/** The package version, read once for every entry (hello frames, the validator's version key, app.info). */
export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(resourcesDir(), '..', 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Creates the data dir owner-only (0700) and tightens the files that hold the operator's business. */
export function prepareDataDir(paths: DataPaths): void {
  try {
    if (existsSync(paths.root) && !statSync(paths.root).isDirectory()) {
      throw Object.assign(new Error('not a folder'), { code: 'EEXIST', path: paths.root, syscall: 'mkdir' });
    }
    makeDirs(paths.root, 0o700);
    checkDataDir(paths.root);
  } catch (e) {
    if (e instanceof DataDirRefused) throw new AppFailure('internal', `The data dir cannot be used: ${e.message}`);
    throw new AppFailure('internal', `The data dir cannot be used: ${describeError(e, { what: 'the data dir' })}`);
  }
  // Files written by an older build were 0644; settings name wallets and endpoints, so tighten them.
  for (const file of [paths.settings]) {
    try {
      if (existsSync(file)) chmodSync(file, 0o600);
    } catch {
      // not ours (another user's file in a shared dir): reading it still works
    }
  }
}

export async function openRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const stack = new DisposableStack();
  const paths = dataPaths(opts.dataDir);
  try {
    prepareDataDir(paths);
    // Two engines on one data dir would fight over the serve, the database, the worker identity and
    // the validator's state file: the lock is the first thing taken and the last released.
    let lock: InstanceLock;
    try {
      lock = stack.add(acquireInstanceLock(paths.root, opts.lockHost));
    } catch (e) {
      if (e instanceof AppFailure) throw e;
      throw new AppFailure('internal', `The data dir cannot be locked: ${describeError(e, { what: 'the data dir lock' })}`);
    }
    const logs = new LogHub({ dir: paths.logs, ...(opts.echo ? { echo: opts.echo } : {}), ...(opts.minLevel ? { minLevel: opts.minLevel } : {}) });
    stack.add(toDisposable(() => logs.flush()));
    const log = logs.logger('app');
    // Only now, under the lock: no other engine can be mid-write in these folders.
    for (const dir of [paths.root, paths.secrets, join(paths.root, 'validator'), join(paths.root, 'miner'), ...(opts.tempDirs ?? [])]) {
      const removed = removeStaleTemps(dir);
      if (removed.length > 0) log.warn(`removed ${removed.length} temp file(s) an interrupted write left in ${dir}: ${removed.join(', ')}`);
    }
    const warnings: StartupWarning[] = [];
    let opened: { db: Database; recovered: DatabaseRecovery | null };
    try {
      opened = openDatabase(paths.database, opts.now);
    } catch (e) {
      throw new AppFailure('internal', `The database cannot be opened: ${describeError(e, { what: 'the database' })}`);
    }
    const db = opened.db;
    stack.add(toDisposable(() => db.close()));
    if (opened.recovered) {
      const body = `The history database could not be read (${opened.recovered.reason}). It was moved to ${opened.recovered.movedTo} and a new, empty one started: past requests and submissions are not shown. Keep the old file for support, or delete it.`;
      log.warn(body);
      warnings.push({ title: 'The history database was damaged and replaced', body });
    }
    if (opts.keepAlive) {
      const hold = setInterval(() => undefined, 1 << 30);
      stack.add(toDisposable(() => clearInterval(hold)));
    }
    const version = appVersion();
    return {
      paths,
      logs,
      lock,
      db,
      version,
      versions: { 'engy-panel': version, node: process.versions.node },
      warnings,
      add: (item) => stack.add(item),
      dispose: () => stack.dispose(),
    };
  } catch (e) {
    await stack.dispose().catch(() => undefined);
    throw e;
  }
}
