// Where the app connects (PROTOCOL 9, CHAIN.md 4). One preset per network, plus a custom URL.

import { CHAIN_ENDPOINTS } from '../../../shared/network.ts';

export type ChainNetwork = keyof typeof CHAIN_ENDPOINTS | 'custom';

export function isChainNetwork(v: unknown): v is ChainNetwork {
  return v === 'custom' || (typeof v === 'string' && Object.hasOwn(CHAIN_ENDPOINTS, v));
}

/** A websocket URL the provider can dial, or null (http(s) has no subscriptions, so no inclusion status). */
export function normalizeEndpointUrl(raw: string): string | null {
  try {
    const u = new URL(raw.trim());
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:') return null;
    if (u.hostname.length === 0) return null;
    return u.toString().replace(/\/$/, '');
  } catch {
    return null;
  }
}

/** The URL(s) for a network; custom needs a ws:// or wss:// URL. Throws a RangeError naming the fix. */
export function resolveEndpoint(network: ChainNetwork, customUrl?: string): string {
  if (network !== 'custom') return CHAIN_ENDPOINTS[network];
  const url = customUrl === undefined ? null : normalizeEndpointUrl(customUrl);
  if (!url) throw new RangeError('The custom chain endpoint must be a ws:// or wss:// URL, e.g. ws://127.0.0.1:9944.');
  return url;
}
