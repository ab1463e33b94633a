import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRoleArgs, quoteExecArg, renderUnit, SERVICE_ROLES, SERVICE_SCOPES, unitName, type UnitOptions } from '../../../electron/engine/ops/systemd-unit.ts';

const REPO = join(import.meta.dirname, '..', '..', '..');

function options(role: UnitOptions['role'], scope: UnitOptions['scope']): UnitOptions {
  return {
    role,
    scope,
    nodePath: process.execPath,
    binPath: join(REPO, 'bin', 'engy-panel.mjs'),
    args: defaultRoleArgs(role),
    envFile: `/home/op/.config/engy-panel/${role}.env`,
    workingDirectory: '/home/op/.config/engy-panel',
    ...(scope === 'system' ? { user: 'op', writablePaths: ['/var/lib/engy-panel'], stateDirectory: 'engy-panel' } : {}),
  };
}

function directives(unit: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const eq = line.indexOf('=');
    if (line.startsWith('#') || eq < 0) continue;
    const k = line.slice(0, eq);
    m.set(k, [...(m.get(k) ?? []), line.slice(eq + 1)]);
  }
  return m;
}

describe('renderUnit', () => {
  it('runs the resolved node + bin + role command line, restarts on failure, logs to journald', () => {
    const d = directives(renderUnit(options('validator', 'user')));
    expect(d.get('ExecStart')).toEqual([
      `${process.execPath} ${join(REPO, 'bin', 'engy-panel.mjs')} validate --wallet \${ENGY_SN53_WALLET} --hotkey \${ENGY_SN53_WALLET_HOTKEY} --data-dir \${ENGY_PANEL_DATA_DIR}`,
    ]);
    expect(d.get('EnvironmentFile')).toEqual(['/home/op/.config/engy-panel/validator.env']);
    expect(d.get('Restart')).toEqual(['on-failure']);
    expect(d.get('StandardOutput')).toEqual(['journal']);
    expect(d.get('KillMode')).toEqual(['control-group']);
    expect(d.get('StartLimitBurst')).toEqual(['5']);
    expect(d.get('WantedBy')).toEqual(['default.target']);
    expect(d.has('User')).toBe(false);
  });

  it('raises the open-file limit for every role in every scope (a 1024 limit is a slowloris away from refusing everyone)', () => {
    for (const scope of SERVICE_SCOPES) {
      for (const role of SERVICE_ROLES) {
        expect(directives(renderUnit(options(role, scope))).get('LimitNOFILE'), `${scope} ${role}`).toEqual(['65536']);
      }
    }
  });

  it('gives the miner time to drain and never hides the GPUs from it', () => {
    for (const scope of SERVICE_SCOPES) {
      const d = directives(renderUnit(options('miner', scope)));
      expect(Number(d.get('TimeoutStopSec')?.[0])).toBeGreaterThanOrEqual(600);
      expect(d.has('PrivateDevices')).toBe(false);
      expect(d.has('DevicePolicy')).toBe(false);
      expect(d.has('DeviceAllow')).toBe(false);
      expect(d.has('NoNewPrivileges')).toBe(false); // nvidia-modprobe is setuid
      expect(d.has('MemoryDenyWriteExecute')).toBe(false);
    }
  });

  it('locks the CPU-only validator down harder in system scope and runs it as the named user', () => {
    const d = directives(renderUnit(options('validator', 'system')));
    expect(d.get('User')).toEqual(['op']);
    expect(d.get('PrivateDevices')).toEqual(['yes']);
    expect(d.get('ProtectSystem')).toEqual(['full']);
    expect(d.get('NoNewPrivileges')).toEqual(['yes']);
    expect(d.get('StateDirectory')).toEqual(['engy-panel']);
    expect(d.get('WantedBy')).toEqual(['multi-user.target']);
    expect(Number(d.get('TimeoutStopSec')?.[0])).toBeLessThan(600);
  });

  it('quotes arguments systemd would split or expand', () => {
    const cases: [string, string][] = [
      ['/usr/bin/node', '/usr/bin/node'],
      ['${ENGY_SN53_WALLET}', '${ENGY_SN53_WALLET}'], // the unit's own environment reference stays live
      ['/opt/engy panel/bin', '"/opt/engy panel/bin"'],
      ['50%', '50%%'],
      ['$HOME', '$$HOME'],
      ['say "hi"', '"say \\"hi\\""'],
      ['', '""'],
    ];
    for (const [arg, quoted] of cases) expect(quoteExecArg(arg), arg).toBe(quoted);
    expect(() => quoteExecArg('x\nExecStartPre=/bin/sh')).toThrow(/control character/);
    expect(() => renderUnit({ ...options('miner', 'system'), user: undefined })).toThrow(/account/);
    expect(() => renderUnit({ ...options('miner', 'system'), user: 'op\nExecStartPre=/bin/sh' })).toThrow(/not a valid account name/);
  });
});

describe('systemd-analyze verify', () => {
  it('accepts the unit of every role in every scope without a single warning', () => {
    const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (probe.error) {
      throw new Error('systemd-analyze is not installed: run `apt-get install -y systemd` (.ci/run does it) so the generated units can be verified');
    }
    const dir = mkdtempSync(join(tmpdir(), 'engy-units-'));
    const runtime = join(dir, 'runtime');
    mkdirSync(runtime, { recursive: true, mode: 0o700 });
    for (const scope of SERVICE_SCOPES) {
      for (const role of SERVICE_ROLES) {
        const opts = options(role, scope);
        // verify resolves User= against this machine's accounts: use the one running the test.
        const unit = renderUnit(scope === 'system' ? { ...opts, user: process.env.USER ?? 'root' } : opts);
        const file = join(dir, scope, unitName(role));
        mkdirSync(join(dir, scope), { recursive: true });
        writeFileSync(file, unit);
        const args = [...(scope === 'user' ? ['--user'] : []), 'verify', '--man=no', file];
        const r = spawnSync('systemd-analyze', args, { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: runtime } });
        expect(`${r.stdout}${r.stderr}`.trim(), `${scope} ${role}:\n${unit}`).toBe('');
        expect(r.status, `${scope} ${role}`).toBe(0);
      }
    }
  });
});
