// "Rehearse qualification" against the fake sglang (a real child process): the probe wave's shape
// (24 concurrent prompts of ~13k tokens) measured against the gates, and a serve that misbehaves.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withUnit } from '../../../shared/figure-units.ts';
import { forecastText, RehearsalRunner, rehearsalTargets, rehearseQualification } from '../../../electron/engine/preflight/rehearsal.ts';
import { silentLogger } from '../../../electron/engine/lib/logger.ts';
import { fakeSglangPerSuite } from '../../helpers/fake-sglang-suite.ts';

const GATES = { ttftP99Ms: 100_000, tpotP99Ms: 1_000 };

describe('rehearse qualification against the fake sglang', () => {
  const fake = fakeSglangPerSuite(['--max-running-requests', '26', '--ttft-ms', '30', '--tokens-per-s', '200']);

  it('sends 24 concurrent ~13k-token prompts and forecasts a pass against the gates', { timeout: 120_000 }, async () => {
    const r = await rehearseQualification({ serveUrls: [fake.url], gates: GATES, maxTokens: 32 });
    expect(r.concurrent).toBe(24);
    expect(r.completed).toBe(24);
    expect(r.failed).toBe(0);
    // The prompt is ~13k words; the serve reports what its tokenizer made of it.
    expect(r.promptTokens).toBeGreaterThan(10_000);
    expect(r.ttftP99Ms).toBeGreaterThan(0);
    expect(r.tpotP99Ms).toBeGreaterThan(0);
    expect(r.tpotP99Ms!).toBeLessThan(1_000);
    expect(r.verdict).toBe('pass');
    expect(r.forecast).toMatch(/TTFT p99 .* of 100 s/);
  });

  it('a gate the serve cannot meet forecasts a fail naming the gate', { timeout: 120_000 }, async () => {
    const r = await rehearseQualification({ serveUrls: [fake.url], gates: { ttftP99Ms: 100_000, tpotP99Ms: 1 }, concurrent: 4, promptWords: 500, maxTokens: 16 });
    expect(r.verdict).toBe('fail');
    expect(r.forecast).toMatch(/TPOT p99 .* is over the 1\.0 ms gate/);
  });
});

describe('rehearsal against a serve that misbehaves', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/generate')) {
        req.resume();
        const mode = Number(req.headers['content-length']) % 3;
        if (mode === 0) return void res.writeHead(500).end('{"error": "CUDA out of memory"}');
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (mode === 1) {
          // Garbage, then an endless line: must not grow without bound.
          res.write('data: {not json\n\n');
          res.write('data: ' + 'x'.repeat(2 << 20));
          return void res.end();
        }
        res.write('data: {"meta_info": {"completion_tokens": "many"}}\n\n');
        return void res.end('data: [DONE]\n\n');
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('counts every failure, names the first cause and forecasts a fail', async () => {
    const r = await rehearseQualification({ serveUrls: [base], gates: GATES, concurrent: 6, promptWords: 50, maxTokens: 8 });
    expect(r.completed).toBe(0);
    expect(r.failed).toBe(6);
    expect(r.firstError).toMatch(/HTTP 500|larger than 1 MiB|no tokens/);
    expect(r.verdict).toBe('fail');
    expect(r.ttftP99Ms).toBeNull();
  });

  it('an unreachable serve fails with the socket error, not a hang', async () => {
    const r = await rehearseQualification({ serveUrls: ['http://127.0.0.1:9'], gates: GATES, concurrent: 2, promptWords: 10, timeoutMs: 5_000 });
    expect(r.failed).toBe(2);
    expect(r.forecast).toMatch(/^No request finished/);
  });
});

describe('rehearsal targets and forecast words', () => {
  it('rehearses the external serve, or a managed engine once it serves, else says why not', () => {
    expect(rehearsalTargets({ runtime: 'external', externalServeUrls: ['http://a:1'] }, null)).toEqual(['http://a:1']);
    expect(rehearsalTargets({ runtime: 'external', externalServeUrls: [] }, null)).toHaveProperty('problem');
    expect(rehearsalTargets({ runtime: 'python', externalServeUrls: [] }, null)).toHaveProperty('problem', expect.stringMatching(/start mining/));
    const serve = {
      engines: [
        { url: 'http://e0', status: { state: 'ready' } },
        { url: 'http://e1', status: { state: 'starting' } },
      ],
    };
    expect(rehearsalTargets({ runtime: 'python', externalServeUrls: [] }, serve)).toEqual(['http://e0']);
  });

  it('a thin margin passes with a warning; acceptance below 99 % fails', () => {
    expect(forecastText({ ttftP99Ms: 80_000, tpotP99Ms: 100, gates: GATES, completed: 24, failed: 0, firstError: null })).toMatchObject({
      verdict: 'pass',
      text: expect.stringMatching(/margin is thin/),
    });
    // TTFT in seconds and TPOT in ms whatever their size, rounded as the Mine cards round them (the rehearsal card
    // shows the same p99 on the line above the forecast: "0.71 s" there and "0.7 s" here read as two numbers).
    expect(forecastText({ ttftP99Ms: 2_308, tpotP99Ms: 35.9, gates: GATES, completed: 8, failed: 0, firstError: null }).text).toMatch(
      /^TTFT p99 2\.3 s of 100 s \(2 %\); TPOT p99 35\.9 ms of 1000 ms \(4 %\)\./,
    );
    const small = forecastText({ ttftP99Ms: 712, tpotP99Ms: 5.9, gates: GATES, completed: 8, failed: 0, firstError: null }).text;
    expect(small).toContain(`TTFT p99 ${withUnit.ttft(712)} of ${withUnit.ttft(GATES.ttftP99Ms)}`);
    expect(small).toContain(`TPOT p99 ${withUnit.tpot(5.9)} of ${withUnit.tpot(GATES.tpotP99Ms)}`);
    expect(small).toMatch(/^TTFT p99 0\.71 s of 100 s \(1 %\); TPOT p99 5\.9 ms/);
    expect(forecastText({ ttftP99Ms: 1, tpotP99Ms: 1, gates: GATES, completed: 23, failed: 1, firstError: 'HTTP 502' })).toMatchObject({
      verdict: 'fail',
      text: expect.stringMatching(/acceptance gate needs 99 %/),
    });
  });
});

describe('the mining.rehearse action', () => {
  it('runs one wave at a time and says why it cannot run', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const slowFetch = (async () => {
      await gate;
      return new Response('data: {"meta_info": {"completion_tokens": 1, "prompt_tokens": 5}}\n\ndata: [DONE]\n\n', { status: 200 });
    }) as typeof fetch;
    const runner = new RehearsalRunner({
      mining: () => ({ runtime: 'external', externalServeUrls: ['http://127.0.0.1:1'] }),
      serve: () => null,
      gates: GATES,
      log: silentLogger,
      wave: { concurrent: 2, promptWords: 5, maxTokens: 1, fetchFn: slowFetch },
    });
    const first = runner.run();
    await expect(runner.run()).rejects.toMatchObject({ code: 'conflict' });
    release();
    await expect(first).resolves.toMatchObject({ completed: 2, verdict: 'pass' });
    const idle = new RehearsalRunner({ mining: () => ({ runtime: 'python', externalServeUrls: [] }), serve: () => null, gates: GATES, log: silentLogger });
    await expect(idle.run()).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/start mining/) });
  });
});
