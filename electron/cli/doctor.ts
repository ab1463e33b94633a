import type { CliCommand } from './types.ts';
import { parseArgs, flagString } from './args.ts';
import { detectHardware } from '../engine/hardware/detect.ts';
import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { formatHardwareReport } from '../engine/hardware/report-text.ts';

/** `engy-panel doctor [--json] [--data-dir D]`: the hardware report for scripts and support. */
export const run: CliCommand = async (args, io) => {
  const p = parseArgs(args, ['json']);
  const dataDir = flagString(p, 'data-dir') ?? defaultHeadlessDataDir(io.env);
  const report = await detectHardware({ dataDir });
  const { serviceReport } = await import('../engine/ops/service-manager.ts');
  const services = await serviceReport().catch((e: unknown) => ({ lines: [`systemd: not checked (${(e as Error).message})`], statuses: [] }));
  if (p.flags.has('json')) io.stdout(JSON.stringify({ ...report, services: services.statuses }, null, 2) + '\n');
  else io.stdout(`${formatHardwareReport(report)}\nServices:\n${services.lines.map((l) => `  ${l}`).join('\n')}\n`);
  return report.verdict === 'unsupported' ? 1 : 0;
};
