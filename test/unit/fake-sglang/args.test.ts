import { describe, expect, it } from 'vitest';
import { ArgError, parseArgs } from '../../doubles/fake-sglang/args.ts';

describe('fake sglang CLI', () => {
  it('takes the flags the launch plan passes', () => {
    const a = parseArgs([
      '--model-path',
      '/m',
      '--served-model-name',
      'Qwen3.6',
      '--tp-size',
      '2',
      '--trust-remote-code',
      '--kv-cache-dtype',
      'fp8_e4m3',
      '--mem-fraction-static',
      '0.83',
      '--chunked-prefill-size',
      '8192',
      '--max-running-requests',
      '26',
      '--context-length',
      '262144',
      '--enable-return-hidden-states',
      '--enable-cache-report',
      '--enable-metrics',
      '--host',
      '127.0.0.1',
      '--port=8001',
      '--cpu-offload-gb',
      '0',
      '--disable-custom-all-reduce',
    ]);
    expect(a).toMatchObject({
      modelPath: '/m',
      servedModelName: 'Qwen3.6',
      tpSize: 2,
      kvCacheDtype: 'fp8_e4m3',
      memFractionStatic: 0.83,
      chunkedPrefillSize: 8192,
      maxRunningRequests: 26,
      contextLength: 262144,
      enableReturnHiddenStates: true,
      enableCacheReport: true,
      enableMetrics: true,
      port: 8001,
      disableCustomAllReduce: true,
    });
  });

  it('takes the double knobs', () => {
    const a = parseArgs(['--model-path', '/m', '--numerics-noise', '0.001', '--quantize', 'int4', '--fail', 'oom', '--hang', '--trim-hidden-states', '--hidden-size', '64']);
    expect(a).toMatchObject({ hiddenSize: 64, numericsNoise: 0.001, quantize: 'int4', fail: 'oom', hang: true, trimHiddenStates: true });
  });

  it('refuses unknown flags, bad values and a missing model path like argparse', () => {
    expect(() => parseArgs(['--model-path', '/m', '--frobnicate'])).toThrow(/unrecognized arguments: --frobnicate/);
    expect(() => parseArgs(['--model-path', '/m', '--port', 'x'])).toThrow(/invalid int value: 'x'/);
    expect(() => parseArgs(['--port', '1'])).toThrow(ArgError);
    expect(() => parseArgs(['--model-path', '/m', '--fail', 'nope'])).toThrow(/invalid choice/);
  });
});
