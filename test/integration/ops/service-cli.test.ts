import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'engy-panel.mjs');

function cli(args: string[], configHome: string) {
  return spawnSync(process.execPath, [BIN, 'service', ...args], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CONFIG_HOME: configHome, ENGY_FROM_SOURCE: '1' },
  });
}

describe('engy-panel service (real CLI process)', () => {
  it('--dry-run prints the unit, the env file and the systemctl calls, and writes nothing', () => {
    const home = mkdtempSync(join(tmpdir(), 'engy-cli-'));
    const r = cli(['install', '--role', 'validator', '--dry-run'], home);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const unitFile = join(home, 'systemd', 'user', 'engy-panel-validator.service');
    expect(r.stdout).toContain(`# ${unitFile}\n`);
    expect(r.stdout).toContain(`ExecStart=${process.execPath} ${BIN} validate --wallet \${ENGY_SN53_WALLET} --hotkey \${ENGY_SN53_WALLET_HOTKEY} --data-dir \${ENGY_PANEL_DATA_DIR}\n`);
    expect(r.stdout).toContain('ENGY_SN53_WALLET_HOTKEY=default\n');
    expect(r.stdout).toContain('  systemctl --user enable engy-panel-validator.service\n');
    expect(existsSync(unitFile)).toBe(false);
    expect(existsSync(join(home, 'engy-panel'))).toBe(false);
  });

  it('passes the command line after -- through, quoted for systemd', () => {
    const home = mkdtempSync(join(tmpdir(), 'engy-cli-'));
    const r = cli(['install', '--role', 'miner', '--dry-run', '--', 'mine', '--serve-url', 'http://10.0.0.2:30000', '--note', 'two words'], home);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(' mine --serve-url http://10.0.0.2:30000 --note "two words"\n');
    expect(r.stdout).toContain('TimeoutStopSec=900\n');
  });

  it('refuses an unknown role with usage and exit 2', () => {
    const r = cli(['install', '--role', 'gateway'], mkdtempSync(join(tmpdir(), 'engy-cli-')));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--role must be one of miner, validator, got "gateway"');
  });
});
