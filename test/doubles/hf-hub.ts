// TEST DOUBLE: a local stand-in for the Hugging Face Hub's HTTP API, never shipped. It serves one
// repo's file tree (`/api/models/{repo}/tree/{rev}`, `/api/models/{repo}?blobs=true`) and its files
// (`/{repo}/resolve/{rev}/{path}`) with Range support, an optional bearer token, paginated tree
// listings, and a knob that stops part-way through a file until the test cuts the connection.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HubRequest {
  method: string;
  path: string;
  range: string | null;
  authorization: string | null;
}

export interface HfHubDoubleOptions {
  repo: string;
  files: Record<string, Uint8Array | string>;
  /** When set, every request without `Authorization: Bearer <token>` gets 401. */
  token?: string;
  /** Tree listing page size; more entries come behind a `Link: <...>; rel="next"` header. */
  pageSize?: number;
}

export class HfHubDouble {
  readonly requests: HubRequest[] = [];
  private readonly repo: string;
  private readonly files: Map<string, Buffer>;
  private readonly token: string | undefined;
  private readonly pageSize: number;
  private readonly drops = new Map<string, number>();
  private readonly held: Array<{ path: string; socket: Socket }> = [];
  private server: Server | null = null;
  url = '';

  constructor(opts: HfHubDoubleOptions) {
    this.repo = opts.repo;
    this.files = new Map(Object.entries(opts.files).map(([k, v]) => [k, Buffer.from(v)]));
    this.token = opts.token;
    this.pageSize = opts.pageSize ?? 1000;
  }

  /**
   * The next download of `path` sends `afterBytes` bytes of its body, then stalls until `cut()` destroys the socket.
   * The test cuts once the client holds the bytes (e.g. they are on disk): a cut on a timer raced the client's reads
   * on a loaded machine and could land before any byte was taken.
   */
  dropOnce(path: string, afterBytes: number): void {
    this.drops.set(path, afterBytes);
  }

  /** Destroys every stalled download's connection, as a flaky network would; throws if none is stalled. */
  cut(): void {
    if (this.held.length === 0) throw new Error('hf hub double: no download is stalled to cut');
    for (const h of this.held.splice(0)) h.socket.destroy();
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const u = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(u.pathname);
    this.requests.push({ method: req.method ?? 'GET', path, range: req.headers.range ?? null, authorization: req.headers.authorization ?? null });
    if (this.token && req.headers.authorization !== `Bearer ${this.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Invalid credentials in Authorization header' }));
      return;
    }
    const treePrefix = `/api/models/${this.repo}/tree/`;
    if (path.startsWith(treePrefix)) return this.tree(u, res);
    if (path === `/api/models/${this.repo}`) return this.info(res);
    const resolve = new RegExp(`^/${this.repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/resolve/[^/]+/(.+)$`).exec(path);
    if (resolve) return this.file(resolve[1]!, req, res);
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Repository not found' }));
  }

  private entries(): Array<Record<string, unknown>> {
    const dirs = new Set<string>();
    const out: Array<Record<string, unknown>> = [];
    for (const [p, data] of [...this.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const parts = p.split('/');
      for (let i = 1; i < parts.length; i++) {
        const d = parts.slice(0, i).join('/');
        if (!dirs.has(d)) {
          dirs.add(d);
          out.push({ type: 'directory', oid: 'd'.repeat(40), size: 0, path: d });
        }
      }
      const sha = createHash('sha256').update(data).digest('hex');
      const lfs = p.endsWith('.safetensors') ? { lfs: { oid: sha, size: data.length, pointerSize: 134 } } : {};
      out.push({ type: 'file', oid: createHash('sha1').update(data).digest('hex'), size: p.endsWith('.safetensors') ? 134 : data.length, path: p, ...lfs });
    }
    return out;
  }

  private tree(u: URL, res: ServerResponse): void {
    const all = this.entries();
    const start = Number(u.searchParams.get('cursor') ?? '0');
    const page = all.slice(start, start + this.pageSize);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (start + this.pageSize < all.length) {
      const next = new URL(u.toString());
      next.searchParams.set('cursor', String(start + this.pageSize));
      headers.link = `<${this.url}${next.pathname}${next.search}>; rel="next"`;
    }
    res.writeHead(200, headers).end(JSON.stringify(page));
  }

  private info(res: ServerResponse): void {
    const siblings = [...this.files].map(([p, d]) => ({ rfilename: p, size: d.length }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: this.repo, sha: 'f'.repeat(40), siblings }));
  }

  private file(path: string, req: IncomingMessage, res: ServerResponse): void {
    const data = this.files.get(path);
    if (!data) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    let start = 0;
    let end = data.length - 1;
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (m) {
      start = Number(m[1]);
      if (m[2]) end = Math.min(end, Number(m[2]));
      if (start >= data.length) {
        res.writeHead(416, { 'content-range': `bytes */${data.length}` }).end();
        return;
      }
    }
    const body = data.subarray(start, end + 1);
    const headers: Record<string, string | number> = { 'content-type': 'application/octet-stream', 'content-length': body.length, 'accept-ranges': 'bytes' };
    if (m) headers['content-range'] = `bytes ${start}-${end}/${data.length}`;
    res.writeHead(m ? 206 : 200, headers);
    const drop = this.drops.get(path);
    if (drop !== undefined && drop < body.length) {
      this.drops.delete(path);
      this.held.push({ path, socket: req.socket });
      res.write(body.subarray(0, drop));
      return;
    }
    res.end(body);
  }
}
