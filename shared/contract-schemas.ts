// Every contract request as one valibot schema: the engine's validator (electron/contract/validate.ts)
// parses with these, and the compiler checks each schema's output against InvokeMap in shared/api.ts,
// so a request shape is written once. Every message says what is allowed and never echoes the value
// (a password or mnemonic must not come back in a refusal); validate.ts adds the field's name.
import * as v from 'valibot';
import { INVOKE_METHODS, type InvokeMethod, type InvokeRequest } from './api.ts';
import type { SettingsPatch } from './settings.ts';
import { isRelayableMethod, RIG_ACTIONS } from './fleet.ts';

const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** An object with exactly these fields (unknown ones, prototype names included, are refused by name). */
function fields<E extends v.ObjectEntries>(entries: E) {
  return v.pipe(v.custom<Record<string, unknown>>(isPlainObject, 'expected an object'), v.strictObject(entries, 'expected an object'));
}

/** Methods that take no arguments: null, or nothing at all. */
const none = v.optional(v.null('expected no arguments'), null);

const bool = v.boolean('must be true or false');
const int = (min: number, max: number) =>
  v.pipe(
    v.number(`must be a whole number from ${min} to ${max}`),
    v.integer(`must be a whole number from ${min} to ${max}`),
    v.minValue(min, `must be a whole number from ${min} to ${max}`),
    v.maxValue(max, `must be a whole number from ${min} to ${max}`),
  );
const text = (max: number) => v.pipe(v.string(`must be text of at most ${max} characters`), v.maxLength(max, `must be text of at most ${max} characters`));
/** btcli wallet and hotkey names: no path separators, no dot first. */
const name = v.pipe(v.string('must be a wallet or hotkey name'), v.regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/, 'must be a name of letters, digits, ".", "_" or "-" (at most 64, no dot first)'));
/** A password or mnemonic: bounded; the message never quotes it. */
const secret = (min: number) =>
  v.pipe(
    v.string('must be text'),
    v.maxLength(1024, 'must be at most 1024 characters'),
    v.check((s) => s.trim().length >= min, `must have at least ${min} characters besides spaces`),
  );
/** Base58 characters only; the checksum is checked where the address is used. */
const ss58 = v.pipe(v.string('must be an SS58 address'), v.regex(/^\s*[1-9A-HJ-NP-Za-km-z]{40,60}\s*$/, 'must be an SS58 address (40 to 60 base58 characters)'));
const mode = v.picklist(['register-limit', 'burned-register'], 'must be "register-limit" or "burned-register"');
const limitTao = v.nullable(v.pipe(v.string('must be a τ amount as text, or null'), v.regex(/^\d{1,9}(\.\d{1,9})?$/, 'must be a τ amount such as "1.5" (at most 9 decimals), or null')));
const outcome = v.picklist(['ok', 'error', 'cancelled'], 'must be "ok", "error" or "cancelled"');
const epochMs = int(0, 8.64e15);
const rigId = v.pipe(v.string('must be a rig id'), v.regex(/^[a-f0-9]{8,32}$/, 'must be a rig id'));
const orNullText = (max: number) => v.nullable(text(max));

export const REQUEST_SCHEMAS = {
  'app.info': none,
  'hardware.report': fields({ refresh: bool }),
  'settings.get': none,
  // Field by field in SettingsStore.update, with the settings schema (its bounds depend on the network).
  'settings.update': v.custom<SettingsPatch>(isPlainObject, 'expected an object of settings to change'),
  'logs.recent': fields({ source: v.optional(text(128)), limit: v.optional(int(1, 10_000)), query: v.optional(text(500)) }),
  'diagnostics.export': none,
  'mining.start': v.optional(v.nullable(v.strictObject({ skipRehearsal: v.optional(bool) }, 'must be null or { skipRehearsal }')), null),
  'mining.stop': none,
  'validator.start': none,
  'validator.stop': none,
  'wallet.list': none,
  'wallet.createHotkey': fields({ wallet: name, hotkey: name }),
  'wallet.importHotkey': fields({ wallet: name, hotkey: name, secret: secret(16) }),
  'wallet.setMinerKey': fields({
    key: v.pipe(
      v.string('must be text'),
      v.maxLength(512, 'must be at most 512 characters'),
      v.check((s) => s.trim().length >= 8, 'must have at least 8 characters besides spaces'),
    ),
  }),
  'wallet.registration': none,
  'wallet.register': fields({ mode, limitTao, password: v.pipe(v.string('must be text'), v.maxLength(1024, 'must be at most 1024 characters')) }),
  'wallet.registerWithBrowser': fields({ mode, limitTao, coldkey: v.optional(ss58) }),
  'wallet.answerSigning': v.union(
    [
      fields({ account: ss58 }),
      // A MultiSignature as extensions return it: variant byte and 64 (sr25519/ed25519) or 65 (ecdsa) bytes.
      fields({ signature: v.pipe(v.string('must be a signature'), v.regex(/^0x[0-9a-fA-F]{128,200}$/, 'must be a hex signature (0x and 128 to 200 hex digits)')) }),
      fields({ decline: text(200) }),
    ],
    'must be exactly one of { account }, { signature } or { decline }',
  ),
  'history.requests': fields({ outcome: v.optional(outcome), limit: v.optional(int(1, 10_000)), offset: v.optional(int(0, 100_000_000)), since: v.optional(epochMs), until: v.optional(epochMs) }),
  'history.count': fields({ outcome: v.optional(outcome), since: v.optional(epochMs), until: v.optional(epochMs) }),
  'history.series': fields({
    windowMs: int(60_000, 7 * 86_400_000),
    points: v.optional(int(10, 2000)),
    prefix: v.optional(v.pipe(v.string('must be a series key prefix'), v.regex(/^[A-Za-z0-9_.:-]{0,40}$/, 'must be a series key prefix of at most 40 letters, digits, ".", "_", ":" or "-"'))),
  }),
  'earnings.refresh': none,
  'alerts.setWebhook': fields({ url: v.nullable(text(2048)) }),
  'alerts.testWebhook': none,
  'fleet.addRig': fields({ target: text(300), name: orNullText(64), command: orNullText(600), dataDir: orNullText(512) }),
  'fleet.removeRig': fields({ id: rigId }),
  'fleet.acceptHostKey': fields({
    id: rigId,
    fingerprints: v.pipe(v.array(text(200), 'must be a list of fingerprints'), v.minLength(1, 'must name at least one fingerprint'), v.maxLength(16, 'must name at most 16 fingerprints')),
  }),
  'fleet.retry': fields({ id: rigId }),
  'fleet.control': fields({
    ids: v.pipe(v.array(rigId, 'must be a list of rig ids'), v.minLength(1, 'must name at least one rig'), v.maxLength(64, 'must name at most 64 rigs')),
    action: v.picklist(RIG_ACTIONS, `must be one of ${RIG_ACTIONS.join(', ')}`),
  }),
  'fleet.watch': fields({ id: rigId, fresh: v.optional(bool) }),
  // The request itself is the rig's to check (it runs the same schemas); the panel checks the method.
  'fleet.rigInvoke': fields({
    id: rigId,
    method: v.pipe(
      text(64),
      v.check((m) => (INVOKE_METHODS as readonly string[]).includes(m) && isRelayableMethod(m), 'must be a method a rig answers (not fleet.*)'),
    ),
    req: v.unknown(),
  }),
  'history.audits': fields({ limit: v.optional(int(1, 10_000)) }),
  'checkpoint.refresh': none,
  'checkpoint.download': none,
  'checkpoint.cancel': none,
  'mining.rehearse': none,
  'gpus.watch': none,
  'wallet.createColdkey': fields({ wallet: name, password: secret(1) }),
  'wallet.importColdkey': fields({ wallet: name, secret: secret(16), password: secret(1) }),
  'wallet.setColdkeyAddress': fields({ wallet: name, address: ss58 }),
  'wallet.verifyMinerKey': none,
  'wallet.faucet': none,
  'wallet.faucetDrip': none,
  'hardware.alternatives': none,
  'serve.detectRuntimes': fields({ refresh: bool }),
  'serve.installSglang': none,
  'serve.cancelSglangInstall': none,
  'checkpoint.checkFolder': fields({ dir: v.nullable(text(4096)) }),
  'diagnostics.download': none,
  'update.check': none,
  'update.download': none,
  'update.restart': none,
} satisfies { [M in InvokeMethod]: v.GenericSchema<unknown, InvokeRequest<M>> };

/** Compile-time proof that each schema accepts every request the UI may send (the reverse of `satisfies`). */
type Covers = { [M in InvokeMethod]: InvokeRequest<M> extends v.InferOutput<(typeof REQUEST_SCHEMAS)[M]> ? true : M };
/** A method's name where a schema is narrower than its InvokeMap request; the assignment below fails to compile then. */
type Narrower = Exclude<Covers[InvokeMethod], true>;
const covers: [Narrower] extends [never] ? true : Narrower = true;
void covers;
