// Settings > GPUs: the plan (and so each engine's CUDA_VISIBLE_DEVICES) is built from the chosen
// cards only; a choice that leaves nothing usable blocks with a sentence, never a silent plan.
import { describe, expect, it } from 'vitest';
import { checkFit } from '../../../electron/engine/hardware/fit-check.ts';
import { queryNvidiaSmi } from '../../../electron/engine/hardware/nvidia-smi.ts';
import { selectGpus } from '../../../electron/engine/hardware/serve-plan.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { minerModel } from '../../../electron/engine/lib/model-catalog.ts';
import type { HostInfo } from '../../../shared/hardware.ts';
import { fakeSmiExec } from '../../helpers/fake-nvidia-smi.ts';

const spec = minerModel();
const host: HostInfo = { hostname: 'rig', os: 'Ubuntu 24.04', cpuModel: 'Ryzen 9', cpus: 16, ramGiB: 128, diskFreeGiB: 500, diskPath: '/data' };

async function fit(fixture: string, allowedGpus: number[] | null) {
  return checkFit({ spec, smi: await queryNvidiaSmi(fakeSmiExec(fixture)), otherGpus: [], host, at: 0, allowedGpus });
}

describe('GPU selection for the serve', () => {
  it('2x RTX 4090 with both chosen (or no choice) plans tp2 over 0,1', async () => {
    for (const allowed of [null, [0, 1]]) {
      const r = await fit('2x4090', allowed);
      expect(r.plan?.engines.map((e) => e.env.CUDA_VISIBLE_DEVICES)).toEqual(['0,1']);
    }
  });

  it('choosing GPUs 2 and 3 of 4x RTX 4090 plans one tp2 engine on exactly those and says 0 and 1 were left out', async () => {
    const all = await fit('4x4090', null);
    expect(all.plan?.engines.map((e) => e.env.CUDA_VISIBLE_DEVICES)).toEqual(['0,1,2,3']);
    const r = await fit('4x4090', [2, 3]);
    expect(r.plan?.engines.map((e) => ({ tp: e.tp, gpus: e.gpuIndices, cvd: e.env.CUDA_VISIBLE_DEVICES }))).toEqual([{ tp: 2, gpus: [2, 3], cvd: '2,3' }]);
    const leftOut = r.reasons.filter((x) => /left out of the serve by your choice in Settings > GPUs/.test(x.text)).map((x) => x.text.slice(0, 5));
    expect(leftOut).toEqual(['GPU 0', 'GPU 1']);
  });

  it('a choice naming no usable card blocks with the cards that would work', async () => {
    const r = await fit('2x4090', [7]);
    expect(r.plan).toBeNull();
    expect(r.verdict).toBe('unsupported');
    expect(r.reasons.find((x) => x.severity === 'blocker')?.text).toMatch(/None of the GPUs chosen in Settings > GPUs \(7\) can serve: choose among 0, 1/);
  });

  it('selectGpus keeps the order of the cards, not of the choice', () => {
    const g = (index: number) => ({ index }) as never;
    expect(selectGpus([g(0), g(1), g(2)], [2, 0]).chosen.map((x: { index: number }) => x.index)).toEqual([0, 2]);
  });
});

describe('log level setting', () => {
  it('drops lines below the chosen level from then on', () => {
    const hub = new LogHub();
    const log = hub.logger('t');
    log.debug('before');
    hub.setMinLevel('warn');
    log.info('hidden');
    log.warn('shown');
    hub.setMinLevel('debug');
    log.debug('again');
    expect(hub.recent().map((l) => l.msg)).toEqual(['before', 'shown', 'again']);
  });
});
