// JSON the way Python's `json` module reads and writes it, for tool-call arguments: the
// reference parser builds them with `json.loads` and `json.dumps` (ASCII-escaped), so an
// integer stays an exact integer ("12345678901234567890", not 1.2345678901234567e19), 1.0 stays
// a float, and the text has Python's separators (", " and ": ").

/** A Python value: int (exact), float, str, bool, None, list, dict (insertion-ordered, any key). */
export type PyValue = { int: bigint } | { float: number } | string | boolean | null | PyValue[] | Map<string, PyValue>;

const MAX_DEPTH = 200;

/** `json.loads`, or undefined where Python would raise. Accepts NaN/Infinity as Python does. */
export function pyJsonLoads(text: string): PyValue | undefined {
  const p = { s: text, i: 0 };
  try {
    ws(p);
    const v = value(p, 0);
    ws(p);
    return p.i === p.s.length ? v : undefined;
  } catch {
    return undefined;
  }
}

function ws(p: { s: string; i: number }): void {
  while (p.i < p.s.length && ' \t\n\r'.includes(p.s[p.i]!)) p.i += 1;
}

function fail(): never {
  throw new Error('bad json');
}

function value(p: { s: string; i: number }, depth: number): PyValue {
  if (depth > MAX_DEPTH) fail();
  const c = p.s[p.i];
  if (c === '{') {
    const out = new Map<string, PyValue>();
    commaSeparated(p, '}', () => {
      if (p.s[p.i] !== '"') fail();
      const k = str(p);
      ws(p);
      if (p.s[p.i] !== ':') fail();
      p.i += 1;
      ws(p);
      out.set(k, value(p, depth + 1));
    });
    return out;
  }
  if (c === '[') {
    const out: PyValue[] = [];
    commaSeparated(p, ']', () => out.push(value(p, depth + 1)));
    return out;
  }
  if (c === '"') return str(p);
  for (const [word, v] of [
    ['true', true],
    ['false', false],
    ['null', null],
    ['NaN', { float: NaN }],
    ['Infinity', { float: Infinity }],
    ['-Infinity', { float: -Infinity }],
  ] as const) {
    if (p.s.startsWith(word, p.i)) {
      p.i += word.length;
      return v;
    }
  }
  const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(p.s.slice(p.i, p.i + 400));
  if (!m) fail();
  p.i += m[0].length;
  return m[1] === undefined && m[2] === undefined ? { int: BigInt(m[0]) } : { float: Number(m[0]) };
}

/** From an opening bracket to its `close`: `item` reads one entry (white space already skipped). */
function commaSeparated(p: { s: string; i: number }, close: '}' | ']', item: () => void): void {
  p.i += 1;
  ws(p);
  if (p.s[p.i] === close) {
    p.i += 1;
    return;
  }
  for (;;) {
    ws(p);
    item();
    ws(p);
    if (p.s[p.i] === ',') p.i += 1;
    else if (p.s[p.i] === close) {
      p.i += 1;
      return;
    } else fail();
  }
}

function str(p: { s: string; i: number }): string {
  const start = p.i;
  p.i += 1;
  for (;;) {
    const c = p.s.charCodeAt(p.i);
    if (Number.isNaN(c) || c < 0x20) fail(); // Python's strict mode refuses raw control characters
    if (c === 0x22) break;
    p.i += c === 0x5c ? 2 : 1;
  }
  p.i += 1;
  return JSON.parse(p.s.slice(start, p.i)) as string;
}

/** `json.dumps(v)` (`ensureAscii`, Python's default) or `json.dumps(v, ensure_ascii=False)`. */
export function pyJsonDumps(v: PyValue, ensureAscii = false): string {
  const str = ensureAscii ? pyAsciiString : pyString;
  const dump = (x: PyValue): string => {
    if (x === null) return 'null';
    if (x === true) return 'true';
    if (x === false) return 'false';
    if (typeof x === 'string') return str(x);
    if (Array.isArray(x)) return `[${x.map(dump).join(', ')}]`;
    if (x instanceof Map) return `{${[...x].map(([k, y]) => `${str(k)}: ${dump(y)}`).join(', ')}}`;
    if ('int' in x) return x.int.toString();
    return pyFloatRepr(x.float);
  };
  return dump(v);
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** ensure_ascii=True: everything outside space..tilde escaped, by UTF-16 unit as Python writes it. */
function pyAsciiString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const code = s.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code >= 0x20 && code <= 0x7e) out += ch;
    else out += `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out + '"';
}

function pyString(s: string): string {
  // With ensure_ascii=False Python escapes exactly what JSON.stringify does (quote, backslash,
  // \n \r \t \b \f, other controls as lower-case \u00XX). Only a lone surrogate differs (Python
  // writes it raw, which no UTF-8 frame can carry), so the escape is the better answer.
  return JSON.stringify(s);
}

/** Python's repr(float): shortest round-trip digits, exponent form outside 1e-4 <= |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const sign = neg ? '-' : '';
  if (exp >= -4 && exp < 16) {
    if (exp >= digits.length - 1) return `${sign}${digits}${'0'.repeat(exp - digits.length + 1)}.0`;
    if (exp >= 0) return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
    return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}
