// `engy-panel validate --healthcheck`: exit 0 while the loop's heartbeat file is fresh, 1 with the reason.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../electron/cli/validate.ts';
import { recordingIo } from '../../helpers/cli-io.ts';

async function check(args: string[], env: NodeJS.ProcessEnv = {}) {
  const io = recordingIo('', env);
  return { code: await run(['--healthcheck', ...args], io), out: io.out, err: io.err };
}

describe('validate --healthcheck', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engy-health-'));
  const hb = join(dir, 'heartbeat.json');
  const now = () => Date.now() / 1000;

  it('is healthy while the last tick is younger than max(3 x poll, 15 min)', async () => {
    writeFileSync(hb, JSON.stringify({ ts: now() - 60 }));
    const r = await check(['--heartbeat-file', hb]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^ok \(last tick 6\d s ago\)/);
    // The same command line as the daemon's, plus the flag.
    expect((await check(['--wallet', 'w', '--hotkey', 'h', '--poll-s', '300', '--heartbeat-file', hb])).code).toBe(0);
  });

  it('is unhealthy, with the reason, when stale, missing or not a heartbeat', async () => {
    writeFileSync(hb, JSON.stringify({ ts: now() - 1000 }));
    expect(await check(['--heartbeat-file', hb])).toMatchObject({ code: 1, err: expect.stringMatching(/stale heartbeat: last completed tick 1000 s ago > 900 s/) });
    expect((await check(['--heartbeat-file', hb, '--poll-s', '600'])).code).toBe(0);
    const cases: [string, RegExp][] = [
      ['not json', /is not JSON/],
      ['{"ts": "yesterday"}', /no numeric "ts"/],
      ['{"__proto__": {"ts": 1}}', /no numeric "ts"/],
      ['[1]', /no numeric "ts"/],
      [' '.repeat(10_000), /is not a heartbeat/],
    ];
    for (const [text, why] of cases) {
      writeFileSync(hb, text);
      const r = await check(['--heartbeat-file', hb]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(why);
    }
    expect((await check(['--heartbeat-file', join(dir, 'none.json')])).err).toMatch(/no heartbeat yet/);
    expect((await check(['--heartbeat-file', dir])).err).toMatch(/cannot read the heartbeat file/);
  });

  it('finds the file beside the state file, from flags or the ENGY_SN53_* environment; refuses bad flags', async () => {
    const data = mkdtempSync(join(tmpdir(), 'engy-health-data-'));
    mkdirSync(join(data, 'validator'));
    writeFileSync(join(data, 'validator', 'heartbeat.json'), JSON.stringify({ ts: now() }));
    expect((await check(['--data-dir', data])).code).toBe(0);
    expect((await check([], { ENGY_PANEL_DATA_DIR: data })).code).toBe(0);
    expect((await check([], { ENGY_SN53_HEARTBEAT_FILE: join(data, 'validator', 'heartbeat.json') })).code).toBe(0);
    expect(await check(['--bogus'])).toMatchObject({ code: 2, err: expect.stringMatching(/Unknown option '--bogus'/) });
    expect(await check(['--poll-s', 'soon', '--data-dir', data])).toMatchObject({ code: 2, err: expect.stringMatching(/poll seconds/) });
  });
});
