import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { WsTransport } from './ws-transport.ts';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Same policy as the desktop window: our own scripts only, WebSocket back to this origin. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

const COOKIE = 'engy_token';

export interface HeadlessServerOptions {
  host: string;
  port: number;
  /** The built renderer (dist-renderer/). */
  staticDir: string;
  transport: WsTransport;
  /** Extra authenticated GET routes (e.g. /metrics). */
  routes?: Record<string, (res: ServerResponse) => void>;
  token?: string;
}

export interface HeadlessServer {
  url: string;
  token: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || host.startsWith('127.');
}

function tokenFrom(req: IncomingMessage): string | null {
  const url = new URL(req.url ?? '/', 'http://x');
  const q = url.searchParams.get('token');
  if (q) return q;
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7);
  const cookie = req.headers.cookie?.split(/;\s*/).find((c) => c.startsWith(`${COOKIE}=`));
  return cookie ? decodeURIComponent(cookie.slice(COOKIE.length + 1)) : null;
}

function sameToken(a: string | null, b: string): boolean {
  if (!a || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

function refuse(res: ServerResponse): void {
  res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end('401: this engy panel engine needs the token from the URL it printed at start. Open that URL.\n');
}

/**
 * Serves the built renderer and the WebSocket transport. Every HTTP request and upgrade needs
 * the per-start token (query, bearer header, or the cookie set when the tokened URL is opened).
 */
export async function startHeadlessServer(opts: HeadlessServerOptions): Promise<HeadlessServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const root = normalize(opts.staticDir);
  const server = createServer((req, res) => {
    if (!sameToken(tokenFrom(req), token)) return refuse(res);
    const url = new URL(req.url ?? '/', 'http://x');
    const headers: Record<string, string> = {
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'set-cookie': `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
    };
    const route = opts.routes?.[url.pathname];
    if (route) return route(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, headers);
      return res.end();
    }
    let file = normalize(join(root, decodeURIComponent(url.pathname)));
    if (!file.startsWith(root + sep) && file !== root) {
      res.writeHead(404, headers);
      return res.end();
    }
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(root, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      return res.end('The UI is not built: run `npm run build:renderer`, then restart the engine.\n');
    }
    res.writeHead(200, { ...headers, 'content-type': MIME[extname(file)] ?? 'application/octet-stream', 'cache-control': file.endsWith('index.html') ? 'no-store' : 'max-age=3600' });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/ws' || !sameToken(tokenFrom(req), token)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    opts.transport.handleUpgrade(req, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
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
