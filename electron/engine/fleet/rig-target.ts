// A rig's address and remote command as the user typed them, checked before any of it reaches an argv
// or the rig's shell: nothing may start with "-" (ssh would read it as an option: -oProxyCommand=...),
// and the command and data dir are plain words, so the remote shell sees no quoting, globbing or `;`.
import { AppFailure } from '../../../shared/errors.ts';

export interface RigAddress {
  /** `user@host` or `host` or a ~/.ssh/config alias, as ssh takes it. */
  destination: string;
  port: number | null;
}

const USER = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;
const HOST = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252})$/;
const IPV6 = /^\[[0-9A-Fa-f:.]{2,45}\]$/;
/** A word of the remote command or a path: letters, digits and / . _ - + = : ~ (a leading ~ expands to the rig user's home). */
const WORD = /^[A-Za-z0-9_./~+=:][A-Za-z0-9_./~+=:-]{0,511}$/;

export function parseRigTarget(raw: string): RigAddress {
  const s = raw.trim();
  const bad = (why: string) => new AppFailure('bad-request', `"${s.slice(0, 80)}" is not a rig address: ${why}. Write user@host, user@host:port, or a Host alias from ~/.ssh/config.`);
  if (s.length === 0 || s.length > 300) throw bad('it must be 1 to 300 characters');
  const at = s.lastIndexOf('@');
  const user = at >= 0 ? s.slice(0, at) : null;
  let hostPort = at >= 0 ? s.slice(at + 1) : s;
  if (user !== null && !USER.test(user)) throw bad('the user name has characters ssh does not take');
  let port: number | null = null;
  const m = /^(.*):(\d{1,5})$/.exec(hostPort);
  // host:port, or [v6]:port; a bare v6 address has colons of its own and is refused below.
  if (m && (!m[1]!.includes(':') || IPV6.test(m[1]!))) {
    port = Number(m[2]);
    hostPort = m[1]!;
    if (port < 1 || port > 65535) throw bad('the port must be from 1 to 65535');
  }
  if (!HOST.test(hostPort) && !IPV6.test(hostPort)) throw bad('the host must be a name, an IPv4 address or [an IPv6 address]');
  const host = IPV6.test(hostPort) ? hostPort.slice(1, -1) : hostPort;
  return { destination: user !== null ? `${user}@${host}` : host, port };
}

/** The remote engy-panel command line (e.g. `engy-panel`, `~/engy/bin/engy-panel.mjs`, `/usr/bin/node /opt/engy/bin/engy-panel.mjs`). */
export function parseRemoteCommand(raw: string): string[] {
  const words = raw.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0 || words.length > 8 || !words.every((w) => WORD.test(w))) {
    throw new AppFailure('bad-request', "The rig's command must be 1 to 8 words of letters, digits and / . _ - + = : ~ (for example engy-panel or /usr/bin/node /opt/engy/bin/engy-panel.mjs).");
  }
  return words;
}

export function checkRemotePath(raw: string): string {
  const s = raw.trim();
  if (!WORD.test(s)) throw new AppFailure('bad-request', "The rig's data dir must be one path of letters, digits and / . _ - + = : ~ (no spaces).");
  return s;
}
