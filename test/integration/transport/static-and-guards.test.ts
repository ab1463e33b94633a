import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, get as httpGet, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { StaticFiles, negotiateEncoding } from '../../../electron/transport/static-files.ts';
import { cookieNameFor, decodePath, findCookie, hostAllowed, originAllowed } from '../../../electron/transport/http-guards.ts';

describe('header guards', () => {
  it('answers loopback names, the configured host, and IP literals only when bound to every interface', () => {
    expect(hostAllowed('127.0.0.1:7853', '127.0.0.1')).toBe(true);
    expect(hostAllowed('localhost:17853', '127.0.0.1')).toBe(true);
    expect(hostAllowed('[::1]:7853', '127.0.0.1')).toBe(true);
    expect(hostAllowed('evil.example:7853', '127.0.0.1')).toBe(false);
    expect(hostAllowed('192.168.1.20:7853', '127.0.0.1')).toBe(false);
    expect(hostAllowed('192.168.1.20:7853', '192.168.1.20')).toBe(true);
    expect(hostAllowed('rig.lan:7853', 'rig.lan')).toBe(true);
    expect(hostAllowed('10.0.0.7:7853', '0.0.0.0')).toBe(true);
    expect(hostAllowed('attacker.test:7853', '0.0.0.0')).toBe(false);
    expect(hostAllowed('panel.example.org', '127.0.0.1', ['Panel.Example.org'])).toBe(true);
    expect(hostAllowed('other.example.org', '127.0.0.1', ['panel.example.org'])).toBe(false);
    for (const junk of [undefined, '', 'a b', 'x'.repeat(300), 'host\u0000', '[::1']) expect(hostAllowed(junk, '127.0.0.1')).toBe(false);
  });

  it("takes only the page's own origin, or none", () => {
    expect(originAllowed(undefined, '127.0.0.1:7853')).toBe(true);
    expect(originAllowed('http://127.0.0.1:7853', '127.0.0.1:7853')).toBe(true);
    expect(originAllowed('https://panel.example', 'panel.example')).toBe(true);
    expect(originAllowed('http://127.0.0.1:9999', '127.0.0.1:7853')).toBe(false);
    expect(originAllowed('null', '127.0.0.1:7853')).toBe(false);
    expect(originAllowed('http://127.0.0.1:7853', undefined)).toBe(false);
  });

  it("finds its own cookie without decoding anyone else's, and names it per engine", () => {
    const name = cookieNameFor('a'.repeat(32));
    expect(name).toMatch(/^engy_token_[0-9a-f]{12}$/);
    expect(cookieNameFor('b'.repeat(32))).not.toBe(name);
    expect(findCookie(undefined, name)).toEqual({ kind: 'absent' });
    expect(findCookie(`other=%; ${name}=abc_DEF-123`, name)).toEqual({ kind: 'value', value: 'abc_DEF-123' });
    expect(findCookie(`${name}=%`, name)).toEqual({ kind: 'malformed' });
    expect(findCookie(`${name}=a b`, name)).toEqual({ kind: 'malformed' });
    expect(findCookie('engy_token=%', name)).toEqual({ kind: 'absent' });
    expect(findCookie('x'.repeat(20_000), name)).toEqual({ kind: 'malformed' });
  });

  it('decodes paths or says they are malformed', () => {
    expect(decodePath('/assets/a%20b.js')).toBe('/assets/a b.js');
    for (const bad of ['/%', '/%E0%A4%A', '/%00', '/a%5Cb']) expect(decodePath(bad)).toBeNull();
  });

  it('negotiates brotli, then gzip, honouring q=0', () => {
    const cases: [string | undefined, string][] = [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.5', 'gzip'],
      ['*', 'br'],
      ['identity', 'identity'],
      [undefined, 'identity'],
      ['%%%;q=;;', 'identity'],
    ];
    for (const [accept, chosen] of cases) expect(negotiateEncoding(accept), String(accept)).toBe(chosen);
  });
});

describe('static files', () => {
  let server: Server;
  let base: string;
  const js = `console.log(${JSON.stringify('x'.repeat(5000))});\n`;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'engy-static-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(root, 'assets', 'index-Bx7_k2Qa.js'), js);
    writeFileSync(join(root, 'assets', 'index-Bx7_k2Qa.js.map'), '{}');
    writeFileSync(join(root, 'favicon.svg'), '<svg/>');
    const files = new StaticFiles(root);
    server = createServer((req, res) => files.serve(req, res, decodePath(new URL(req.url!, 'http://x').pathname)!, {}));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** node:http, not fetch: fetch would undo the compression this test is about. */
  const get = (path: string, enc?: string) =>
    new Promise<{ status: number; headers: { get(h: string): string | null }; body: Buffer; text(): string }>((resolve, reject) => {
      httpGet(`${base}${path}`, { headers: enc ? { 'accept-encoding': enc } : {} }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          const body = Buffer.concat(parts);
          const h = res.headers;
          resolve({ status: res.statusCode ?? 0, headers: { get: (n) => (h[n] === undefined ? null : String(h[n])) }, body, text: () => body.toString() });
        });
      }).on('error', reject);
    });

  it('sends hashed assets compressed and immutable', async () => {
    const br = await get('/assets/index-Bx7_k2Qa.js', 'br, gzip');
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(br.headers.get('vary')).toBe('accept-encoding');
    const raw = br.body;
    expect(raw.length).toBeLessThan(js.length / 10);
    expect(brotliDecompressSync(raw).toString()).toBe(js);
    const gz = await get('/assets/index-Bx7_k2Qa.js', 'gzip');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(js);
    const plain = await get('/assets/index-Bx7_k2Qa.js', 'identity');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.text()).toBe(js);
  });

  it('revalidates index.html, routes unknown pages to it, and never serves a source map', async () => {
    const index = await get('/');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.text()).toContain('<title>t</title>');
    expect((await get('/settings')).status).toBe(200);
    expect((await get('/assets/index-Bx7_k2Qa.js.map')).status).toBe(404);
    expect((await get('/assets/gone-Zz9_old1.js')).status).toBe(404);
    expect((await get('/../../etc/passwd')).status).toBe(200); // normalised by the URL parser to /etc/passwd: index.html
    expect((await get('/favicon.svg')).headers.get('cache-control')).toBe('public, max-age=3600');
  });
});
