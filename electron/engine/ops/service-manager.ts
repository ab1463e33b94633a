import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { systemdHost } from './service-host.ts';
import { defaultRoleArgs, renderEnvTemplate, renderUnit, SYSTEM_DATA_DIR, SYSTEM_STATE_DIR, unitName, type ServiceRole, type ServiceScope } from './systemd-unit.ts';
import { errorMessage } from '../../../shared/errors.ts';

// install / uninstall / status of the systemd units. Every side effect goes through `SystemdHost`
// (files under a root, a command runner), so tests run on any machine, systemd or not.

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}
export type CommandRunner = (cmd: string, args: readonly string[]) => Promise<CommandResult>;

export interface SystemdHost {
  run: CommandRunner;
  /** The invoking user's home (unit dir and env file in user scope). */
  home: string;
  /** `XDG_CONFIG_HOME` if set, else `<home>/.config`. */
  configHome: string;
  /** Prefix for /etc paths; "/" on a real host, a temp dir in tests. */
  systemRoot: string;
  username: string;
}

export interface ServiceTarget {
  role: ServiceRole;
  scope: ServiceScope;
}

export interface InstallOptions extends ServiceTarget {
  nodePath: string;
  binPath: string;
  dataDir: string;
  /** Overrides the role's default command line (everything after the bin). */
  args?: readonly string[];
  /** System scope: the account to run as; defaults to the invoking user. */
  runAs?: string;
  dryRun?: boolean;
}

export interface ServicePaths {
  unitFile: string;
  envFile: string;
}

export function servicePaths(host: SystemdHost, t: ServiceTarget): ServicePaths {
  const name = unitName(t.role);
  if (t.scope === 'user') {
    return { unitFile: join(host.configHome, 'systemd', 'user', name), envFile: join(host.configHome, 'engy-panel', `${t.role}.env`) };
  }
  return { unitFile: join(host.systemRoot, 'etc', 'systemd', 'system', name), envFile: join(host.systemRoot, 'etc', 'engy-panel', `${t.role}.env`) };
}

function systemctlArgs(scope: ServiceScope, ...rest: string[]): string[] {
  return scope === 'user' ? ['--user', ...rest] : rest;
}

export interface StepReport {
  /** What was (or, with --dry-run, would be) done, one line per step, for the terminal. */
  steps: string[];
  unit: string;
  envTemplate: string;
  paths: ServicePaths;
  ok: boolean;
}

async function runStep(host: SystemdHost, steps: string[], dryRun: boolean, args: string[]): Promise<boolean> {
  steps.push(`systemctl ${args.join(' ')}`);
  if (dryRun) return true;
  const r = await host.run('systemctl', args);
  if (r.code !== 0) {
    steps.push(`  failed (exit ${r.code}): ${(r.stderr || r.stdout).trim()}`);
    return false;
  }
  return true;
}

export async function installService(host: SystemdHost, o: InstallOptions): Promise<StepReport> {
  const paths = servicePaths(host, o);
  const user = o.scope === 'system' ? (o.runAs ?? host.username) : undefined;
  // systemd creates the default system data dir with the right owner; anything else we create.
  const systemManaged = o.scope === 'system' && o.dataDir === SYSTEM_DATA_DIR;
  const unit = renderUnit({
    role: o.role,
    scope: o.scope,
    nodePath: o.nodePath,
    binPath: o.binPath,
    args: o.args && o.args.length > 0 ? o.args : defaultRoleArgs(o.role),
    envFile: paths.envFile,
    workingDirectory: o.dataDir,
    ...(user ? { user } : {}),
    writablePaths: [o.dataDir],
    ...(systemManaged ? { stateDirectory: SYSTEM_STATE_DIR } : {}),
  });
  const envTemplate = renderEnvTemplate(o.role, o.dataDir);
  const steps: string[] = [];
  const dry = o.dryRun === true;
  steps.push(`write ${paths.unitFile}`);
  if (existsSync(paths.envFile)) steps.push(`keep ${paths.envFile} (already there: your settings)`);
  else steps.push(`write ${paths.envFile} (mode 0600: edit it)`);
  // A system service runs as `user`: a data dir we create as root must be handed over, or the
  // engine cannot write its lock. An existing dir is left as it is (it may hold other files).
  const createDir = !systemManaged && !existsSync(o.dataDir);
  if (createDir) steps.push(`mkdir ${o.dataDir}`);
  if (!dry) {
    writeFileAtomic(paths.unitFile, unit, 0o644);
    if (!existsSync(paths.envFile)) writeFileAtomic(paths.envFile, envTemplate, 0o600);
    if (createDir) mkdirSync(o.dataDir, { recursive: true });
  }
  if (createDir && user) {
    steps.push(`chown ${user}: ${o.dataDir}`);
    if (!dry) {
      const r = await host.run('chown', [`${user}:`, o.dataDir]);
      if (r.code !== 0) steps.push(`  failed (exit ${r.code}): ${(r.stderr || r.stdout).trim()}`);
    }
  }
  const name = unitName(o.role);
  let ok = await runStep(host, steps, dry, systemctlArgs(o.scope, 'daemon-reload'));
  if (ok) ok = await runStep(host, steps, dry, systemctlArgs(o.scope, 'enable', name));
  // restart, not start: re-running install after editing the env file must apply it.
  if (ok) ok = await runStep(host, steps, dry, systemctlArgs(o.scope, 'restart', name));
  if (o.scope === 'user') {
    steps.push(`hint: user services stop at logout unless lingering is on: loginctl enable-linger ${host.username}`);
  }
  return { steps, unit, envTemplate, paths, ok };
}

export async function uninstallService(host: SystemdHost, t: ServiceTarget & { dryRun?: boolean }): Promise<StepReport> {
  const paths = servicePaths(host, t);
  const name = unitName(t.role);
  const steps: string[] = [];
  const dry = t.dryRun === true;
  // disable --now stops it too; a unit that is not loaded is not an error for uninstall.
  await runStep(host, steps, dry, systemctlArgs(t.scope, 'disable', '--now', name));
  steps.push(`remove ${paths.unitFile}`);
  if (!dry) rmSync(paths.unitFile, { force: true });
  const ok = await runStep(host, steps, dry, systemctlArgs(t.scope, 'daemon-reload'));
  steps.push(`keep ${paths.envFile} (your settings; delete it by hand if you want)`);
  return { steps, unit: '', envTemplate: '', paths, ok };
}

/**
 * `service start|stop`: the installed unit only (a fleet panel starts a rig's engine this way over SSH,
 * docs/fleet.md). A unit that is not installed is refused with the install command, not attempted.
 */
export async function controlService(host: SystemdHost, t: ServiceTarget & { action: 'start' | 'stop' }): Promise<StepReport> {
  const paths = servicePaths(host, t);
  const steps: string[] = [];
  if (!existsSync(paths.unitFile)) {
    steps.push(`not installed (${paths.unitFile} is missing): run engy-panel service install --role ${t.role}${t.scope === 'system' ? ' --scope system' : ''} first`);
    return { steps, unit: '', envTemplate: '', paths, ok: false };
  }
  const ok = await runStep(host, steps, false, systemctlArgs(t.scope, t.action, unitName(t.role)));
  return { steps, unit: '', envTemplate: '', paths, ok };
}

export interface ServiceStatus extends ServiceTarget {
  unit: string;
  installed: boolean;
  unitFile: string;
  envFile: string;
  envFilePresent: boolean;
  /** systemctl show fields; absent when systemctl could not be asked. */
  loadState?: string;
  activeState?: string;
  subState?: string;
  unitFileState?: string;
  mainPid?: number;
  restarts?: number;
  since?: string;
  /** Why the state could not be read (no systemd, no user bus). */
  error?: string;
  /** User scope: whether the service survives logout. */
  linger?: boolean;
}

function parseShow(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) m.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  return m;
}

export async function serviceStatus(host: SystemdHost, t: ServiceTarget): Promise<ServiceStatus> {
  const paths = servicePaths(host, t);
  const name = unitName(t.role);
  const st: ServiceStatus = {
    ...t,
    unit: name,
    installed: existsSync(paths.unitFile),
    unitFile: paths.unitFile,
    envFile: paths.envFile,
    envFilePresent: existsSync(paths.envFile),
  };
  try {
    const r = await host.run('systemctl', systemctlArgs(t.scope, 'show', name, '--property=LoadState,ActiveState,SubState,UnitFileState,MainPID,NRestarts,ActiveEnterTimestamp'));
    if (r.code !== 0) st.error = (r.stderr || r.stdout).trim() || `systemctl exited ${r.code}`;
    else {
      const p = parseShow(r.stdout);
      st.loadState = p.get('LoadState');
      st.activeState = p.get('ActiveState');
      st.subState = p.get('SubState');
      st.unitFileState = p.get('UnitFileState');
      const pid = Number(p.get('MainPID'));
      if (Number.isFinite(pid) && pid > 0) st.mainPid = pid;
      const restarts = Number(p.get('NRestarts'));
      if (Number.isFinite(restarts)) st.restarts = restarts;
      const since = p.get('ActiveEnterTimestamp');
      if (since) st.since = since;
    }
  } catch (e) {
    st.error = errorMessage(e);
  }
  if (t.scope === 'user') {
    try {
      const r = await host.run('loginctl', ['show-user', host.username, '--property=Linger']);
      if (r.code === 0) st.linger = parseShow(r.stdout).get('Linger') === 'yes';
    } catch {
      // no logind: leave linger unknown
    }
  }
  return st;
}

export function formatStatus(s: ServiceStatus): string {
  const head = `${s.unit} (${s.scope}): ${s.installed ? 'installed' : 'not installed'}`;
  const lines = [head, `  unit file: ${s.unitFile}`, `  env file:  ${s.envFile}${s.envFilePresent ? '' : ' (missing)'}`];
  if (s.error) lines.push(`  state: unknown (${s.error})`);
  else {
    lines.push(`  state: ${s.activeState ?? '?'} (${s.subState ?? '?'}), ${s.unitFileState ?? '?'}${s.mainPid ? `, pid ${s.mainPid}` : ''}`);
    if (s.since) lines.push(`  since: ${s.since}`);
    if (s.restarts !== undefined) lines.push(`  restarts: ${s.restarts}`);
  }
  if (s.scope === 'user' && s.linger === false) lines.push('  warning: lingering is off: the service stops when you log out (loginctl enable-linger)');
  return `${lines.join('\n')}\n`;
}

/**
 * For `doctor`: the installed state of every role in both scopes, one line each. Without a host it
 * asks this machine's systemd (and says so on macOS/Windows, where there is none).
 */
export async function serviceReport(host?: SystemdHost): Promise<{ lines: string[]; statuses: ServiceStatus[] }> {
  if (!host) {
    if (process.platform !== 'linux') return { lines: ['service: systemd units are Linux-only (not applicable here)'], statuses: [] };
    host = systemdHost();
  }
  const statuses: ServiceStatus[] = [];
  for (const scope of ['user', 'system'] as const) {
    for (const role of ['miner', 'validator'] as const) statuses.push(await serviceStatus(host, { role, scope }));
  }
  const installed = statuses.filter((s) => s.installed);
  const lines =
    installed.length === 0
      ? ['service: none installed (engy-panel service install --role miner|validator)']
      : installed.map(
          (s) =>
            `service: ${s.unit} (${s.scope}) ${s.error ? `state unknown: ${s.error}` : `${s.activeState ?? '?'}/${s.subState ?? '?'}`}` +
            `${s.restarts ? `, ${s.restarts} restarts` : ''}${s.envFilePresent ? '' : ', env file missing'}` +
            `${s.scope === 'user' && s.linger === false ? ', stops at logout (linger off)' : ''}`,
        );
  return { lines, statuses };
}
