import type { HardwareReport } from '../../../shared/hardware.ts';
import { minerModel } from '../lib/model-catalog.ts';
import { checkFit } from './fit-check.ts';
import { readHost, readOtherGpus } from './host.ts';
import { queryNvidiaSmi } from './nvidia-smi.ts';
import { execText, type ExecText } from '../lib/exec-text.ts';
import type { FreeBytesAt } from '../lib/disk-free.ts';

export interface DetectOptions {
  dataDir: string;
  modelId?: string;
  exec?: ExecText;
  /** systeminformation's GPU list is slow on some hosts; tests turn it off. */
  includeOtherGpus?: boolean;
  /** Settings > GPUs: the indices the serve may use (null: all). */
  allowedGpus?: readonly number[] | null;
  /** The free-space reading the rest of the engine uses (tests give the rig's disk). */
  freeBytes?: FreeBytesAt;
}

/** The full hardware report: nvidia-smi, host facts, fit check and serve plan. */
export async function detectHardware(opts: DetectOptions): Promise<HardwareReport> {
  const spec = minerModel(opts.modelId);
  const [smi, host] = await Promise.all([queryNvidiaSmi(opts.exec ?? execText), readHost(opts.dataDir, opts.freeBytes)]);
  const wantOthers = opts.includeOtherGpus ?? smi.status !== 'ok';
  const otherGpus = wantOthers ? await readOtherGpus() : [];
  return checkFit({ spec, smi, otherGpus, host, allowedGpus: opts.allowedGpus ?? null });
}
