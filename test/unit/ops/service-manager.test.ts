import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { controlService, installService, serviceReport, serviceStatus, uninstallService } from '../../../electron/engine/ops/service-manager.ts';
import { recordingSystemdHost } from '../../doubles/ops/recording-systemd-host.ts';

const base = { nodePath: '/usr/bin/node', binPath: '/opt/engy/bin/engy-panel.mjs' };

describe('service install/uninstall/status', () => {
  it('writes the user unit and a private env file, then reloads, enables and (re)starts it', async () => {
    const host = recordingSystemdHost();
    const dataDir = join(host.root, 'data');
    const r = await installService(host, { ...base, role: 'validator', scope: 'user', dataDir });
    expect(r.ok).toBe(true);
    const unitFile = join(host.configHome, 'systemd', 'user', 'engy-panel-validator.service');
    const envFile = join(host.configHome, 'engy-panel', 'validator.env');
    expect(r.paths).toEqual({ unitFile, envFile });
    expect(readFileSync(unitFile, 'utf8')).toContain('ExecStart=/usr/bin/node /opt/engy/bin/engy-panel.mjs validate');
    expect(readFileSync(envFile, 'utf8')).toMatch(/^ENGY_SN53_WALLET=default$/m);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(existsSync(dataDir)).toBe(true);
    expect(host.calls).toEqual(['systemctl --user daemon-reload', 'systemctl --user enable engy-panel-validator.service', 'systemctl --user restart engy-panel-validator.service']);
    expect(r.steps.some((s) => s.includes('loginctl enable-linger miner1'))).toBe(true);
  });

  it("never overwrites the operator's env file", async () => {
    const host = recordingSystemdHost();
    const first = await installService(host, { ...base, role: 'miner', scope: 'user', dataDir: join(host.root, 'd') });
    writeFileSync(first.paths.envFile, 'ENGY_MINER_SERVE_URL=http://10.0.0.2:30000\n');
    await installService(host, { ...base, role: 'miner', scope: 'user', dataDir: join(host.root, 'd') });
    expect(readFileSync(first.paths.envFile, 'utf8')).toBe('ENGY_MINER_SERVE_URL=http://10.0.0.2:30000\n');
  });

  it('dry-run touches nothing and runs nothing', async () => {
    const host = recordingSystemdHost();
    const r = await installService(host, { ...base, role: 'miner', scope: 'system', dataDir: '/var/lib/engy-panel', dryRun: true });
    expect(r.unit).toContain('User=miner1');
    expect(r.unit).toContain('StateDirectory=engy-panel');
    expect(r.steps).toContain('systemctl enable engy-panel-miner.service');
    expect(host.calls).toEqual([]);
    expect(existsSync(r.paths.unitFile)).toBe(false);
    expect(r.paths.unitFile).toBe(join(host.root, 'etc', 'systemd', 'system', 'engy-panel-miner.service'));
  });

  it('system scope with a new custom data dir hands it to the service account', async () => {
    const host = recordingSystemdHost('op');
    const dataDir = join(host.root, 'srv', 'engy');
    const r = await installService(host, { ...base, role: 'miner', scope: 'system', dataDir });
    expect(r.ok).toBe(true);
    expect(host.calls[0]).toBe(`chown op: ${dataDir}`);
    expect(r.unit).toContain(`ReadWritePaths=${dataDir}`);
    expect(r.unit).not.toContain('StateDirectory=');
    host.calls.length = 0;
    await installService(host, { ...base, role: 'miner', scope: 'system', dataDir });
    expect(host.calls.some((c) => c.startsWith('chown'))).toBe(false); // existing dir: left alone
  });

  it('stops at the first failing systemctl call and reports it', async () => {
    const host = recordingSystemdHost();
    host.answers.set('systemctl --user enable', { code: 1, stdout: '', stderr: 'Failed to connect to bus: No medium found' });
    const r = await installService(host, { ...base, role: 'miner', scope: 'user', dataDir: join(host.root, 'd') });
    expect(r.ok).toBe(false);
    expect(host.calls).toHaveLength(2);
    expect(r.steps.join('\n')).toContain('Failed to connect to bus');
  });

  it('uninstall disables, removes the unit, keeps the env file', async () => {
    const host = recordingSystemdHost();
    const r1 = await installService(host, { ...base, role: 'miner', scope: 'user', dataDir: join(host.root, 'd') });
    host.calls.length = 0;
    const r2 = await uninstallService(host, { role: 'miner', scope: 'user' });
    expect(r2.ok).toBe(true);
    expect(existsSync(r1.paths.unitFile)).toBe(false);
    expect(existsSync(r1.paths.envFile)).toBe(true);
    expect(host.calls).toEqual(['systemctl --user disable --now engy-panel-miner.service', 'systemctl --user daemon-reload']);
  });

  it('status reads systemctl show and linger; doctor gets one line per installed unit', async () => {
    const host = recordingSystemdHost();
    await installService(host, { ...base, role: 'miner', scope: 'user', dataDir: join(host.root, 'd') });
    host.answers.set('systemctl --user show engy-panel-miner.service', {
      code: 0,
      stdout: 'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nMainPID=4242\nNRestarts=3\nActiveEnterTimestamp=Wed 2026-12-02 10:00:00 UTC\n',
      stderr: '',
    });
    host.answers.set('loginctl show-user', { code: 0, stdout: 'Linger=no\n', stderr: '' });
    const s = await serviceStatus(host, { role: 'miner', scope: 'user' });
    expect(s).toMatchObject({ installed: true, activeState: 'active', subState: 'running', mainPid: 4242, restarts: 3, linger: false });
    const report = await serviceReport(host);
    expect(report.lines).toEqual(['service: engy-panel-miner.service (user) active/running, 3 restarts, stops at logout (linger off)']);
  });

  it('says none installed when there is nothing', async () => {
    const host = recordingSystemdHost();
    expect((await serviceReport(host)).lines).toEqual(['service: none installed (engy-panel service install --role miner|validator)']);
  });

  it('start and stop run systemctl on an installed unit only, and name the install command otherwise', async () => {
    const host = recordingSystemdHost();
    const absent = await controlService(host, { role: 'miner', scope: 'user', action: 'start' });
    expect(absent.ok).toBe(false);
    expect(absent.steps[0]).toMatch(/not installed .*engy-panel service install --role miner first/);
    expect(host.calls).toEqual([]);
    await installService(host, { ...base, role: 'miner', scope: 'user', dataDir: join(host.root, 'data') });
    host.calls.length = 0;
    expect((await controlService(host, { role: 'miner', scope: 'user', action: 'start' })).ok).toBe(true);
    expect((await controlService(host, { role: 'miner', scope: 'user', action: 'stop' })).ok).toBe(true);
    expect(host.calls).toEqual(['systemctl --user start engy-panel-miner.service', 'systemctl --user stop engy-panel-miner.service']);
    host.answers.set('systemctl --user start', { code: 5, stdout: '', stderr: 'Unit failed.' });
    const failed = await controlService(host, { role: 'miner', scope: 'user', action: 'start' });
    expect(failed.ok).toBe(false);
    expect(failed.steps.join('\n')).toContain('failed (exit 5): Unit failed.');
  });
});
