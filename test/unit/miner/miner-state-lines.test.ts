// The health lines `mine`, headless and demo print for their miner workers: one line per change of
// state, a retry countdown is not a change, several workers are told apart by name, and a new run
// says its states afresh.
import { describe, expect, it } from 'vitest';
import { MinerStateLines } from '../../../electron/engine/miner/miner-state-lines.ts';
import { silentLogger, type Logger } from '../../../electron/engine/lib/logger.ts';

describe('MinerStateLines', () => {
  it('logs each change once, ignores countdowns, names workers when there are several', () => {
    const lines: string[] = [];
    const log: Logger = { ...silentLogger, info: (m: string) => void lines.push(m) };
    const s = new MinerStateLines(log);
    const w = (phase: string, detail: string, workerName: string | null = 'rig') => ({ phase, detail, workerName }) as Parameters<MinerStateLines['observe']>[0][number];
    s.observe([w('connecting', 'gateway down; retrying in 4 s')]);
    s.observe([w('connecting', 'gateway down; retrying in 3 s')]);
    s.observe([w('active', 'serving')]);
    s.observe([w('active', 'serving')]);
    expect(lines).toEqual(['state connecting: gateway down; retrying in 4 s', 'state active: serving']);
    s.observe([w('active', 'serving', 'rig'), w('probing', 'qualifying', 'rig-1')]);
    expect(lines.slice(2)).toEqual(['state [rig-1] probing: qualifying']);
    s.observe([]);
    s.observe([w('active', 'serving')]);
    expect(lines.at(-1)).toBe('state active: serving');
    expect(lines).toHaveLength(4);
  });
});
