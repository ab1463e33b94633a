// The diagnostics file for support: credentials inside URLs never reach it (user:password@, ?apikey=),
// and the folder keeps only the newest files however often diagnostics are downloaded.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTICS_KEPT, scrubUrlSecrets, writeDiagnostics } from '../../../electron/engine/lib/diagnostics.ts';
import { LogHub } from '../../../electron/engine/lib/logger.ts';

describe('diagnostics', () => {
  it('removes credentials inside URLs, in the sections and the logs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engy-diag-'));
    const logs = new LogHub();
    logs.logger('serve').warn('cannot reach http://user:PASS1@10.0.0.2:30000/v1 (refused); provider https://api.example/v1?apikey=KEY2&model=x');
    const { path } = writeDiagnostics({
      dir,
      logs,
      versions: { app: '0.0.0' },
      sections: { settings: { providerUrl: 'https://bob:PASS3@provider.example/x?token=TOK4&access_token=TOK5#f', chain: 'wss://rpc.example?api_key=KEY6', plain: 'https://hooks.example/x?page=2' } },
    });
    const text = readFileSync(path, 'utf8');
    for (const secret of ['PASS1', 'KEY2', 'PASS3', 'TOK4', 'TOK5', 'KEY6']) expect(text).not.toContain(secret);
    expect(text).toContain('http://«redacted»@10.0.0.2:30000/v1');
    expect(text).toContain('https://api.example/v1?apikey=«redacted»&model=x');
    expect(text).toContain('https://hooks.example/x?page=2');
    expect(scrubUrlSecrets('no url here: user:pass@host')).toBe('no url here: user:pass@host');
  });

  it(`keeps only the newest ${DIAGNOSTICS_KEPT} files, and leaves other files alone`, () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'engy-diag-')), 'diagnostics');
    mkdirSync(dir);
    for (let i = 0; i < 30; i++) writeFileSync(join(dir, `engy-diagnostics-2020-01-01T00-00-${String(i).padStart(2, '0')}-000Z.json`), '{}');
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const { path } = writeDiagnostics({ dir, logs: new LogHub(), versions: {}, sections: {} });
    const left = readdirSync(dir).sort();
    expect(left).toContain('notes.txt');
    expect(left.filter((f) => f.startsWith('engy-diagnostics-'))).toHaveLength(DIAGNOSTICS_KEPT);
    expect(left).toContain(path.split('/').pop());
    expect(left).toContain('engy-diagnostics-2020-01-01T00-00-29-000Z.json');
    expect(left).not.toContain('engy-diagnostics-2020-01-01T00-00-00-000Z.json');
  });
});
