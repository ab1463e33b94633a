import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { installPythonStringMethods, pyStrip } from '../../../electron/engine/miner/jinja-python-strings.ts';

describe("Python's strip/lstrip/rstrip in templates", () => {
  installPythonStringMethods();
  it('strips only the characters given, by default Python whitespace', () => {
    const t = new Template("{{ a.lstrip('\\n') }}|{{ a.rstrip('\\n') }}|{{ a.strip('\\n ') }}|{{ b.strip() }}|{{ c.lstrip('xy') }}");
    expect(t.render({ a: '\n\n  text  \n', b: '\u001f\u00a0 in \u3000', c: 'xyxyzx' })).toBe('  text  \n|\n\n  text  |text|in|zx');
  });
  it('counts characters by code point and survives odd input', () => {
    expect(pyStrip('🚀a🚀', '🚀', true, true)).toBe('a');
    expect(pyStrip('', null, true, true)).toBe('');
    expect(pyStrip('\uFEFFx\uFEFF', null, true, true)).toBe('\uFEFFx\uFEFF'); // not Python whitespace
    installPythonStringMethods(); // idempotent
    expect(new Template("{{ 'aab'.lstrip('a') }}").render({})).toBe('b');
  });
});
