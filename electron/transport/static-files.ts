// Serves the built renderer like a product: compressed (brotli or gzip, as the browser accepts),
// hashed assets cached for good, index.html revalidated, source maps never.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

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
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json']);
/** Vite names bundled files `assets/<name>-<hash>.<ext>`: their content never changes under that name. */
const HASHED = /(^|\/)assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

export type Encoding = 'br' | 'gzip' | 'identity';

/** Picks brotli, then gzip, from Accept-Encoding (a q=0 refuses that coding). */
export function negotiateEncoding(accept: string | string[] | undefined): Encoding {
  if (typeof accept !== 'string') return 'identity';
  const offered = new Map<string, number>();
  for (const part of accept.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    offered.set(name!.trim(), q ? Number(q[1]) : 1);
  }
  const ok = (n: string) => (offered.get(n) ?? offered.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return 'identity';
}

interface Loaded {
  body: Buffer;
  mtimeMs: number;
}

export class StaticFiles {
  private readonly root: string;
  /** Compressed bodies by file and coding, checked against the file's mtime (a rebuild replaces them). */
  private readonly cache = new Map<string, Loaded>();

  constructor(root: string) {
    this.root = normalize(root);
  }

  hasIndex(): boolean {
    return this.fileAt('index.html') !== null;
  }

  /** The file a decoded request path names inside the root, else null (outside the root, missing, a folder, a map). */
  private fileAt(relative: string): string | null {
    const file = normalize(join(this.root, relative));
    if (!file.startsWith(this.root + sep)) return null;
    if (file.endsWith('.map')) return null;
    try {
      return statSync(file).isFile() ? file : null;
    } catch {
      return null;
    }
  }

  /**
   * Answers a GET/HEAD for `decodedPath`. Unknown paths get index.html (the app routes itself),
   * except under /assets/, where a missing file is a 404 (a stale tab asking for an old bundle).
   */
  serve(req: IncomingMessage, res: ServerResponse, decodedPath: string, headers: Record<string, string>): void {
    let file = this.fileAt(decodedPath);
    if (!file) {
      if (decodedPath.startsWith('/assets/') || decodedPath.endsWith('.map')) {
        res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not found.\n');
        return;
      }
      file = this.fileAt('index.html');
    }
    if (!file) {
      res.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('The UI is not built: run `npm run build:renderer`, then restart the engine.\n');
      return;
    }
    const ext = extname(file);
    const rel = file
      .slice(this.root.length + 1)
      .split(sep)
      .join('/');
    const encoding = COMPRESSIBLE.has(ext) ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
    const body = this.body(file, encoding);
    const cache = ext === '.html' ? 'no-cache' : HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'public, max-age=3600';
    res.writeHead(200, {
      ...headers,
      'content-type': MIME[ext] ?? 'application/octet-stream',
      'cache-control': cache,
      'content-length': String(body.length),
      vary: 'accept-encoding',
      ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private body(file: string, encoding: Encoding): Buffer {
    const key = `${encoding}:${file}`;
    const mtimeMs = statSync(file).mtimeMs;
    const hit = this.cache.get(key);
    if (hit && hit.mtimeMs === mtimeMs) return hit.body;
    const raw = readFileSync(file);
    const body =
      encoding === 'br' ? brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } }) : encoding === 'gzip' ? gzipSync(raw, { level: 9 }) : raw;
    this.cache.set(key, { body, mtimeMs });
    return body;
  }
}
