// POST /generate to an `http:` serve over a plain socket whose reads all land in ONE buffer per
// connection (net.connect's `onread` option). A 4096-token stream is ~330 MB on the wire; Node's
// http client allocates a fresh Buffer per socket read (and its parser slices it), all garbage
// for the engine thread's next scavenge. Here the body reaches `onBytes` as views of the reused
// buffer: every consumer copies what it keeps before returning (ParseJob into its block, the SSE
// text scanner into its head, self-audit with Buffer.from).
//
// One connection per call (`connection: close`): no idle socket a serve can close under us
// (uvicorn drops idle ones after 5 s), so no retry rule; the connect costs ~0.1 ms on the
// loopback against a generation's seconds (docs/performance.md).
import net from 'node:net';
import { HttpResponseReader, type BodySink } from './http-response-reader.ts';

/** One read buffer per connection: large enough that a fast loopback body takes few reads. */
export const READ_BUFFER_BYTES = 64 * 1024;
/** A non-2xx answer's body is kept up to this for its message; the rest is read and dropped. */
const ERROR_BODY_BYTES = 64 * 1024;

export interface SocketGenerateOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** What a non-2xx answer rejects with (serve-http.ts's ServeHttpError), from its status and body text. */
  httpError: (status: number, text: string) => Error;
}

function abortError(): Error {
  return Object.assign(new Error('the request to the serve was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** Resolves at the end of the body; rejects on a non-2xx answer, a framing fault, the socket's error, a timeout or an abort. */
export function postOverSocket(url: URL, payload: Buffer, onBytes: BodySink, opts: SocketGenerateOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(abortError());
      return;
    }
    const readBuf = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    let settled = false;
    let errBody: Buffer | null = null;
    let errLen = 0;
    // A wait on the sink is pending (the socket is paused), and whether the serve's EOF came meanwhile.
    let waiting = false;
    let ended = false;
    const reader = new HttpResponseReader((head) => {
      if (head.status >= 200 && head.status < 300) return onBytes;
      errBody = Buffer.allocUnsafe(ERROR_BODY_BYTES);
      return (view) => {
        const n = Math.min(view.length, ERROR_BODY_BYTES - errLen);
        if (n > 0) view.copy(errBody!, errLen, 0, n);
        errLen += n;
      };
    });

    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port === '' ? 80 : Number(url.port);
    const socket = net.connect({ host, port, onread: { buffer: readBuf, callback: (n) => drain(0, n) } });

    const cleanup = (): void => {
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
    };
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(e instanceof Error ? e : new Error(String(e)));
    };
    const finish = (): void => {
      if (settled) return;
      settled = true;
      cleanup();
      const status = reader.head?.status ?? 0;
      if (status >= 200 && status < 300) resolve();
      else reject(opts.httpError(status, errBody ? errBody.toString('utf8', 0, errLen) : ''));
    };
    const onAbort = (): void => fail(abortError());

    // Reads readBuf[from, end). False stops the socket reading: the buffer then holds bytes not read
    // yet (a sink asked to wait) or the response is over.
    function drain(from: number, end: number): boolean {
      if (settled) return false;
      let pos = from;
      try {
        while (pos < end && !reader.done) {
          pos = reader.feed(readBuf, pos, end);
          const wait = reader.takeWait();
          if (wait) {
            // Backpressure: the parser is behind. Stop reading (the next read would overwrite the
            // bytes after `pos`) until it catches up, then read the rest of this buffer first.
            socket.pause();
            waiting = true;
            const at = pos;
            wait.then(() => {
              waiting = false;
              if (!drain(at, end)) return;
              if (ended) onEnd();
              else socket.resume();
            }, fail);
            return false;
          }
        }
      } catch (e) {
        fail(e);
        return false;
      }
      if (reader.done) {
        finish();
        return false;
      }
      return true;
    }

    socket.setNoDelay(true);
    // Idle timeout, as http.request's `timeout`: no byte either way for this long.
    socket.setTimeout(opts.timeoutMs, () => fail(new Error(`no answer from the serve within ${Math.round(opts.timeoutMs / 1000)} s`)));
    socket.on('error', fail);
    const onEnd = (): void => {
      if (settled) return;
      if (waiting) {
        ended = true;
        return;
      }
      try {
        reader.eof();
        finish();
      } catch (e) {
        fail(e);
      }
    };
    socket.on('end', onEnd);
    socket.on('close', () => fail(new Error('the serve closed the connection before the end of its answer')));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${payload.length}\r\nconnection: close\r\n\r\n`;
    // No end(): a half-closed request reads as a client gone to some servers (h11 cancels it).
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
  });
}
