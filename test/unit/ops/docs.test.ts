import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAUSES } from '../../../electron/engine/serve/crash-causes.ts';
import { ENGY_METRIC_NAMES } from '../../../electron/engine/metrics/engy-metrics.ts';

// The operator docs must keep up with the code they describe.
const doc = (name: string): string => readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', name), 'utf8');

describe('operator docs', () => {
  it('troubleshooting.md explains every serve crash cause the classifier can report', () => {
    const text = doc('troubleshooting.md');
    const missing = Object.keys(CAUSES).filter((code) => !text.includes(`### \`${code}\``));
    expect(missing).toEqual([]);
  });

  it('fleet-monitoring.md lists every metric name the panel serves', () => {
    const text = doc('fleet-monitoring.md');
    const missing = Object.keys(ENGY_METRIC_NAMES).filter((name) => !text.includes(`| \`${name}\` |`));
    expect(missing).toEqual([]);
  });
});
