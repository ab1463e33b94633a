// generateTarget: a serve's /generate address parsed once per serve URL, for the reservation and the
// call of every request (serve-socket-pool.ts).
import { describe, expect, it } from 'vitest';
import { generateTarget } from '../../../electron/engine/miner/serve-socket-pool.ts';

describe('generateTarget', () => {
  it('parses an http: serve once: the same target for every call, with its socket and request head', () => {
    const a = generateTarget('http://127.0.0.1:30000');
    expect(a).toBe(generateTarget('http://127.0.0.1:30000'));
    expect(a.url.href).toBe('http://127.0.0.1:30000/generate');
    expect(a.socket).toEqual({ host: '127.0.0.1', port: 30000, key: '127.0.0.1:30000' });
    expect(a.head).toBe('POST /generate HTTP/1.1\r\nhost: 127.0.0.1:30000\r\n');
  });

  it('takes /generate from the serve’s root, drops a path or query, and reads the default port and IPv6 hosts', () => {
    const p = generateTarget('http://serve.local/some/path?x=1');
    expect(p.url.href).toBe('http://serve.local/generate');
    expect(p.socket).toEqual({ host: 'serve.local', port: 80, key: 'serve.local:80' });
    expect(p.head).toBe('POST /generate HTTP/1.1\r\nhost: serve.local\r\n');
    const v6 = generateTarget('http://[::1]:8080/');
    expect(v6.socket).toEqual({ host: '::1', port: 8080, key: '::1:8080' });
    expect(v6.head).toBe('POST /generate HTTP/1.1\r\nhost: [::1]:8080\r\n');
  });

  it('gives https: serves no socket target (they go through Node’s client)', () => {
    const t = generateTarget('https://serve.example:443');
    expect(t.socket).toBeNull();
    expect(t.url.href).toBe('https://serve.example/generate');
  });

  it('throws on an address that is not one, every time (a failure is not kept)', () => {
    for (const bad of ['', 'not a url', '__proto__', 'constructor', 'http://', '://x']) {
      expect(() => generateTarget(bad), bad).toThrow(TypeError);
      expect(() => generateTarget(bad), bad).toThrow(TypeError);
    }
  });

  it('stays right past its bound: made-up addresses do not grow it without end, and known ones parse again', () => {
    const first = generateTarget('http://10.0.0.1:1');
    for (let i = 2; i < 200; i++) expect(generateTarget(`http://10.0.0.1:${i}`).socket?.port).toBe(i);
    const again = generateTarget('http://10.0.0.1:1');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
