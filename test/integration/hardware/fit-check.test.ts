import { describe, expect, it } from 'vitest';
import { queryNvidiaSmi } from '../../../electron/engine/hardware/nvidia-smi.ts';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkFit, withCheckpointSpace } from '../../../electron/engine/hardware/fit-check.ts';
import { bytesStillToDownload, checkFolderSpace } from '../../../electron/engine/serve/checkpoint/folder-space.ts';
import { minerModel } from '../../../electron/engine/lib/model-catalog.ts';
import type { HostInfo } from '../../../shared/hardware.ts';
import { fakeSmiExec } from '../../helpers/fake-nvidia-smi.ts';

const spec = minerModel();
const roomyHost: HostInfo = { hostname: 'rig', os: 'Ubuntu 24.04', cpuModel: 'Ryzen 9', cpus: 16, ramGiB: 128, diskFreeGiB: 500, diskPath: '/data' };

async function report(fixture: string, host: HostInfo = roomyHost) {
  const smi = await queryNvidiaSmi(fakeSmiExec(fixture));
  return checkFit({ spec, smi, otherGpus: [], host, at: 0 });
}

describe('hardware fit check against nvidia-smi fixtures', () => {
  it('2x RTX 4090: ready, one tp2 engine with P2P disabled, declaring 24', async () => {
    const r = await report('2x4090');
    expect(r.gpus).toHaveLength(2);
    expect(r.gpus[0]).toMatchObject({ name: 'NVIDIA GeForce RTX 4090', memoryTotalMiB: 24564, computeCap: '8.9', driverVersion: '575.57.08', powerDrawW: 68.5 });
    expect(r.cudaVersion).toBe('12.9');
    expect(r.verdict).toBe('ready');
    expect(r.plan?.engines).toHaveLength(1);
    const e = r.plan!.engines[0]!;
    expect(e).toMatchObject({
      tp: 2,
      gpuIndices: [0, 1],
      contextLength: 262144,
      contextLimited: false,
      declaredInflight: 24,
      maxRunningRequests: 26,
      kvCacheDtype: 'fp8_e4m3',
      memFractionStatic: 0.83,
    });
    expect(e.env).toEqual({ CUDA_VISIBLE_DEVICES: '0,1', NCCL_P2P_DISABLE: '1' });
    expect(e.extraArgs).toContain('--disable-custom-all-reduce');
    expect(e.arithmetic.tokensThatFit).toBeGreaterThan(250_000);
    expect(e.arithmetic.tokensThatFit).toBeLessThan(350_000);
  });

  it('4x RTX 4090: one tp4 engine (a tp2 pool cannot hold a probe wave)', async () => {
    const r = await report('4x4090');
    expect(r.verdict).toBe('ready');
    expect(r.plan!.engines.map((e) => e.tp)).toEqual([4]);
    expect(r.plan!.rationale.join(' ')).toMatch(/probe wave/);
  });

  it.each([
    ['1x4090-48g', 'ready'],
    ['l40s', 'ready-with-limits'],
    ['rtx6000-ada', 'ready'],
  ])('%s: one tp1 engine, verdict %s', async (fixture, verdict) => {
    const r = await report(fixture);
    expect(r.verdict).toBe(verdict);
    expect(r.plan!.engines).toHaveLength(1);
    expect(r.plan!.engines[0]!.tp).toBe(1);
    if (verdict === 'ready-with-limits') {
      expect(r.plan!.engines[0]!.contextLimited).toBe(true);
      expect(r.reasons.some((x) => x.severity === 'limit' && /context is limited/.test(x.text))).toBe(true);
    }
  });

  it('2x H100 and 8x H200: one engine per card, no NCCL settings', async () => {
    const h100 = await report('2xh100');
    expect(h100.plan!.engines.map((e) => e.gpuIndices)).toEqual([[0], [1]]);
    expect(h100.plan!.engines[0]!.env).toEqual({ CUDA_VISIBLE_DEVICES: '0' });
    expect(h100.plan!.maxInflight).toBe(48);
    const h200 = await report('8xh200');
    expect(h200.plan!.engines).toHaveLength(8);
    expect(h200.plan!.engines[0]!.memFractionStatic).toBe(0.85);
  });

  it('RTX 3090: FP8 unsupported, validator suggested', async () => {
    const r = await report('1x3090');
    expect(r.verdict).toBe('unsupported');
    expect(r.plan).toBeNull();
    expect(r.suggestValidator).toBe(true);
    expect(r.reasons.map((x) => x.text).join(' ')).toMatch(/compute capability 8\.6\) cannot run FP8/);
  });

  it('mixed 4090 + 3090: the 3090 is left out; one 24 GB card offloads with limits when RAM allows', async () => {
    const r = await report('mixed-4090-3090');
    expect(r.verdict).toBe('ready-with-limits');
    expect(r.plan!.engines[0]!.gpuIndices).toEqual([0]);
    expect(r.plan!.engines[0]!.cpuOffloadGb).toBeGreaterThan(0);
    expect(r.reasons.map((x) => x.text).join(' ')).toMatch(/left out of the plan/);
    expect(r.reasons.map((x) => x.text).join(' ')).toMatch(/unlikely to meet the latency gates/);
    const small = await report('mixed-4090-3090', { ...roomyHost, ramGiB: 16 });
    expect(small.verdict).toBe('unsupported');
  });

  it('a single 24 GB 4090 offloads and says it is slow', async () => {
    const r = await report('1x4090');
    expect(r.verdict).toBe('ready-with-limits');
    expect(r.plan!.engines[0]!.contextLength).toBeLessThanOrEqual(65_536);
  });

  it('old driver blocks with the fix', async () => {
    const r = await report('old-driver-2x4090');
    expect(r.verdict).toBe('unsupported');
    expect(r.reasons.some((x) => x.severity === 'blocker' && /driver 535\.183\.01 is too old/.test(x.text))).toBe(true);
  });

  it('nvidia-smi failing: its own message is shown and the validator suggested', async () => {
    const r = await report('failing');
    expect(r.nvidiaSmi).toBe('failed');
    expect(r.verdict).toBe('unsupported');
    expect(r.nvidiaSmiError).toMatch(/couldn't communicate with the NVIDIA driver/);
    expect(r.suggestValidator).toBe(true);
  });

  it('low RAM warns without changing a ready verdict (the disk is judged by the checkpoint folder, below)', async () => {
    const r = await report('2x4090', { ...roomyHost, ramGiB: 16, diskFreeGiB: 20 });
    expect(r.verdict).toBe('ready');
    expect(r.reasons.filter((x) => x.severity === 'warn')).toHaveLength(1);
  });

  describe('room for the checkpoint still to download (folder-space.ts verdict)', () => {
    const GiB = 1024 ** 3;
    const NEED = spec.memory.minDiskGiB * GiB;
    const folder = () => mkdtempSync(join(tmpdir(), 'engy-fit-space-'));

    it('75.6 GiB free against ~80 GiB is not "Ready to mine": a limit says how much to free', async () => {
      const space = checkFolderSpace({ dir: folder(), needBytes: NEED, freeBytes: () => 75.6 * GiB });
      const r = withCheckpointSpace(await report('2x4090'), space);
      expect(r.verdict).toBe('ready-with-limits');
      const limit = r.reasons.find((x) => x.severity === 'limit');
      expect(limit?.text).toMatch(/Checkpoint disk: 75\.6 GiB free .* still needs about 80\.0 GiB: free 4\.4 GiB more/);
      expect(r.reasons.some((x) => x.text.startsWith('Ready: '))).toBe(false);
      expect(r.space).toBe(space);
    });

    it('counts a partly downloaded checkpoint: whole files and resumable parts are not asked for again', async () => {
      const dir = folder();
      const files = [
        { path: 'config.json', size: 100, sha256: null },
        { path: 'model-1.safetensors', size: 40 * GiB, sha256: null },
        { path: 'model-2.safetensors', size: 40 * GiB, sha256: null },
      ];
      writeFileSync(join(dir, '.engy-manifest.json'), JSON.stringify({ repo: 'r', revision: 'main', files }));
      writeFileSync(join(dir, 'config.json'), 'x'.repeat(100));
      // Sparse files: the sizes count, not the blocks.
      writeFileSync(join(dir, 'model-1.safetensors'), '');
      truncateSync(join(dir, 'model-1.safetensors'), 40 * GiB);
      writeFileSync(join(dir, 'model-2.safetensors.incomplete'), '');
      truncateSync(join(dir, 'model-2.safetensors.incomplete'), 30 * GiB);
      const space = checkFolderSpace({ dir, needBytes: NEED, freeBytes: () => 12 * GiB });
      expect(space).toMatchObject({ ok: true, needBytes: 10 * GiB });
      expect(space.sentence).toMatch(/still needs about 10\.0 GiB \(70\.0 GiB already downloaded\)/);
      expect(withCheckpointSpace(await report('2x4090'), space).verdict).toBe('ready');
      const short = checkFolderSpace({ dir, needBytes: NEED, freeBytes: () => 8 * GiB });
      expect(withCheckpointSpace(await report('2x4090'), short).reasons.at(-1)?.text).toMatch(/free 2\.0 GiB more/);
    });

    it('a hostile listing (wrong types, odd paths) is no listing: the catalog size is asked for', () => {
      const dir = folder();
      writeFileSync(join(dir, '.engy-manifest.json'), JSON.stringify({ files: [null, { path: 7, size: 5 }, { path: '../../etc/passwd', size: 'big' }, { path: '__proto__', size: 10 }] }));
      expect(bytesStillToDownload(dir, NEED)).toEqual({ still: NEED, have: 0, listed: false });
      writeFileSync(join(dir, '.engy-manifest.json'), JSON.stringify({ files: [{ path: '__proto__', size: 10 }] }));
      expect(bytesStillToDownload(dir, NEED)).toEqual({ still: 10, have: 0, listed: true });
      writeFileSync(join(dir, '.engy-manifest.json'), '{not json');
      expect(bytesStillToDownload(dir, NEED)).toEqual({ still: NEED, have: 0, listed: false });
    });

    it('an unsupported rig stays unsupported; a complete checkpoint needs no room', async () => {
      const short = checkFolderSpace({ dir: folder(), needBytes: NEED, freeBytes: () => GiB });
      expect(withCheckpointSpace(await report('1x3090'), short).verdict).toBe('unsupported');
      expect(withCheckpointSpace(await report('2x4090'), null).verdict).toBe('ready');
    });
  });
});
