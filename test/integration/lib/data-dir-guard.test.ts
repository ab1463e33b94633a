// A data dir that cannot be turned against its user: links planted where the engine writes
// (settings.json, a log file, secrets/) are refused with a sentence and their targets stay untouched;
// a data dir or entry owned by another user is refused; a data dir under /proc is refused at once
// (Node's recursive mkdir spins there forever, deaf to SIGTERM).
import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRuntime } from '../../../electron/runtime.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'engy-guard-'));
const mode = (p: string) => statSync(p).mode & 0o777;

function victim(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'engy-victim-')), 'precious');
  writeFileSync(file, 'precious\n', { mode: 0o644 });
  return file;
}

describe('the data dir refuses links and foreign owners', () => {
  it('refuses settings.json, a log file and secrets/ linked elsewhere, and touches no target', async () => {
    const cases: Array<[string, (root: string, target: string) => void, string]> = [
      ['settings.json', (root, t) => symlinkSync(t, dataPaths(root).settings), 'settings.json'],
      ['a log file', (root, t) => (mkdirSync(dataPaths(root).logs, { mode: 0o700 }), symlinkSync(t, join(dataPaths(root).logs, 'engy-panel.log'))), 'logs/engy-panel.log'],
      ['secrets/', (root, t) => symlinkSync(join(t, '..'), dataPaths(root).secrets), 'secrets'],
      ['the database', (root, t) => symlinkSync(t, dataPaths(root).database), 'engy-panel.sqlite'],
    ];
    for (const [label, plant, name] of cases) {
      const root = fresh();
      const target = victim();
      plant(root, target);
      await expect(openRuntime({ dataDir: root }), label).rejects.toThrow(`The data dir cannot be used: ${join(root, name)} is a symbolic link (to `);
      expect(mode(target), label).toBe(0o644);
      expect(readFileSync(target, 'utf8'), label).toBe('precious\n');
    }
  });

  it('says what to do about the link', async () => {
    const root = fresh();
    symlinkSync('/etc/passwd', dataPaths(root).settings);
    await expect(openRuntime({ dataDir: root })).rejects.toThrow(
      `The data dir cannot be used: ${dataPaths(root).settings} is a symbolic link (to /etc/passwd); the engine writes there and would write through it. Replace it with the real file (or remove it), or choose another --data-dir.`,
    );
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a data dir and an entry owned by another user (run as root to chown)', async () => {
    const root = fresh();
    chownSync(root, 4242, 4242);
    await expect(openRuntime({ dataDir: root })).rejects.toThrow(
      `The data dir cannot be used: ${root} belongs to another user (uid 4242) but the engine runs as uid 0. Run the engine as that user, give it the folder (chown -R 0 ${root}), or choose another --data-dir.`,
    );

    const other = fresh();
    writeFileSync(dataPaths(other).settings, '{}');
    chownSync(dataPaths(other).settings, 4242, 4242);
    await expect(openRuntime({ dataDir: other })).rejects.toThrow(`${dataPaths(other).settings} belongs to another user (uid 4242)`);
  });

  it('refuses a data dir under /proc at once and exits, never spinning', { timeout: 60_000 }, async () => {
    const bin = join(import.meta.dirname, '..', '..', '..', 'bin', 'engy-panel.mjs');
    const child = spawn(process.execPath, [bin, 'headless', '--port', '0', '--data-dir', '/proc/1/nope'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ENGY_FROM_SOURCE: '1' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    try {
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      expect(code, out).not.toBe(0);
      expect(code, out).not.toBeNull();
      expect(out).toContain('The data dir cannot be used: the data dir /proc/1/nope does not exist: check the path.');
    } finally {
      clearTimeout(timer);
      child.kill('SIGKILL');
    }
  });
});
