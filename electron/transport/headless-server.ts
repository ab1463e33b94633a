import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { WsTransport } from './ws-transport.ts';
import { cookieNameFor, decodePath, findCookie, hostAllowed, originAllowed, sameToken } from './http-guards.ts';
import { StaticFiles } from './static-files.ts';
import { guardConnections } from './connection-guard.ts';
import type { Socket } from 'node:net';
import { unauthorizedPage } from './unauthorized-page.ts';

export { isLoopback } from './http-guards.ts';

/** Same policy as the desktop window: our own scripts only, WebSocket back to this origin. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export interface HeadlessServerOptions {
  host: string;
  port: number;
  /** The built renderer (dist-renderer/). */
  staticDir: string;
  transport: WsTransport;
  /** Extra authenticated GET routes (e.g. /metrics). */
  routes?: Record<string, (res: ServerResponse) => void | Promise<void>>;
  token?: string;
  /** Where a request that could not be answered is reported (never the user's token). */
  onError?: (e: unknown) => void;
  /** Extra Host names to answer (a reverse proxy's public name). */
  allowedHosts?: readonly string[];
}

export interface HeadlessServer {
  url: string;
  token: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

type TokenFound = { kind: 'token'; value: string | null } | { kind: 'malformed' };

/** The token from the query, a bearer header or our cookie; a malformed cookie is reported, not thrown. */
function tokenFrom(req: IncomingMessage, url: URL, cookieName: string): TokenFound {
  const q = url.searchParams.get('token');
  if (q) return { kind: 'token', value: q };
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return { kind: 'token', value: auth.slice(7) };
  const c = findCookie(req.headers.cookie, cookieName);
  if (c.kind === 'malformed') return { kind: 'malformed' };
  return { kind: 'token', value: c.kind === 'value' ? c.value : null };
}

function plain(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(text);
}

function rawRefusal(socket: Duplex, status: string, text = ''): void {
  if (socket.destroyed) return;
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

/** Parses a request target without throwing: null means answer 400. */
function parseTarget(raw: string | undefined): URL | null {
  if (!raw || raw.length > 8192 || !raw.startsWith('/')) return null;
  try {
    return new URL(raw, 'http://engine.invalid');
  } catch {
    return null;
  }
}

const MISDIRECTED = 'This engine does not answer that Host name. Open the URL the engine printed (or your SSH tunnel at 127.0.0.1).\n';

/**
 * Serves the built renderer and the WebSocket transport. Every HTTP request and upgrade needs
 * the token (query, bearer header, or the engine's own cookie set when the tokened URL is
 * opened), a Host this engine answers for, and for upgrades an Origin that is the page itself.
 * No header, path or escape a client sends can throw out of here: it gets a 4xx.
 */
export async function startHeadlessServer(opts: HeadlessServerOptions): Promise<HeadlessServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const cookieName = cookieNameFor(token);
  const files = new StaticFiles(opts.staticDir);
  const report = (e: unknown) => {
    try {
      opts.onError?.(e);
    } catch {
      // a reporter that throws must not become the next crash
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = parseTarget(req.url);
    if (!url) return plain(res, 400, 'Bad request: the path is not a valid URL path.\n');
    if (!hostAllowed(req.headers.host, opts.host, opts.allowedHosts)) return plain(res, 421, MISDIRECTED);
    const found = tokenFrom(req, url, cookieName);
    if (found.kind === 'malformed') return plain(res, 400, "Bad request: the engine cookie is malformed. Clear this site's cookies and open the printed URL again.\n");
    if (!sameToken(found.value, token)) {
      res.writeHead(401, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff' });
      res.end(unauthorizedPage());
      return;
    }
    guard.authenticated(req.socket);
    const headers: Record<string, string> = {
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'set-cookie': `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
    };
    const route = Object.hasOwn(opts.routes ?? {}, url.pathname) ? opts.routes![url.pathname] : undefined;
    if (route) {
      const done = route(res);
      if (done instanceof Promise) done.catch((e: unknown) => (report(e), plain(res, 500, 'The route failed; the engine log has the details.\n')));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const path = decodePath(url.pathname);
    if (path === null) return plain(res, 400, 'Bad request: the path has a malformed %-escape.\n');
    files.serve(req, res, path, headers);
  };

  // Whole headers within 10 s and a whole request within 30 s, checked every second: a client
  // dripping a byte at a time cannot hold a descriptor for long.
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 }, (req, res) => {
    res.on('error', report);
    try {
      handle(req, res);
    } catch (e) {
      report(e);
      plain(res, 500, 'The engine could not answer this request; its log has the details.\n');
    }
  });
  const guard = guardConnections(server);
  // A client that sends garbage or drops the connection is answered (or dropped) by the server, never thrown.
  server.on('clientError', (e: NodeJS.ErrnoException, socket: Duplex) => {
    if (e.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    rawRefusal(socket, e.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request');
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    try {
      const url = parseTarget(req.url);
      if (!url) return rawRefusal(socket, '400 Bad Request');
      if (!hostAllowed(req.headers.host, opts.host, opts.allowedHosts)) return rawRefusal(socket, '421 Misdirected Request', MISDIRECTED);
      if (!originAllowed(typeof req.headers.origin === 'string' ? req.headers.origin : undefined, req.headers.host)) {
        return rawRefusal(socket, '403 Forbidden', 'Only the page this engine served may open its WebSocket.\n');
      }
      const found = tokenFrom(req, url, cookieName);
      if (found.kind === 'malformed') return rawRefusal(socket, '400 Bad Request');
      if (url.pathname !== '/ws' || !sameToken(found.value, token)) return rawRefusal(socket, '401 Unauthorized');
      if (opts.transport.full) return rawRefusal(socket, '503 Service Unavailable', 'Too many open connections to this engine: close other tabs and retry.\n');
      guard.authenticated(socket as Socket);
      opts.transport.handleUpgrade(req, socket, head);
    } catch (e) {
      report(e);
      rawRefusal(socket, '500 Internal Server Error');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', report);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    token,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
