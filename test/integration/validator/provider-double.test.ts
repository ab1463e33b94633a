// The provider double itself, as other suites and the demo use it: a child process printing its URL,
// the epoch routes, the control routes; and the validator's fetch against its slow and reset modes.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchJsonCapped } from '../../../electron/engine/validator/payload-fetch.ts';
import { verifyPayload } from '../../../electron/engine/validator/payload-verify.ts';
import { startProviderDouble, type ProviderDouble } from '../../doubles/provider.ts';

const script = fileURLToPath(new URL('../../doubles/provider.ts', import.meta.url));
let p: ProviderDouble | null = null;
afterEach(async () => {
  await p?.close();
  p = null;
});

describe('provider double', () => {
  it('runs as a child process, prints its URL and serves signed epochs that verify', async () => {
    const child = spawn(process.execPath, [script, '--port', '0', '--epoch', '3', '--weights', '[["5Abc",7]]'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const lines = createInterface({ input: child.stdout! });
      const seen: Record<string, string> = {};
      for await (const line of lines) {
        const [k, v] = line.split('=');
        if (k && v) seen[k] = v;
        if (seen.PROVIDER_URL && seen.MASTER_HOTKEY) break;
      }
      const url = seen.PROVIDER_URL!;
      const latest = await fetchJsonCapped(`${url}/api/subnet/v1/epoch/latest`);
      if (!latest.ok) throw new Error(latest.error.message);
      expect(verifyPayload(latest.value, { masterHotkey: seen.MASTER_HOTKEY!, netuid: 53 })).toMatchObject({ ok: true, epochIndex: 3, weights: [['5Abc', 7]] });
      await fetch(`${url}/__double/epoch`, { method: 'POST', body: JSON.stringify({ epoch_index: 4, weights: [['5Def', 1]] }) });
      expect(await (await fetch(`${url}/api/subnet/v1/epoch/latest`)).json()).toMatchObject({ epoch_index: 4 });
      expect(await (await fetch(`${url}/api/subnet/v1/epoch/3`)).json()).toMatchObject({ epoch_index: 3 });
      expect(await (await fetch(`${url}/api/subnet/v1/epoch/current`)).json()).toMatchObject({ epoch_index: 5 });
      expect((await fetch(`${url}/api/subnet/v1/epoch/99`)).status).toBe(404);
      await fetch(`${url}/__double/mode`, { method: 'POST', body: JSON.stringify({ mode: 'outage-503' }) });
      expect(await fetchJsonCapped(`${url}/api/subnet/v1/epoch/latest`)).toMatchObject({ ok: false, error: { kind: 'http', status: 503 } });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('lets the validator fetch time out on a silent provider and survive a reset connection', async () => {
    p = await startProviderDouble();
    p.publish(1, []);
    p.mode = 'slow';
    expect(await fetchJsonCapped(`${p.url}/api/subnet/v1/epoch/latest`, { timeoutMs: 200 })).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    p.mode = 'reset';
    expect(await fetchJsonCapped(`${p.url}/api/subnet/v1/epoch/latest`, { timeoutMs: 5_000 })).toMatchObject({ ok: false, error: { kind: 'network' } });
    p.mode = 'oversized-chunked';
    expect(await fetchJsonCapped(`${p.url}/api/subnet/v1/epoch/latest`)).toMatchObject({ ok: false, error: { kind: 'too-large' } });
    expect(await fetchJsonCapped(`${p.url}/api/subnet/v1/epoch/latest`, { maxBytes: 10 * 1024 * 1024 })).toMatchObject({ ok: false, error: { kind: 'not-json' } });
    p.mode = 'ok';
    expect(await fetchJsonCapped(`${p.url}/api/subnet/v1/epoch/latest`)).toMatchObject({ ok: true, value: { epoch_index: 1 } });
  });
});
