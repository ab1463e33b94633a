// A Node child process whose stdout and stderr are kept as one growing log, for the chaos tests that wait on
// its lines and report them when something goes wrong.
import { spawn, type ChildProcess } from 'node:child_process';

export interface LoggedChild {
  proc: ChildProcess;
  /** Everything it wrote so far, stdout and stderr interleaved as they arrived. */
  log(): string;
  /** How many matches of `re` (give it the g flag) the log holds. */
  count(re: RegExp): number;
  alive(): boolean;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** `node <args>` with `env` (and nothing else of this process's environment unless passed in). */
export function spawnLogged(args: string[], env: NodeJS.ProcessEnv): LoggedChild {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let log = '';
  proc.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  return {
    proc,
    log: () => log,
    count: (re) => (log.match(re) ?? []).length,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    exited: new Promise((r) => proc.once('exit', (code) => r(code))),
  };
}
