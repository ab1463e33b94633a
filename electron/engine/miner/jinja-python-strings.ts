// @huggingface/jinja's string methods strip/lstrip/rstrip ignore their argument and strip JS
// whitespace; Python's take the characters to strip and default to Python's whitespace. Qwen3.6's
// template calls `content.split('</think>')[-1].lstrip('\n')`, so an assistant turn whose
// content goes on with a space after `</think>` rendered one byte short of what transformers
// renders (found by the differential test; the ids then differ from the auditor's). This module
// corrects the three methods on the library's string value, once, at import.
import { Environment } from '@huggingface/jinja';

// Python's str.isspace() characters.
export const PY_SPACE = '\t\n\v\f\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

export function pyStrip(s: string, chars: string | null, left: boolean, right: boolean): string {
  // By code point, as Python counts characters.
  const cps = Array.from(s);
  const drop = new Set(Array.from(chars ?? PY_SPACE));
  let a = 0;
  let b = cps.length;
  if (left) while (a < b && drop.has(cps[a]!)) a += 1;
  if (right) while (b > a && drop.has(cps[b - 1]!)) b -= 1;
  return cps.slice(a, b).join('');
}

interface RuntimeValue {
  value: unknown;
  constructor: new (v: unknown) => RuntimeValue;
}

let done = false;

export function installPythonStringMethods(): void {
  if (done) return;
  done = true;
  const sample = new Environment().set('s', '') as unknown as RuntimeValue;
  const proto = Object.getPrototypeOf(sample) as object;
  const desc = Object.getOwnPropertyDescriptor(proto, 'builtins');
  if (!desc?.get) throw new Error('@huggingface/jinja changed: StringValue.builtins is not a getter (check jinja-python-strings.ts)');
  const original = desc.get;
  const StringValue = sample.constructor;
  const patched = new WeakSet<object>();
  Object.defineProperty(proto, 'builtins', {
    configurable: true,
    get(this: RuntimeValue) {
      const map = original.call(this) as Map<string, RuntimeValue>;
      if (patched.has(map)) return map;
      patched.add(map);
      const FunctionValue = map.get('upper')!.constructor;
      const self = this.value as string;
      const method = (left: boolean, right: boolean) =>
        new FunctionValue((args: RuntimeValue[]) => {
          const arg = args[0];
          const chars = arg !== undefined && typeof arg.value === 'string' ? arg.value : null;
          return new StringValue(pyStrip(self, chars, left, right));
        });
      map.set('strip', method(true, true));
      map.set('lstrip', method(true, false));
      map.set('rstrip', method(false, true));
      return map;
    },
  });
}
