// Tool calls out of generated text, as the reference miner reads Qwen3.5/3.6 output
// (hanlinai/engy miner/engy_miner.py at df70f57, `_parse_tool_calls` and `_coerce`):
//   <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>
// Only closed <tool_call> blocks count, one call per block (its first closed <function=>), only
// closed parameters; names, keys and values are stripped of Python whitespace; a value becomes
// the type its tool declares (`integer`, `number`, `boolean`, `object`/`array`; anything else and
// every failed conversion stay the text); arguments are Python's `json.dumps` text, ASCII-escaped.
// The reference matches with regular expressions; this reads the same spans with indexOf, so a
// hostile text (thousands of spaces, no closing tag) costs linear time, not a backtracking storm.
import { pyStrip, PY_SPACE } from './jinja-python-strings.ts';
import { pyJsonDumps, pyJsonLoads, type PyValue } from './py-json.ts';

/** The qwen3_coder markup a call is written in. */
export const CALL_TAGS = { open: '<tool_call>', close: '</tool_call>', fn: '<function=', fnClose: '</function>' } as const;
const PARAM_OPEN = '<parameter=';
const PARAM_CLOSE = '</parameter>';

export interface ParsedCall {
  name: string;
  arguments: string;
}

const strip = (s: string) => pyStrip(s, null, true, true);
const isPySpace = (c: string) => PY_SPACE.includes(c);

/** Index of the first non-whitespace character at or after `i` (Python's `\s*`). */
function skipSpace(text: string, i: number, end: number): number {
  while (i < end && isPySpace(text[i]!)) i++;
  return i;
}

/** The bodies of the closed <tool_call> blocks, in order (the reference's findall). */
export function closedCallBlocks(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf(CALL_TAGS.open, from);
    if (open < 0) return out;
    const close = text.indexOf(CALL_TAGS.close, open + CALL_TAGS.open.length);
    // No close after this open: none after any later open either.
    if (close < 0) return out;
    out.push(strip(text.slice(open + CALL_TAGS.open.length, close)));
    from = close + CALL_TAGS.close.length;
  }
}

/** `<KEY>REST…CLOSE` after a tag opener at `at`: the key up to the first `>`, the body up to CLOSE. */
function tagSpan(text: string, at: number, opener: string, closer: string, end: number): { key: string; body: string; next: number } | null {
  const nameFrom = skipSpace(text, at + opener.length, end);
  const gt = text.indexOf('>', nameFrom);
  if (gt < 0 || gt >= end) return null;
  const close = text.indexOf(closer, gt + 1);
  if (close < 0 || close + closer.length > end) return null;
  return { key: strip(text.slice(nameFrom, gt)), body: text.slice(gt + 1, close), next: close + closer.length };
}

/** Every call in `text`, as the reference parses a message's visible text. */
export function parseToolCalls(text: string, tools: unknown): ParsedCall[] {
  const types = toolParamTypes(tools);
  const calls: ParsedCall[] = [];
  for (const block of closedCallBlocks(text)) {
    const fnAt = block.indexOf(CALL_TAGS.fn);
    if (fnAt < 0) continue;
    // The first <function= decides: with no '>' or no </function> after it, none later can match.
    const fn = tagSpan(block, fnAt, CALL_TAGS.fn, CALL_TAGS.fnClose, block.length);
    if (fn === null) continue;
    const declared = types.get(fn.key);
    const args = new Map<string, PyValue>();
    let from = 0;
    for (;;) {
      const at = fn.body.indexOf(PARAM_OPEN, from);
      if (at < 0) break;
      const p = tagSpan(fn.body, at, PARAM_OPEN, PARAM_CLOSE, fn.body.length);
      if (p === null) break;
      args.set(p.key, coerce(strip(p.body), declared?.get(p.key)));
      from = p.next;
    }
    calls.push({ name: fn.key, arguments: pyJsonDumps(args, true) });
  }
  return calls;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * {function name: {parameter: declared `type`}} from the request's tools; a later tool of the same
 * name replaces an earlier one, as the reference's dict does. Where the reference would raise on a
 * malformed tool (a tool or property that is not an object) this reads "no declared type".
 */
function toolParamTypes(tools: unknown): Map<string, Map<string, unknown>> {
  const out = new Map<string, Map<string, unknown>>();
  if (!Array.isArray(tools)) return out;
  for (const t of tools) {
    const fn = isObject(t) && isObject(t.function) ? t.function : null;
    if (!fn || typeof fn.name !== 'string' || fn.name.length === 0) continue;
    const params = isObject(fn.parameters) ? fn.parameters : null;
    const props = params && isObject(params.properties) ? params.properties : {};
    const types = new Map<string, unknown>();
    for (const [k, v] of Object.entries(props)) types.set(k, isObject(v) ? v.type : undefined);
    out.set(fn.name, types);
  }
  return out;
}

/** One parameter value by its declared type, or the text where Python's conversion raises. */
export function coerce(val: string, type: unknown): PyValue {
  if (type === 'integer') return pyInt(val) ?? val;
  if (type === 'number') {
    const f = pyFloat(val);
    return f === undefined ? val : { float: f };
  }
  if (type === 'boolean') return ['true', '1', 'yes'].includes(strip(val).toLowerCase());
  if (type === 'object' || type === 'array') {
    const v = pyJsonLoads(val);
    return v === undefined ? val : v;
  }
  return val;
}

const WS = `[${PY_SPACE}]*`;
const DIGITS = String.raw`\d+(?:_\d+)*`;
const INT_RE = new RegExp(`^${WS}([+-]?)(${DIGITS})${WS}$`, 'u');
const FLOAT_RE = new RegExp(String.raw`^${WS}([+-]?(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?)${WS}$`, 'u');
const FLOAT_WORD_RE = new RegExp(`^${WS}([+-]?)(inf|infinity|nan)${WS}$`, 'iu');

/** Python's int(str) for ASCII digits: whitespace, a sign, single underscores between digits. */
function pyInt(raw: string): PyValue | undefined {
  const m = INT_RE.exec(raw);
  return m ? { int: BigInt(`${m[1] === '-' ? '-' : ''}${m[2]!.replace(/_/g, '')}`) } : undefined;
}

/** Python's float(str): decimal forms (overflow to infinity), `inf`, `infinity`, `nan`. */
function pyFloat(raw: string): number | undefined {
  const m = FLOAT_RE.exec(raw);
  if (m) return Number(m[1]!.replace(/_/g, ''));
  const w = FLOAT_WORD_RE.exec(raw);
  if (!w) return undefined;
  if (w[2]!.toLowerCase() === 'nan') return NaN;
  return w[1] === '-' ? -Infinity : Infinity;
}
