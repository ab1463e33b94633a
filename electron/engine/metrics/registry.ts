import { LABEL_NAME_RE, METRIC_NAME_RE, renderFamilies, type Family, type MetricType, type Sample } from './exposition.ts';

export type LabelValues = Readonly<Record<string, string>>;

/** Seconds, tuned for LLM serving: TTFT spans 50 ms to minutes on a 229k-token prompt. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

interface Series<T> {
  labels: ReadonlyArray<readonly [string, string]>;
  value: T;
}

/** Shared by all metric kinds: label validation and one series per distinct label set. */
abstract class Metric<T> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  protected readonly series = new Map<string, Series<T>>();
  abstract readonly type: MetricType;

  constructor(name: string, help: string, labelNames: readonly string[]) {
    if (!METRIC_NAME_RE.test(name)) throw new Error(`invalid metric name "${name}"`);
    for (const l of labelNames) {
      // `le` is reserved for histogram buckets, `__` for Prometheus internals.
      if (!LABEL_NAME_RE.test(l) || l === 'le' || l.startsWith('__')) throw new Error(`invalid label name "${l}" on ${name}`);
    }
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  protected key(labels: LabelValues): { key: string; pairs: Array<readonly [string, string]> } {
    const given = Object.keys(labels);
    for (const k of given) if (!this.labelNames.includes(k)) throw new Error(`${this.name} has no label "${k}"`);
    const pairs = this.labelNames.map((n) => {
      const v = labels[n];
      if (v === undefined) throw new Error(`${this.name} needs label "${n}"`);
      return [n, v] as const;
    });
    return { key: JSON.stringify(pairs.map((p) => p[1])), pairs };
  }

  protected entry(labels: LabelValues, init: () => T): Series<T> {
    const { key, pairs } = this.key(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels: pairs, value: init() };
      this.series.set(key, s);
    }
    return s;
  }

  /** Drop one series (a GPU that went away, an engine removed from the plan). */
  remove(labels: LabelValues): void {
    this.series.delete(this.key(labels).key);
  }

  /** Drop every series: feeders that mirror a whole snapshot call this first. */
  reset(): void {
    this.series.clear();
  }

  abstract samples(): Sample[];

  family(): Family {
    return { name: this.name, help: this.help, type: this.type, samples: this.samples() };
  }
}

export class Counter extends Metric<number> {
  readonly type = 'counter' as const;
  inc(labels: LabelValues = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`${this.name}: counters only go up (got ${by})`);
    this.entry(labels, () => 0).value += by;
  }
  /** Mirror a cumulative count kept elsewhere (a service's restart count); a drop reads as a reset. */
  setTotal(labels: LabelValues, total: number): void {
    if (!(total >= 0)) throw new Error(`${this.name}: a total cannot be negative (got ${total})`);
    this.entry(labels, () => 0).value = total;
  }
  get(labels: LabelValues = {}): number {
    return this.series.get(this.key(labels).key)?.value ?? 0;
  }
  samples(): Sample[] {
    return [...this.series.values()].map((s) => ({ name: this.name, labels: s.labels, value: s.value }));
  }
}

export class Gauge extends Metric<number> {
  readonly type = 'gauge' as const;
  set(labels: LabelValues, value: number): void {
    this.entry(labels, () => 0).value = value;
  }
  get(labels: LabelValues = {}): number | undefined {
    return this.series.get(this.key(labels).key)?.value;
  }
  samples(): Sample[] {
    return [...this.series.values()].map((s) => ({ name: this.name, labels: s.labels, value: s.value }));
  }
}

interface HistogramState {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Metric<HistogramState> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];
  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[] = DEFAULT_BUCKETS) {
    super(name, help, labelNames);
    const sorted = [...new Set(buckets.filter((b) => Number.isFinite(b)))].sort((a, b) => a - b);
    if (sorted.length === 0) throw new Error(`${name}: a histogram needs at least one finite bucket`);
    this.buckets = sorted;
  }
  observe(labels: LabelValues, value: number): void {
    if (Number.isNaN(value)) return; // a NaN would poison _sum forever
    const s = this.entry(labels, () => ({ counts: this.buckets.map(() => 0), sum: 0, count: 0 })).value;
    const i = this.buckets.findIndex((b) => value <= b);
    if (i >= 0) s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += value;
    s.count += 1;
  }
  samples(): Sample[] {
    const out: Sample[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.value.counts[i] ?? 0;
        out.push({ name: `${this.name}_bucket`, labels: [...s.labels, ['le', String(b)]], value: cumulative });
      });
      out.push({ name: `${this.name}_bucket`, labels: [...s.labels, ['le', '+Inf']], value: s.value.count });
      out.push({ name: `${this.name}_sum`, labels: s.labels, value: s.value.sum });
      out.push({ name: `${this.name}_count`, labels: s.labels, value: s.value.count });
    }
    return out;
  }
}

/** Extra families computed at scrape time (relabelled sglang bodies). */
export type FamilySource = () => readonly Family[];

/** Owns the metrics of one engine; no global default registry, so tests and daemons never share state. */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric<unknown>>();
  private readonly sources: FamilySource[] = [];

  private add<M extends Metric<unknown>>(m: M): M {
    if (this.metrics.has(m.name)) throw new Error(`metric "${m.name}" registered twice`);
    this.metrics.set(m.name, m);
    return m;
  }
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.add(new Gauge(name, help, labelNames));
  }
  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, labelNames, buckets));
  }
  addSource(source: FamilySource): void {
    this.sources.push(source);
  }
  families(): Family[] {
    const own = [...this.metrics.values()].map((m) => m.family());
    const seen = new Set(own.map((f) => f.name));
    const extra: Family[] = [];
    for (const src of this.sources) {
      for (const f of src()) {
        // Prometheus rejects a scrape that declares a family twice: first one wins.
        if (seen.has(f.name)) continue;
        seen.add(f.name);
        extra.push(f);
      }
    }
    return [...own, ...extra];
  }
  render(): string {
    return renderFamilies(this.families());
  }
}
