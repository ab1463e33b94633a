// Issue 17 item 3: tool calls parsed as the reference parses Qwen3.6 output (qwen3_coder XML,
// /work/shared/vectors/qwen3.6/tool-call-format.md section 5), the values converted by the type
// the request's tool declares, arguments as Python's json.dumps writes them.
import { describe, expect, it } from 'vitest';
import type { StreamDelta } from '../../../electron/engine/miner/frames.ts';
import { OutputSplitter } from '../../../electron/engine/miner/output-splitter.ts';
import { normaliseToolCallArguments } from '../../../electron/engine/miner/prompt-builder.ts';
import { pyFloatRepr, pyJsonDumps, pyJsonLoads } from '../../../electron/engine/miner/py-json.ts';
import { parseToolCalls, parseToolCallsSafe } from '../../../electron/engine/miner/tool-calls.ts';

const fn = (name: string, properties: Record<string, unknown>) => ({ type: 'function', function: { name, parameters: { type: 'object', properties } } });
const TOOLS = [
  fn('get_weather', { city: { type: 'string' } }),
  fn('typed', {
    s: { type: 'string' }, i: { type: 'integer' }, n: { type: 'number' }, b: { type: 'boolean' }, o: { type: 'object' }, a: { type: 'array' },
    e: { type: 'string', enum: ['x', 'y'] }, ns: { type: ['string', 'null'] }, ni: { type: ['integer', 'null'] }, u: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    free: {}, any: { type: 'any' }, __proto__x: { type: 'integer' },
  }),
];
const call = (name: string, params: [string, string][]) =>
  `<tool_call>\n<function=${name}>\n${params.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
const one = (k: string, v: string) => JSON.parse(parseToolCalls(call('typed', [[k, v]]), TOOLS).calls[0]!.arguments) as Record<string, unknown>;
const oneRaw = (k: string, v: string) => parseToolCalls(call('typed', [[k, v]]), TOOLS).calls[0]!.arguments;

describe('tool-call values by declared type', () => {
  // [parameter, model text, arguments JSON text exactly as the reference writes it]
  const table: [string, string, string][] = [
    ['s', '5', '{"s": "5"}'],
    ['s', 'true', '{"s": "true"}'],
    ['s', 'null', '{"s": "null"}'],
    ['s', '{"a": 1}', '{"s": "{\\"a\\": 1}"}'],
    ['s', '  padded  ', '{"s": "  padded  "}'],
    ['e', '07', '{"e": "07"}'],
    ['i', '42', '{"i": 42}'],
    ['i', ' -7 ', '{"i": -7}'],
    ['i', '1_000', '{"i": 1000}'],
    ['i', '12345678901234567890', '{"i": 12345678901234567890}'],
    ['i', '4.5', '{"i": "4.5"}'],
    ['i', 'many', '{"i": "many"}'],
    ['i', 'null', '{"i": null}'],
    ['i', 'None', '{"i": null}'],
    ['n', '2.5', '{"n": 2.5}'],
    ['n', '3.0', '{"n": 3}'],
    ['n', '1e-5', '{"n": 1e-05}'],
    ['n', '.5', '{"n": 0.5}'],
    ['n', 'inf', '{"n": "inf"}'],
    ['n', 'NaN', '{"n": "NaN"}'],
    ['n', '0x10', '{"n": "0x10"}'],
    ['b', 'true', '{"b": true}'],
    ['b', 'True', '{"b": true}'],
    ['b', 'false', '{"b": false}'],
    ['b', 'yes', '{"b": false}'],
    ['o', '{"k": [1, 2.0, "x"], "n": null}', '{"o": {"k": [1, 2.0, "x"], "n": null}}'],
    ['o', '{"__proto__": {"polluted": 1}}', '{"o": {"__proto__": {"polluted": 1}}}'],
    ['o', 'not json', '{"o": "not json"}'],
    ['a', '[1,2,3]', '{"a": [1, 2, 3]}'],
    ['a', '[1, 2,', '{"a": "[1, 2,"}'],
    ['ns', 'null', '{"ns": null}'],
    ['ns', 'hello', '{"ns": "hello"}'],
    ['ni', '9', '{"ni": 9}'],
    ['u', '12', '{"u": "12"}'],
    ['free', '12', '{"free": "12"}'],
    ['any', '12', '{"any": 12}'],
    ['any', 'True', '{"any": true}'],
    ['any', 'plain words', '{"any": "plain words"}'],
    ['undeclared', '12', '{"undeclared": "12"}'],
    ['__proto__', '1', '{"__proto__": "1"}'],
    ['constructor', 'x', '{"constructor": "x"}'],
    ['s', 'héllo "quoted" \\ back\ttab ✓', '{"s": "héllo \\"quoted\\" \\\\ back\\ttab ✓"}'],
  ];
  for (const [k, v, want] of table) {
    it(`${k} = ${JSON.stringify(v)}`, () => expect(oneRaw(k, v)).toBe(want));
  }

  it('keeps every newline inside a value but the first and the last', () => {
    expect(one('s', '\nline one\nline two\n')).toEqual({ s: '\nline one\nline two\n' });
    expect(parseToolCalls('<tool_call><function=typed><parameter=s>x</parameter></function></tool_call>', TOOLS).calls[0]!.arguments).toBe('{"s": "x"}');
  });

  it('leaves nested XML inside a value alone', () => {
    const text = call('typed', [['s', '<a href="x">link</a>\n<b>bold</b>'], ['o', '{"html": "<p>hi</p>"}']]);
    expect(JSON.parse(parseToolCalls(text, TOOLS).calls[0]!.arguments)).toEqual({ s: '<a href="x">link</a>\n<b>bold</b>', o: { html: '<p>hi</p>' } });
  });

  it('a tool the request did not declare: every value a string', () => {
    const r = parseToolCalls(call('missing_tool', [['count', '3'], ['flag', 'true']]), TOOLS);
    expect(r.calls).toEqual([{ name: 'missing_tool', arguments: '{"count": "3", "flag": "true"}' }]);
    expect(parseToolCalls(call('get_weather', [['days', '3']]), undefined).calls[0]!.arguments).toBe('{"days": "3"}');
    expect(parseToolCalls(call('get_weather', [['days', '3']]), [null, 5, { function: 'x' }, { function: { name: 'get_weather', parameters: [] } }]).calls[0]!.arguments).toBe('{"days": "3"}');
  });
});

describe('tool-call text shapes', () => {
  it("the reference's case: content before the call, the call parsed", () => {
    const text = 'Checking.<tool_call><function=get_weather><parameter=city>Paris</parameter></function></tool_call>';
    expect(parseToolCalls(text, TOOLS)).toEqual({ content: 'Checking.', calls: [{ name: 'get_weather', arguments: '{"city": "Paris"}' }] });
  });

  it('drops text after the calls, keeps several calls in order', () => {
    const text = `Let me look.\n\n${call('get_weather', [['city', 'Paris']])}\n${call('get_weather', [['city', 'Oslo']])}\nDone, I think.`;
    const r = parseToolCalls(text, TOOLS);
    expect(r.content).toBe('Let me look.\n\n');
    expect(r.calls.map((c) => c.arguments)).toEqual(['{"city": "Paris"}', '{"city": "Oslo"}']);
  });

  it('reads an unterminated call and parameter at the end (a truncated generation)', () => {
    const r = parseToolCalls('<tool_call>\n<function=typed>\n<parameter=i>\n5\n<parameter=s>\nhalf', TOOLS);
    expect(r.calls).toEqual([{ name: 'typed', arguments: '{"i": 5, "s": "half"}' }]);
    expect(r.content).toBeNull();
  });

  it('reads a bare <function=> without <tool_call> tags, as the reference falls back to', () => {
    const r = parseToolCalls('Sure. <function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>', TOOLS);
    expect(r).toEqual({ content: 'Sure. ', calls: [{ name: 'get_weather', arguments: '{"city": "Rome"}' }] });
  });

  it('malformed: no function inside the block, a name without >, a parameter without >', () => {
    expect(parseToolCalls('Hi <tool_call>{"name": "x"}</tool_call>', TOOLS)).toEqual({ content: 'Hi <tool_call>{"name": "x"}</tool_call>', calls: [] });
    expect(parseToolCalls('A<tool_call><function=get_weather</tool_call>', TOOLS)).toEqual({ content: 'A', calls: [] });
    expect(parseToolCallsSafe('A<tool_call><function=f><parameter=broken</function></tool_call>', TOOLS)).toEqual({ content: 'A<tool_call><function=f><parameter=broken</function></tool_call>', calls: [] });
    expect(parseToolCalls('', TOOLS)).toEqual({ content: null, calls: [] });
  });

  it('keeps names as written (no trimming) and survives hostile sizes', () => {
    expect(parseToolCalls('<tool_call><function= spaced >\n</function></tool_call>', TOOLS).calls[0]!.name).toBe(' spaced ');
    const big = call('typed', Array.from({ length: 2000 }, (_, i) => [`p${i}`, 'v'.repeat(50)] as [string, string]));
    expect(Object.keys(JSON.parse(parseToolCalls(big, TOOLS).calls[0]!.arguments) as object)).toHaveLength(2000);
    expect(pyJsonLoads('['.repeat(5000) + ']'.repeat(5000))).toBeUndefined();
  });
});

describe('streamed tool calls agree with the final message', () => {
  const pieces = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, i * size + size));
  const texts = [
    `I will check.\n\n${call('typed', [['i', '5'], ['s', '5']])}\n${call('get_weather', [['city', 'Paris']])}\ntrailing words`,
    'Hi <tool_call>{"name": "x"} and more text',
    'Sure. <function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function> bye',
    `Text < with angle <tool and <func${call('typed', [['b', 'TRUE']])}`,
  ];
  for (const text of texts) {
    for (const size of [1, 3, 7, 1000]) {
      it(`${JSON.stringify(text.slice(0, 24))}… in pieces of ${size}`, () => {
        let n = 0;
        const s = new OutputSplitter(false, () => `call_${n++}`, TOOLS);
        const out: StreamDelta[] = [...pieces(text, size).flatMap((p) => s.push(p)), ...s.finish()];
        const msg = s.message();
        const ref = parseToolCallsSafe(text, TOOLS);
        expect(msg.content).toBe(ref.content === null ? null : ref.content.trim().length > 0 ? ref.content.trimEnd() : null);
        expect((msg.tool_calls ?? []).map((c) => c.function)).toEqual(ref.calls);
        expect(out.map((d) => d.content ?? '').join('').trimEnd()).toBe(msg.content ?? '');
        expect(out.flatMap((d) => d.tool_calls ?? [])).toEqual(msg.tool_calls ?? []);
      });
    }
  }

  it('streams a closed call before the generation ends', () => {
    const s = new OutputSplitter(false, () => 'call_x', TOOLS);
    const early = s.push(`Ok.${call('get_weather', [['city', 'Paris']])}\n<tool_call>\n<function=get_`);
    expect(early.flatMap((d) => d.tool_calls ?? []).map((c) => c.function.name)).toEqual(['get_weather']);
  });
});

describe('history arguments normalised for the template', () => {
  const msg = (tool_calls: unknown[]) => ({ role: 'assistant', content: '', tool_calls });
  const table: [unknown, unknown][] = [
    [{ type: 'function', function: { name: 'f', arguments: '{"a": 1}' } }, { type: 'function', function: { name: 'f', arguments: { a: 1 } } }],
    [{ function: { name: 'f', arguments: { a: 1 } } }, { function: { name: 'f', arguments: { a: 1 } } }],
    [{ function: { name: 'f', arguments: '{not json' } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f', arguments: '[1, 2]' } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f', arguments: '"text"' } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f', arguments: null } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f' } }, { function: { name: 'f' } }],
    [{ name: 'flat', arguments: '{"q": "x"}' }, { name: 'flat', arguments: { q: 'x' } }],
    [{ name: 'flat', arguments: 7 }, { name: 'flat', arguments: {} }],
    ['not an object', 'not an object'],
  ];
  for (const [given, want] of table) {
    it(JSON.stringify(given), () => expect(normaliseToolCallArguments(msg([given]))).toEqual(msg([want])));
  }

  it('keeps a "__proto__" argument as data', () => {
    const out = normaliseToolCallArguments(msg([{ function: { name: 'f', arguments: '{"__proto__": {"x": 1}}' } }])) as { tool_calls: { function: { arguments: object } }[] };
    const args = out.tool_calls[0]!.function.arguments;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['__proto__']);
  });
});

describe('Python JSON text', () => {
  it('writes floats as repr does', () => {
    expect([0.1, 1.5, 1e16, 1e15, 1e-4, 1e-5, -2.5e-7, 123456789.125, 1e300, -0].map(pyFloatRepr)).toEqual(['0.1', '1.5', '1e+16', '1000000000000000.0', '0.0001', '1e-05', '-2.5e-07', '123456789.125', '1e+300', '-0.0']);
  });
  it('round-trips exact integers and keeps key order, including duplicate keys resolved last-wins', () => {
    expect(pyJsonDumps(pyJsonLoads('{"b": 1, "a": [true, null, 1.0, 18446744073709551617], "b": 2}')!)).toBe('{"b": 2, "a": [true, null, 1.0, 18446744073709551617]}');
    expect(pyJsonLoads('{"a": 1} x')).toBeUndefined();
    // Where Python's json.loads raises: trailing commas, missing separators, non-string keys, unclosed brackets.
    for (const bad of ['[1,]', '{"a": 1,}', '[1 2]', '{"a" 1}', '{1: 2}', '{"a": 1', '[', '{,}', '[,]']) expect(pyJsonLoads(bad), bad).toBeUndefined();
    expect(pyJsonDumps(pyJsonLoads(' [ 1 , {} , [ ] ] ')!)).toBe('[1, {}, []]');
    expect(pyJsonLoads('"raw\ncontrol"')).toBeUndefined();
  });
});
