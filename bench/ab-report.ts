// Reads the figures `bench/ab.ts` compares out of one whole `npm run bench -- miner` output, and sums
// alternated pairs up. Pure, so it is tested on recorded output (test/unit/tooling/ab-report.test.ts).

export interface RunFigures {
  /** First token p50 via the miner / direct, the goal line's figure (x). */
  ratio: number;
  /** The bare relay's first token p50 / direct in the same run (x). */
  relay: number | null;
  /** Pipeline start -> prompt built (older builds) or its ids sent, p50 (ms). */
  promptP50: number | null;
  /** The machine load the goal line printed. */
  load: number | null;
}

const num = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
};

/** Null when the output holds no first-token goal line (the bench failed or was cut short). */
export function readRun(output: string): RunFigures | null {
  const goal = /^goal first token p50 via the miner \/ direct at \d+ streams: ([0-9.]+) x\b.*$/m.exec(output);
  const ratio = num(goal?.[1]);
  if (goal === null || ratio === null) return null;
  const line = goal[0];
  return {
    ratio,
    relay: num(/a bare relay ([0-9.]+)x/.exec(line)?.[1]),
    load: num(/\[load ([0-9.]+) on/.exec(line)?.[1]),
    promptP50: num(/pipeline start -> prompt (?:built|ids sent)\s+([0-9.]+) ms/.exec(output)?.[1]),
  };
}

export interface Pair {
  base: RunFigures | null;
  head: RunFigures | null;
}

const mean = (xs: number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const fmt = (x: number | null, unit: string, digits = 2): string => (x === null ? '-' : `${x.toFixed(digits)}${unit}`);

/** A table of the pairs and a verdict line that says how many pairs the head build led, never more. */
export function summarise(pairs: readonly Pair[], names: { base: string; head: string }): string {
  const lines = [`pair  ${names.base} (first token p50 / direct, relay, prompt p50)  |  ${names.head}`];
  pairs.forEach((p, i) => {
    const side = (r: RunFigures | null): string => (r === null ? 'no figure (the run failed: see its log)' : `${fmt(r.ratio, 'x')}, relay ${fmt(r.relay, 'x')}, prompt ${fmt(r.promptP50, ' ms', 1)}`);
    lines.push(`${String(i + 1).padStart(4)}  ${side(p.base)}  |  ${side(p.head)}`);
  });
  const whole = pairs.filter((p): p is { base: RunFigures; head: RunFigures } => p.base !== null && p.head !== null);
  const ahead = whole.filter((p) => p.head.ratio < p.base.ratio).length;
  const behind = whole.filter((p) => p.head.ratio > p.base.ratio).length;
  const b = mean(whole.map((p) => p.base.ratio));
  const h = mean(whole.map((p) => p.head.ratio));
  lines.push(
    `${names.head} ahead in ${ahead} of ${whole.length} whole pairs, behind in ${behind}; means ${fmt(h, 'x')} against ${fmt(b, 'x')}` +
      (whole.length < pairs.length ? ` (${pairs.length - whole.length} pair(s) without a figure left out)` : '') +
      '. One run moves 0.1-0.3x on a two-core box: read a difference only over several pairs.',
  );
  return lines.join('\n');
}
