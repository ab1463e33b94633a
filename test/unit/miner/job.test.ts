// Job: a request's cancellation state. Its own calls (the early call of a guessed prompt) end with
// the request, and can be ended alone without ending the request.
import { describe, expect, it } from 'vitest';
import { CancelledError, Job } from '../../../electron/engine/miner/job.ts';

describe('Job', () => {
  it('ends its calls’ controllers with the request, and each call alone without the request', () => {
    const job = new Job('c1');
    const a = job.call();
    const b = job.call();
    b.abort();
    expect(job.signal.aborted).toBe(false);
    expect(a.signal.aborted).toBe(false);
    job.abort();
    expect(job.signal.aborted).toBe(true);
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(true);
  });

  it('hands out an ended controller once the request has ended', () => {
    const job = new Job('c2');
    job.abort();
    expect(job.call().signal.aborted).toBe(true);
    // A second abort is harmless.
    job.abort();
    expect(job.signal.aborted).toBe(true);
  });

  it('throws CancelledError at a checkpoint once cancelled, and not before', () => {
    const job = new Job('__proto__');
    expect(() => job.check()).not.toThrow();
    job.cancelled = true;
    expect(() => job.check()).toThrow(CancelledError);
  });
});
