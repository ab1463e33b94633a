// "Show what works" on a rig that cannot mine: the two reference rigs planned by the same arithmetic,
// and the offload plan on the user's own card with its RAM need and expected speed.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { queryNvidiaSmi } from '../../../electron/engine/hardware/nvidia-smi.ts';
import { type ExecText } from '../../../electron/engine/lib/exec-text.ts';
import { checkFit } from '../../../electron/engine/hardware/fit-check.ts';
import { hardwareAlternatives } from '../../../electron/engine/hardware/alternatives.ts';
import { minerModel } from '../../../electron/engine/lib/model-catalog.ts';
import type { HostInfo } from '../../../shared/hardware.ts';
import { fakeNvidiaEnv } from '../../helpers/fake-nvidia-smi.ts';

const spec = minerModel();
const host = (ramGiB: number): HostInfo => ({ hostname: 'rig', os: 'Ubuntu 24.04', cpuModel: 'Ryzen 9', cpus: 16, ramGiB, diskFreeGiB: 500, diskPath: '/data' });
const exec = (fixture: string): ExecText => {
  const env = fakeNvidiaEnv(fixture);
  return (file, args, timeoutMs) => new Promise((resolve, reject) => execFile(file, args, { env, timeout: timeoutMs }, (e, out) => (e ? reject(e) : resolve(String(out)))));
};

describe('what works instead', () => {
  it('a 1x4090 rig with 16 GiB RAM: both reference rigs mine, the offload does not fit its RAM', async () => {
    const report = checkFit({ spec, smi: await queryNvidiaSmi(exec('1x4090')), otherGpus: [], host: host(16), at: 0 });
    expect(report.verdict).toBe('unsupported');
    const alts = hardwareAlternatives(spec, report);
    expect(alts.map((a) => a.id)).toEqual(['two-4090', 'one-48gb', 'offload']);
    expect(alts[0]!.plan.maxInflight).toBeGreaterThanOrEqual(24);
    expect(alts[1]!.plan.maxInflight).toBeGreaterThanOrEqual(8);
    const off = alts[2]!;
    expect(off.onThisMachine).toBe(false);
    expect(off.ramNeedGiB).toBeGreaterThan(16);
    expect(off.summary).toMatch(/has 16 GiB and needs about \d+ GiB/);
    expect(off.speed).toMatch(/s per decode step .* tokens\/s per request/);
    // No chain read here: the rigs that mine say "not enough data" with why; the offload earns nothing either way.
    expect(alts[0]!.expected).toEqual({ taoPerDay: null, basis: 'not enough data: the chain was not read' });
    expect(off.expected.taoPerDay).toBe(0);
  });

  it("with the chain's last epoch, each rig that mines carries the same even-share estimate", async () => {
    const report = checkFit({ spec, smi: await queryNvidiaSmi(exec('1x4090')), otherGpus: [], host: host(16), at: 0 });
    const alts = hardwareAlternatives(spec, report, { netuid: 53, block: 9, tempo: 360, alphaPriceTao: 0.01, minerTaoPerDay: [1, 2] });
    expect(alts[0]!.expected.taoPerDay).toBeCloseTo(1, 10);
    expect(alts[1]!.expected).toEqual(alts[0]!.expected);
    expect(alts[2]!.expected.taoPerDay).toBe(0);
  });

  it('with enough RAM the offload plan is offered as runnable here', async () => {
    const report = checkFit({ spec, smi: await queryNvidiaSmi(exec('1x4090')), otherGpus: [], host: host(128), at: 0 });
    const off = hardwareAlternatives(spec, report).find((a) => a.id === 'offload')!;
    expect(off.onThisMachine).toBe(true);
    expect(off.plan.engines[0]!.cpuOffloadGb).toBeGreaterThan(0);
  });

  it('a rig with no NVIDIA GPU still gets the reference rigs, and no offload plan', () => {
    const report = checkFit({ spec, smi: { status: 'missing' } as never, otherGpus: [], host: host(64), at: 0 });
    expect(hardwareAlternatives(spec, report).map((a) => a.id)).toEqual(['two-4090', 'one-48gb']);
  });
});
