import { describe, expect, it } from 'vitest';
import { describeModuleError, describePoolRejection, isPoolRejection, MODULE_ERROR_TEXT } from '../../../electron/engine/chain/chain-errors.ts';

describe('chain error sentences', () => {
  it('maps the pool custom codes of SubtensorTransactionExtension', () => {
    expect(describePoolRejection('1010: Invalid Transaction: Custom error: 6')).toMatchObject({ code: 'Custom:6', message: expect.stringMatching(/too recently/) });
    expect(describePoolRejection('1010: Invalid Transaction: Custom error: 19').message).toMatch(/not registered/);
    expect(describePoolRejection('1010: Invalid Transaction: Custom error: 1').message).toMatch(/stake/);
    expect(describePoolRejection('1010: Invalid Transaction: Custom error: 77')).toMatchObject({ code: 'Custom:77', message: expect.stringMatching(/custom error 77/) });
  });

  it('maps the standard validity errors', () => {
    expect(describePoolRejection('1010: Invalid Transaction: Inability to pay some fees (e.g. account balance too low)')).toMatchObject({ code: 'Payment' });
    expect(describePoolRejection('1010: Invalid Transaction: Transaction has a bad signature')).toMatchObject({ code: 'BadProof' });
    expect(describePoolRejection('1010: Invalid Transaction: Transaction is outdated')).toMatchObject({ code: 'Stale' });
    expect(describePoolRejection('1014: Priority is too low: (1 vs 1)')).toMatchObject({ code: 'Priority' });
    expect(describePoolRejection('something new')).toMatchObject({ code: 'Invalid', message: expect.stringContaining('something new') });
  });

  it('tells pool refusals from transport failures', () => {
    expect(isPoolRejection('1010: Invalid Transaction: Custom error: 6')).toBe(true);
    expect(isPoolRejection('1014: Priority is too low: (1 vs 1)')).toBe(true);
    expect(isPoolRejection('disconnected from ws://127.0.0.1:9944: 1006:: Abnormal Closure')).toBe(false);
    expect(isPoolRejection('WebSocket is not connected')).toBe(false);
  });

  it('has a sentence for every error the validator and registration can meet', () => {
    for (const name of [
      'NeuronNoValidatorPermit',
      'SettingWeightsTooFast',
      'HotKeyNotRegisteredInSubNet',
      'NotEnoughStakeToSetWeights',
      'CommitRevealEnabled',
      'NotEnoughBalanceToStake',
      'HotKeyAlreadyRegisteredInSubNet',
      'RegistrationPriceLimitExceeded',
      'IncorrectWeightVersionKey',
    ]) {
      const t = describeModuleError(name);
      expect(t.code).toBe(name);
      expect(t.message).toBe(MODULE_ERROR_TEXT[name]);
      expect(t.message.length).toBeGreaterThan(30);
    }
  });

  it('falls back to the name and the runtime docs for unknown errors', () => {
    expect(describeModuleError('BrandNewError', 'The thing is wrong.')).toEqual({
      code: 'BrandNewError',
      message: 'The chain refused the transaction with BrandNewError (The thing is wrong.). Check the subnet settings, then try again.',
    });
  });
});
