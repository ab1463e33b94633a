// ComposeOptions for the two daemon profiles as their commands build them, with doubles where a test
// cannot have the real thing: a miner key file, the tiny checkpoint fixture, an in-memory chain, the dev
// hotkey, a provider that answers 503. Nothing is started: the caller runs and disposes the engine.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MODEL_ID } from '../../shared/network.ts';
import { resolveDaemonConfig } from '../../electron/engine/validator/daemon-config.ts';
import { MemoryChain } from '../doubles/memory-chain.ts';
import { devKey } from '../doubles/provider.ts';
import { CHECKPOINT, KEY } from '../integration/miner/harness.ts';

export function mineOptions(dir: string) {
  const keyFile = join(dir, 'miner.key');
  writeFileSync(keyFile, KEY, { mode: 0o600 });
  return {
    profile: 'mine' as const,
    dataDir: join(dir, 'data'),
    mine: {
      gatewayUrl: 'ws://127.0.0.1:9/gw',
      serveUrls: ['http://127.0.0.1:9'],
      checkpointDir: CHECKPOINT,
      model: DEFAULT_MODEL_ID,
      maxInflight: 8,
      workerName: 'rig-a',
      env: { ENGY_MINER_KEY_FILE: keyFile },
    },
  };
}

export function validateOptions(dir: string, pollS = '60') {
  const r = resolveDaemonConfig({ wallet: 'w', hotkey: 'h', dataDir: join(dir, 'data'), pollS }, {});
  if (!r.ok) throw new Error(r.errors.join('; '));
  const chain = new MemoryChain();
  const down = (async () => new Response('', { status: 503 })) as typeof fetch;
  return { profile: 'validate' as const, dataDir: r.config.dataDir, validate: { config: r.config, env: {}, openChain: () => chain.open(), signer: devKey('//ValidatorHot'), fetch: down } };
}
