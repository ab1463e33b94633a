import type { CliCommand } from './types.ts';
import { defineCommand, parseCommand } from './args.ts';
import { cliCommand } from './run-command.ts';
import { detectHardware } from '../engine/hardware/detect.ts';
import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { formatHardwareReport } from '../engine/hardware/report-text.ts';

export const DOCTOR = defineCommand({
  usage: 'usage: engy-panel doctor [--json] [--data-dir D]\n  the hardware report: GPUs, host, verdict, serve plan, and the systemd services\n',
  options: { json: { kind: 'boolean' }, 'data-dir': { kind: 'string' } },
});

/** `engy-panel doctor [--json] [--data-dir D]`: the hardware report for scripts and support. */
export const run: CliCommand = cliCommand('doctor', async (args, io) => {
  const { values: v } = parseCommand(args, DOCTOR);
  const dataDir = v['data-dir'] ?? defaultHeadlessDataDir(io.env);
  const report = await detectHardware({ dataDir });
  const { serviceReport } = await import('../engine/ops/service-manager.ts');
  const services = await serviceReport().catch((e: unknown) => ({ lines: [`systemd: not checked (${(e as Error).message})`], statuses: [] }));
  if (v.json) io.stdout(JSON.stringify({ ...report, services: services.statuses }, null, 2) + '\n');
  else io.stdout(`${formatHardwareReport(report)}\nServices:\n${services.lines.map((l) => `  ${l}`).join('\n')}\n`);
  return report.verdict === 'unsupported' ? 1 : 0;
});
