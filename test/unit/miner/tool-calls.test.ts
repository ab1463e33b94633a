// Issue 32 item 5: tool calls and reasoning shaped byte for byte as the reference miner shapes them
// (hanlinai/engy miner/engy_miner.py at df70f57: `_parse_tool_calls`, `_coerce`, `_split_think`,
// `_assemble_message`, `_normalize_messages`). The expected outputs in the differential table were
// produced by the reference's own functions under CPython 3 and are transcribed here as data: the
// compact JSON of {finish_reason, message}, call ids replaced by "ID". 13 of these rows differed
// before (number 5.0, booleans "1"/"yes", "null", whitespace, a spaced name, several calls in one
// block, an unclosed <tool_call>, ASCII escaping, </think> alone, "length" inside reasoning, ...).
import { describe, expect, it } from 'vitest';
import { assembleMessage } from '../../../electron/engine/miner/assemble-message.ts';
import type { StreamDelta } from '../../../electron/engine/miner/frames.ts';
import { OutputSplitter } from '../../../electron/engine/miner/output-splitter.ts';
import { pyStrip } from '../../../electron/engine/miner/jinja-python-strings.ts';
import { normaliseToolCallArguments } from '../../../electron/engine/miner/prompt-builder.ts';
import { pyFloatRepr, pyJsonDumps, pyJsonLoads } from '../../../electron/engine/miner/py-json.ts';
import { parseToolCalls } from '../../../electron/engine/miner/tool-calls.ts';

// Parsed from text so that "__proto__" is an own property, as in a buyer's JSON request.
const TOOLS: unknown = JSON.parse(String.raw`[
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
  {"type": "function", "function": {"name": "typed", "parameters": {"type": "object", "properties": {
    "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"}, "o": {"type": "object"}, "a": {"type": "array"},
    "ni": {"type": ["integer", "null"]}, "u": {"anyOf": [{"type": "integer"}]}, "free": {}, "__proto__": {"type": "integer"}}}}},
  {"type": "function", "function": {"name": "twice", "parameters": {"properties": {"x": {"type": "integer"}}}}},
  {"type": "function", "function": {"name": "twice", "parameters": {"properties": {"x": {"type": "boolean"}}}}}
]`);

// [case, model output text, prompt/budget, the reference's {finish_reason, message} as compact JSON]
const DIFFERENTIAL: [string, string, { thinkOpen?: boolean; truncated?: boolean }, string][] = [
  [
    'n = "5"',
    '<tool_call>\n<function=typed>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": 5.0}"}}]}}',
  ],
  [
    'n = "2.5"',
    '<tool_call>\n<function=typed>\n<parameter=n>\n2.5\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": 2.5}"}}]}}',
  ],
  [
    'n = "1e-5"',
    '<tool_call>\n<function=typed>\n<parameter=n>\n1e-5\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": 1e-05}"}}]}}',
  ],
  [
    'n = "inf"',
    '<tool_call>\n<function=typed>\n<parameter=n>\ninf\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": Infinity}"}}]}}',
  ],
  [
    'n = "-Infinity"',
    '<tool_call>\n<function=typed>\n<parameter=n>\n-Infinity\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": -Infinity}"}}]}}',
  ],
  [
    'n = "nan"',
    '<tool_call>\n<function=typed>\n<parameter=n>\nnan\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": NaN}"}}]}}',
  ],
  [
    'n = "1e400"',
    '<tool_call>\n<function=typed>\n<parameter=n>\n1e400\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": Infinity}"}}]}}',
  ],
  [
    'n = "1_000.5"',
    '<tool_call>\n<function=typed>\n<parameter=n>\n1_000.5\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": 1000.5}"}}]}}',
  ],
  [
    'n = "0x10"',
    '<tool_call>\n<function=typed>\n<parameter=n>\n0x10\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": \\"0x10\\"}"}}]}}',
  ],
  [
    'n = "null"',
    '<tool_call>\n<function=typed>\n<parameter=n>\nnull\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"n\\": \\"null\\"}"}}]}}',
  ],
  [
    'i = "42"',
    '<tool_call>\n<function=typed>\n<parameter=i>\n42\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": 42}"}}]}}',
  ],
  [
    'i = "-7"',
    '<tool_call>\n<function=typed>\n<parameter=i>\n-7\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": -7}"}}]}}',
  ],
  [
    'i = "1_000"',
    '<tool_call>\n<function=typed>\n<parameter=i>\n1_000\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": 1000}"}}]}}',
  ],
  [
    'i = "007"',
    '<tool_call>\n<function=typed>\n<parameter=i>\n007\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": 7}"}}]}}',
  ],
  [
    'i = "12345678901234567890"',
    '<tool_call>\n<function=typed>\n<parameter=i>\n12345678901234567890\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": 12345678901234567890}"}}]}}',
  ],
  [
    'i = "4.5"',
    '<tool_call>\n<function=typed>\n<parameter=i>\n4.5\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": \\"4.5\\"}"}}]}}',
  ],
  [
    'i = "null"',
    '<tool_call>\n<function=typed>\n<parameter=i>\nnull\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": \\"null\\"}"}}]}}',
  ],
  [
    'i = "None"',
    '<tool_call>\n<function=typed>\n<parameter=i>\nNone\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": \\"None\\"}"}}]}}',
  ],
  [
    'b = "true"',
    '<tool_call>\n<function=typed>\n<parameter=b>\ntrue\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": true}"}}]}}',
  ],
  [
    'b = "True"',
    '<tool_call>\n<function=typed>\n<parameter=b>\nTrue\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": true}"}}]}}',
  ],
  [
    'b = "1"',
    '<tool_call>\n<function=typed>\n<parameter=b>\n1\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": true}"}}]}}',
  ],
  [
    'b = "yes"',
    '<tool_call>\n<function=typed>\n<parameter=b>\nyes\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": true}"}}]}}',
  ],
  [
    'b = "YES"',
    '<tool_call>\n<function=typed>\n<parameter=b>\nYES\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": true}"}}]}}',
  ],
  [
    'b = "no"',
    '<tool_call>\n<function=typed>\n<parameter=b>\nno\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": false}"}}]}}',
  ],
  [
    'b = "false"',
    '<tool_call>\n<function=typed>\n<parameter=b>\nfalse\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": false}"}}]}}',
  ],
  [
    'b = "null"',
    '<tool_call>\n<function=typed>\n<parameter=b>\nnull\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"b\\": false}"}}]}}',
  ],
  [
    'o = "{\\"k\\": [1, 2.0, \\"x\\"], \\"n\\": null}"',
    '<tool_call>\n<function=typed>\n<parameter=o>\n{"k": [1, 2.0, "x"], "n": null}\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"o\\": {\\"k\\": [1, 2.0, \\"x\\"], \\"n\\": null}}"}}]}}',
  ],
  [
    'o = "null"',
    '<tool_call>\n<function=typed>\n<parameter=o>\nnull\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"o\\": null}"}}]}}',
  ],
  [
    'o = "[1, 2]"',
    '<tool_call>\n<function=typed>\n<parameter=o>\n[1, 2]\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"o\\": [1, 2]}"}}]}}',
  ],
  [
    'o = "5"',
    '<tool_call>\n<function=typed>\n<parameter=o>\n5\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"o\\": 5}"}}]}}',
  ],
  [
    'o = "NaN"',
    '<tool_call>\n<function=typed>\n<parameter=o>\nNaN\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"o\\": NaN}"}}]}}',
  ],
  [
    'o = "not json"',
    '<tool_call>\n<function=typed>\n<parameter=o>\nnot json\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"o\\": \\"not json\\"}"}}]}}',
  ],
  [
    'o = "{\\"__proto__\\": {\\"polluted\\": 1}}"',
    '<tool_call>\n<function=typed>\n<parameter=o>\n{"__proto__": {"polluted": 1}}\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"o\\": {\\"__proto__\\": {\\"polluted\\": 1}}}"}}]}}',
  ],
  [
    'a = "[1,2,3]"',
    '<tool_call>\n<function=typed>\n<parameter=a>\n[1,2,3]\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"a\\": [1, 2, 3]}"}}]}}',
  ],
  [
    'a = "[1, 2,"',
    '<tool_call>\n<function=typed>\n<parameter=a>\n[1, 2,\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"a\\": \\"[1, 2,\\"}"}}]}}',
  ],
  [
    's = "5"',
    '<tool_call>\n<function=typed>\n<parameter=s>\n5\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"s\\": \\"5\\"}"}}]}}',
  ],
  [
    's = "null"',
    '<tool_call>\n<function=typed>\n<parameter=s>\nnull\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"s\\": \\"null\\"}"}}]}}',
  ],
  [
    's = "  padded  "',
    '<tool_call>\n<function=typed>\n<parameter=s>\n  padded  \n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"s\\": \\"padded\\"}"}}]}}',
  ],
  [
    's = "\\n\\nline one\\nline two\\n\\n"',
    '<tool_call>\n<function=typed>\n<parameter=s>\n\n\nline one\nline two\n\n\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"s\\": \\"line one\\\\nline two\\"}"}}]}}',
  ],
  [
    's = "h\\u00e9llo \\"quoted\\" \\\\ back\\ttab \\u2713 \\ud83d\\ude00 \\u007f"',
    '<tool_call>\n<function=typed>\n<parameter=s>\nhéllo "quoted" \\ back\ttab ✓ 😀 \n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"s\\": \\"h\\\\u00e9llo \\\\\\"quoted\\\\\\" \\\\\\\\ back\\\\ttab \\\\u2713 \\\\ud83d\\\\ude00 \\\\u007f\\"}"}}]}}',
  ],
  [
    'ni = "9"',
    '<tool_call>\n<function=typed>\n<parameter=ni>\n9\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"ni\\": \\"9\\"}"}}]}}',
  ],
  [
    'u = "12"',
    '<tool_call>\n<function=typed>\n<parameter=u>\n12\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"u\\": \\"12\\"}"}}]}}',
  ],
  [
    'free = "12"',
    '<tool_call>\n<function=typed>\n<parameter=free>\n12\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"free\\": \\"12\\"}"}}]}}',
  ],
  [
    'undeclared = "12"',
    '<tool_call>\n<function=typed>\n<parameter=undeclared>\n12\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"undeclared\\": \\"12\\"}"}}]}}',
  ],
  [
    '__proto__ = "1"',
    '<tool_call>\n<function=typed>\n<parameter=__proto__>\n1\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"__proto__\\": 1}"}}]}}',
  ],
  [
    'constructor = "x"',
    '<tool_call>\n<function=typed>\n<parameter=constructor>\nx\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"constructor\\": \\"x\\"}"}}]}}',
  ],
  [
    'a function name with spaces',
    '<tool_call>\n<function= get_weather >\n<parameter= days >\n3\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\\"days\\": 3}"}}]}}',
  ],
  [
    'several calls in one block: the first counts',
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\"}"}}]}}',
  ],
  [
    'several blocks, text between and after dropped',
    'Let me look.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\nand\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>\nDone.',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\"}"}},{"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Oslo\\"}"}}]}}',
  ],
  [
    'an unclosed <tool_call>: no call, all content',
    'Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n',
    {},
    '{"finish_reason":"stop","message":{"role":"assistant","content":"Checking.\\n<tool_call>\\n<function=get_weather>\\n<parameter=city>\\nParis\\n</parameter>\\n</function>"}}',
  ],
  [
    'a closed call then an unclosed one',
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOs',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\"}"}}]}}',
  ],
  [
    'an unclosed parameter is dropped',
    '<tool_call>\n<function=typed>\n<parameter=i>\n5\n<parameter=s>\nhalf\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{}"}}]}}',
  ],
  [
    'a parameter whose key swallows the next one',
    '<tool_call>\n<function=typed>\n<parameter=i>\n5\n<parameter=s>\nx\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": \\"5\\\\n<parameter=s>\\\\nx\\"}"}}]}}',
  ],
  [
    'a block with no function is no call',
    'Hi <tool_call>{"name": "x"}</tool_call>',
    {},
    '{"finish_reason":"stop","message":{"role":"assistant","content":"Hi <tool_call>{\\"name\\": \\"x\\"}</tool_call>"}}',
  ],
  [
    'a bare <function=> without <tool_call> is no call',
    'Sure. <function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>',
    {},
    '{"finish_reason":"stop","message":{"role":"assistant","content":"Sure. <function=get_weather>\\n<parameter=city>\\nRome\\n</parameter>\\n</function>"}}',
  ],
  [
    'a function without </function>',
    'A<tool_call><function=get_weather><parameter=city>x</parameter></tool_call>',
    {},
    '{"finish_reason":"stop","message":{"role":"assistant","content":"A<tool_call><function=get_weather><parameter=city>x</parameter></tool_call>"}}',
  ],
  [
    'a tool declared twice: the last declaration wins',
    '<tool_call>\n<function=twice>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"twice","arguments":"{\\"x\\": true}"}}]}}',
  ],
  [
    'an undeclared tool: every value text',
    '<tool_call>\n<function=missing_tool>\n<parameter=count>\n3\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"missing_tool","arguments":"{\\"count\\": \\"3\\", \\"flag\\": \\"true\\"}"}}]}}',
  ],
  [
    'a duplicate parameter: the last value, the first place',
    '<tool_call>\n<function=typed>\n<parameter=i>\n1\n</parameter>\n<parameter=s>\na\n</parameter>\n<parameter=i>\n2\n</parameter>\n</function>\n</tool_call>',
    {},
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"typed","arguments":"{\\"i\\": 2, \\"s\\": \\"a\\"}"}}]}}',
  ],
  [
    'reasoning then a call',
    'I should check the weather.\n</think>\n\nOk.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
    { thinkOpen: true },
    '{"finish_reason":"tool_calls","message":{"role":"assistant","content":"Ok.","tool_calls":[{"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\"}"}}],"reasoning_content":"I should check the weather."}}',
  ],
  [
    '</think> without an opening tag',
    'planning first</think>\n\nThe answer.',
    {},
    '{"finish_reason":"stop","message":{"role":"assistant","content":"The answer.","reasoning_content":"planning first"}}',
  ],
  ['<think> inline at the start, closed', '<think>\nhmm\n</think>\n\nAnswer.', {}, '{"finish_reason":"stop","message":{"role":"assistant","content":"Answer.","reasoning_content":"hmm"}}'],
  ['<think> inline at the start, never closed', '<think>\nhmm, still', {}, '{"finish_reason":"stop","message":{"role":"assistant","content":null,"reasoning_content":"hmm, still"}}'],
  [
    'thinking opened by the prompt, never closed',
    'Still thinking <tool_call> inside',
    { thinkOpen: true },
    '{"finish_reason":"stop","message":{"role":"assistant","content":null,"reasoning_content":"Still thinking <tool_call> inside"}}',
  ],
  [
    'the budget ends inside reasoning',
    'Let me think about this step by step',
    { thinkOpen: true, truncated: true },
    '{"finish_reason":"length","message":{"role":"assistant","content":null,"reasoning_content":"Let me think about this step by step"}}',
  ],
  [
    'the budget ends after a parsed call',
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
    { truncated: true },
    '{"finish_reason":"length","message":{"role":"assistant","content":null,"tool_calls":[{"id":"ID","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\"}"}}]}}',
  ],
  ['a second <think> inside the reasoning', 'one<think>two</think>three', { thinkOpen: true }, '{"finish_reason":"stop","message":{"role":"assistant","content":"three","reasoning_content":"two"}}'],
  ['only whitespace', ' \n\t ', {}, '{"finish_reason":"stop","message":{"role":"assistant","content":null}}'],
  ['empty', '', {}, '{"finish_reason":"stop","message":{"role":"assistant","content":null}}'],
  ['non-ASCII content stays as written', 'Grüße ✓ 😀', {}, '{"finish_reason":"stop","message":{"role":"assistant","content":"Grüße ✓ 😀"}}'],
  ['Python whitespace around content', '  Answer　', {}, '{"finish_reason":"stop","message":{"role":"assistant","content":"Answer"}}'],
];

const pyRstrip = (t: string) => pyStrip(t, null, false, true);

const shaped = (text: string, o: { thinkOpen?: boolean; truncated?: boolean }) => {
  const { message, finish } = assembleMessage(text, TOOLS, o.thinkOpen ?? false, o.truncated ?? false, () => 'ID');
  return JSON.stringify({ finish_reason: finish, message });
};

describe('the differential table against the reference miner', () => {
  for (const [name, text, o, want] of DIFFERENTIAL) {
    it(name, () => expect(shaped(text, o)).toBe(want));
  }

  it('the streamed deltas say what the message says for every row, fed in pieces', () => {
    // Two known gaps, both in the reference's own stream too, since streamed text cannot be taken
    // back: a `</think>` with no `<think>` turns content already streamed into reasoning, and a
    // second `<think>` inside reasoning drops the reasoning already streamed before it.
    const lateThinkClose = (text: string, thinkOpen: boolean) => !thinkOpen && !text.startsWith('<think>') && text.includes('</think>');
    const thinkInsideReasoning = (text: string, thinkOpen: boolean) => thinkOpen && text.includes('<think>');
    for (const [name, text, o] of DIFFERENTIAL) {
      if (lateThinkClose(text, o.thinkOpen ?? false) || thinkInsideReasoning(text, o.thinkOpen ?? false)) continue;
      for (const size of [1, 4, 1000]) {
        const s = new OutputSplitter(o.thinkOpen ?? false, () => 'ID', TOOLS);
        const out: StreamDelta[] = [];
        for (let i = 0; i < text.length; i += size) out.push(...s.push(text.slice(i, i + size)));
        out.push(...s.finish());
        const { message } = s.assemble(o.truncated ?? false);
        const said = (k: 'content' | 'reasoning_content') => pyRstrip(out.map((d) => d[k] ?? '').join(''));
        expect(said('content'), `${name} / ${size}`).toBe(message.content ?? '');
        expect(said('reasoning_content'), `${name} / ${size}`).toBe(message.reasoning_content ?? '');
        expect(
          out.flatMap((d) => d.tool_calls ?? []).map((c) => c.function),
          `${name} / ${size}`,
        ).toEqual((message.tool_calls ?? []).map((c) => c.function));
      }
    }
  });

  it('the stream settles on the same message for every row, fed in pieces', () => {
    for (const [name, text, o] of DIFFERENTIAL) {
      for (const size of [1, 5, 1000]) {
        const s = new OutputSplitter(o.thinkOpen ?? false, () => 'ID', TOOLS);
        for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size));
        s.finish();
        const { message, finish } = s.assemble(o.truncated ?? false);
        expect(JSON.stringify({ finish_reason: finish, message }), `${name} / ${size}`).toBe(shaped(text, o));
      }
    }
  });
});

describe('hostile tool-call text', () => {
  it('costs linear time on long runs of whitespace and unclosed tags', () => {
    const spaces = ' '.repeat(200_000);
    const texts = [
      `<tool_call>${spaces}`,
      `<tool_call><function=${spaces}`,
      `<tool_call><function=f>${'<parameter='.repeat(20_000)}${spaces}</function></tool_call>`,
      `${'<tool_call>'.repeat(20_000)}`,
    ];
    for (const t of texts) expect(parseToolCalls(t, TOOLS)).toHaveLength(t.endsWith('</tool_call>') ? 1 : 0);
  });

  it('survives thousands of parameters and tools that are not objects', () => {
    const params = Array.from({ length: 2000 }, (_, i) => `<parameter=p${i}>\n${'v'.repeat(50)}\n</parameter>\n`).join('');
    const calls = parseToolCalls(`<tool_call>\n<function=typed>\n${params}</function>\n</tool_call>`, [null, 5, 'x', { function: 'x' }, { function: { name: 'typed', parameters: [] } }]);
    expect(Object.keys(JSON.parse(calls[0]!.arguments) as object)).toHaveLength(2000);
    expect(pyJsonLoads('['.repeat(5000) + ']'.repeat(5000))).toBeUndefined();
  });
});

describe('streamed deltas', () => {
  const call = (name: string, params: [string, string][]) => `<tool_call>\n<function=${name}>\n${params.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
  const texts: [string, boolean][] = [
    [
      `I will check.\n\n${call('typed', [
        ['i', '5'],
        ['s', '5'],
      ])}\n${call('get_weather', [['city', 'Paris']])}\ntrailing words`,
      false,
    ],
    ['Hi <tool_call>{"name": "x"} and more text', false],
    [`Text < with angle <tool and <think${call('typed', [['b', 'TRUE']])}`, false],
    [`reasoning here\n</think>\n\nThe answer.${call('get_weather', [['city', 'Oslo']])}`, true],
    ['<think>\ninline reasoning</think>\nvisible', false],
  ];
  for (const [text, thinkOpen] of texts) {
    for (const size of [1, 3, 7, 1000]) {
      it(`${JSON.stringify(text.slice(0, 24))}… in pieces of ${size}`, () => {
        let n = 0;
        const s = new OutputSplitter(thinkOpen, () => `call_${n++}`, TOOLS);
        const out: StreamDelta[] = [];
        for (let i = 0; i < text.length; i += size) out.push(...s.push(text.slice(i, i + size)));
        out.push(...s.finish());
        const msg = s.message();
        const joined = (key: 'content' | 'reasoning_content') =>
          out
            .map((d) => d[key] ?? '')
            .join('')
            .trimEnd();
        expect(joined('content')).toBe(msg.content ?? '');
        expect(joined('reasoning_content')).toBe(msg.reasoning_content ?? '');
        expect(out.flatMap((d) => d.tool_calls ?? []).map(({ id, type, function: f }) => ({ id, type, function: f }))).toEqual(msg.tool_calls ?? []);
        expect(out.flatMap((d) => d.tool_calls ?? []).map((c) => c.index)).toEqual((msg.tool_calls ?? []).map((_, i) => i));
      });
    }
  }

  it('streams a closed call before the generation ends', () => {
    const s = new OutputSplitter(false, () => 'call_x', TOOLS);
    const early = s.push(`Ok.${call('get_weather', [['city', 'Paris']])}\n<tool_call>\n<function=get_`);
    expect(early.flatMap((d) => d.tool_calls ?? []).map((c) => c.function.name)).toEqual(['get_weather']);
  });
});

describe('history arguments normalised as the reference does (_normalize_messages)', () => {
  const msg = (tool_calls: unknown[]) => ({ role: 'assistant', content: '', tool_calls });
  // [call as the buyer sent it on turn two, the call the template gets] (the reference's output)
  const table: [unknown, unknown][] = [
    [
      { type: 'function', function: { name: 'f', arguments: '{"a": 1}' } },
      { type: 'function', function: { name: 'f', arguments: { a: 1 } } },
    ],
    [
      { id: 'call_1', type: 'function', function: { name: 'f', arguments: { a: 1, b: [true, null] } } },
      { id: 'call_1', type: 'function', function: { name: 'f', arguments: { a: 1, b: [true, null] } } },
    ],
    [{ function: { name: 'f', arguments: '{not json' } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f', arguments: '[1, 2]' } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f', arguments: '"text"' } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f', arguments: '' } }, { function: { name: 'f', arguments: {} } }],
    [{ function: { name: 'f', arguments: null } }, { function: { name: 'f', arguments: null } }],
    [{ function: { name: 'f', arguments: 7 } }, { function: { name: 'f', arguments: 7 } }],
    [{ function: { name: 'f' } }, { function: { name: 'f' } }],
    [
      { name: 'flat', arguments: '{"q": "x"}' },
      { name: 'flat', arguments: { q: 'x' } },
    ],
    [
      { name: 'flat', arguments: 7 },
      { name: 'flat', arguments: 7 },
    ],
    [
      { function: 'not an object', name: 'g', arguments: '{"k": 2}' },
      { function: 'not an object', name: 'g', arguments: { k: 2 } },
    ],
    ['not an object', 'not an object'],
    [null, null],
  ];
  for (const [given, want] of table) {
    it(JSON.stringify(given), () => expect(normaliseToolCallArguments(msg([given]))).toEqual(msg([want])));
  }

  it('leaves messages without a tool_calls list alone, reads NaN as Python does, keeps "__proto__" as data', () => {
    for (const m of [{ role: 'assistant', tool_calls: 'x' }, 'str', 5, null]) expect(normaliseToolCallArguments(m)).toBe(m);
    const nan = normaliseToolCallArguments(msg([{ function: { name: 'f', arguments: '{"x": NaN}' } }])) as { tool_calls: { function: { arguments: { x: number } } }[] };
    expect(nan.tool_calls[0]!.function.arguments.x).toBeNaN();
    const out = normaliseToolCallArguments(msg([{ function: { name: 'f', arguments: '{"__proto__": {"x": 1}}' } }])) as { tool_calls: { function: { arguments: object } }[] };
    const args = out.tool_calls[0]!.function.arguments;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['__proto__']);
  });
});

describe('Python JSON text', () => {
  it('writes floats as repr does', () => {
    expect([0.1, 1.5, 1e16, 1e15, 1e-4, 1e-5, -2.5e-7, 123456789.125, 1e300, -0].map(pyFloatRepr)).toEqual([
      '0.1',
      '1.5',
      '1e+16',
      '1000000000000000.0',
      '0.0001',
      '1e-05',
      '-2.5e-07',
      '123456789.125',
      '1e+300',
      '-0.0',
    ]);
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
