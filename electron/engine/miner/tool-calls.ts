// Tool calls out of generated text, as the reference parses Qwen3.5/3.6 output (the qwen3_coder
// XML format; /work/shared/vectors/qwen3.6/tool-call-format.md section 5):
//   <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>
// Names run to the first `>` (not trimmed); one leading and one trailing newline of a value are
// dropped; each value is converted by the type the request's tool declares for it (strings
// stay strings); the message content is the text before the first call; arguments are Python
// `json.dumps` text.
import { pyJsonDumps, pyJsonLoads, type PyValue } from './py-json.ts';

/** The qwen3_coder markup a call is written in (the splitter holds back text that may start one). */
export const CALL_TAGS = { open: '<tool_call>', close: '</tool_call>', fn: '<function=' } as const;

export interface ParsedCall {
  name: string;
  arguments: string;
}

export interface ParsedToolText {
  /** Text before the first call; null when empty. The whole text when it holds no call. */
  content: string | null;
  calls: ParsedCall[];
}

// Python's `$` also matches just before a final newline: `(?=\n?$)` is its JS spelling.
const CALL_RE = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*?)(?=\n?$)/g;
const FUNCTION_RE = /<function=([\s\S]*?)<\/function>|<function=([\s\S]*)$/g;
const PARAM_RE = /<parameter=([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|(?=<\/function>)|(?=\n?$))/g;

/** Parses a whole content text (reasoning already split off). */
export function parseToolCalls(text: string, tools: unknown): ParsedToolText {
  if (!text.includes(CALL_TAGS.fn)) return { content: text.length > 0 ? text : null, calls: [] };
  const blocks = [...text.matchAll(CALL_RE)].map((m) => m[1] ?? m[2] ?? '');
  // No <tool_call> tags at all: the reference falls back to reading functions from the whole text.
  const sources = blocks.length > 0 ? blocks : [text];
  const bodies = sources.flatMap((b) => [...b.matchAll(FUNCTION_RE)].map((m) => m[1] ?? m[2] ?? ''));
  if (bodies.length === 0) return { content: text.length > 0 ? text : null, calls: [] };
  const calls = bodies.map((b) => parseFunction(b, tools)).filter((c): c is ParsedCall => c !== null);
  const open = text.indexOf(CALL_TAGS.open);
  const at = open >= 0 ? open : text.indexOf(CALL_TAGS.fn);
  const content = text.slice(0, at);
  return { content: content.length > 0 ? content : null, calls };
}

function parseFunction(body: string, tools: unknown): ParsedCall | null {
  const end = body.indexOf('>');
  if (end < 0) return null;
  const name = body.slice(0, end);
  const schema = toolProperties(tools, name);
  const args = new Map<string, PyValue>();
  for (const m of body.slice(end + 1).matchAll(PARAM_RE)) {
    const raw = m[1] ?? '';
    const gt = raw.indexOf('>');
    // The reference's parser raises here and gives up on every call of the text.
    if (gt < 0) throw new MalformedParameter();
    const key = raw.slice(0, gt);
    let v = raw.slice(gt + 1);
    if (v.startsWith('\n')) v = v.slice(1);
    if (v.endsWith('\n')) v = v.slice(0, -1);
    args.set(key, convertParam(v, schema !== null && Object.hasOwn(schema, key) ? schema[key] : undefined));
  }
  return { name, arguments: pyJsonDumps(args) };
}

class MalformedParameter extends Error {}

/** parseToolCalls that answers "no calls, all content" where the reference's parser throws. */
export function parseToolCallsSafe(text: string, tools: unknown): ParsedToolText {
  try {
    return parseToolCalls(text, tools);
  } catch (e) {
    if (e instanceof MalformedParameter) return { content: text.length > 0 ? text : null, calls: [] };
    throw e;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `parameters.properties` of the named function tool; null when the tool is not declared. */
function toolProperties(tools: unknown, name: string): Record<string, unknown> | null {
  if (!Array.isArray(tools)) return null;
  for (const t of tools) {
    if (!isObject(t)) continue;
    const fn = isObject(t.function) ? t.function : null;
    if (!fn || fn.name !== name) continue;
    const params = isObject(fn.parameters) ? fn.parameters : null;
    return params && isObject(params.properties) ? params.properties : {};
  }
  return null;
}

const STRING_TYPES = new Set(['string', 'str', 'text', 'varchar', 'char', 'enum']);
const BOOL_TYPES = new Set(['boolean', 'bool', 'binary']);

/** The declared types of one property: `type` (a name or a list), else those of anyOf/oneOf members. */
function declaredTypes(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  const t = schema.type;
  if (typeof t === 'string') return [t.trim().toLowerCase()];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string').map((x) => x.trim().toLowerCase());
  const members = [...(Array.isArray(schema.anyOf) ? schema.anyOf : []), ...(Array.isArray(schema.oneOf) ? schema.oneOf : [])];
  return members.flatMap(declaredTypes);
}

/** One parameter value by its declared schema; an undeclared parameter stays a string. */
export function convertParam(raw: string, schema: unknown): PyValue {
  if (schema === undefined) return raw;
  const all = declaredTypes(schema);
  const nullable = all.includes('null');
  const types = all.filter((t) => t !== 'null');
  const lower = raw.toLowerCase();
  if (types.length === 0) return nullable && (lower === 'null' || lower === 'none') ? null : raw;
  if (types.some((t) => STRING_TYPES.has(t))) return nullable && lower === 'null' ? null : raw;
  if (lower === 'null' || lower === 'none') return null;
  for (const t of types) {
    const v = convertAs(raw, t);
    if (v !== undefined) return v;
  }
  return raw;
}

function convertAs(raw: string, t: string): PyValue | undefined {
  if (['int', 'uint', 'long', 'short', 'unsigned'].some((p) => t.startsWith(p))) return pyInt(raw);
  if (t.startsWith('num') || t.startsWith('float')) {
    const f = pyFloat(raw);
    if (f === undefined || !Number.isFinite(f)) return undefined;
    return Number.isInteger(f) ? { int: BigInt(f) } : { float: f };
  }
  if (BOOL_TYPES.has(t)) return raw.toLowerCase() === 'true';
  if (t === 'object' || t === 'array' || t === 'arr' || t.startsWith('dict') || t.startsWith('list')) return pyJsonLoads(raw) ?? pyLiteral(raw);
  return pyJsonLoads(raw) ?? pyLiteral(raw);
}

/** Python's int(str): surrounding whitespace, a sign, digits with single underscores between. */
function pyInt(raw: string): PyValue | undefined {
  const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(raw);
  return m ? { int: BigInt(`${m[1] === '-' ? '-' : ''}${m[2]!.replace(/_/g, '')}`) } : undefined;
}

/** Python's float(str) for finite decimal forms. */
function pyFloat(raw: string): number | undefined {
  const d = String.raw`\d+(?:_\d+)*`;
  const re = new RegExp(String.raw`^\s*[+-]?(?:${d}(?:\.(?:${d})?)?|\.${d})(?:[eE][+-]?${d})?\s*$`);
  return re.test(raw) ? Number(raw.replace(/_/g, '')) : undefined;
}

/** The part of ast.literal_eval a value can be without JSON: Python's True/False/None. */
function pyLiteral(raw: string): PyValue | undefined {
  const t = raw.trim();
  if (t === 'True') return true;
  if (t === 'False') return false;
  if (t === 'None') return null;
  return undefined;
}
