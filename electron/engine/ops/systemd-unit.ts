// Pure rendering of the systemd units that run the headless daemons. No I/O here, so every
// line can be unit-tested and checked by `systemd-analyze verify` without touching the host.

import { DEFAULT_PROVIDER_URL, SUBNET_NETUID } from '../../../shared/network.ts';

export type ServiceRole = 'miner' | 'validator';
export type ServiceScope = 'user' | 'system';

export const SERVICE_ROLES: readonly ServiceRole[] = ['miner', 'validator'];
export const SERVICE_SCOPES: readonly ServiceScope[] = ['user', 'system'];

export interface UnitOptions {
  role: ServiceRole;
  scope: ServiceScope;
  /** Absolute path of the Node binary (process.execPath when installing). */
  nodePath: string;
  /** Absolute path of bin/engy-panel.mjs. */
  binPath: string;
  /** The role's command line after the bin: e.g. ['validate', '--wallet', '${ENGY_SN53_WALLET}']. */
  args: readonly string[];
  envFile: string;
  workingDirectory: string;
  /** System scope only: the account the daemon runs as (never root by default). */
  user?: string;
  /** Where the daemon may write under ProtectSystem (system scope). */
  writablePaths?: readonly string[];
  /** System scope: a /var/lib/<name> systemd creates and hands to `user` before start. */
  stateDirectory?: string;
}

export function unitName(role: ServiceRole): string {
  return `engy-panel-${role}.service`;
}

/**
 * One argument in ExecStart syntax: quoted when it holds anything but plain characters, with `%`
 * (specifiers) doubled. `${NAME}` stays live on purpose so the command line can read the
 * EnvironmentFile; a literal `$` elsewhere is doubled.
 */
export function quoteExecArg(arg: string): string {
  // A newline would end the directive and start another: refuse rather than escape.
  if ([...arg].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw new Error(`argument ${JSON.stringify(arg)} contains a control character`);
  const parts = arg.split(/(\$\{[A-Za-z_][A-Za-z0-9_]*\})/);
  const body = parts.map((p, i) => (i % 2 === 1 ? p : p.replace(/%/g, '%%').replace(/\$/g, '$$$$'))).join('');
  if (/^[A-Za-z0-9_@+=:,./{}$%-]+$/.test(body) && body.length > 0) return body;
  return `"${body.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Paths in directives like WorkingDirectory= take specifiers but no quotes. */
function pathValue(p: string): string {
  if (/\s/.test(p)) throw new Error(`path "${p}" contains whitespace; systemd directives cannot take it here`);
  return p.replace(/%/g, '%%');
}

/** System scope default data dir: created by systemd (StateDirectory=), owned by the service account. */
export const SYSTEM_STATE_DIR = 'engy-panel';
export const SYSTEM_DATA_DIR = `/var/lib/${SYSTEM_STATE_DIR}`;

/** Seconds the miner may take to stop: sglang drains in-flight requests (a 262k-context request runs minutes). */
export const MINER_STOP_TIMEOUT_S = 900;
export const VALIDATOR_STOP_TIMEOUT_S = 60;

function hardening(o: UnitOptions): string[] {
  const common = ['ProtectKernelTunables=yes', 'ProtectControlGroups=yes', 'LockPersonality=yes', 'RestrictRealtime=yes'];
  if (o.scope === 'user') {
    // Sandboxing in user units needs unprivileged user namespaces, which many hosts disable;
    // keep to what works everywhere. NoNewPrivileges breaks nvidia-modprobe (setuid), so the miner skips it.
    return o.role === 'validator' ? ['NoNewPrivileges=yes'] : [];
  }
  const lines = ['ProtectSystem=full', 'PrivateTmp=yes', ...common];
  if (o.role === 'validator') {
    // CPU-only: no devices, no home writes except the data dir.
    lines.push('NoNewPrivileges=yes', 'PrivateDevices=yes', 'ProtectHome=read-only', 'ProtectKernelModules=yes', 'RestrictNamespaces=yes', 'RestrictSUIDSGID=yes');
  }
  // The miner keeps /dev (GPUs: /dev/nvidia*, /dev/nvidia-uvm created on first CUDA use by the
  // setuid nvidia-modprobe, which also loads nvidia_uvm), the home dir (venv, HF and JIT caches)
  // and namespaces (a docker-runtime serve). MemoryDenyWriteExecute is off for both: V8 and Triton JIT.
  for (const p of o.writablePaths ?? []) lines.push(`ReadWritePaths=${pathValue(p)}`);
  return lines;
}

export function renderUnit(o: UnitOptions): string {
  if (!o.nodePath.startsWith('/') || !o.binPath.startsWith('/')) throw new Error('nodePath and binPath must be absolute');
  if (o.scope === 'system' && !o.user) throw new Error('a system unit needs the account to run as (user)');
  if (o.user !== undefined && !/^[A-Za-z_][A-Za-z0-9_.-]*\$?$/.test(o.user)) throw new Error(`"${o.user}" is not a valid account name`);
  const stop = o.role === 'miner' ? MINER_STOP_TIMEOUT_S : VALIDATOR_STOP_TIMEOUT_S;
  const exec = [o.nodePath, o.binPath, ...o.args].map(quoteExecArg).join(' ');
  const lines = [
    '# Written by `engy-panel service install`; re-run it rather than editing (docs/service.md).',
    '[Unit]',
    `Description=engy panel ${o.role} (headless, Bittensor SN53)`,
    'Documentation=https://github.com/hanlinai/engy-panel/blob/main/docs/service.md',
    'After=network-online.target',
    'Wants=network-online.target',
    // Five failures in ten minutes = give up and leave it to the operator (journal says why).
    'StartLimitIntervalSec=600',
    'StartLimitBurst=5',
    '',
    '[Service]',
    'Type=simple',
    ...(o.scope === 'system' ? [`User=${o.user}`] : []),
    ...(o.scope === 'system' && o.stateDirectory ? [`StateDirectory=${pathValue(o.stateDirectory)}`, 'StateDirectoryMode=0700'] : []),
    `EnvironmentFile=${pathValue(o.envFile)}`,
    'Environment=NODE_ENV=production',
    `WorkingDirectory=${pathValue(o.workingDirectory)}`,
    `ExecStart=${exec}`,
    'Restart=on-failure',
    'RestartSec=15',
    // Every child (sglang and its schedulers) lives in the unit's cgroup and dies with it.
    'KillMode=control-group',
    'KillSignal=SIGTERM',
    `TimeoutStopSec=${stop}`,
    'SendSIGKILL=yes',
    'StandardOutput=journal',
    'StandardError=journal',
    `SyslogIdentifier=engy-panel-${o.role}`,
    // Every daemon serves peers (the validator its metrics, the miner its legs): 1024 descriptors
    // is what a slow-connection flood exhausts first.
    'LimitNOFILE=65536',
    ...hardening(o),
    '',
    '[Install]',
    `WantedBy=${o.scope === 'user' ? 'default.target' : 'multi-user.target'}`,
    '',
  ];
  return lines.join('\n');
}

/** The default command line per role: `${VAR}` comes from the EnvironmentFile at start. */
export function defaultRoleArgs(role: ServiceRole): string[] {
  // --data-dir keeps the daemon on the folder the unit grants it (ReadWritePaths, StateDirectory).
  return role === 'validator'
    ? ['validate', '--wallet', '${ENGY_SN53_WALLET}', '--hotkey', '${ENGY_SN53_WALLET_HOTKEY}', '--data-dir', '${ENGY_PANEL_DATA_DIR}']
    : ['mine', '--serve-url', '${ENGY_MINER_SERVE_URL}', '--checkpoint', '${ENGY_MINER_CHECKPOINT}', '--data-dir', '${ENGY_PANEL_DATA_DIR}'];
}

/** The EnvironmentFile written once on install (never overwritten: it is the operator's config). */
export function renderEnvTemplate(role: ServiceRole, dataDir: string): string {
  const head = [
    `# engy panel ${role} service settings: read by systemd (EnvironmentFile), KEY=value per line.`,
    '# Edit, then: engy-panel service install --role ' + role + '  (or systemctl restart engy-panel-' + role + ')',
    `ENGY_PANEL_DATA_DIR=${dataDir}`,
  ];
  if (role === 'validator') {
    return [
      ...head,
      '# The same names the reference engy light validator reads.',
      'ENGY_SN53_WALLET=default',
      'ENGY_SN53_WALLET_HOTKEY=default',
      'ENGY_SN53_NETWORK=finney',
      `ENGY_SN53_NETUID=${SUBNET_NETUID}`,
      `ENGY_SN53_API=${DEFAULT_PROVIDER_URL}`,
      '# ENGY_SN53_MASTER_HOTKEY is pinned by the panel; override only together with ENGY_SN53_API.',
      '# ENGY_SN53_POLL_S=300',
      '',
    ].join('\n');
  }
  return [
    ...head,
    'ENGY_MINER_SERVE_URL=http://127.0.0.1:30000',
    `ENGY_MINER_CHECKPOINT=${dataDir}/checkpoints/Qwen/Qwen3.6-35B-A3B-FP8`,
    '# The miner key: a file readable only by the service account, else the one `engy-panel wallet miner-key` stored.',
    '# ENGY_MINER_KEY_FILE=',
    '# ENGY_GATEWAY=wss://...   (default: the production gateway)',
    '# Wallet whose hotkey mines (hotkey only; the coldkey is never needed to mine).',
    'ENGY_SN53_WALLET=default',
    'ENGY_SN53_WALLET_HOTKEY=default',
    '# Multi-GPU consumer cards that hang in NCCL all-reduce (docs/troubleshooting.md):',
    '# NCCL_P2P_DISABLE=1',
    '',
  ].join('\n');
}
