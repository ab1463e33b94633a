import { describe, expect, it } from 'vitest';
import { isChainNetwork, normalizeEndpointUrl, resolveEndpoint } from '../../../electron/engine/chain/endpoints.ts';
import { CHAIN_ENDPOINTS } from '../../../shared/network.ts';

describe('chain endpoints', () => {
  it('resolves the presets', () => {
    expect(resolveEndpoint('finney')).toBe('wss://entrypoint-finney.opentensor.ai:443');
    expect(resolveEndpoint('test')).toBe('wss://test.finney.opentensor.ai:443');
    expect(resolveEndpoint('local')).toBe(CHAIN_ENDPOINTS.local);
  });

  it('accepts only websocket custom URLs', () => {
    expect(resolveEndpoint('custom', ' ws://10.0.0.2:9944/ ')).toBe('ws://10.0.0.2:9944');
    expect(() => resolveEndpoint('custom', 'https://example.org')).toThrow(/ws:\/\/ or wss:\/\//);
    expect(() => resolveEndpoint('custom')).toThrow(RangeError);
    expect(normalizeEndpointUrl('not a url')).toBeNull();
  });

  it('knows its networks', () => {
    expect(isChainNetwork('finney')).toBe(true);
    expect(isChainNetwork('custom')).toBe(true);
    expect(isChainNetwork('toString')).toBe(false);
  });
});
