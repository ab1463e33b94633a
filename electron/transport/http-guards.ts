// Pure checks on what a browser (or an attacker) puts in a request's headers. Every function here
// answers instead of throwing: hostile bytes in a header are a refusal, never an exception.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

import { isLoopback } from '../../shared/endpoint-rules.ts';

export { isLoopback };

const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

/** The hostname of a Host header ("rig:7853", "[::1]:7853"), lower-cased; null when it is not one. */
export function hostnameOf(hostHeader: string | undefined): string | null {
  if (!hostHeader || hostHeader.length > 255 || !/^[A-Za-z0-9.\-[\]:]+$/.test(hostHeader)) return null;
  try {
    const u = new URL(`http://${hostHeader}`);
    return u.hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Which Host headers the engine answers: loopback names always (an SSH tunnel lands there, on any
 * local port), the configured --host, and when bound to every interface any IP literal. A DNS
 * name other than those (and the operator's extra names) is refused: that is what a DNS-rebinding page would send.
 */
export function hostAllowed(hostHeader: string | undefined, configuredHost: string, extraNames: readonly string[] = []): boolean {
  const name = hostnameOf(hostHeader);
  if (name === null) return false;
  if (isLoopback(name)) return true;
  // Names a TLS reverse proxy in front of a loopback engine passes through (ENGY_PANEL_ALLOWED_HOSTS).
  if (extraNames.some((n) => n.toLowerCase() === name)) return true;
  const configured = configuredHost.toLowerCase();
  const bare = (h: string) => h.replace(/^\[|\]$/g, '');
  if (bare(name) === bare(configured)) return true;
  return WILDCARD.has(configured) && isIP(bare(name)) !== 0;
}

/**
 * A browser always sends Origin on a WebSocket upgrade; it must be the page the engine served
 * itself (same scheme-less host and port as the Host header). No Origin means a non-browser
 * client, which still needs the token.
 */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  if (!hostHeader) return false;
  const host = hostHeader.toLowerCase();
  const o = origin.toLowerCase();
  return o === `http://${host}` || o === `https://${host}`;
}

/**
 * The cookie's name is derived from the token, so two engines reached through tunnels on one
 * laptop (same browser host, often the same engine port) never overwrite each other's cookie.
 */
export function cookieNameFor(token: string): string {
  return `engy_token_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

export type CookieLookup = { kind: 'absent' } | { kind: 'value'; value: string } | { kind: 'malformed' };

/**
 * Finds our cookie without decoding anyone else's (other local apps set cookies on 127.0.0.1 too,
 * and a malformed one of theirs must not lock the user out). Our value is base64url: anything
 * else in it is malformed.
 */
export function findCookie(header: string | string[] | undefined, name: string): CookieLookup {
  if (typeof header !== 'string' || header.length > 16_384) return header === undefined ? { kind: 'absent' } : { kind: 'malformed' };
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{1,512}$/.test(value) ? { kind: 'value', value } : { kind: 'malformed' };
  }
  return { kind: 'absent' };
}

export function sameToken(a: string | null, b: string): boolean {
  if (!a || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** A request path decoded, or null when its escapes are malformed or it carries bytes no file name has. */
export function decodePath(pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  return /[\0\\]/.test(decoded) ? null : decoded;
}
