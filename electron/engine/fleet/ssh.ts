// The system ssh client, run for the fleet (docs/fleet.md): the user's own keys and agent, the panel's
// own known_hosts checked strictly (an unknown or changed key stops the connection until the user
// accepts its fingerprint), BatchMode so nothing ever waits on a password prompt. Every call has a
// deadline and an output cap: a rig that answers slowly or floods cannot hold the panel.
import { spawn, type ChildProcess } from 'node:child_process';
import type { RigAddress } from './rig-target.ts';

export interface SshTools {
  ssh: string;
  keyscan: string;
  keygen: string;
  /** The panel's known_hosts (0600, in the data dir): the only keys a rig is checked against. */
  knownHosts: string;
  /** An ssh_config to use instead of ~/.ssh/config (tests; an operator's dedicated file). */
  configFile: string | null;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** stdout went past the cap: the rest was dropped and the process killed. */
  overflow: boolean;
}

/** ssh_config values with spaces must be quoted; ours are paths in the data dir. */
function optValue(s: string): string {
  return /\s/.test(s) ? `"${s}"` : s;
}

export function sshOptions(tools: SshTools, addr: RigAddress): string[] {
  return [
    ...(tools.configFile ? ['-F', tools.configFile] : []),
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    `UserKnownHostsFile=${optValue(tools.knownHosts)}`,
    '-o',
    'GlobalKnownHostsFile=/dev/null',
    '-o',
    'UpdateHostKeys=no',
    '-o',
    'ConnectTimeout=10',
    '-o',
    'ServerAliveInterval=5',
    '-o',
    'ServerAliveCountMax=3',
    ...(addr.port !== null ? ['-p', String(addr.port)] : []),
  ];
}

/** Runs a command with a deadline and a stdout cap; never rejects (a spawn failure is code null). */
export function runCapped(cmd: string, args: readonly string[], opts: { timeoutMs: number; maxBytes: number; stdin?: string }): Promise<RunResult> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let overflow = false;
    let settled = false;
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, overflow });
    };
    try {
      child = spawn(cmd, [...args], { stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    } catch (e) {
      resolve({ code: null, stdout: '', stderr: (e as Error).message, timedOut: false, overflow: false });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      if (overflow) return;
      stdout += d.toString('utf8');
      if (stdout.length > opts.maxBytes) {
        overflow = true;
        stdout = stdout.slice(0, opts.maxBytes);
        child.kill('SIGKILL');
      }
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 16_384) stderr += d.toString('utf8');
    });
    if (opts.stdin !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(opts.stdin);
    }
    child.on('error', (e) => {
      stderr += e.message;
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

export type SshFailure = 'host-key-unknown' | 'host-key-changed' | 'auth' | 'unreachable';

/** What an ssh exit 255 means, from its own words, and one sentence for the user. */
export function classifySshError(stderr: string, target: string): { kind: SshFailure; sentence: string } {
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return {
      kind: 'host-key-changed',
      sentence: `${target}'s host key is not the one the panel accepted before: if the rig was reinstalled, compare the new fingerprint with the rig's own (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) and accept it; otherwise someone may be in the middle.`,
    };
  }
  if (/No \S+ host key is known|Host key verification failed/i.test(stderr)) {
    return { kind: 'host-key-unknown', sentence: `The panel has not accepted ${target}'s host key yet: compare the fingerprint with the rig's own and accept it in Settings > Rigs.` };
  }
  if (/Permission denied|Too many authentication failures/i.test(stderr)) {
    return { kind: 'auth', sentence: `${target} refused the SSH keys: add your public key to the rig's ~/.ssh/authorized_keys (or load it into ssh-agent) and retry.` };
  }
  const last = stderr.trim().split('\n').filter(Boolean).at(-1)?.slice(0, 200) ?? 'no answer';
  return { kind: 'unreachable', sentence: `SSH to ${target} failed (${last}): check the rig is on and reachable.` };
}
