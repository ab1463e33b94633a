// A real OpenSSH server for fleet tests: `/usr/sbin/sshd -D -f <tmp config>` on 127.0.0.1 on a free
// port, with a throwaway host key, a throwaway user key in AuthorizedKeysFile, all in one temp dir.
// `stop()` kills it and whatever ran through it (tests call it in afterEach/finally); the client side is an ssh_config naming the
// user key, handed to the panel as its `configFile`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface TestSshd {
  port: number;
  dir: string;
  /** ssh_config for the client: the throwaway user key, nothing from ~/.ssh. */
  clientConfig: string;
  user: string;
  /** `user@127.0.0.1:port`. */
  target: string;
  hostKeyPub: string;
  /** Replaces the host key and restarts sshd on the same port (a reinstalled rig, or a man in the middle). */
  changeHostKey(): Promise<void>;
  /**
   * Kills the server and every session it forked, by pid (tunnels drop as when a rig loses its network),
   * and every command its sessions started, even one its session left behind.
   */
  stop(): Promise<void>;
  start(): Promise<void>;
  output(): string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}

/** Every descendant of `pid` (from /proc), deepest first: sshd's per-connection sessions leave its process group. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(name), ppid);
    } catch {
      // exited while we looked
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp === p) {
        walk(child);
        out.push(child);
      }
    }
  };
  walk(pid);
  return out;
}

/**
 * Every process started through this sshd's sessions, orphans included: sshd gives a session's command its
 * own session id and, when the client goes, leaves it running (no tty, so no hangup), re-parented to init
 * where `descendants` cannot see it. They all carry the HOME this sshd sets (its temp dir), found in
 * /proc/<pid>/environ.
 */
function sessionCommands(home: string): number[] {
  const mark = `HOME=${home}`;
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(mark)) out.push(Number(name));
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return out;
}

function keygen(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.pub`, { force: true });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'engy-test', '-f', path]);
}

export async function startTestSshd(): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'engy-sshd-'));
  const port = await freePort();
  const user = userInfo().username;
  // sshd insists on its privilege separation directory even when unused.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'user_key'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'user_key.pub')), { mode: 0o600 });
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'AllowTcpForwarding local',
      'X11Forwarding no',
      'MaxStartups 100:30:200',
      'MaxSessions 100',
      // The rig's commands get the test's PATH (node), as a login would give an installed one, and a HOME in
      // the temp dir: the machine account's ~/.bashrc (which bash reads for ssh commands) is not the rig's
      // and must not slow or break it, nor be interrupted when stop() kills the sessions.
      `SetEnv PATH=${process.env.PATH ?? '/usr/bin:/bin'} HOME=${dir}`,
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const clientConfig = join(dir, 'ssh_config');
  writeFileSync(clientConfig, ['Host *', `  User ${user}`, `  IdentityFile ${join(dir, 'user_key')}`, '  IdentitiesOnly yes', '  IdentityAgent none', '  LogLevel ERROR', ''].join('\n'));
  let child: ChildProcess | null = null;
  let out = '';
  const start = async () => {
    const c = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 20_000;
    while (!(await accepts(port))) {
      if (c.exitCode !== null) throw new Error(`sshd exited ${c.exitCode}: ${out}`);
      if (Date.now() > deadline) throw new Error(`sshd did not listen in 20 s: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const c = child;
    child = null;
    const running = c !== null && c.exitCode === null;
    // The orphans too when sshd itself is already gone.
    const doomed = new Set([...(running ? descendants(c.pid!) : []), ...sessionCommands(dir)]);
    const exited = running ? new Promise<void>((resolve) => c.once('exit', () => resolve())) : Promise.resolve();
    for (const pid of doomed) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (running) c.kill('SIGKILL');
    await exited;
  };
  await start();
  const sshd: TestSshd = {
    port,
    dir,
    clientConfig,
    user,
    target: `${user}@127.0.0.1:${port}`,
    hostKeyPub: readFileSync(join(dir, 'host_key.pub'), 'utf8'),
    async changeHostKey() {
      await stop();
      keygen(join(dir, 'host_key'));
      sshd.hostKeyPub = readFileSync(join(dir, 'host_key.pub'), 'utf8');
      await start();
    },
    stop,
    start,
    output: () => out,
  };
  return sshd;
}
