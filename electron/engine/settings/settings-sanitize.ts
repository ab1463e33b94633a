import * as v from 'valibot';
import type { NetworkProfile, Settings } from '../../../shared/settings.ts';
import { defaultSettings, NETWORKS, settingsFields } from '../../../shared/settings.ts';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const own = (o: Obj, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * Reads a settings file's object field by field through the shared schema: a value the schema
 * refuses is reset to its default with a warning that names the field, the value found and what is
 * allowed; a missing field takes its default quietly (older files); unknown keys are dropped.
 */
export function sanitizeSettings(raw: Obj, network?: NetworkProfile): { settings: Settings; dropped: string[]; warnings: string[] } {
  const dropped: string[] = [];
  const warnings: string[] = [];
  const def = defaultSettings() as unknown as Obj;
  const rawNet = own(raw, 'network');
  const net: NetworkProfile = network ?? ((NETWORKS as readonly unknown[]).includes(rawNet) ? (rawNet as NetworkProfile) : 'mainnet');
  const fields = settingsFields(net) as Record<string, v.GenericSchema>;
  const out: Obj = { ...def };
  const sections = new Set<string>();
  for (const [path, schema] of Object.entries(fields)) {
    const dot = path.indexOf('.');
    const [sec, key] = dot < 0 ? [null, path] : [path.slice(0, dot), path.slice(dot + 1)];
    let src: Obj = raw;
    if (sec !== null) {
      const s = own(raw, sec);
      if (s === undefined) continue;
      if (!isObj(s)) {
        if (!sections.has(sec)) {
          sections.add(sec);
          dropped.push(sec);
          warnings.push(`settings: "${sec}" had an invalid value (${shown(s)}) and was reset to its defaults: it must be an object of ${sec} settings.`);
        }
        continue;
      }
      src = s;
      out[sec] = { ...(out[sec] as Obj) };
    }
    const value = own(src, key);
    if (value === undefined) continue;
    const target = sec === null ? out : (out[sec] as Obj);
    const r = v.safeParse(schema, value);
    if (r.success) {
      target[key] = r.output;
    } else {
      dropped.push(path);
      warnings.push(`settings: "${path}" had an invalid value (${shown(value)}) and was reset to its default (${shown(target[key])}): ${r.issues[0].message}.`);
    }
  }
  return { settings: out as unknown as Settings, dropped, warnings };
}
