import { describe, expect, it } from 'vitest';
import { formatTao, parseTao } from '../../../shared/wallet.ts';
import { registrationSentence } from '../../../electron/engine/wallet/registration-errors.ts';

describe('TAO amounts', () => {
  it('formats rao as TAO without float rounding', () => {
    expect(formatTao(1_000_000_000n)).toBe('1 τ');
    expect(formatTao('123456789012')).toBe('123.456789012 τ');
    expect(formatTao(500_000_000n)).toBe('0.5 τ');
    expect(formatTao(1n)).toBe('0.000000001 τ');
    expect(formatTao(0n)).toBe('0 τ');
  });

  it('parses what a user types as a cap, and refuses the rest', () => {
    expect(parseTao('1.5')).toBe(1_500_000_000n);
    expect(parseTao(' 2 ')).toBe(2_000_000_000n);
    expect(parseTao('0.000000001')).toBe(1n);
    for (const bad of ['', '-1', '1e9', '0.0000000001', 'abc', '1,5']) expect(() => parseTao(bad)).toThrow(/not an amount of TAO/);
  });
});

describe('registration sentences', () => {
  const ctx = { netuid: 53, hotkey: '5Hot', coldkey: '5Cold', costRao: 2_000_000_000n, capRao: 1_000_000_000n, balanceRao: 10n, uid: null };
  it('names the fix for each chain refusal', () => {
    expect(registrationSentence('NonAssociatedColdKey', ctx)).toMatch(/belongs to another coldkey/);
    expect(registrationSentence('NoNeuronIdAvailable', ctx)).toMatch(/full/);
    expect(registrationSentence('SubNetRegistrationDisabled', ctx)).toMatch(/does not accept registrations/);
    expect(registrationSentence('SomethingNew', ctx)).toBe('The chain refused the registration (SomethingNew): check the wallet and the network, then try again.');
  });
});
