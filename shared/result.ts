// Every invoke answers with a Result: errors are data the UI can render, never thrown across the boundary.
import type { ErrorCode } from './errors.ts';

export interface AppError {
  code: ErrorCode;
  /** One sentence that tells the user what to do. */
  message: string;
  detail?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function err<T = never>(code: ErrorCode, message: string, detail?: string): Result<T> {
  return detail === undefined ? { ok: false, error: { code, message } } : { ok: false, error: { code, message, detail } };
}
