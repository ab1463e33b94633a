import type { GpuInfo } from '../../../shared/hardware.ts';
import { decodeThrottleMask, type ThrottleReason } from '../../../shared/gpu-throttle.ts';
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

export type NvidiaSmiResult = { status: 'ok'; gpus: GpuInfo[]; cudaVersion: string | null } | { status: 'missing' } | { status: 'failed'; error: string };

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

/** One CSV line's GPU_QUERY_FIELDS (the first 13 cells); null when it has no index or memory total. */
function parseGpuFields(f: string[]): GpuInfo | null {
  const index = num(f[0]);
  const memTotal = num(f[3]);
  if (index === null || memTotal === null) return null;
  return {
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
  };
}

/** More output than any real machine prints (64 cards of ~300 characters each): the rest is ignored. */
const MAX_CSV_CHARS = 64 * 1024;
const MAX_GPUS = 64;

function csvLines(csv: string, minFields: number): string[][] {
  const rows: string[][] = [];
  for (const line of csv.slice(0, MAX_CSV_CHARS).split(/\r?\n/)) {
    if (rows.length >= MAX_GPUS) break;
    if (!line.trim()) continue;
    const f = line.split(',').map((s) => s.trim());
    if (f.length >= minFields) rows.push(f);
  }
  return rows;
}

/** Parses `--format=csv,noheader,nounits` output for GPU_QUERY_FIELDS. Lines that do not parse are skipped. */
export function parseGpuCsv(csv: string): GpuInfo[] {
  return csvLines(csv, GPU_QUERY_FIELDS.length).flatMap((f) => parseGpuFields(f) ?? []);
}

/**
 * The live panel's extra fields, after GPU_QUERY_FIELDS. The reasons field was renamed in driver 535
 * (clocks_throttle_reasons -> clocks_event_reasons); older drivers refuse the new name, newer ones
 * still accept the old one, so the sampler asks with the new name first and falls back.
 */
export const LIVE_EXTRA_FIELDS = ['fan.speed', 'clocks.sm', 'clocks.mem'] as const;
export const REASONS_FIELDS = ['clocks_event_reasons.active', 'clocks_throttle_reasons.active'] as const;
export type ReasonsField = (typeof REASONS_FIELDS)[number] | null;

export function liveQueryFields(reasons: ReasonsField): string[] {
  return [...GPU_QUERY_FIELDS, ...LIVE_EXTRA_FIELDS, ...(reasons ? [reasons] : [])];
}

/** A GPU reading for the live panel: the report's fields plus fan, clocks and throttle reasons. */
export interface GpuLiveReading extends GpuInfo {
  fanPct: number | null;
  smClockMHz: number | null;
  memClockMHz: number | null;
  /** null: the driver did not say (field unsupported, "[N/A]" or garbage). */
  throttle: ThrottleReason[] | null;
}

/** A bounded reading: outside [lo, hi] is garbage, not a figure to show. */
function within(v: number | null, lo: number, hi: number): number | null {
  return v !== null && v >= lo && v <= hi ? v : null;
}

/** Parses the sampler's output for liveQueryFields(reasons). Lines that do not parse are skipped. */
export function parseLiveGpuCsv(csv: string, reasons: ReasonsField): GpuLiveReading[] {
  const base = GPU_QUERY_FIELDS.length;
  const out: GpuLiveReading[] = [];
  for (const f of csvLines(csv, liveQueryFields(reasons).length)) {
    const g = parseGpuFields(f);
    if (!g) continue;
    out.push({
      ...g,
      fanPct: within(num(f[base]), 0, 100),
      smClockMHz: within(num(f[base + 1]), 0, 100_000),
      memClockMHz: within(num(f[base + 2]), 0, 100_000),
      throttle: reasons ? decodeThrottleMask(f[base + 3]) : null,
    });
  }
  return out;
}

/** nvidia-smi's refusal of a field name it does not know (an older driver). */
export function isUnknownFieldError(said: string): boolean {
  return /is not a valid field to query/i.test(said);
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
