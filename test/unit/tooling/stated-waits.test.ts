// Every vi.waitFor / vi.waitUntil in the suite states its timeout. Vitest's default is 1 s, which is a
// speed assertion in disguise: on a loaded CI box a validator test waiting for three 20 ms ticks missed it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The text of each `vi.waitFor(...)` / `vi.waitUntil(...)` call, up to its matching parenthesis. */
export function waitCalls(source: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const re = /vi\s*\.\s*wait(?:For|Until)\s*\(/g;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    let depth = 0;
    let end = source.length;
    for (let i = m.index + m[0].length - 1; i < source.length; i++) {
      const c = source[i];
      if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        end = i + 1;
        break;
      }
    }
    out.push({ line: source.slice(0, m.index).split('\n').length, text: source.slice(m.index, end) });
  }
  return out;
}

describe('stated waits', () => {
  it('finds the call and its whole argument list, across lines and nested calls', () => {
    const calls = waitCalls('a;\nawait vi.waitFor(() => f(g(1)),\n { timeout: 5 });\nvi.waitUntil(() => x());');
    expect(calls).toEqual([
      { line: 2, text: 'vi.waitFor(() => f(g(1)),\n { timeout: 5 })' },
      { line: 4, text: 'vi.waitUntil(() => x())' },
    ]);
  });

  it('every vi.waitFor and vi.waitUntil under test/ names a timeout', () => {
    // This file names the calls in its own examples.
    const files = testFiles(join(ROOT, 'test')).filter((f) => f !== import.meta.filename);
    const untimed = files.flatMap((f) =>
      waitCalls(readFileSync(f, 'utf8'))
        .filter((c) => !/\btimeout\b/.test(c.text))
        .map((c) => `${relative(ROOT, f)}:${c.line} waits on vitest's 1 s default; state a timeout ({ timeout: 10_000 }) so a busy machine is not a failure`),
    );
    expect(untimed).toEqual([]);
  });
});
