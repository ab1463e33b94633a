// Last-resort handling for errors nothing else caught, shared by the shells (and usable by the daemons).
// A rejected promise nobody awaited is logged and the process goes on: it means a missing catch,
// not corrupt state. A thrown exception that reached the event loop may have left state half
// written, so the process logs one clear line, stops its services and exits with code 70 (EX_SOFTWARE).
// A peer hanging up (EPIPE, ECONNRESET) never stops it.
import type { Logger } from './engine/lib/logger.ts';
import { setListenerErrorReporter } from './engine/lib/emitter.ts';

const PEER_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

export interface ProcessGuardOptions {
  log: Pick<Logger, 'error' | 'warn'>;
  /** Stops the services (bounded by the caller); the process exits after it settles. */
  shutdown: () => Promise<void>;
  /** Injected for tests; defaults to the real process. */
  proc?: Pick<NodeJS.Process, 'on' | 'off' | 'exit'>;
  /** How long shutdown may take before the exit happens anyway. */
  shutdownMs?: number;
}

export function describeError(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}

/** True for errors a peer causes by going away: they are logged, never fatal. */
export function isPeerError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && PEER_CODES.has(code);
}

/** Installs the handlers and routes Emitter listener failures to the log; returns the uninstaller. */
export function installProcessGuards(opts: ProcessGuardOptions): () => void {
  const proc = opts.proc ?? process;
  let stopping = false;
  setListenerErrorReporter((e, origin) => opts.log.error(`an event listener (subscribed at ${origin}) failed and was skipped: ${describeError(e)}`));
  const onRejection = (reason: unknown) => {
    opts.log.error(`an operation failed and nothing handled it (the engine goes on): ${describeError(reason)}`);
  };
  const onException = (e: unknown) => {
    if (isPeerError(e)) {
      opts.log.warn(`a connection closed under a write (the engine goes on): ${describeError(e)}`);
      return;
    }
    opts.log.error(`unexpected error: ${describeError(e)}`);
    if (stopping) return;
    stopping = true;
    opts.log.error(
      'The engine stops now because its state may be inconsistent after that error. Restart it; your settings and data on disk are intact. The log above has the details for a bug report.',
    );
    const timer = setTimeout(() => proc.exit(70), opts.shutdownMs ?? 15_000);
    timer.unref();
    opts
      .shutdown()
      .catch((err: unknown) => opts.log.error(`stopping after the error failed too: ${describeError(err)}`))
      .finally(() => proc.exit(70));
  };
  proc.on('unhandledRejection', onRejection);
  proc.on('uncaughtException', onException);
  return () => {
    proc.off('unhandledRejection', onRejection);
    proc.off('uncaughtException', onException);
  };
}
