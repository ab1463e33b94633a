import type { InvokeMap, InvokeMethod } from '../../shared/api.ts';
import { err, ok, type Result } from '../../shared/result.ts';

type Check = (req: unknown) => string | null;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function only(allowed: Record<string, (v: unknown) => boolean>): Check {
  return (req) => {
    if (!isObj(req)) return 'expected an object';
    for (const [k, v] of Object.entries(req)) {
      // Own keys only: "constructor" or "toString" must not find Object.prototype's members.
      const check = Object.hasOwn(allowed, k) ? allowed[k] : undefined;
      if (!check) return `unexpected field ${JSON.stringify(k.slice(0, 64))}`;
      if (v !== undefined && !check(v)) return `field "${k}" has the wrong type`;
    }
    return null;
  };
}

/** Every listed field present and valid, nothing else. */
function required(fields: Record<string, (v: unknown) => boolean>): Check {
  const base = only(fields);
  return (req) => base(req) ?? (Object.keys(fields).find((k) => !Object.hasOwn(req as object, k) || (req as Record<string, unknown>)[k] === undefined) ? 'a required field is missing' : null);
}
/** btcli wallet and hotkey names: no path separators, no dots first. */
const name = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/.test(v);

const isNull: Check = (req) => (req === null || req === undefined ? null : 'expected no arguments');
const bool = (v: unknown) => typeof v === 'boolean';
const str = (max: number) => (v: unknown) => typeof v === 'string' && v.length <= max;
const int = (min: number, max: number) => (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const oneOf = (...vals: unknown[]) => (v: unknown) => vals.includes(v);
/** A password or mnemonic: bounded, never echoed in the refusal. */
const secretText = (min: number) => (v: unknown) => typeof v === 'string' && v.trim().length >= min && v.length <= 1024;
/** Base58 characters only; the checksum is checked where the address is used. */
const ss58 = (v: unknown) => typeof v === 'string' && /^\s*[1-9A-HJ-NP-Za-km-z]{40,60}\s*$/.test(v);
const strOrNull = (max: number) => (v: unknown) => v === null || str(max)(v);

const seriesCheck: Check = (req) => {
  const base = only({ windowMs: int(60_000, 7 * 86_400_000), points: int(10, 2000), prefix: (v) => typeof v === 'string' && /^[A-Za-z0-9_.:-]{0,40}$/.test(v) })(req);
  return base ?? ((req as Record<string, unknown>).windowMs === undefined ? 'a required field is missing' : null);
};

const CHECKS: { [M in InvokeMethod]: Check } = {
  'app.info': isNull,
  'hardware.report': only({ refresh: bool }),
  'settings.get': isNull,
  // Field by field in SettingsStore.update, with the shared schema (its bounds depend on the network).
  'settings.update': (req) => (isObj(req) ? null : 'expected an object of settings to change'),
  'logs.recent': only({ source: str(128), limit: int(1, 10_000), query: str(500) }),
  'diagnostics.export': isNull,
  'mining.start': isNull,
  'mining.stop': isNull,
  'validator.start': isNull,
  'validator.stop': isNull,
  'wallet.list': isNull,
  'wallet.createHotkey': required({ wallet: name, hotkey: name }),
  'wallet.importHotkey': required({ wallet: name, hotkey: name, secret: (v) => typeof v === 'string' && v.trim().length >= 16 && v.length <= 1024 }),
  'wallet.setMinerKey': required({ key: (v) => typeof v === 'string' && v.trim().length >= 8 && v.length <= 512 }),
  'wallet.registration': isNull,
  'wallet.register': required({
    mode: oneOf('register-limit', 'burned-register'),
    limitTao: (v) => v === null || (typeof v === 'string' && /^\d{1,9}(\.\d{1,9})?$/.test(v)),
    password: (v) => typeof v === 'string' && v.length <= 1024,
  }),
  'earnings.refresh': isNull,
  'checkpoint.refresh': isNull,
  'checkpoint.download': isNull,
  'checkpoint.cancel': isNull,
  'mining.rehearse': isNull,
  'history.audits': only({ limit: int(1, 10_000) }),
  'wallet.registerWithBrowser': (req) =>
    only({
      mode: oneOf('register-limit', 'burned-register'),
      limitTao: (v) => v === null || (typeof v === 'string' && /^\d{1,9}(\.\d{1,9})?$/.test(v)),
      coldkey: ss58,
    })(req) ?? (isObj(req) && (req.mode === undefined || req.limitTao === undefined) ? 'a required field is missing' : null),
  'wallet.createColdkey': required({ wallet: name, password: secretText(1) }),
  'wallet.importColdkey': required({ wallet: name, secret: secretText(16), password: secretText(1) }),
  'wallet.setColdkeyAddress': required({ wallet: name, address: ss58 }),
  'wallet.verifyMinerKey': isNull,
  'hardware.alternatives': isNull,
  'serve.detectRuntimes': required({ refresh: bool }),
  'serve.installSglang': isNull,
  'serve.cancelSglangInstall': isNull,
  'checkpoint.checkFolder': required({ dir: strOrNull(4096) }),
  'diagnostics.download': isNull,
  'history.requests': only({ outcome: oneOf('ok', 'error', 'cancelled'), limit: int(1, 10_000), offset: int(0, 100_000_000), since: int(0, 8.64e15), until: int(0, 8.64e15) }),
  'history.count': only({ outcome: oneOf('ok', 'error', 'cancelled'), since: int(0, 8.64e15), until: int(0, 8.64e15) }),
  'history.series': seriesCheck,
};

/** Inputs are validated where they enter the main side: the renderer is not trusted. */
export function validateRequest<M extends InvokeMethod>(method: M, req: unknown): Result<InvokeMap[M]['req']> {
  const check = Object.hasOwn(CHECKS, method) ? CHECKS[method] : undefined;
  if (!check) return err('unknown-method', `The engine has no action "${String(method).slice(0, 80)}".`);
  const problem = check(req);
  if (problem) return err('bad-request', `The request to "${method}" was refused: ${problem}.`);
  return ok((req ?? null) as InvokeMap[M]['req']);
}
