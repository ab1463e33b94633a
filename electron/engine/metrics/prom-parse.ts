import { LABEL_NAME_RE, METRIC_NAME_RE, type Family, type MetricType, type Sample } from './exposition.ts';

// A strict reader of the Prometheus text format: used to relabel what sglang serves on /metrics and,
// in tests, to prove that what we serve parses. It throws on anything a Prometheus server would reject.

export class PromParseError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = 'PromParseError';
    this.line = line;
  }
}

const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: ['', '_total', '_created'],
  gauge: [''],
  histogram: ['_bucket', '_sum', '_count', '_created'],
  summary: ['', '_sum', '_count', '_created'],
  untyped: [''],
};

function unescape(text: string, lineNo: number, allowQuote: boolean): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = text[++i];
    if (n === 'n') out += '\n';
    else if (n === '\\') out += '\\';
    else if (n === '"' && allowQuote) out += '"';
    else throw new PromParseError(lineNo, `bad escape "\\${n ?? ''}"`);
  }
  return out;
}

function parseValue(text: string, lineNo: number): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new PromParseError(lineNo, `bad value "${text}"`);
  return Number(text);
}

function parseLabels(body: string, lineNo: number): Array<[string, string]> {
  const labels: Array<[string, string]> = [];
  let i = 0;
  while (i < body.length) {
    const eq = body.indexOf('=', i);
    if (eq < 0) throw new PromParseError(lineNo, `label without "=" in {${body}}`);
    const name = body.slice(i, eq).trim();
    if (!LABEL_NAME_RE.test(name)) throw new PromParseError(lineNo, `bad label name "${name}"`);
    if (body[eq + 1] !== '"') throw new PromParseError(lineNo, `label ${name} value must be quoted`);
    let j = eq + 2;
    while (j < body.length && body[j] !== '"') j += body[j] === '\\' ? 2 : 1;
    if (j >= body.length) throw new PromParseError(lineNo, `unterminated value of label ${name}`);
    if (labels.some(([n]) => n === name)) throw new PromParseError(lineNo, `label ${name} repeated`);
    labels.push([name, unescape(body.slice(eq + 2, j), lineNo, true)]);
    i = j + 1;
    if (body[i] === ',') i++;
    else if (i < body.length) throw new PromParseError(lineNo, `expected "," after label ${name}`);
    while (body[i] === ' ') i++;
  }
  return labels;
}

function parseSample(line: string, lineNo: number): Sample {
  const brace = line.indexOf('{');
  let name: string;
  let labels: Array<[string, string]> = [];
  let rest: string;
  if (brace >= 0 && brace < line.search(/\s|$/)) {
    name = line.slice(0, brace);
    // The closing brace is the first `}` outside a quoted value.
    let j = brace + 1;
    let quoted = false;
    for (; j < line.length; j++) {
      const c = line[j];
      if (quoted && c === '\\') j++;
      else if (c === '"') quoted = !quoted;
      else if (c === '}' && !quoted) break;
    }
    if (j >= line.length) throw new PromParseError(lineNo, 'unterminated label set');
    labels = parseLabels(line.slice(brace + 1, j), lineNo);
    rest = line.slice(j + 1);
  } else {
    const sp = line.search(/\s/);
    if (sp < 0) throw new PromParseError(lineNo, 'sample without a value');
    name = line.slice(0, sp);
    rest = line.slice(sp);
  }
  if (!METRIC_NAME_RE.test(name)) throw new PromParseError(lineNo, `bad metric name "${name}"`);
  const parts = rest.trim().split(/\s+/);
  if (parts.length < 1 || parts.length > 2 || parts[0] === '') throw new PromParseError(lineNo, 'expected "value [timestamp]"');
  if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new PromParseError(lineNo, `bad timestamp "${parts[1]}"`);
  return { name, labels, value: parseValue(parts[0]!, lineNo) };
}

/** Families in input order; samples without a TYPE become untyped families of their own name. */
export function parsePrometheusText(text: string): Family[] {
  const families: Family[] = [];
  const byName = new Map<string, Family>();
  const closed = new Set<string>();
  let current: Family | undefined;
  const open = (name: string, lineNo: number): Family => {
    let f = byName.get(name);
    if (f && f !== current) {
      if (closed.has(name)) throw new PromParseError(lineNo, `family ${name} appears in two places`);
    }
    if (!f) {
      f = { name, help: '', type: 'untyped', samples: [] };
      byName.set(name, f);
      families.push(f);
    }
    if (current && current !== f) closed.add(current.name);
    current = f;
    return f;
  };
  const lines = text.split('\n');
  lines.forEach((raw, idx) => {
    const lineNo = idx + 1;
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!m) return; // plain comment
      const [, kind, name, arg = ''] = m;
      if (!METRIC_NAME_RE.test(name!)) throw new PromParseError(lineNo, `bad metric name "${name}"`);
      const f = open(name!, lineNo);
      if (kind === 'HELP') f.help = unescape(arg, lineNo, false);
      else {
        if (!(TYPES as readonly string[]).includes(arg)) throw new PromParseError(lineNo, `unknown type "${arg}"`);
        if (f.samples.length > 0) throw new PromParseError(lineNo, `TYPE for ${name} after its samples`);
        f.type = arg as MetricType;
      }
      return;
    }
    const s = parseSample(line, lineNo);
    const owner = current && SUFFIXES[current.type].some((suf) => s.name === current!.name + suf) ? current : open(s.name, lineNo);
    owner.samples.push(s);
  });
  return families;
}
