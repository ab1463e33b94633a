// Inputs are validated where they enter the main side: the renderer is not trusted. The shapes are
// the valibot schemas of shared/contract-schemas.ts; this file looks the method up (own properties
// only, so "constructor" is no method) and turns the first problems into one sentence naming the field.
import * as v from 'valibot';
import type { InvokeMap, InvokeMethod } from '../../shared/api.ts';
import { REQUEST_SCHEMAS } from '../../shared/contract-schemas.ts';
import { err, ok, type Result } from '../../shared/result.ts';

const quote = (key: unknown) => JSON.stringify(String(key).slice(0, 64));

/** One issue as words: which field, and what it must be. Never the value (it may be a secret). */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = issue.path?.map((p) => String(p.key)) ?? [];
  const field = path.join('.');
  if (issue.kind === 'schema' && issue.type === 'strict_object') {
    if (issue.expected === 'never') return `unexpected field ${quote(path[path.length - 1])}`;
    if (issue.expected?.startsWith('"')) return `field ${quote(field)} is missing`;
  }
  return field ? `field ${quote(field)} ${issue.message}` : issue.message;
}

export function validateRequest<M extends InvokeMethod>(method: M, req: unknown): Result<InvokeMap[M]['req']> {
  if (typeof method !== 'string' || !Object.hasOwn(REQUEST_SCHEMAS, method)) return err('unknown-method', `The engine has no action "${String(method).slice(0, 80)}".`);
  const schema = REQUEST_SCHEMAS[method] as v.GenericSchema<unknown, InvokeMap[M]['req']>;
  const parsed = v.safeParse(schema, req);
  if (parsed.success) return ok(parsed.output);
  const problems = [...new Set(parsed.issues.map(describeIssue))].slice(0, 3).join('; ');
  return err('bad-request', `The request to "${method}" was refused: ${problems}.`);
}
