// Runs the built desktop main (dist/electron/main.js) under the stand-in `electron`
// (test/doubles/electron) in a child process, and drives it over the harness's IPC channel.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exitWithParentEnv } from '../doubles/fake-sglang/spawn.ts';

export const REPO = resolve(import.meta.dirname, '..', '..');
const REGISTER = join(REPO, 'test', 'doubles', 'electron', 'register.ts');
const HARNESS = join(REPO, 'test', 'doubles', 'electron', 'harness.ts');

function newestMtime(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const abs = join(dir, name);
    const st = statSync(abs);
    t = Math.max(t, st.isDirectory() ? newestMtime(abs) : st.mtimeMs);
  }
  return t;
}

/** `npm run build:main` when dist/ is missing or older than electron/ or shared/ (one build at a time across test files). */
export async function ensureMainBuilt(): Promise<void> {
  const lock = join(REPO, 'dist-build.lock');
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      // A lock whose holder is gone (a run killed mid-build) is taken over, not waited on for 10 minutes.
      if (staleLock(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (i > 600) throw new Error('another test file has held dist-build.lock for 10 minutes');
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    const main = join(REPO, 'dist', 'electron', 'main.js');
    const stale = !existsSync(main) || statSync(main).mtimeMs < Math.max(newestMtime(join(REPO, 'electron')), newestMtime(join(REPO, 'shared')));
    if (stale) execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.main.json'], { cwd: REPO, stdio: 'inherit' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The lock's holder has exited, or it never wrote its pid and the lock is over a minute old. */
function staleLock(lock: string): boolean {
  try {
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ESRCH';
    }
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > 60_000;
    } catch {
      return false;
    }
  }
}

export interface StandInEvent {
  type: string;
  data: unknown;
}

export interface DesktopMain {
  proc: ChildProcess;
  /** Runs a harness op (see test/doubles/electron/harness.ts) and returns its value. */
  call<T = unknown>(op: string, args?: Record<string, unknown>): Promise<T>;
  events: StandInEvent[];
  /** Everything the process wrote. */
  output(): string;
  /** The process's exit code (a signal counts as null). */
  exited: Promise<number | null>;
  kill(): Promise<void>;
  /** Quits as the user does (app.quit: the engine stops what it started), SIGKILL after `timeoutMs`; true when it exited by itself. */
  quit(timeoutMs: number): Promise<boolean>;
}

/** `node --import register --import harness <main>` with `env`: main as `electron .` would run it. */
export function startDesktopMain(mainJs: string, env: NodeJS.ProcessEnv): DesktopMain {
  const proc = fork(mainJs, [], { execArgv: ['--import', REGISTER, '--import', HARNESS], env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const events: StandInEvent[] = [];
  const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  let nextId = 1;
  proc.on('message', (m: { standin?: string; id?: number; ok?: boolean; value?: unknown; error?: string; type?: string; data?: unknown }) => {
    if (m.standin === 'reply' && m.id !== undefined) {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.ok) p?.ok(m.value);
      else p?.fail(new Error(m.error));
    } else if (m.standin === 'event') events.push({ type: m.type!, data: m.data });
  });
  const exited = new Promise<number | null>((r) =>
    proc.once('exit', (code) => {
      for (const p of pending.values()) p.fail(new Error(`main exited (${code}) before answering\n${out.slice(-3000)}`));
      pending.clear();
      r(code);
    }),
  );
  return {
    proc,
    events,
    output: () => out,
    exited,
    call: <T>(op: string, args: Record<string, unknown> = {}) =>
      new Promise<T>((ok, fail) => {
        if (!proc.connected) return fail(new Error(`main is gone\n${out.slice(-3000)}`));
        const id = nextId++;
        pending.set(id, { ok: ok as (v: unknown) => void, fail });
        proc.send({ standin: 'cmd', id, op, args });
      }),
    kill: async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGKILL');
        await exited;
      }
    },
    quit: async (timeoutMs) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return true;
      if (proc.connected) proc.send({ standin: 'cmd', id: nextId++, op: 'app.quit', args: {} });
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)))]);
      clearTimeout(timer);
      if (!inTime) {
        proc.kill('SIGKILL');
        await exited;
      }
      return inTime;
    },
  };
}

/** A clean environment for a desktop run: its own HOME and XDG folders under `root`, nothing from this process's secrets. */
export function desktopEnv(root: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_CACHE_HOME: join(root, 'cache'),
    XDG_DATA_HOME: join(root, 'data'),
    TMPDIR: process.env.TMPDIR,
    ...extra,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  // A fake serve the desktop engine's supervisor starts goes with the engine, even one killed before its cleanup.
  return exitWithParentEnv(env);
}

/** The renderer the window loads and the signing page beside it: `npm test` builds them first; a lone run builds them once here. */
export async function ensureRendererBuilt(): Promise<void> {
  if (existsSync(join(REPO, 'dist-renderer', 'index.html')) && existsSync(join(REPO, 'dist-renderer', 'signing', 'sign.js'))) return;
  execFileSync(process.execPath, [join(REPO, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { cwd: REPO, stdio: 'inherit' });
}

/** Polls `ok` until true (for hooks, where expect.poll is not allowed); throws after `timeoutMs`. */
export async function waitUntil(ok: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
