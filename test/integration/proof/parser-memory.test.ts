import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '..', '..', 'helpers', 'parse-synthetic-body.ts');

interface Report {
  bytes: number;
  seen: number;
  rowCount: number;
  hiddenSize: number;
  checksumOk: boolean;
  finish: string | null;
  tokenIds: number;
  startRss: number;
  peakRss: number;
}

/** Runs the parse in its own process so this process's heap cannot blur the measurement. */
function parseInChild(format: 'json' | 'sse'): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, '4096', '2048', format], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Report) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe('GenerateBodyParser on a full-size body (4096 tokens x 2048, ~165 MB)', () => {
  it('streams an SSE body with peak RSS well under twice its size, rows intact', async () => {
    const r = await parseInChild('sse');
    expect(r.bytes).toBeGreaterThan(150e6);
    expect(r.seen).toBe(r.bytes);
    expect([r.rowCount, r.hiddenSize, r.tokenIds, r.finish, r.checksumOk]).toEqual([4096, 2048, 4096, 'length', true]);
    // The whole process (Node itself included) stays below the body's size; the parser's own
    // share (rows kept: 16 MiB, plus growth) is a fraction of it.
    expect(r.peakRss).toBeLessThan(r.bytes);
    expect(r.peakRss - r.startRss).toBeLessThan(r.bytes / 2);
  }, 180_000);
});
