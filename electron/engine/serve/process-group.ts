import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** Injected so tests (and a future utilityProcess host) can swap how children are started. */
export type SpawnFn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export const defaultSpawn: SpawnFn = (command, args, options) => nodeSpawn(command, args, options);

/** True while any process of the group `pgid` is alive (signal 0 probes without delivering). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    // EPERM means it exists but is not ours to signal: still alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * SIGTERM to the whole group (sglang drains, its children follow), SIGKILL after `graceMs`,
 * and then wait until no member is left, so nothing outlives a stop.
 */
export async function terminateGroup(pgid: number, graceMs: number, pollMs = 50): Promise<'exited' | 'killed'> {
  if (!groupAlive(pgid)) return 'exited';
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return 'exited';
    await sleep(pollMs);
  }
  signalGroup(pgid, 'SIGKILL');
  // A zombie leader keeps the group "alive" until its parent reaps it; bound the wait.
  const hard = Date.now() + 5000;
  while (groupAlive(pgid) && Date.now() < hard) await sleep(pollMs);
  return 'killed';
}

/**
 * Splits a byte stream into lines on both \n and \r: tqdm redraws progress with \r, and one
 * redrawn line would otherwise grow without end. Over-long lines are cut, not buffered forever.
 */
export class LineSplitter {
  private partial = '';
  private readonly onLine: (line: string) => void;
  private readonly maxLine: number;
  constructor(onLine: (line: string) => void, maxLine = 16 * 1024) {
    this.onLine = onLine;
    this.maxLine = maxLine;
  }

  push(chunk: Buffer | string): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const parts = text.split(/\r\n|\n|\r/);
    this.partial = parts.pop() ?? '';
    for (const p of parts) if (p.length > 0) this.onLine(p.slice(0, this.maxLine));
    if (this.partial.length > this.maxLine) {
      this.onLine(this.partial.slice(0, this.maxLine));
      this.partial = '';
    }
  }

  end(): void {
    if (this.partial.length > 0) this.onLine(this.partial);
    this.partial = '';
  }
}

/**
 * Starts `command` detached, as the leader of its own process group (so one signal reaches every
 * process it forks), feeding each stdout/stderr line to `onLine`.
 */
export async function spawnGrouped(
  spawnFn: SpawnFn,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void,
): Promise<{ ok: true; child: ChildProcess; pid: number } | { ok: false; error: string }> {
  let child: ChildProcess;
  try {
    child = spawnFn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  } catch (e) {
    return { ok: false, error: String(e) };
  }
  if (child.pid === undefined) {
    const err = await new Promise<Error>((r) => child.once('error', r));
    return { ok: false, error: err.message };
  }
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const split = new LineSplitter(onLine);
    stream.on('data', (c: Buffer) => split.push(c));
    stream.once('end', () => split.end());
  }
  return { ok: true, child, pid: child.pid };
}
