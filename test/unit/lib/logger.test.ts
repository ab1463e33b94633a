import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogLevel } from '../../../shared/logs.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'engy-log-'));
const mode = (p: string) => statSync(p).mode & 0o777;

describe('log hub file', () => {
  it('creates the folder 0700 and the file 0600, tightening ones that existed looser', () => {
    const root = tmp();
    const fresh = join(root, 'fresh');
    const hub = new LogHub({ dir: fresh });
    hub.write('t', 'info', 'hello');
    hub.close();
    expect(mode(fresh)).toBe(0o700);
    expect(mode(join(fresh, 'engy-panel.log'))).toBe(0o600);

    const loose = join(root, 'loose');
    mkdirSync(loose, { mode: 0o755 });
    chmodSync(loose, 0o755);
    writeFileSync(join(loose, 'engy-panel.log'), 'old\n', { mode: 0o644 });
    chmodSync(join(loose, 'engy-panel.log'), 0o644);
    const again = new LogHub({ dir: loose });
    again.write('t', 'info', 'x');
    again.close();
    expect(mode(loose)).toBe(0o700);
    expect(mode(join(loose, 'engy-panel.log'))).toBe(0o600);
    expect(readFileSync(join(loose, 'engy-panel.log'), 'utf8')).toMatch(/^old\n.*INFO {2}\[t\] x\n$/);
  });

  it('writes lines in order once per batch, and rotates by its own byte count keeping the newest files', () => {
    const dir = tmp();
    const hub = new LogHub({ dir, maxFileBytes: 200, keepFiles: 2 });
    for (let i = 0; i < 40; i++) {
      hub.write('src', 'info', `line ${String(i).padStart(2, '0')} ${'x'.repeat(20)}`);
      if (i % 4 === 3) hub.flush();
    }
    hub.close();
    const files = readdirSync(dir).sort();
    expect(files).toEqual(['engy-panel.log', 'engy-panel.log.1', 'engy-panel.log.2']);
    const all = ['engy-panel.log.2', 'engy-panel.log.1', 'engy-panel.log'].map((f) => readFileSync(join(dir, f), 'utf8')).join('');
    const nums = [...all.matchAll(/line (\d\d)/g)].map((m) => Number(m[1]));
    // The newest lines survive, in order, with nothing lost between the kept files.
    expect(nums.at(-1)).toBe(39);
    expect(nums).toEqual(Array.from({ length: nums.length }, (_, i) => 40 - nums.length + i));
    // No kept file grew past the limit by more than one batch.
    for (const f of files) expect(statSync(join(dir, f)).size).toBeLessThan(200 + 4 * 80);
  });

  it('rotates a file left over-size by an earlier run before writing to it', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'engy-panel.log'), 'y'.repeat(500));
    const hub = new LogHub({ dir, maxFileBytes: 100 });
    hub.write('s', 'warn', 'new run');
    hub.close();
    expect(readFileSync(join(dir, 'engy-panel.log.1'), 'utf8')).toBe('y'.repeat(500));
    expect(readFileSync(join(dir, 'engy-panel.log'), 'utf8')).toMatch(/WARN {2}\[s\] new run\n$/);
  });

  it('survives a log path it cannot write (the ring still has the line)', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'engy-panel.log'));
    const hub = new LogHub({ dir });
    hub.write('s', 'error', 'still here');
    expect(() => hub.close()).not.toThrow();
    expect(hub.recent().map((l) => l.msg)).toEqual(['still here']);
  });
});

describe('log hub level', () => {
  it('changes its level at runtime and ignores a level it does not know', () => {
    const hub = new LogHub({ minLevel: 'info' });
    hub.write('s', 'debug', 'dropped');
    hub.setMinLevel('debug');
    hub.write('s', 'debug', 'kept');
    hub.setMinLevel('error');
    hub.write('s', 'warn', 'dropped too');
    hub.setMinLevel('__proto__' as LogLevel);
    hub.setMinLevel('loud' as LogLevel);
    expect(hub.minLevel).toBe('error');
    hub.write('s', 'error', 'kept too');
    expect(hub.recent().map((l) => l.msg)).toEqual(['kept', 'kept too']);
  });
});

describe('log forging', () => {
  it('escapes control characters in every message, so a peer string never prints as its own line', () => {
    const dir = tmp();
    const echoed: string[] = [];
    const hub = new LogHub({ dir, echo: (l) => echoed.push(l) });
    const deny = 'worker refused\n2026-12-03T09:00:00.000Z ERROR [miner] FORGED\r\u001b[2Kcleared\u0000\u0085\u2028end';
    hub.logger('miner').warn(`gateway denied: ${deny}`);
    hub.close();
    expect(echoed).toHaveLength(1);
    expect(echoed[0]).toContain('gateway denied: worker refused\\n2026-12-03T09:00:00.000Z ERROR [miner] FORGED\\r\\u001b[2Kcleared\\u0000\\u0085\\u2028end');
    const fileLines = readFileSync(join(dir, 'engy-panel.log'), 'utf8').trimEnd().split('\n');
    expect(fileLines).toHaveLength(1);
    // eslint-disable-next-line no-control-regex -- no control character may reach the file
    expect(fileLines[0]).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/);
  });
});
