import type { Settings } from '../../../shared/settings.ts';
import { defaultSettings, NOTIFICATION_KINDS } from '../../../shared/settings.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every field is checked against the type the default has (and enumerations where they exist);
 * what does not match is dropped to its default and reported, never trusted.
 */
export function sanitizeSettings(raw: Obj): { settings: Settings; dropped: string[] } {
  const dropped: string[] = [];
  const enums: Record<string, readonly unknown[]> = {
    role: [null, 'mine', 'validate', 'both'],
    network: ['mainnet', 'simulated'],
    theme: ['system', 'dark', 'light'],
    'mining.runtime': [null, 'python', 'docker', 'external'],
  };
  const nullableStrings = new Set(['wallet.path', 'wallet.name', 'wallet.hotkey', 'mining.checkpointDir', 'mining.workerName']);
  const nullableNumbers = new Set(['mining.maxInflightOverride']);

  const merge = (def: Obj, src: unknown, prefix: string): Obj => {
    const out: Obj = { ...def };
    if (!isObj(src)) {
      if (src !== undefined) dropped.push(prefix || '(root)');
      return out;
    }
    for (const [k, dv] of Object.entries(def)) {
      const key = prefix ? `${prefix}.${k}` : k;
      const sv = src[k];
      if (sv === undefined) continue;
      let good: boolean;
      if (enums[key]) good = enums[key]!.includes(sv);
      else if (nullableStrings.has(key)) good = sv === null || typeof sv === 'string';
      else if (nullableNumbers.has(key)) good = sv === null || (typeof sv === 'number' && Number.isInteger(sv) && sv > 0);
      else if (key === 'mutedNotifications') good = Array.isArray(sv) && sv.every((x) => (NOTIFICATION_KINDS as readonly unknown[]).includes(x));
      else if (key === 'mining.externalServeUrls') good = Array.isArray(sv) && sv.every((x) => typeof x === 'string');
      else if (isObj(dv)) {
        out[k] = merge(dv, sv, key);
        continue;
      } else good = typeof sv === typeof dv && (typeof sv !== 'number' || Number.isFinite(sv));
      if (good) out[k] = sv;
      else dropped.push(key);
    }
    return out;
  };
  const settings = merge(defaultSettings() as unknown as Obj, raw, '') as unknown as Settings;
  return { settings, dropped };
}
