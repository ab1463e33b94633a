// The Prometheus text exposition format (0.0.4), shared by the registry (our own metrics) and the
// sglang relabeller (scraped metrics), so both render through one escaping and ordering path.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/** One line of a family: `name{labels} value`. `name` carries the suffix (`_bucket`, `_sum`, ...). */
export interface Sample {
  name: string;
  labels: ReadonlyArray<readonly [string, string]>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

export const METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
export const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function formatLabels(labels: Sample['labels']): string {
  if (labels.length === 0) return '';
  return `{${labels.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
}

/** Families in the order given; empty families still print HELP/TYPE so scrapers learn the name early. */
export function renderFamilies(families: readonly Family[]): string {
  const out: string[] = [];
  for (const f of families) {
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`);
    out.push(`# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) out.push(`${s.name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
