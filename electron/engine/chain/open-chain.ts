// The one place the @polkadot/api chain client is imported, lazily: commands and shells that never
// talk to the chain (toploc, doctor, the renderer server) never load its ~10 MB of modules.
import type { Logger } from '../lib/logger.ts';
import type { PolkadotChainClient } from './polkadot-chain-client.ts';

export async function openChainClient(endpoint: string, logger?: Logger): Promise<PolkadotChainClient> {
  const { PolkadotChainClient } = await import('./polkadot-chain-client.ts');
  return PolkadotChainClient.connect({ endpoint, ...(logger ? { logger } : {}) });
}
