// The dev chain as its own process (how the validator/wallet/demo runs use it): seeded from a JSON file,
// it prints its URL; the real client connects, reads and lands weights over the socket.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keySignerFromPair } from '../../../electron/engine/chain/key-signer.ts';
import { PolkadotChainClient } from '../../../electron/engine/chain/polkadot-chain-client.ts';
import { devKeys, sn53Seed, SN53, type DevKeys } from '../../doubles/dev-chain/sn53-seed.ts';

const MAIN = fileURLToPath(new URL('../../doubles/dev-chain/main.ts', import.meta.url));
let child: ChildProcess;
let dir: string;
let url: string;
let keys: DevKeys;

beforeAll(async () => {
  keys = await devKeys();
  dir = mkdtempSync(join(tmpdir(), 'dev-chain-'));
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(sn53Seed(keys)));
  child = spawn(process.execPath, [MAIN, '--port', '0', '--block-ms', '50', '--start-blocks', '2', '--seed', seedFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /dev-chain listening (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => reject(new Error(`dev chain exited early (${code}): ${err}`)));
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

it('serves the seeded subnet and accepts set_weights from the client', async () => {
  expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  const client = await PolkadotChainClient.connect({ endpoint: url, connectTimeoutMs: 15_000, submitTimeoutMs: 15_000 });
  try {
    const facts = await client.subnetFacts(SN53);
    expect(facts.ownerHotkey).toBe(keys.owner.address);
    expect(facts.subnetworkN).toBe(5);
    const out = await client.setWeights(keySignerFromPair(keys.validator), SN53, [0], [65535], 0n);
    expect(out).toMatchObject({ ok: true });
    if (!out.ok) return;
    expect((await client.neuron(SN53, keys.validator.address)).lastUpdate).toBe(out.blockNumber);
  } finally {
    await client.close();
  }
});

it('stops on SIGTERM', async () => {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});
