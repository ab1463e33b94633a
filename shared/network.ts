// The network's facts (PROTOCOL 8-9): the one home of the subnet id, the pinned master hotkey, the
// public endpoints and the model the subnet serves. Engine, shells and renderer import them from here;
// a second literal anywhere else is a bug (the master hotkey decides whose signatures a validator trusts).

/** engy is subnet 53 on finney. */
export const SUBNET_NETUID = 53;

/** The master hotkey whose signed epochs a validator accepts. Overridden only together with the provider. */
export const PINNED_MASTER_HOTKEY = '5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ';
/** SubnetOwnerHotkey(53), where a standby burn pays when the chain does not say: the owner runs the master. */
export const SUBNET_OWNER_HOTKEY = PINNED_MASTER_HOTKEY;

/** Host of the provider (the signed epochs, and where miner keys are issued), for sentences shown to users. */
export const PROVIDER_HOST = 'provider.engy.ai';
export const DEFAULT_PROVIDER_URL = `https://${PROVIDER_HOST}`;
/** The gateway miners connect to. */
export const DEFAULT_GATEWAY_URL = 'wss://api.engy.ai/gw';

/** Public chain endpoints by network (CHAIN.md 4). */
export const CHAIN_ENDPOINTS = {
  finney: 'wss://entrypoint-finney.opentensor.ai:443',
  test: 'wss://test.finney.opentensor.ai:443',
  local: 'ws://127.0.0.1:9944',
} as const;
export const DEFAULT_CHAIN_URL = CHAIN_ENDPOINTS.finney;

/** The model the subnet serves today (the catalog in resources/ lists its details). */
export const DEFAULT_MODEL_ID = 'qwen3.6-35b-a3b';

/**
 * The public τ price source: CoinGecko's simple-price API (no key, rate-limited, so the engine caches and backs
 * off). Only prices come from it; the simulated network serves the same path from its own double.
 */
export const DEFAULT_PRICE_URL = 'https://api.coingecko.com';
export const PRICE_PATH = '/api/v3/simple/price';
/** The coin's id at that source. */
export const PRICE_COIN_ID = 'bittensor';
