// Command-line values checked before anything starts, so a typo is a sentence at once rather than a
// raw system error later (or, for a serve URL, a failure on every request). The rules shared with
// Settings live in shared/ (one home each); this file only words them for flags.
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import { isIP } from 'node:net';
import { BTCLI_NAME, BTCLI_NAME_RULE } from '../../shared/settings.ts';

/** Shows control characters as escapes, so a value quoted back never becomes a line of its own. */
const shown = (raw: string): string => JSON.stringify(raw).slice(1, -1);

export function serveUrlProblem(raw: string): string | null {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // answered below
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return null;
  return `--serve-url wants http:// or https:// URLs of sglang serves, got "${shown(raw)}"`;
}

export function workerNameProblem(raw: string): string | null {
  return BTCLI_NAME.test(raw) ? null : `--worker-name ${BTCLI_NAME_RULE}, got "${shown(raw)}"`;
}

/** A host name's shape (RFC 1123 labels) or an IP literal; what is refused never reaches the resolver. */
export function hostSyntaxProblem(raw: string): string | null {
  const bare = raw.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return null;
  if (raw.length <= 253 && /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?$/.test(raw)) return null;
  return `--host "${shown(raw)}" is not a host name or IP address`;
}

/**
 * Whether this machine can listen on `host` (a trial bind on a free port): a name that does not
 * resolve, or an address that is not this machine's, is a sentence instead of ENOTFOUND/EADDRNOTAVAIL.
 */
export async function listenHostProblem(host: string): Promise<string | null> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) {
    try {
      await lookup(bare);
    } catch {
      return `--host ${host} does not resolve to an address of this machine: use 127.0.0.1 (and an SSH tunnel), 0.0.0.0 for every interface, or one of this machine's addresses (ip -brief address).`;
    }
  }
  const code = await new Promise<string | null>((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    probe.listen(0, bare, () => probe.close(() => resolve(null)));
  });
  if (code === null) return null;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAFNOSUPPORT') {
    return `--host ${host} is not an address of this machine: use 127.0.0.1 (and an SSH tunnel), 0.0.0.0 for every interface, or one of this machine's addresses (ip -brief address).`;
  }
  return null; // anything else (a permission, a busy port) is met, and worded, by the real listen
}
