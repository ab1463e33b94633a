// User settings: what the user chose. Never secrets (those live in the engine's key stores).
// One valibot schema per field is the only description of the shape: the types are inferred from
// it, the engine's sanitiser and migrations read files through it, and `settings.update` parses
// patches with it, so a value is accepted or refused the same way everywhere, with a sentence that
// names the field and says what is allowed.
import * as v from 'valibot';
import { clearTextGatewayProblem } from './endpoint-rules.ts';
import { DEFAULT_CHAIN_URL, DEFAULT_GATEWAY_URL, DEFAULT_MODEL_ID, DEFAULT_PRICE_URL, DEFAULT_PROVIDER_URL, PINNED_MASTER_HOTKEY, SUBNET_NETUID } from './network.ts';

export const ROLES = ['mine', 'validate', 'both'] as const;
export const NETWORKS = ['mainnet', 'simulated'] as const;
export const THEMES = ['system', 'dark', 'light'] as const;
export const RUNTIMES = ['python', 'docker', 'external'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type Role = (typeof ROLES)[number];
export type NetworkProfile = (typeof NETWORKS)[number];
export type ThemePref = (typeof THEMES)[number];

export const NOTIFICATION_KINDS = [
  'miner-offline',
  'miner-pulled',
  'serve-crashed',
  'serve-stalled',
  'gate-at-risk',
  'validator-stalled',
  'validator-failing',
  'activity-cutoff-near',
  'data-recovered',
  'storage-failing',
  'deregistered',
  'epoch-failed',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** 2 added mining.gpus and logLevel (see SETTINGS_MIGRATIONS in the engine). */
export const SETTINGS_SCHEMA_VERSION = 2;

/** The words the UI and every refusal use for a field. */
export const SETTING_LABELS: Record<string, string> = {
  role: 'Role',
  network: 'Network',
  theme: 'Theme',
  logLevel: 'Log level',
  'wallet.path': 'Wallet folder',
  'wallet.name': 'Wallet name',
  'wallet.hotkey': 'Hotkey name',
  'mining.modelId': 'Model',
  'mining.checkpointDir': 'Checkpoint folder',
  'mining.runtime': 'Serve runtime',
  'mining.externalServeUrls': 'Serve URLs',
  'mining.gatewayUrl': 'Gateway',
  'mining.workerName': 'Worker name',
  'mining.maxInflightOverride': 'In-flight limit',
  'mining.gpus': 'GPUs for the serve',
  'validating.chainUrl': 'Chain endpoint',
  'validating.providerUrl': 'Provider',
  'validating.masterHotkey': 'Master hotkey',
  'validating.netuid': 'Subnet',
  'validating.pollSeconds': 'Poll interval',
  'validating.resubmitBlocks': 'Resubmit interval',
  'desktop.runAtLogin': 'Start at login',
  'desktop.keepRunningOnClose': 'Keep running on close',
  'desktop.minimizeToTray': 'Minimise to tray',
  'desktop.autoUpdate': 'Automatic updates',
  mutedNotifications: 'Muted notifications',
  'profit.currency': 'Currency',
  'profit.kwhPrice': 'Electricity price per kWh',
  'profit.priceUrl': 'τ price source',
};

/** Currencies the price source quotes τ in (lower case, as it names them). */
export const CURRENCIES = ['usd', 'eur', 'gbp', 'jpy', 'cny', 'inr', 'cad', 'aud', 'chf', 'brl', 'krw', 'rub'] as const;
export type Currency = (typeof CURRENCIES)[number];

const label = (path: string) => `${SETTING_LABELS[path] ?? path} (${path})`;

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:|\/|$)/i;

/**
 * A URL typed without its scheme gets the usual one for its field (plain on loopback, TLS
 * elsewhere); anything that still does not parse, or has another scheme, is refused.
 */
export function withScheme(text: string, kind: 'ws' | 'http'): string {
  const t = text.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t) || t === '') return t;
  const secure = !LOOPBACK.test(t);
  return `${kind}${secure ? 's' : ''}://${t}`;
}

function isUrl(text: string, kind: 'ws' | 'http'): boolean {
  if (text.length > 300 || /\s/.test(text)) return false;
  try {
    const u = new URL(text);
    return (kind === 'ws' ? ['ws:', 'wss:'] : ['http:', 'https:']).includes(u.protocol) && u.hostname.length > 0;
  } catch {
    return false;
  }
}

function url(path: string, kind: 'ws' | 'http', example: string) {
  const msg = `${label(path)} must be a ${kind}:// or ${kind}s:// address, e.g. ${example}`;
  return v.pipe(
    v.string(msg),
    v.transform((s) => withScheme(s, kind)),
    v.check((s) => isUrl(s, kind), msg),
  );
}

function int(path: string, min: number, max: number, unit = '') {
  const msg = `${label(path)} must be a whole number from ${min} to ${max}${unit}`;
  return v.pipe(v.number(msg), v.integer(msg), v.minValue(min, msg), v.maxValue(max, msg));
}

function oneOf<T extends readonly string[]>(path: string, options: T) {
  return v.picklist(options, `${label(path)} must be one of: ${options.join(', ')}`);
}

function orNull<T extends v.GenericSchema>(path: string, schema: T, what: string) {
  return v.union([v.null(), schema], `${label(path)} must be ${what}, or empty`);
}

/** btcli wallet and hotkey names (and worker names): folder names, so no separators, no leading dot, no control characters. */
export const BTCLI_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;
export const BTCLI_NAME_RULE = 'must be 1 to 64 letters, digits, ".", "_" or "-", not starting with "."';

function btcliName(path: string) {
  const msg = `${label(path)} ${BTCLI_NAME_RULE}`;
  return v.pipe(v.string(msg), v.regex(BTCLI_NAME, msg));
}

function folder(path: string, absolute: boolean) {
  const msg = `${label(path)} must be ${absolute ? 'an absolute folder path (starting with / or a drive letter)' : 'a folder path'} of at most 4096 characters`;
  return v.pipe(
    v.string(msg),
    v.trim(),
    v.check((s) => s.length > 0 && s.length <= 4096 && !s.includes('\0') && (!absolute || /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(s)), msg),
  );
}

const bool = (path: string) => v.boolean(`${label(path)} must be on or off (true or false)`);

/**
 * Every field's schema. The simulated network (the demo) polls and resubmits far faster than
 * mainnet allows, so those two bounds depend on the network the settings are for.
 */
export function settingsFields(network: NetworkProfile) {
  const sim = network === 'simulated';
  return {
    role: orNull('role', oneOf('role', ROLES), `one of ${ROLES.join(', ')}`),
    network: oneOf('network', NETWORKS),
    theme: oneOf('theme', THEMES),
    logLevel: oneOf('logLevel', LOG_LEVELS),
    'wallet.path': orNull('wallet.path', folder('wallet.path', false), 'a folder path'),
    'wallet.name': orNull('wallet.name', btcliName('wallet.name'), 'a btcli wallet name'),
    'wallet.hotkey': orNull('wallet.hotkey', btcliName('wallet.hotkey'), 'a btcli hotkey name'),
    'mining.modelId': v.pipe(
      v.string(`${label('mining.modelId')} must be a model id`),
      v.regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, `${label('mining.modelId')} must be a model id such as ${DEFAULT_MODEL_ID}`),
    ),
    'mining.checkpointDir': orNull('mining.checkpointDir', folder('mining.checkpointDir', true), 'an absolute folder path'),
    'mining.runtime': orNull('mining.runtime', oneOf('mining.runtime', RUNTIMES), `one of ${RUNTIMES.join(', ')}`),
    'mining.externalServeUrls': v.pipe(
      v.array(url('mining.externalServeUrls', 'http', 'http://127.0.0.1:30000'), `${label('mining.externalServeUrls')} must be a list of http:// addresses`),
      v.maxLength(16, `${label('mining.externalServeUrls')} can hold at most 16 serves`),
    ),
    'mining.gatewayUrl': v.pipe(
      url('mining.gatewayUrl', 'ws', DEFAULT_GATEWAY_URL),
      v.check(
        (s) => clearTextGatewayProblem(s, label('mining.gatewayUrl')) === null,
        (issue) => clearTextGatewayProblem(String(issue.input), label('mining.gatewayUrl')) ?? '',
      ),
    ),
    'mining.workerName': orNull('mining.workerName', btcliName('mining.workerName'), 'a name of letters, digits, ".", "_" or "-"'),
    'mining.maxInflightOverride': orNull('mining.maxInflightOverride', int('mining.maxInflightOverride', 1, 1024, ' concurrent requests'), 'a whole number from 1 to 1024'),
    'mining.gpus': orNull(
      'mining.gpus',
      v.pipe(
        v.array(int('mining.gpus', 0, 63), `${label('mining.gpus')} must be a list of GPU indices`),
        v.minLength(1, `${label('mining.gpus')} must name at least one GPU (empty means all)`),
        v.maxLength(64, `${label('mining.gpus')} can name at most 64 GPUs`),
        v.check((xs) => new Set(xs).size === xs.length, `${label('mining.gpus')} names a GPU twice`),
      ),
      'a list of GPU indices such as [0, 1]',
    ),
    'validating.chainUrl': url('validating.chainUrl', 'ws', 'ws://127.0.0.1:9944 for a local subtensor node'),
    'validating.providerUrl': url('validating.providerUrl', 'http', DEFAULT_PROVIDER_URL),
    'validating.masterHotkey': v.pipe(
      v.string(`${label('validating.masterHotkey')} must be an SS58 address`),
      v.regex(/^5[1-9A-HJ-NP-Za-km-z]{47}$/, `${label('validating.masterHotkey')} must be an SS58 address (48 characters starting with 5)`),
    ),
    'validating.netuid': int('validating.netuid', 0, 65535),
    'validating.pollSeconds': int('validating.pollSeconds', sim ? 1 : 30, 3600, ' seconds'),
    'validating.resubmitBlocks': int('validating.resubmitBlocks', sim ? 1 : 100, 5000, ' blocks'),
    'desktop.runAtLogin': bool('desktop.runAtLogin'),
    'desktop.keepRunningOnClose': bool('desktop.keepRunningOnClose'),
    'desktop.minimizeToTray': bool('desktop.minimizeToTray'),
    'desktop.autoUpdate': bool('desktop.autoUpdate'),
    mutedNotifications: v.pipe(
      v.array(oneOf('mutedNotifications', NOTIFICATION_KINDS), `${label('mutedNotifications')} must be a list of: ${NOTIFICATION_KINDS.join(', ')}`),
      v.transform((xs) => [...new Set(xs)]),
    ),
    'profit.currency': oneOf('profit.currency', CURRENCIES),
    'profit.kwhPrice': orNull(
      'profit.kwhPrice',
      v.pipe(
        v.number(`${label('profit.kwhPrice')} must be a number`),
        v.finite(`${label('profit.kwhPrice')} must be a number`),
        v.minValue(0, `${label('profit.kwhPrice')} must be from 0 to 100`),
        v.maxValue(100, `${label('profit.kwhPrice')} must be from 0 to 100`),
      ),
      'a price per kWh from 0 to 100 in the chosen currency',
    ),
    'profit.priceUrl': url('profit.priceUrl', 'http', DEFAULT_PRICE_URL),
  };
}

type Fields = ReturnType<typeof settingsFields>;
type Out<K extends keyof Fields> = v.InferOutput<Fields[K]>;

/** The settings object schema, built from the field schemas (a section per dotted prefix). */
export function settingsSchema(network: NetworkProfile) {
  const f = settingsFields(network);
  return v.object({
    schemaVersion: v.number(),
    role: f.role,
    network: f.network,
    theme: f.theme,
    logLevel: f.logLevel,
    wallet: v.object({ path: f['wallet.path'], name: f['wallet.name'], hotkey: f['wallet.hotkey'] }),
    mining: v.object({
      modelId: f['mining.modelId'],
      checkpointDir: f['mining.checkpointDir'],
      runtime: f['mining.runtime'],
      externalServeUrls: f['mining.externalServeUrls'],
      gatewayUrl: f['mining.gatewayUrl'],
      workerName: f['mining.workerName'],
      maxInflightOverride: f['mining.maxInflightOverride'],
      gpus: f['mining.gpus'],
    }),
    validating: v.object({
      chainUrl: f['validating.chainUrl'],
      providerUrl: f['validating.providerUrl'],
      masterHotkey: f['validating.masterHotkey'],
      netuid: f['validating.netuid'],
      pollSeconds: f['validating.pollSeconds'],
      resubmitBlocks: f['validating.resubmitBlocks'],
    }),
    desktop: v.object({
      runAtLogin: f['desktop.runAtLogin'],
      keepRunningOnClose: f['desktop.keepRunningOnClose'],
      minimizeToTray: f['desktop.minimizeToTray'],
      autoUpdate: f['desktop.autoUpdate'],
    }),
    mutedNotifications: f.mutedNotifications,
    profit: v.object({ currency: f['profit.currency'], kwhPrice: f['profit.kwhPrice'], priceUrl: f['profit.priceUrl'] }),
  });
}

export type Settings = v.InferOutput<ReturnType<typeof settingsSchema>>;
export type LogLevelSetting = Out<'logLevel'>;

export function defaultSettings(): Settings {
  return {
    schemaVersion: SETTINGS_SCHEMA_VERSION,
    role: null,
    network: 'mainnet',
    theme: 'system',
    // Everything is logged unless the user asks for less (what the engine did before this was a setting).
    logLevel: 'debug',
    wallet: { path: null, name: null, hotkey: null },
    mining: {
      modelId: DEFAULT_MODEL_ID,
      checkpointDir: null,
      runtime: null,
      externalServeUrls: [],
      gatewayUrl: DEFAULT_GATEWAY_URL,
      workerName: null,
      maxInflightOverride: null,
      gpus: null,
    },
    validating: {
      chainUrl: DEFAULT_CHAIN_URL,
      providerUrl: DEFAULT_PROVIDER_URL,
      masterHotkey: PINNED_MASTER_HOTKEY,
      netuid: SUBNET_NETUID,
      pollSeconds: 300,
      resubmitBlocks: 120,
    },
    desktop: { runAtLogin: false, keepRunningOnClose: false, minimizeToTray: true, autoUpdate: true },
    mutedNotifications: [],
    // No kWh price until the user gives one: a net figure on a guessed tariff would be fake data.
    profit: { currency: 'usd', kwhPrice: null, priceUrl: DEFAULT_PRICE_URL },
  };
}

/** What the UI may change: the network, the model and the pinned chain facts are not among them. */
export const PATCHABLE = {
  role: true,
  theme: true,
  logLevel: true,
  mutedNotifications: true,
  wallet: ['path', 'name', 'hotkey'],
  mining: ['workerName', 'maxInflightOverride', 'runtime', 'checkpointDir', 'externalServeUrls', 'gatewayUrl', 'gpus'],
  validating: ['chainUrl', 'providerUrl', 'pollSeconds', 'resubmitBlocks'],
  desktop: ['runAtLogin', 'keepRunningOnClose', 'minimizeToTray', 'autoUpdate'],
  profit: ['currency', 'kwhPrice', 'priceUrl'],
} as const;

type Section = 'wallet' | 'mining' | 'validating' | 'desktop' | 'profit';
type SectionPatch<S extends Section> = Partial<Pick<Settings[S], (typeof PATCHABLE)[S][number] & keyof Settings[S]>>;

/** A partial update the UI may send: each section shallow-merged. */
export interface SettingsPatch {
  role?: Role;
  theme?: ThemePref;
  logLevel?: LogLevelSetting;
  wallet?: SectionPatch<'wallet'>;
  mining?: SectionPatch<'mining'>;
  validating?: SectionPatch<'validating'>;
  desktop?: SectionPatch<'desktop'>;
  mutedNotifications?: NotificationKind[];
  profit?: SectionPatch<'profit'>;
}

export type PatchParse = { ok: true; patch: SettingsPatch } | { ok: false; field: string; message: string };

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const allowedList = () =>
  Object.entries(PATCHABLE)
    .flatMap(([k, val]) => (val === true ? [k] : val.map((f) => `${k}.${f}`)))
    .join(', ');

/**
 * Parses a patch field by field with the same schemas the files are read with. URLs come back
 * fixed (a scheme added); the first refused field is named with what it allows.
 */
export function parseSettingsPatch(raw: unknown, network: NetworkProfile): PatchParse {
  if (!isObj(raw)) return { ok: false, field: '(settings)', message: 'A settings change must be an object of fields to change.' };
  const fields = settingsFields(network) as Record<string, v.GenericSchema>;
  const out: Record<string, unknown> = {};
  const one = (path: string, value: unknown): { ok: true; value: unknown } | { ok: false; field: string; message: string } => {
    const schema = fields[path];
    if (!schema) return { ok: false, field: path, message: `"${path}" cannot be changed here. These can: ${allowedList()}.` };
    if (path === 'role' && value === null) return { ok: false, field: path, message: `${label('role')} must be one of ${ROLES.join(', ')}` };
    const r = v.safeParse(schema, value);
    return r.success ? { ok: true, value: r.output } : { ok: false, field: path, message: r.issues[0].message };
  };
  for (const [key, val] of Object.entries(raw)) {
    if (val === undefined) continue;
    const spec = (PATCHABLE as Record<string, true | readonly string[]>)[key];
    if (spec === undefined || !Object.hasOwn(PATCHABLE, key)) return { ok: false, field: key, message: `"${key}" cannot be changed here. These can: ${allowedList()}.` };
    if (spec === true) {
      const r = one(key, val);
      if (!r.ok) return r;
      out[key] = r.value;
      continue;
    }
    if (!isObj(val)) return { ok: false, field: key, message: `"${key}" must be an object of the ${key} fields to change.` };
    const section: Record<string, unknown> = {};
    for (const [sub, sv] of Object.entries(val)) {
      if (sv === undefined) continue;
      const path = `${key}.${sub}`;
      if (!spec.includes(sub)) return { ok: false, field: path, message: `"${path}" cannot be changed here. These can: ${allowedList()}.` };
      const r = one(path, sv);
      if (!r.ok) return r;
      section[sub] = r.value;
    }
    out[key] = section;
  }
  return { ok: true, patch: out as SettingsPatch };
}

/** The sentence a refused patch answers with. */
export function patchRefusal(p: { field: string; message: string }): string {
  return `The setting "${p.field}" was not saved: ${p.message.replace(/\.$/, '')}.`;
}
