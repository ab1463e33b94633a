import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { controlService, formatStatus, installService, serviceStatus, uninstallService, type StepReport } from '../engine/ops/service-manager.ts';
import { resolveBinPath, systemdHost } from '../engine/ops/service-host.ts';
import { SERVICE_ROLES, SERVICE_SCOPES, SYSTEM_DATA_DIR, type ServiceRole, type ServiceScope } from '../engine/ops/systemd-unit.ts';
import { defineCommand, parseCommand, UsageError } from './args.ts';
import { cliCommand } from './run-command.ts';
import type { CliCommand, CliIo } from './types.ts';

const USAGE = `usage: engy-panel service install|uninstall|status|start|stop [options] [-- <role command line>]

  --role miner|validator   which daemon (default: miner; status without it shows both)
  --scope user|system      user: ~/.config/systemd/user (default); system: /etc/systemd/system (needs root)
  --dry-run                print the unit, the env file and the systemctl calls; change nothing
  --data-dir DIR           the daemon's data dir (default: ~/.config/engy-panel, system: ${SYSTEM_DATA_DIR})
  --run-as USER            system scope: the account the daemon runs as (default: you, or $SUDO_USER)
  --node PATH / --bin PATH the Node binary and bin/engy-panel.mjs to run (default: this ones)

After "--", the role's command line replaces the default, e.g.
  engy-panel service install --role validator -- validate --wallet w --hotkey h
Settings live in the env file (~/.config/engy-panel/<role>.env; system: /etc/engy-panel/<role>.env).
See docs/service.md.
`;

const SERVICE = defineCommand({
  usage: USAGE,
  options: {
    role: { kind: 'string', choices: SERVICE_ROLES },
    scope: { kind: 'string', choices: SERVICE_SCOPES },
    'dry-run': { kind: 'boolean' },
    'data-dir': { kind: 'string' },
    'run-as': { kind: 'string' },
    node: { kind: 'string' },
    bin: { kind: 'string' },
  },
  // The action; the role's own command line after `--` is split off before parsing.
  positionals: { min: 1, max: 1 },
});

function printSteps(io: CliIo, r: StepReport, dryRun: boolean): void {
  if (dryRun) {
    io.stdout(`# ${r.paths.unitFile}\n${r.unit}\n`);
    if (r.envTemplate) io.stdout(`# ${r.paths.envFile} (written only if missing)\n${r.envTemplate}\n`);
    io.stdout('# would run:\n');
  }
  for (const s of r.steps) io.stdout(`${dryRun ? '  ' : ''}${s}\n`);
}

export const run: CliCommand = cliCommand('service', async (args, io) => {
  const split = args.indexOf('--');
  const own = split < 0 ? args : args.slice(0, split);
  const roleArgs = split < 0 ? [] : args.slice(split + 1);
  const { values: v, positionals } = parseCommand(own, SERVICE);
  const action = positionals[0]!;
  if (!['install', 'uninstall', 'status', 'start', 'stop'].includes(action)) throw new UsageError(`unknown action "${action}": use install, uninstall, status, start or stop`, USAGE);
  const role = v.role as ServiceRole | undefined;
  const scope = (v.scope ?? 'user') as ServiceScope;
  if (process.platform !== 'linux') {
    io.stderr('engy-panel service: systemd units are for Linux; on macOS and Windows run the desktop app or `engy-panel headless` under your own supervisor.\n');
    return 1;
  }
  const host = systemdHost(io.env);
  const dryRun = v['dry-run'] === true;

  if (action === 'status') {
    const roles = role ? [role] : SERVICE_ROLES;
    for (const r of roles) io.stdout(formatStatus(await serviceStatus(host, { role: r, scope })));
    return 0;
  }
  const target = { role: role ?? 'miner', scope } as const;
  if (action === 'start' || action === 'stop') {
    const r = await controlService(host, { ...target, action });
    printSteps(io, r, false);
    return r.ok ? 0 : 1;
  }
  if (scope === 'system' && !dryRun && process.getuid?.() !== 0) {
    io.stderr('engy-panel service: --scope system writes /etc/systemd/system: run it with sudo (or use --scope user).\n');
    return 1;
  }
  if (action === 'uninstall') {
    const r = await uninstallService(host, { ...target, dryRun });
    printSteps(io, r, dryRun);
    return r.ok ? 0 : 1;
  }
  const dataDir = v['data-dir'] ?? (scope === 'system' ? SYSTEM_DATA_DIR : defaultHeadlessDataDir(io.env));
  let binPath: string;
  try {
    binPath = v.bin ?? resolveBinPath();
  } catch (e) {
    io.stderr(`engy-panel service: ${(e as Error).message}\n`);
    return 1;
  }
  const runAs = v['run-as'];
  const r = await installService(host, {
    ...target,
    nodePath: v.node ?? process.execPath,
    binPath,
    dataDir,
    args: roleArgs,
    ...(runAs ? { runAs } : {}),
    dryRun,
  });
  printSteps(io, r, dryRun);
  if (!r.ok) io.stderr(`engy-panel service: install did not finish; the unit file is written. Check: journalctl ${scope === 'user' ? '--user ' : ''}-u ${r.paths.unitFile.split('/').pop()}\n`);
  else if (!dryRun) io.stdout(`Edit ${r.paths.envFile}, then re-run this command to apply it. Logs: journalctl ${scope === 'user' ? '--user ' : ''}-fu engy-panel-${target.role}\n`);
  return r.ok ? 0 : 1;
});
