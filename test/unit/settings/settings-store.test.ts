import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettingsStore } from '../../../electron/engine/settings/settings-store.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';
import { defaultSettings } from '../../../shared/settings.ts';

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), 'engy-settings-'));
  const hub = new LogHub();
  return { dir, file: join(dir, 'settings.json'), hub, log: hub.logger('settings') };
}

describe('settings store', () => {
  it('starts from defaults and persists updates atomically, leaving no temp files', () => {
    const { dir, file, log } = fresh();
    const s = new SettingsStore(file, log);
    expect(s.get()).toEqual(defaultSettings());
    s.update({ role: 'validate', desktop: { runAtLogin: true } });
    expect(readdirSync(dir)).toEqual(['settings.json']);
    const again = new SettingsStore(file, log);
    expect(again.get().role).toBe('validate');
    expect(again.get().desktop).toEqual({ ...defaultSettings().desktop, runAtLogin: true });
  });

  it('drops invalid fields to their defaults and says so', () => {
    const { file, hub, log } = fresh();
    const bad = { ...defaultSettings(), role: 'admin', theme: 42, validating: { ...defaultSettings().validating, netuid: 'x', pollSeconds: 600 } };
    writeFileSync(file, JSON.stringify(bad));
    const s = new SettingsStore(file, log);
    expect(s.get().role).toBeNull();
    expect(s.get().theme).toBe('system');
    expect(s.get().validating.netuid).toBe(53);
    expect(s.get().validating.pollSeconds).toBe(600);
    const warned = hub.recent().map((l) => l.msg).join('\n');
    expect(warned).toMatch(/"role" had an invalid value/);
    expect(warned).toMatch(/"validating.netuid" had an invalid value/);
  });

  it('moves a corrupt file aside instead of crashing', () => {
    const { dir, file, log } = fresh();
    writeFileSync(file, '{"role": "mi');
    const s = new SettingsStore(file, log);
    expect(s.get()).toEqual(defaultSettings());
    expect(readdirSync(dir).some((f) => f.startsWith('settings.json.corrupt-'))).toBe(true);
  });

  it('refuses settings written by a newer schema rather than guessing', () => {
    const { file, log } = fresh();
    writeFileSync(file, JSON.stringify({ ...defaultSettings(), schemaVersion: 99 }));
    expect(() => new SettingsStore(file, log)).toThrow(/newer engy panel/);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).schemaVersion).toBe(99);
  });
});
