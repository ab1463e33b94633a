// POST /generate to an `http:` serve over a plain socket whose reads all land in ONE buffer per
// connection (net.connect's `onread` option). A 4096-token stream is ~330 MB on the wire; Node's
// http client allocates a fresh Buffer per socket read (and its parser slices it), all garbage
// for the engine thread's next scavenge. Here the body reaches `onBytes` as views of the reused
// buffer: every consumer copies what it keeps before returning (ParseJob into its block, the SSE
// text scanner into its head, self-audit with Buffer.from).
//
// With a ServeSocketPool the connection is kept alive for the next request to the same serve
// (serve-socket-pool.ts says why); a request on a kept socket that the serve closed meanwhile
// fails before any byte comes back, so the serve never saw it, and is retried once on a fresh
// connection. Without a pool: one connection per call (`connection: close`).
import { HttpResponseReader, type BodySink } from './http-response-reader.ts';
import { openServeConnection, type GenerateTarget, type ReservedConnection, type ServeConnection, type ServeSocketPool } from './serve-socket-pool.ts';

export { READ_BUFFER_BYTES } from './serve-socket-pool.ts';

/** A non-2xx answer's body is kept up to this for its message; the rest is read and dropped. */
const ERROR_BODY_BYTES = 64 * 1024;

export interface SocketGenerateOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** What a non-2xx answer rejects with (serve-http.ts's ServeHttpError), from its status and body text. */
  httpError: (status: number, text: string) => Error;
  /** Kept-alive connections; without it each call opens and closes its own. */
  sockets?: ServeSocketPool;
  /** A connection set aside for this request (serve-socket-pool.ts), used first if it goes to this serve. */
  reserved?: ReservedConnection;
}

function abortError(): Error {
  return Object.assign(new Error('the request to the serve was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** A kept-alive socket the serve had closed: the request never reached it. */
class StaleConnection extends Error {}

const staleCodes = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** Resolves at the end of the body; rejects on a non-2xx answer, a framing fault, the socket's error, a timeout or an abort. */
export async function postOverSocket(target: GenerateTarget, payload: Buffer, onBytes: BodySink, opts: SocketGenerateOptions): Promise<void> {
  const { host, port, key } = target.socket!;
  const kept = opts.reserved?.take(key) ?? opts.sockets?.take(key) ?? null;
  if (kept) {
    try {
      return await exchange(kept, key, target.head, payload, onBytes, opts);
    } catch (e) {
      if (!(e instanceof StaleConnection)) throw e;
    }
  }
  return exchange(openServeConnection(host, port), key, target.head, payload, onBytes, opts);
}

/**
 * One request and its answer on `conn` (`head`: its request line and host header); a kept connection
 * closed before any answer byte rejects with StaleConnection.
 */
function exchange(conn: ServeConnection, key: string, head: string, payload: Buffer, onBytes: BodySink, opts: SocketGenerateOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (opts.signal?.aborted) {
      conn.socket.destroy();
      reject(abortError());
      return;
    }
    const socket = conn.socket;
    const readBuf = conn.buffer;
    const reused = conn.parked;
    let answered = false;
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

    const detach = (): void => {
      opts.signal?.removeEventListener('abort', onAbort);
      conn.onRead = () => false;
      conn.onEnd = conn.onClose = conn.onError = conn.onTimeout = () => undefined;
    };
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      detach();
      socket.destroy();
      const code = (e as NodeJS.ErrnoException).code ?? '';
      const stale = reused && !answered && !opts.signal?.aborted && (e instanceof StaleConnection || staleCodes.has(code));
      reject(stale ? (e instanceof StaleConnection ? e : new StaleConnection(`the kept-alive connection failed before any answer: ${code}`)) : e instanceof Error ? e : new Error(String(e)));
    };
    // `clean`: the answer ended exactly at the end of the bytes read (nothing after it on the wire).
    // True when the connection went back to the pool (it must keep reading there).
    const finish = (clean: boolean): boolean => {
      if (settled) return false;
      settled = true;
      detach();
      const status = reader.head?.status ?? 0;
      const ok = status >= 200 && status < 300;
      const keep = opts.sockets !== undefined && ok && clean && !/(^|,)\s*close\s*(,|$)/i.test(reader.head?.headers.connection ?? '');
      if (keep) opts.sockets!.release(key, conn);
      else socket.destroy();
      if (ok) resolve();
      else reject(opts.httpError(status, errBody ? errBody.toString('utf8', 0, errLen) : ''));
      return keep;
    };
    const onAbort = (): void => fail(abortError());

    // Reads readBuf[from, end). False stops the socket reading: the buffer then holds bytes not read
    // yet (a sink asked to wait) or the response is over.
    function drain(from: number, end: number): boolean {
      if (settled) return false;
      if (end > from) answered = true;
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
      if (reader.done) return finish(pos === end && !ended);
      return true;
    }

    const onEnd = (): void => {
      if (settled) return;
      if (waiting) {
        ended = true;
        return;
      }
      if (reused && !answered) {
        fail(new StaleConnection('the serve closed the kept-alive connection before answering'));
        return;
      }
      try {
        reader.eof();
        finish(false);
      } catch (e) {
        fail(e);
      }
    };
    conn.onRead = (n) => drain(0, n);
    conn.onEnd = onEnd;
    conn.onError = fail;
    conn.onClose = () =>
      fail(reused && !answered ? new StaleConnection('the serve closed the kept-alive connection before answering') : new Error('the serve closed the connection before the end of its answer'));
    // Idle timeout, as http.request's `timeout`: no byte either way for this long.
    conn.onTimeout = () => fail(new Error(`no answer from the serve within ${Math.round(opts.timeoutMs / 1000)} s`));
    socket.setTimeout(opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const close = opts.sockets ? '' : 'connection: close\r\n';
    const rest = `content-type: application/json\r\ncontent-length: ${payload.length}\r\n${close}\r\n`;
    // No end(): a half-closed request reads as a client gone to some servers (h11 cancels it).
    socket.write(Buffer.concat([Buffer.from(head + rest, 'latin1'), payload]));
  });
}
