import type { InvokeMap, InvokeMethod } from '../../shared/api.ts';
import { INVOKE_METHODS } from '../../shared/api.ts';
import { AppFailure, errorMessage } from '../../shared/errors.ts';
import { err, ok, type Result } from '../../shared/result.ts';
import { validateRequest } from './validate.ts';

export type Handler<M extends InvokeMethod> = (req: InvokeMap[M]['req']) => Promise<InvokeMap[M]['res']> | InvokeMap[M]['res'];
export type HandlerTable = { [M in InvokeMethod]: Handler<M> };

function isMethod(m: unknown): m is InvokeMethod {
  return typeof m === 'string' && (INVOKE_METHODS as readonly string[]).includes(m);
}

/**
 * The single entry both transports call: unknown methods and malformed requests are refused
 * here (validation runs inside the same boundary as the handler), services throw AppFailure for expected errors, and anything else becomes `internal`
 * without leaking a stack to the UI.
 */
export async function dispatch(table: HandlerTable, method: unknown, rawReq: unknown, onInternal?: (e: unknown) => void): Promise<Result<unknown>> {
  try {
    if (!isMethod(method) || !Object.hasOwn(table, method)) {
      const shown = typeof method === 'string' ? method.slice(0, 80) : typeof method;
      return err('unknown-method', `The engine has no action "${shown}". Update the app so the window and engine match.`);
    }
    const checked = validateRequest(method, rawReq);
    if (!checked.ok) return checked;
    const handler = table[method] as Handler<InvokeMethod>;
    return ok(await handler(checked.value as never));
  } catch (e) {
    if (e instanceof AppFailure) return err(e.code, e.message, e.detail);
    try {
      onInternal?.(e);
    } catch {
      // a failing reporter must not turn a refused request into a crash
    }
    return err('internal', 'Something went wrong inside the engine. The Logs page has the details; a diagnostics export helps support.', errorMessage(e));
  }
}
