// The serve's own view of the bench's requests (issue 30): the fake serve's `--timing-log` gives, per
// streamed /generate, when its handler began, when the body was parsed and when the first event was
// written. Lined up with each round's start on the same clock (epoch ms on one machine), it splits a
// first token into "reaching the serve" and "the serve's pace", for the direct, via-miner and bare-relay rounds.
import { readFileSync } from 'node:fs';
import { ms, pct } from './report.ts';

export type BenchPath = 'direct' | 'miner' | 'relay';
const PATHS: readonly BenchPath[] = ['direct', 'miner', 'relay'];

export interface ServeTiming {
  rid: string;
  receivedAt: number;
  readAt: number;
  firstEventAt: number;
}

export interface Round {
  path: BenchPath;
  /** Epoch ms (performance.timeOrigin + performance.now()) when the round's first request was sent. */
  start: number;
  end: number;
}

/** The log's lines; a torn or foreign line is skipped (the serve writes whole lines, but a killed one may not). */
export function readServeTimings(path: string): ServeTiming[] {
  const out: ServeTiming[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const f = line.split('\t');
    if (f.length !== 5) continue;
    const [receivedAt, readAt, firstEventAt] = f.slice(1, 4).map(Number) as [number, number, number];
    if (![receivedAt, readAt, firstEventAt].every((x) => Number.isFinite(x) && x > 0)) continue;
    out.push({ rid: f[0]!, receivedAt, readAt, firstEventAt });
  }
  return out;
}

export interface Phases {
  arrival: number[];
  read: number[];
  pace: number[];
}

/** The measured round of `path` an instant falls in, if any. */
function roundOf(t: number, rounds: readonly Round[], path: BenchPath): Round | undefined {
  return rounds.find((r) => r.path === path && t >= r.start && t <= r.end);
}

/** Per path: round start -> handler began, handler -> body parsed, body parsed -> first event written. */
export function servePhases(timings: readonly ServeTiming[], rounds: readonly Round[], pathOf: (rid: string) => BenchPath | null): Record<BenchPath, Phases> {
  const out = Object.fromEntries(PATHS.map((p) => [p, { arrival: [], read: [], pace: [] }])) as unknown as Record<BenchPath, Phases>;
  for (const t of timings) {
    const path = pathOf(t.rid);
    if (path === null) continue;
    const round = roundOf(t.receivedAt, rounds, path);
    if (!round) continue; // warm-up or the timed-stages round
    out[path].arrival.push(t.receivedAt - round.start);
    out[path].read.push(t.readAt - t.receivedAt);
    out[path].pace.push(t.firstEventAt - t.readAt);
  }
  return out;
}

/**
 * Instants (epoch ms) lined up with the start of the measured round of `path` they fall in; those in no
 * such round (warm-up, the timed-stages round, another path's round) are left out.
 */
export function sinceRoundStart(instants: readonly number[], rounds: readonly Round[], path: BenchPath): number[] {
  const out: number[] = [];
  for (const t of instants) {
    const round = roundOf(t, rounds, path);
    if (round) out.push(t - round.start);
  }
  return out;
}

/** `minerIdsReady`: round start -> the miner's prompt ids ready (sinceRoundStart), printed beside the arrival. */
export function printServePhases(p: Record<BenchPath, Phases>, minerIdsReady: readonly number[] = []): void {
  const q = (xs: readonly number[]) => (xs.length === 0 ? 'n/a' : `${ms(pct(xs, 0.5), 2)} / ${ms(pct(xs, 0.99), 2)}`);
  console.log(`  at the serve, from its own timestamps (p50 / p99; ${p.direct.arrival.length} direct, ${p.miner.arrival.length} via the miner, ${p.relay.arrival.length} via the bare relay):`);
  const line = (label: string, key: keyof Phases) => console.log(`    ${label.padEnd(40)}direct ${q(p.direct[key]).padEnd(22)}via miner ${q(p.miner[key]).padEnd(22)}bare relay ${q(p.relay[key])}`);
  if (minerIdsReady.length > 0) console.log(`    ${'round start -> prompt ids ready (miner)'.padEnd(40)}${''.padEnd(29)}via miner ${q(minerIdsReady)}`);
  line('round start -> request at the serve', 'arrival');
  line('request at the serve -> body parsed', 'read');
  line('body parsed -> first event written', 'pace');
}
