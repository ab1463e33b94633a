import { existsSync, readFileSync, renameSync } from 'node:fs';
import type { Settings } from '../../../shared/settings.ts';
import { defaultSettings, parseSettingsPatch, patchRefusal, SETTINGS_SCHEMA_VERSION } from '../../../shared/settings.ts';
import { AppFailure } from '../../../shared/errors.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { toDisposable, type Disposable } from '../lib/disposable.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Logger } from '../lib/logger.ts';
import { sanitizeSettings } from './settings-sanitize.ts';

/**
 * Forward-only settings migrations: entry i turns schema i+1 into schema i+2. A new schema adds one
 * function here and a fixture under test/fixtures/settings/. The result is read through the shared
 * schema like any file (sanitizeSettings), so a migration only moves and adds fields.
 */
export const SETTINGS_MIGRATIONS: Array<(raw: Record<string, unknown>) => Record<string, unknown>> = [
  // 1 -> 2: the GPUs the serve may use (null: all) and the log level (debug: what was logged before).
  (raw) => {
    const d = defaultSettings();
    const mining = typeof raw.mining === 'object' && raw.mining !== null && !Array.isArray(raw.mining) ? raw.mining : {};
    return { ...raw, logLevel: d.logLevel, mining: { ...mining, gpus: d.mining.gpus } };
  },
];

export function migrateSettings(raw: Record<string, unknown>): Record<string, unknown> {
  let v = typeof raw.schemaVersion === 'number' ? raw.schemaVersion : 1;
  if (v > SETTINGS_SCHEMA_VERSION) {
    throw new AppFailure('conflict', `These settings were written by a newer engy panel (schema ${v}). Update the app; settings never migrate backwards.`);
  }
  let out = raw;
  while (v < SETTINGS_SCHEMA_VERSION) {
    const step = SETTINGS_MIGRATIONS[v - 1];
    if (!step) throw new Error(`no settings migration from schema ${v}`);
    out = step(out);
    v += 1;
  }
  return { ...out, schemaVersion: SETTINGS_SCHEMA_VERSION };
}

/** settings.json in the data dir: validated on read (bad fields fall back to defaults), written atomically. */
export class SettingsStore {
  private current: Settings;
  private readonly changes = new Emitter<Settings>();
  readonly onDidChange = this.changes.event;
  private readonly file: string;
  private readonly log: Logger;
  /** Rules across settings and other facts (the serve plan): each gives the refusal sentence or null. */
  private readonly checks = new Set<(next: Settings) => string | null>();

  constructor(file: string, log: Logger, overrides: Partial<Pick<Settings, 'network'>> = {}) {
    this.file = file;
    this.log = log;
    this.current = { ...this.load(overrides.network), ...overrides };
  }

  get(): Settings {
    return this.current;
  }

  /** Adds a rule `update` applies to the whole next settings before writing them; disposing removes it. */
  addCheck(check: (next: Settings) => string | null): Disposable {
    this.checks.add(check);
    return toDisposable(() => void this.checks.delete(check));
  }

  /** Applies a partial update parsed field by field with the shared schema; refuses naming the field. */
  update(raw: unknown): Settings {
    const parsed = parseSettingsPatch(raw, this.current.network);
    if (!parsed.ok) throw new AppFailure('bad-request', patchRefusal(parsed));
    const patch = parsed.patch;
    const c = this.current;
    const next: Settings = {
      ...c,
      ...(patch.role !== undefined ? { role: patch.role } : {}),
      ...(patch.theme !== undefined ? { theme: patch.theme } : {}),
      ...(patch.logLevel !== undefined ? { logLevel: patch.logLevel } : {}),
      ...(patch.mutedNotifications !== undefined ? { mutedNotifications: patch.mutedNotifications } : {}),
      wallet: { ...c.wallet, ...patch.wallet },
      mining: { ...c.mining, ...patch.mining },
      validating: { ...c.validating, ...patch.validating },
      desktop: { ...c.desktop, ...patch.desktop },
    };
    for (const check of this.checks) {
      const refusal = check(next);
      if (refusal !== null) throw new AppFailure('bad-request', refusal);
    }
    writeFileAtomic(this.file, JSON.stringify(next, null, 2) + '\n');
    this.current = next;
    this.changes.fire(next);
    return next;
  }

  private load(network?: Settings['network']): Settings {
    if (!existsSync(this.file)) return defaultSettings();
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      const aside = `${this.file}.corrupt-${Date.now()}`;
      renameSync(this.file, aside);
      this.log.warn(`settings.json could not be read; it was moved to ${aside} and defaults are used. Re-enter your choices in Settings.`);
      return defaultSettings();
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return defaultSettings();
    const { settings, warnings } = sanitizeSettings(migrateSettings(raw as Record<string, unknown>), network);
    for (const w of warnings) this.log.warn(w);
    return settings;
  }
}
