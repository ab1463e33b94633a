// HTTP to the sglang serves: `/generate` bodies streamed as raw bytes (never buffered whole:
// the final event can be hundreds of MB), and `/abort_request` on its own agent so an abort
// can never queue behind the generation it is meant to stop.
import http from 'node:http';
import https from 'node:https';
import { postOverSocket } from './serve-socket.ts';
import { generateTarget, ServeSocketPool, type ReservedConnection } from './serve-socket-pool.ts';

export class ServeHttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ServeHttpError';
    this.status = status;
  }
}

export interface ServeAgents {
  generate: http.Agent;
  abort: http.Agent;
  /** Kept-alive connections for generation on `http:` serves (serve-socket-pool.ts). */
  sockets: ServeSocketPool;
}

export function createServeAgents(): ServeAgents {
  return {
    // Generation on `https:` serves: one socket per request in flight, however many the gateway routes.
    generate: new http.Agent({ keepAlive: true, maxSockets: Infinity }),
    // Aborts: a small pool of their own.
    abort: new http.Agent({ keepAlive: true, maxSockets: 8 }),
    // Generation on `http:` serves, read over serve-socket.ts.
    sockets: new ServeSocketPool(),
  };
}

export function destroyServeAgents(a: ServeAgents): void {
  a.generate.destroy();
  a.abort.destroy();
  a.sockets.destroy();
}

function transport(url: URL): typeof http | typeof https {
  return url.protocol === 'https:' ? https : http;
}

/**
 * POSTs `body` to `<serve>/generate` and feeds every response byte to `onBytes`. Resolves at the
 * end of the body; rejects with ServeHttpError (the serve's own message) on a non-2xx answer,
 * or with the socket error (e.g. the serve tore the connection down after an abort).
 *
 * `onBytes` may be handed a view of a buffer that is reused for the next read: it must copy
 * whatever it keeps before it returns (or before its returned promise settles). `http:` serves
 * are read over serve-socket.ts (one reused read buffer per connection, kept alive in `sockets`
 * when given, `agent` unused); `https:` serves keep Node's https client on `agent`.
 */
export function postGenerate(
  serveUrl: string,
  body: unknown,
  agent: http.Agent,
  onBytes: (chunk: Buffer) => void | Promise<void>,
  opts: { timeoutMs: number; signal?: AbortSignal; sockets?: ServeSocketPool; reserved?: ReservedConnection },
): Promise<void> {
  const target = generateTarget(serveUrl);
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  if (target.socket) return postOverSocket(target, payload, onBytes, { ...opts, httpError: serveHttpError });
  return postGenerateViaAgent(target.url, payload, agent, onBytes, { timeoutMs: opts.timeoutMs, signal: opts.signal });
}

/** Node's http(s) client on a kept-alive agent: the `https:` path (and its stale-socket retry rule). */
export function postGenerateViaAgent(url: URL, payload: Buffer, agent: http.Agent, onBytes: (chunk: Buffer) => void | Promise<void>, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const attempt = (retried: boolean): void => {
      let answered = false;
      const req = transport(url).request(
        url,
        {
          method: 'POST',
          agent: url.protocol === 'https:' ? undefined : agent,
          headers: { 'content-type': 'application/json', 'content-length': payload.length },
          timeout: opts.timeoutMs,
          signal: opts.signal,
        },
        (res) => {
          answered = true;
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            const parts: Buffer[] = [];
            let size = 0;
            res.on('data', (c: Buffer) => {
              if (size < 64 * 1024) parts.push(c);
              size += c.length;
            });
            res.on('end', () => reject(new ServeHttpError(status, serveErrorMessage(status, Buffer.concat(parts).toString('utf8')))));
            res.on('error', reject);
            return;
          }
          res.on('data', (c: Buffer) => {
            try {
              const wait = onBytes(c);
              // Backpressure: the parser is behind, so stop reading the socket until it catches up.
              if (wait) {
                res.pause();
                wait.then(
                  () => res.resume(),
                  (e: unknown) => req.destroy(e as Error),
                );
              }
            } catch (e) {
              req.destroy(e as Error);
            }
          });
          res.on('end', () => resolve());
          res.on('error', reject);
          res.on('aborted', () => reject(new Error('the serve closed the response before its end')));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from the serve within ${Math.round(opts.timeoutMs / 1000)} s`)));
      req.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive socket the serve closed while idle (uvicorn drops them after 5 s) fails the next request
        // before any byte comes back; the serve never saw it, so one retry on a fresh socket is safe.
        if (!retried && !answered && req.reusedSocket && !opts.signal?.aborted && staleSocketCodes.has(e.code ?? '')) {
          attempt(true);
          return;
        }
        reject(e);
      });
      req.end(payload);
    };
    attempt(false);
  });
}

const staleSocketCodes = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** Best effort: the cancel flag already stops us; this stops the GPU burning tokens for nobody. */
export function postAbort(serveUrl: string, rid: string, agent: http.Agent, timeoutMs = 10_000): Promise<number> {
  const url = new URL('/abort_request', serveUrl);
  const payload = Buffer.from(JSON.stringify({ rid }), 'utf8');
  return new Promise<number>((resolve, reject) => {
    const req = transport(url).request(
      url,
      { method: 'POST', agent: url.protocol === 'https:' ? undefined : agent, headers: { 'content-type': 'application/json', 'content-length': payload.length }, timeout: timeoutMs },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('abort timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** What a non-2xx answer on a kept socket rejects with (one function for every call, not one per call). */
const serveHttpError = (status: number, text: string): ServeHttpError => new ServeHttpError(status, serveErrorMessage(status, text));

/** sglang's error envelope `{"error": {"message": ...}}`, shortened; else the status and the body's start. */
export function serveErrorMessage(status: number, text: string): string {
  try {
    const v = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const m = typeof v.error === 'string' ? v.error : (v.error?.message ?? v.message ?? v.detail);
    if (typeof m === 'string') return `serve ${status}: ${m}`;
  } catch {
    // not JSON
  }
  return `serve ${status}: ${text.slice(0, 200)}`;
}
