// Rules about endpoints that both the Settings schema and the command line apply: one home each, so
// the panel never saves what `mine` would refuse (or the reverse).

/** A name or address of this machine's loopback interface. */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === '[::1]' || host === 'localhost' || host.startsWith('127.');
}

/**
 * Why a gateway URL must not be used, or null: the miner key travels on it, so plain ws:// is only
 * for a gateway on this machine. `name` is what the user typed it into ("--gateway", a field label).
 */
export function clearTextGatewayProblem(raw: string, name: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null; // not a URL at all: the caller's own check says so
  }
  if (url.protocol !== 'ws:' || isLoopback(url.hostname.replace(/^\[|\]$/g, ''))) return null;
  return `${name} ${raw} is plain ws:// to another machine: the miner key would travel in clear text. Use wss:// (ws:// is only for a gateway on this machine).`;
}
