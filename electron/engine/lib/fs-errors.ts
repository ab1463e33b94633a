// One translator from the operating system's error codes to a sentence a user can act on: what
// happened, to which path, and what to do. The CLI, the daemons and the engine's startup use it so
// no raw `ENOENT: no such file or directory, open '...'` or stack trace reaches a user.
import { dirname } from 'node:path';

/** What the path is to the user ("the checkpoint folder", "the data dir") and how to point elsewhere. */
export interface ErrorContext {
  what?: string;
  /** The user's way out when the path is wrong, e.g. "point --checkpoint at the downloaded model folder". */
  fix?: string;
}

const TRANSLATED = ['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EEXIST', 'ENOSPC', 'EDQUOT', 'EPIPE', 'EROFS', 'EISDIR', 'EMFILE', 'ENFILE'] as const;

function errnoOf(e: unknown): NodeJS.ErrnoException | null {
  if (typeof e !== 'object' || e === null) return null;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && (TRANSLATED as readonly string[]).includes(code) ? (e as NodeJS.ErrnoException) : null;
}

/** A sentence for a known system error, or null when `e` is something else. */
export function explainFsError(e: unknown, ctx: ErrorContext = {}): string | null {
  // SQLite says a full disk with its own code (SQLITE_FULL, 13), not ENOSPC.
  const sqlite = e as { code?: unknown; errcode?: unknown } | null;
  if (sqlite && sqlite.code === 'ERR_SQLITE_ERROR' && typeof sqlite.errcode === 'number' && (sqlite.errcode & 0xff) === 13) {
    return 'the disk holding the database is full: free some space (df -h on its folder) and start again.';
  }
  const err = errnoOf(e);
  if (!err) return null;
  const dest = (err as { dest?: unknown }).dest;
  const path = err.path ?? (typeof dest === 'string' ? dest : undefined);
  const what = ctx.what ? `${ctx.what} ` : '';
  const at = path ? `${what}${path}` : (ctx.what ?? 'a file');
  const fix = (dflt: string): string => ctx.fix ?? dflt;
  switch (err.code as (typeof TRANSLATED)[number]) {
    case 'ENOENT':
      return `${at} does not exist: ${fix('check the path')}.`;
    case 'ENOTDIR':
      return `${at} is not a folder (it, or a folder above it, is a file): ${fix('give the path of a folder')}.`;
    case 'EISDIR':
      return `${at} is a folder where a file was expected: ${fix('give the path of the file itself')}.`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to ${err.syscall === 'open' || err.syscall === 'mkdir' || err.syscall === 'rename' || err.syscall === 'unlink' ? 'write or read' : 'use'} ${at}: run as the user who owns it, fix its permissions (ls -ld ${path ?? '<path>'}), or ${fix('choose another --data-dir')}.`;
    case 'EROFS':
      return `${at} is on a read-only file system: ${fix('choose a writable --data-dir')}.`;
    case 'EEXIST':
      return `a file is in the way at ${at}: move it aside, or ${fix('choose another --data-dir')}.`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk holding ${path ?? ctx.what ?? 'the data'} is full${err.code === 'EDQUOT' ? ' (disk quota reached)' : ''}: free some space (df -h ${path ? dirname(path) : '.'}) and start again.`;
    case 'EPIPE':
      return 'the output was closed before everything was written (a pipe such as `| head` stopped reading).';
    case 'EMFILE':
    case 'ENFILE':
      return `too many open files${path ? ` (at ${path})` : ''}: raise the limit (ulimit -n 65536, or LimitNOFILE= in the service unit) and start again.`;
  }
}

/**
 * Any thrown value as one line for a user: a known system error translated, else the error's own
 * message (our errors are written as sentences). Never a stack trace.
 */
export function describeError(e: unknown, ctx: ErrorContext = {}): string {
  const known = explainFsError(e, ctx);
  if (known) return known;
  if (e instanceof Error) return e.message.split('\n    at ')[0]!;
  return String(e);
}
