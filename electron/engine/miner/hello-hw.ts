// The hello's `hw` object from the hardware report: the gateway records it with the worker.
import type { HardwareReport } from '../../../shared/hardware.ts';
import type { HelloHw } from './frames.ts';

export function helloHw(report: HardwareReport): HelloHw {
  const gpus = report.gpus.filter((g) => g.vendor === 'nvidia');
  const first = gpus[0];
  const tp = report.plan?.engines[0]?.tp ?? 1;
  return {
    host: report.host.hostname,
    cpus: report.host.cpus,
    ram_gb: Math.round(report.host.ramGiB * 10) / 10,
    gpu: first?.name ?? 'none',
    gpu_count: gpus.length,
    gpu_mem_gb: first ? Math.round((first.memoryTotalMiB / 1024) * 10) / 10 : 0,
    gpus: first ? `${gpus.length}x ${first.name}` : '0x none',
    // One engine per card is data parallel across engines; several cards per engine is tensor parallel.
    parallelism: tp > 1 ? 'tp' : (report.plan?.engines.length ?? 1) > 1 ? 'dp' : 'tp',
  };
}
