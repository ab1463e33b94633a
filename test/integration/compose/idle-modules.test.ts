// An idle headless engine loads only what an idle engine needs (issue 30, item 4): no polkadot-js
// (chain client, keys), no tokenizer or jinja engine, no miner or validator, no proof worker thread,
// until something uses them. Watched from outside by a preload recording every module the real
// `engy-panel headless` process loads (test/helpers/module-probe.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startHeadlessChild, type HeadlessChild } from '../../helpers/headless-process.ts';
import type { ModuleProbeReport } from '../../helpers/module-probe.ts';

const PROBE = pathToFileURL(join(import.meta.dirname, '..', '..', 'helpers', 'module-probe.ts')).href;

/** What an idle engine must not have loaded, and why each is heavy. */
const NOT_WHILE_IDLE: [string, RegExp][] = [
  ['polkadot-js (chain client, metadata, keys)', /node_modules\/@polkadot\//],
  ['the tokenizer', /node_modules\/tokenizers\//],
  ['the jinja engine', /node_modules\/@huggingface\/jinja\//],
  ['the chain client', /electron\/engine\/chain\/polkadot-chain-client\.ts$/],
  ['the miner', /electron\/engine\/miner\/miner-service\.ts$/],
  ['the validator', /electron\/engine\/validator\/validator-service\.ts$/],
];

describe('an idle headless engine', () => {
  let engine: HeadlessChild;
  let dir: string;
  let out: string;

  /** Asks the probe in the engine for its report and waits for the new one. */
  async function report(): Promise<ModuleProbeReport> {
    rmSync(out, { force: true });
    engine.child.kill('SIGUSR2');
    await expect.poll(() => existsSync(out), { timeout: 60_000, interval: 100 }).toBe(true);
    return JSON.parse(readFileSync(out, 'utf8')) as ModuleProbeReport;
  }

  async function invoke(method: string, req: unknown): Promise<{ ok?: boolean; value?: unknown; error?: unknown }> {
    const ws = new WebSocket(`ws://${new URL(engine.origin).host}/ws?token=${engine.token}`);
    ws.on('error', () => undefined);
    try {
      await new Promise((r, j) => (ws.once('open', r), ws.once('unexpected-response', () => j(new Error('upgrade refused')))));
      return await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${method}: no answer in 60 s`)), 60_000);
        ws.on('message', (d: Buffer) => {
          const f = JSON.parse(String(d)) as { kind: string; id?: number; result?: { ok?: boolean; value?: unknown; error?: unknown } };
          if (f.kind !== 'result' || f.id !== 1) return;
          clearTimeout(timer);
          resolve(f.result ?? {});
        });
        ws.send(JSON.stringify({ kind: 'invoke', id: 1, method, req }));
      });
    } finally {
      ws.close();
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engy-idle-'));
    out = join(dir, 'probe.json');
    // HOME in the temp dir: the default wallet path (~/.bittensor/wallets) is the test's own.
    engine = await startHeadlessChild({ ...process.env, HOME: dir, NODE_OPTIONS: `--import=${PROBE}`, ENGY_MODULE_PROBE_OUT: out }, [], join(dir, 'data'));
  });

  afterAll(async () => {
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has loaded no chain client, tokenizer, jinja, miner or validator, and started no proof worker', { timeout: 120_000 }, async () => {
    const r = await report();
    const urls = r.modules.map((m) => m.url);
    // The probe saw the engine itself load (so an empty list cannot pass).
    expect(urls.some((u) => u.endsWith('electron/compose.ts'))).toBe(true);
    for (const [what, re] of NOT_WHILE_IDLE) {
      const hit = r.modules.find((m) => re.test(m.url));
      expect(hit, `${what} is loaded by an idle engine (first asked for by ${hit?.parent ?? ''})`).toBeUndefined();
    }
    expect(existsSync(`${out}.workers`)).toBe(false);
  });

  it('loads polkadot-js when a key is first made, and the key is right', { timeout: 120_000 }, async () => {
    const made = await invoke('wallet.createHotkey', { wallet: 'idle', hotkey: 'first' });
    expect(made.ok, JSON.stringify(made)).toBe(true);
    const address = (made.value as { ss58Address: string }).ss58Address;
    expect(address).toMatch(/^5[1-9A-HJ-NP-Za-km-z]{47}$/);
    const r = await report();
    expect(r.modules.some((m) => /node_modules\/@polkadot\/util-crypto\//.test(m.url))).toBe(true);
    // The listing (addresses from the light SS58 encoder) names the same address polkadot-js derived.
    const listed = await invoke('wallet.list', null);
    expect(JSON.stringify(listed.value)).toContain(address);
  });
});
