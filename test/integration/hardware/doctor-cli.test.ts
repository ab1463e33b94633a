import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HardwareReport } from '../../../shared/hardware.ts';
import { fakeNvidiaEnv, noNvidiaEnv } from '../../helpers/fake-nvidia-smi.ts';

const bin = join(import.meta.dirname, '..', '..', '..', 'bin', 'engy-panel.mjs');

function doctor(env: NodeJS.ProcessEnv): Promise<{ code: number; report: HardwareReport }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engy-doctor-'));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, 'doctor', '--json', '--data-dir', dataDir], { env: { ...env, ENGY_FROM_SOURCE: '1' } }, (error, stdout) => {
      try {
        resolve({ code: error ? Number(error.code) : 0, report: JSON.parse(String(stdout)) as HardwareReport });
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

describe('engy-panel doctor --json (as a child process)', () => {
  it('2x RTX 4090: ready with a tp2 plan', async () => {
    const { code, report } = await doctor(fakeNvidiaEnv('2x4090'));
    expect(code).toBe(0);
    expect(report.verdict).toBe('ready');
    expect(report.plan?.engines.map((e) => e.tp)).toEqual([2]);
  });

  it('RTX 3090: FP8 unsupported, exit 1', async () => {
    const { code, report } = await doctor(fakeNvidiaEnv('1x3090'));
    expect(code).toBe(1);
    expect(report.verdict).toBe('unsupported');
    expect(report.reasons.map((r) => r.text).join(' ')).toMatch(/FP8 unsupported/);
  });

  it('no nvidia-smi: says no NVIDIA GPU and points to the validator role', async () => {
    const { report } = await doctor(noNvidiaEnv());
    expect(report.nvidiaSmi).toBe('missing');
    expect(report.reasons[0]!.text).toMatch(/No NVIDIA GPU found/);
    expect(report.reasons[0]!.text).toMatch(/validator/);
    expect(report.suggestValidator).toBe(true);
  });
});
