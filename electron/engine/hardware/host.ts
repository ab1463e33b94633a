import { hostname, cpus, totalmem, platform, release } from 'node:os';
import type { GpuInfo, HostInfo } from '../../../shared/hardware.ts';
import { freeBytesAt, type FreeBytesAt } from '../lib/disk-free.ts';

function freeGiBAt(path: string, freeBytes: FreeBytesAt): number | null {
  try {
    return freeBytes(path) / 1024 ** 3;
  } catch {
    return null;
  }
}

/** Host facts from systeminformation, with Node's own os module when it cannot answer. */
export async function readHost(dataDir: string, freeBytes: FreeBytesAt = freeBytesAt): Promise<HostInfo> {
  let osName = `${platform()} ${release()}`;
  let cpuModel = cpus()[0]?.model ?? 'unknown CPU';
  let cpuCount = cpus().length;
  try {
    const si = await import('systeminformation');
    const [osInfo, cpu] = await Promise.all([si.osInfo(), si.cpu()]);
    osName = [osInfo.distro, osInfo.release].filter(Boolean).join(' ') || osName;
    cpuModel = [cpu.manufacturer, cpu.brand].filter(Boolean).join(' ') || cpuModel;
    cpuCount = cpu.cores || cpuCount;
  } catch {
    // systeminformation shells out to platform tools; the os module answers well enough.
  }
  return {
    hostname: hostname(),
    os: osName,
    cpuModel,
    cpus: cpuCount,
    ramGiB: totalmem() / 1024 ** 3,
    diskFreeGiB: freeGiBAt(dataDir, freeBytes),
    diskPath: dataDir,
  };
}

/** Non-NVIDIA (or NVIDIA seen without a working nvidia-smi) cards, from systeminformation. */
export async function readOtherGpus(): Promise<GpuInfo[]> {
  try {
    const si = await import('systeminformation');
    const g = await si.graphics();
    return g.controllers
      .filter((c) => !/nvidia/i.test(c.vendor ?? ''))
      .map((c, i) => ({
        index: i,
        name: c.model || c.name || 'unknown GPU',
        uuid: '',
        memoryTotalMiB: c.vram ?? 0,
        memoryUsedMiB: c.memoryUsed ?? 0,
        computeCap: null,
        driverVersion: c.driverVersion ?? null,
        temperatureC: c.temperatureGpu ?? null,
        powerDrawW: c.powerDraw ?? null,
        powerLimitW: c.powerLimit ?? null,
        utilizationPct: c.utilizationGpu ?? null,
        pcieGen: null,
        pcieWidth: null,
        vendor: 'other' as const,
      }));
  } catch {
    return [];
  }
}
