// `engy-panel headless --print-token|--print-access`: what a fleet panel reads over SSH, against a real
// headless child (the port it picked with --port 0, the token it kept) and against hostile data dirs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHeadlessChild, type HeadlessChild } from '../../helpers/headless-process.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';
import { CONTRACT_VERSION } from '../../../shared/api.ts';
import { ENDPOINT_FILE } from '../../../electron/transport/endpoint-file.ts';

const bin = join(import.meta.dirname, '..', '..', '..', 'bin', 'engy-panel.mjs');
const temp = tempDirs('engy-print-access-');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, 'headless', ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ENGY_FROM_SOURCE: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function uiDir(): string {
  const d = temp();
  writeFileSync(join(d, 'index.html'), '<!doctype html><title>t</title>');
  return d;
}

describe('headless --print-access', () => {
  let child: HeadlessChild | undefined;
  afterEach(async () => {
    await child?.stop();
    child = undefined;
  });

  it("prints the running engine's token and the port it picked, then running:false once it stopped", async () => {
    const dataDir = temp();
    child = await startHeadlessChild({ ENGY_RENDERER_DIR: uiDir() }, [], dataDir, 120_000);
    const port = Number(new URL(child.url).port);
    const access = cli('--print-access', '--data-dir', dataDir);
    expect(access.code).toBe(0);
    expect(JSON.parse(access.out)).toMatchObject({ token: child.token, port, running: true, contract: CONTRACT_VERSION });
    expect(cli('--print-token', '--data-dir', dataDir).out).toBe(`${child.token}\n`);
    await child.stop();
    child = undefined;
    expect(JSON.parse(cli('--print-access', '--data-dir', dataDir).out)).toMatchObject({ running: false, port: null });
  }, 200_000);

  it('exits 3 with a sentence when the engine never ran on that data dir, and makes no token', () => {
    const dataDir = temp();
    const r = cli('--print-token', '--data-dir', dataDir);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/No headless token .* start the engine once/);
    expect(r.out).toBe('');
  });

  it.each([
    ['garbage', 'not json{'],
    ['an array', '[1,2]'],
    ['__proto__ keys', '{"__proto__":{"port":1},"port":7853,"pid":2147483000,"version":"1","contract":1}'],
    ['a port out of range', `{"port":70000,"pid":${process.pid},"version":"1","contract":1}`],
    ['oversized', `{"port":7853,"pid":${process.pid},"version":"${'x'.repeat(100_000)}","contract":1}`],
    ['a dead pid', '{"port":7853,"pid":2147483000,"version":"1","contract":1}'],
  ])('a hostile endpoint file (%s) reads as not running', (_, text) => {
    const dataDir = temp();
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'headless-token'), 'A'.repeat(32) + '\n');
    writeFileSync(join(dataDir, ENDPOINT_FILE), text);
    const r = cli('--print-access', '--data-dir', dataDir);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ token: 'A'.repeat(32), running: false, port: null });
  });
});
