import { defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { formatStatus, installService, serviceStatus, uninstallService, type StepReport } from '../engine/ops/service-manager.ts';
import { resolveBinPath, systemdHost } from '../engine/ops/service-host.ts';
import { SERVICE_ROLES, SERVICE_SCOPES, SYSTEM_DATA_DIR, type ServiceRole, type ServiceScope } from '../engine/ops/systemd-unit.ts';
import { flagString, parseArgs } from './args.ts';
import type { CliCommand, CliIo } from './types.ts';

const USAGE = `usage: engy-panel service install|uninstall|status [options] [-- <role command line>]

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

function pick<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`--${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

function printSteps(io: CliIo, r: StepReport, dryRun: boolean): void {
  if (dryRun) {
    io.stdout(`# ${r.paths.unitFile}\n${r.unit}\n`);
    if (r.envTemplate) io.stdout(`# ${r.paths.envFile} (written only if missing)\n${r.envTemplate}\n`);
    io.stdout('# would run:\n');
  }
  for (const s of r.steps) io.stdout(`${dryRun ? '  ' : ''}${s}\n`);
}

export const run: CliCommand = async (args, io) => {
  const p = parseArgs(args, ['dry-run', 'help']);
  const action = p.positionals[0];
  if (p.flags.has('help') || !action || !['install', 'uninstall', 'status'].includes(action)) {
    (p.flags.has('help') ? io.stdout : io.stderr)(USAGE);
    return p.flags.has('help') ? 0 : 2;
  }
  let role: ServiceRole | undefined;
  let scope: ServiceScope;
  try {
    role = pick(flagString(p, 'role'), SERVICE_ROLES, 'role');
    scope = pick(flagString(p, 'scope'), SERVICE_SCOPES, 'scope') ?? 'user';
  } catch (e) {
    io.stderr(`engy-panel service: ${(e as Error).message}\n`);
    return 2;
  }
  if (process.platform !== 'linux') {
    io.stderr('engy-panel service: systemd units are for Linux; on macOS and Windows run the desktop app or `engy-panel headless` under your own supervisor.\n');
    return 1;
  }
  const host = systemdHost(io.env);
  const dryRun = p.flags.get('dry-run') === true;

  if (action === 'status') {
    const roles = role ? [role] : SERVICE_ROLES;
    for (const r of roles) io.stdout(formatStatus(await serviceStatus(host, { role: r, scope })));
    return 0;
  }
  const target = { role: role ?? 'miner', scope } as const;
  if (scope === 'system' && !dryRun && process.getuid?.() !== 0) {
    io.stderr('engy-panel service: --scope system writes /etc/systemd/system: run it with sudo (or use --scope user).\n');
    return 1;
  }
  if (action === 'uninstall') {
    const r = await uninstallService(host, { ...target, dryRun });
    printSteps(io, r, dryRun);
    return r.ok ? 0 : 1;
  }
  const dataDir = flagString(p, 'data-dir') ?? (scope === 'system' ? SYSTEM_DATA_DIR : defaultHeadlessDataDir(io.env));
  let binPath: string;
  try {
    binPath = flagString(p, 'bin') ?? resolveBinPath();
  } catch (e) {
    io.stderr(`engy-panel service: ${(e as Error).message}\n`);
    return 1;
  }
  const runAs = flagString(p, 'run-as');
  const r = await installService(host, {
    ...target,
    nodePath: flagString(p, 'node') ?? process.execPath,
    binPath,
    dataDir,
    args: p.positionals.slice(1),
    ...(runAs ? { runAs } : {}),
    dryRun,
  });
  printSteps(io, r, dryRun);
  if (!r.ok) io.stderr(`engy-panel service: install did not finish; the unit file is written. Check: journalctl ${scope === 'user' ? '--user ' : ''}-u ${r.paths.unitFile.split('/').pop()}\n`);
  else if (!dryRun) io.stdout(`Edit ${r.paths.envFile}, then re-run this command to apply it. Logs: journalctl ${scope === 'user' ? '--user ' : ''}-fu engy-panel-${target.role}\n`);
  return r.ok ? 0 : 1;
};
