import type { GpuInfo } from '../../../shared/hardware.ts';
import { execText, type ExecText } from '../lib/exec-text.ts';

export const GPU_QUERY_FIELDS = [
  'index',
  'name',
  'uuid',
  'memory.total',
  'memory.used',
  'compute_cap',
  'driver_version',
  'temperature.gpu',
  'power.draw',
  'power.limit',
  'utilization.gpu',
  'pcie.link.gen.current',
  'pcie.link.width.current',
] as const;

export type NvidiaSmiResult =
  | { status: 'ok'; gpus: GpuInfo[]; cudaVersion: string | null }
  | { status: 'missing' }
  | { status: 'failed'; error: string };

function num(v: string | undefined): number | null {
  if (v === undefined) return null;
  const t = v.trim();
  if (t === '' || /^\[?(N\/A|Not Supported|Unknown Error)\]?$/i.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

function text(v: string | undefined): string | null {
  const t = v?.trim();
  return !t || /^\[?(N\/A|Not Supported)\]?$/i.test(t) ? null : t;
}

/** Parses `--format=csv,noheader,nounits` output for GPU_QUERY_FIELDS. Lines that do not parse are skipped. */
export function parseGpuCsv(csv: string): GpuInfo[] {
  const gpus: GpuInfo[] = [];
  for (const line of csv.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const f = line.split(',').map((s) => s.trim());
    if (f.length < GPU_QUERY_FIELDS.length) continue;
    const index = num(f[0]);
    const memTotal = num(f[3]);
    if (index === null || memTotal === null) continue;
    gpus.push({
      index,
      name: f[1] ?? 'unknown',
      uuid: f[2] ?? '',
      memoryTotalMiB: memTotal,
      memoryUsedMiB: num(f[4]) ?? 0,
      computeCap: text(f[5]),
      driverVersion: text(f[6]),
      temperatureC: num(f[7]),
      powerDrawW: num(f[8]),
      powerLimitW: num(f[9]),
      utilizationPct: num(f[10]),
      pcieGen: num(f[11]),
      pcieWidth: num(f[12]),
      vendor: 'nvidia',
    });
  }
  return gpus;
}

export function parseCudaVersion(banner: string): string | null {
  return /CUDA Version:\s*([0-9.]+)/.exec(banner)?.[1] ?? null;
}

/** Queries nvidia-smi (found on PATH). nvidia-smi ignores CUDA_VISIBLE_DEVICES: indices are physical. */
export async function queryNvidiaSmi(exec: ExecText = execText, bin = 'nvidia-smi'): Promise<NvidiaSmiResult> {
  let csv: string;
  try {
    csv = await exec(bin, [`--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'], 15_000);
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string; stdout?: string };
    if (err.code === 'ENOENT') return { status: 'missing' };
    // nvidia-smi prints its own failures on stdout.
    const said = (err.stderr?.trim() || err.stdout?.trim() || err.message).split('\n')[0] ?? '';
    return { status: 'failed', error: said || 'nvidia-smi exited with an error' };
  }
  const gpus = parseGpuCsv(csv);
  let cudaVersion: string | null = null;
  try {
    cudaVersion = parseCudaVersion(await exec(bin, [], 15_000));
  } catch {
    // The banner is only for the CUDA version; the GPU list above is what matters.
  }
  return { status: 'ok', gpus, cudaVersion };
}
