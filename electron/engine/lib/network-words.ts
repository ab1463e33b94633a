// Network failures in words a user can act on. Node's fetch says only "fetch failed" and hides the
// real cause (ENOTFOUND, ECONNREFUSED...) a level or two down in `cause`: dig it out and name it.
import { AppFailure, errorMessage } from '../../../shared/errors.ts';

const CODE_WORDS: Record<string, string> = {
  ENOTFOUND: 'the name does not resolve: this machine looks offline, or the address is mistyped',
  EAI_AGAIN: 'the name could not be looked up right now: this machine looks offline or its DNS is down',
  ECONNREFUSED: 'nothing is listening at that address',
  ECONNRESET: 'the connection was cut',
  ETIMEDOUT: 'it did not answer in time',
  EHOSTUNREACH: 'the host cannot be reached from this network',
  ENETUNREACH: 'this machine has no route to the network: it looks offline',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  UND_ERR_CONNECT_TIMEOUT: 'it did not answer in time',
  UND_ERR_SOCKET: 'the connection was cut',
};

function codeOf(e: unknown): string | null {
  let cur: unknown = e;
  for (let depth = 0; depth < 5 && cur && typeof cur === 'object'; depth++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string' && c.length > 0) return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return null;
}

/** "the name does not resolve: this machine looks offline..." rather than "fetch failed" or "getaddrinfo ENOTFOUND x". */
export function describeNetworkError(e: unknown): string {
  const code = codeOf(e);
  if (code && CODE_WORDS[code]) return CODE_WORDS[code];
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) return 'it did not answer in time';
  const msg = errorMessage(e);
  const http = /HTTP (\d{3})/.exec(msg);
  if (http) return `it answered HTTP ${http[1]}`;
  if (/fetch failed/i.test(msg)) return 'the connection failed';
  // A short, already-worded message is kept; long internals are cut to one line.
  return msg.split('\n')[0]!.slice(0, 160);
}

/**
 * Why the chain could not be read, for a sentence that names the endpoint itself. The chain client's
 * own refusal ("Could not reach the chain (<url>: ...). Check ...") is a whole sentence with the URL:
 * its `detail` carries only the causes, so the URL is said once and no sentence ends in "..".
 */
export function describeChainError(e: unknown): string {
  if (e instanceof AppFailure && e.code === 'chain-unreachable' && e.detail) return e.detail;
  return describeNetworkError(e);
}
