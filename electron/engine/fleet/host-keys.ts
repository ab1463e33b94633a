// A rig's SSH host key: fetched with ssh-keyscan, shown by fingerprint (ssh-keygen -lf), and written to
// the panel's known_hosts only when the user accepts the very fingerprints shown. Never skipped: ssh
// itself runs with StrictHostKeyChecking=yes, so an unaccepted key stops every connection.
import { appendFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppFailure } from '../../../shared/errors.ts';
import type { RigHostKey } from '../../../shared/fleet.ts';
import type { RigAddress } from './rig-target.ts';
import { runCapped, sshOptions, type SshTools } from './ssh.ts';

export interface ScannedKey {
  /** The known_hosts name ssh looks the rig up by (`host`, `[host]:port`, or its HostKeyAlias). */
  name: string;
  /** known_hosts lines, named `name`. */
  lines: string[];
  fingerprints: string[];
}

/** Where ssh will really go for this address (aliases from the ssh config resolved): `ssh -G`. */
async function resolve(tools: SshTools, addr: RigAddress): Promise<{ hostname: string; port: number; alias: string | null }> {
  const r = await runCapped(tools.ssh, [...sshOptions(tools, addr), '-G', '--', addr.destination], { timeoutMs: 10_000, maxBytes: 256_000 });
  if (r.code !== 0) throw new AppFailure('unavailable', `ssh could not read its configuration for ${addr.destination}: ${r.stderr.trim().slice(0, 200) || 'no output'}.`);
  const get = (k: string) => new RegExp(`^${k} (.+)$`, 'm').exec(r.stdout)?.[1]?.trim() ?? null;
  const alias = get('hostkeyalias');
  return { hostname: get('hostname') ?? addr.destination.replace(/^.*@/, ''), port: Number(get('port') ?? 22), alias: alias && alias !== 'none' ? alias : null };
}

function knownName(hostname: string, port: number, alias: string | null): string {
  if (alias) return alias;
  return port === 22 ? hostname : `[${hostname}]:${port}`;
}

async function fingerprints(tools: SshTools, lines: string[]): Promise<string[]> {
  const r = await runCapped(tools.keygen, ['-lf', '-'], { timeoutMs: 10_000, maxBytes: 64_000, stdin: `${lines.join('\n')}\n` });
  if (r.code !== 0) throw new AppFailure('internal', `ssh-keygen could not fingerprint the rig's keys: ${r.stderr.trim().slice(0, 200)}.`);
  // "256 SHA256:abc [127.0.0.1]:2222 (ED25519)" -> "SHA256:abc (ED25519)"
  return r.stdout
    .split('\n')
    .map((l) => /^\d+\s+(\S+)\s+.*\((\S+)\)\s*$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]} (${m[2]})`)
    .sort();
}

export async function scanHostKey(tools: SshTools, addr: RigAddress): Promise<ScannedKey> {
  const { hostname, port, alias } = await resolve(tools, addr);
  const r = await runCapped(tools.keyscan, ['-T', '5', '-p', String(port), '--', hostname], { timeoutMs: 15_000, maxBytes: 64_000 });
  const name = knownName(hostname, port, alias);
  const lines = r.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(/\s+/))
    .filter((f) => f.length >= 3 && /^[A-Za-z0-9@.-]+$/.test(f[1]!) && /^[A-Za-z0-9+/=]+$/.test(f[2]!))
    .map((f) => `${name} ${f[1]} ${f[2]}`);
  if (lines.length === 0) throw new AppFailure('unavailable', `${addr.destination} gave no SSH host key (is sshd running on port ${port}?).`);
  return { name, lines, fingerprints: await fingerprints(tools, lines) };
}

/** The fingerprints the panel holds for this name (the "before" of a changed key), or null. */
export async function knownFingerprints(tools: SshTools, name: string): Promise<string[] | null> {
  if (!existsSync(tools.knownHosts)) return null;
  const r = await runCapped(tools.keygen, ['-F', name, '-f', tools.knownHosts], { timeoutMs: 10_000, maxBytes: 256_000 });
  const lines = r.stdout.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  return lines.length > 0 ? fingerprints(tools, lines) : null;
}

export async function describeHostKey(tools: SshTools, addr: RigAddress): Promise<RigHostKey> {
  const scanned = await scanHostKey(tools, addr);
  return { fingerprints: scanned.fingerprints, previous: await knownFingerprints(tools, scanned.name) };
}

/**
 * Accepts the rig's key, only if it still has exactly the fingerprints the user was shown (a key that
 * changed between showing and accepting is refused): replaces any older entry for the same name.
 */
export async function acceptHostKey(tools: SshTools, addr: RigAddress, shown: readonly string[]): Promise<void> {
  const scanned = await scanHostKey(tools, addr);
  const same = scanned.fingerprints.length === shown.length && [...shown].sort().every((f, i) => f === scanned.fingerprints[i]);
  if (!same) throw new AppFailure('conflict', `${addr.destination}'s host key is not the one shown any more (now ${scanned.fingerprints.join(', ')}): check the rig before accepting.`);
  mkdirSync(dirname(tools.knownHosts), { recursive: true, mode: 0o700 });
  if (!existsSync(tools.knownHosts)) writeFileSync(tools.knownHosts, '', { mode: 0o600 });
  const removed = await runCapped(tools.keygen, ['-R', scanned.name, '-f', tools.knownHosts], { timeoutMs: 10_000, maxBytes: 64_000 });
  if (removed.code !== 0) throw new AppFailure('internal', `the panel's known_hosts could not be updated: ${removed.stderr.trim().slice(0, 200)}.`);
  appendFileSync(tools.knownHosts, `${scanned.lines.join('\n')}\n`, { mode: 0o600 });
}
