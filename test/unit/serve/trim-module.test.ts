import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIT_RID_PREFIX, formatTrimArmedLine, formatTrimInertLine, parseTrimLogLine, SUPPORTED_SGLANG_VERSIONS, trimModuleDir } from '../../../electron/engine/serve/trim-module.ts';

describe('trim module helpers', () => {
  it('parses the armed and inert lines, with a log prefix', () => {
    expect(parseTrimLogLine(`2026-12-02T11:00:00+0000 ${formatTrimArmedLine('0.5.12.post1')}`)).toEqual({ armed: true, sglangVersion: '0.5.12.post1' });
    expect(parseTrimLogLine(formatTrimInertLine('0.5.15.post1', 'version not in the supported list 0.5.12.post1'))).toEqual({
      armed: false,
      sglangVersion: '0.5.15.post1',
      reason: 'version not in the supported list 0.5.12.post1',
    });
  });

  it('parses the upstream hook banner too, and ignores other lines', () => {
    expect(parseTrimLogLine('[engy] hidden-states trim armed (skip_prefill, only_last_hidden)')).toEqual({ armed: true, sglangVersion: 'unknown' });
    expect(parseTrimLogLine("[engy] hidden-states trim not armed: AttributeError('x')")).toEqual({ armed: false, sglangVersion: 'unknown', reason: "AttributeError('x')" });
    expect(parseTrimLogLine('[2026-12-02 11:00:00] The server is fired up and ready to roll!')).toBeNull();
  });

  it('finds resources/python and agrees with the Python module on versions and line text', () => {
    const dir = trimModuleDir();
    expect(existsSync(join(dir, 'sitecustomize.py'))).toBe(true);
    const versions = readFileSync(join(dir, 'engy_trim', 'versions.py'), 'utf8');
    const tuple = /SUPPORTED_SGLANG_VERSIONS = \(([^)]*)\)/.exec(versions)?.[1] ?? '';
    expect([...tuple.matchAll(/"([^"]+)"/g)].map((m) => m[1])).toEqual([...SUPPORTED_SGLANG_VERSIONS]);
    const logic = readFileSync(join(dir, 'engy_trim', 'logic.py'), 'utf8');
    expect(logic).toContain('"[engy] hidden-states trim armed on sglang {version} "');
    expect(logic).toContain('"(prefill keeps its last row; hidden states ride only the finishing step)"');
    expect(formatTrimArmedLine('{version}')).toBe('[engy] hidden-states trim armed on sglang {version} (prefill keeps its last row; hidden states ride only the finishing step)');
    expect(logic).toContain(`INERT_TEMPLATE = "${formatTrimInertLine('{version}', '{reason}')}"`);
    expect(logic).toContain(`AUDIT_RID_PREFIX = "${AUDIT_RID_PREFIX}"`);
  });

  it('prefers a packaged resources path and fails loudly when nothing is there', () => {
    expect(trimModuleDir({ resourcesPath: join(process.cwd(), 'resources') })).toBe(join(process.cwd(), 'resources', 'python'));
    expect(() => trimModuleDir({ from: '/' })).toThrow(/trim module was not found/);
  });
});
