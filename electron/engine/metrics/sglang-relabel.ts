import type { Family } from './exposition.ts';
import { parsePrometheusText } from './prom-parse.ts';
import { errorMessage } from '../../../shared/errors.ts';

// sglang serves `sglang:*` families per engine. A fleet scrapes one endpoint per rig, so every
// engine's body is folded into one set of families under our namespace with an `engine` label;
// Prometheus refuses a second HELP for one family (8 engines = 8 HELPs), hence the regrouping.

export interface EngineScrape {
  /** Stable engine id from the serve plan (e.g. "gpu0" or the port). */
  engine: string;
  text: string;
}

export function relabelSglangName(name: string): string {
  const bare = name.startsWith('sglang:') ? name.slice('sglang:'.length) : name;
  return `engy_sglang_${bare.replace(/:/g, '_')}`;
}

/** Relabelled families; a body that does not parse is left out and reported in `errors`. */
export function relabelSglang(scrapes: readonly EngineScrape[]): { families: Family[]; errors: string[] } {
  const merged = new Map<string, Family>();
  const errors: string[] = [];
  for (const { engine, text } of scrapes) {
    let parsed: Family[];
    try {
      parsed = parsePrometheusText(text);
    } catch (e) {
      errors.push(`engine ${engine}: ${errorMessage(e)}`);
      continue;
    }
    for (const f of parsed) {
      // Python's *_created gauges are process start stamps: noise on a dashboard, cardinality in the TSDB.
      if (f.name.endsWith('_created')) continue;
      const name = relabelSglangName(f.name);
      let target = merged.get(name);
      if (!target) {
        target = { name, help: f.help || `sglang ${f.name}, relabelled per engine`, type: f.type, samples: [] };
        merged.set(name, target);
      } else if (target.type !== f.type) {
        errors.push(`engine ${engine}: ${f.name} is a ${f.type} here but a ${target.type} elsewhere; dropped`);
        continue;
      }
      for (const s of f.samples) {
        if (s.name.endsWith('_created')) continue;
        const labels = [['engine', engine] as const, ...s.labels.filter(([k]) => k !== 'engine')];
        target.samples.push({ name: relabelSglangName(s.name), labels, value: s.value });
      }
    }
  }
  return { families: [...merged.values()], errors };
}
