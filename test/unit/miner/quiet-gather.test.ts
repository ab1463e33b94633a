// QuietGather: a batch of guessed prompts' confirmations goes once the burst has stopped arriving for
// `quietMs`, and never later than `maxMs` after its first text, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { QuietGather } from '../../../electron/engine/miner/quiet-gather.ts';
import { ManualClock } from '../../doubles/manual-clock.ts';

function setup(quietMs = 2, maxMs = 10) {
  const clock = new ManualClock(1000);
  const gather = new QuietGather(quietMs, maxMs, clock);
  const flushedAt: number[] = [];
  const start = () => gather.defer(() => flushedAt.push(clock.now()));
  return { clock, gather, flushedAt, start };
}

describe('QuietGather', () => {
  it('sends a lone text quietMs after it was queued', async () => {
    const { clock, flushedAt, start } = setup();
    start();
    await clock.advance(1.9);
    expect(flushedAt).toEqual([]);
    await clock.advance(0.1);
    expect(flushedAt).toEqual([1002]);
    expect(clock.pending()).toBe(0);
  });

  it('waits while texts keep arriving, until quietMs pass with none', async () => {
    const { clock, gather, flushedAt, start } = setup();
    start();
    for (let i = 0; i < 3; i++) {
      await clock.advance(1.5);
      gather.more();
    }
    // The last text came at 1004.5: nothing goes before 1006.5.
    await clock.advance(1.9);
    expect(flushedAt).toEqual([]);
    await clock.advance(0.1);
    expect(flushedAt).toEqual([1006.5]);
  });

  it('sends at maxMs after the first text even while the burst goes on', async () => {
    const { clock, gather, flushedAt, start } = setup();
    start();
    for (let i = 0; i < 12; i++) {
      await clock.advance(1);
      gather.more();
    }
    expect(flushedAt).toEqual([1010]);
  });

  it('starts afresh for the next batch, each flush sent once', async () => {
    const { clock, flushedAt, start } = setup();
    start();
    await clock.advance(5);
    start();
    await clock.advance(5);
    expect(flushedAt).toEqual([1002, 1007]);
    expect(clock.pending()).toBe(0);
  });
});
