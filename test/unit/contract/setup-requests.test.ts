// The setup methods' requests are checked where they enter the engine: hostile shapes are refused
// with a sentence, and no refusal echoes a password or mnemonic back.
import { describe, expect, it } from 'vitest';
import { validateRequest } from '../../../electron/contract/validate.ts';

const ADDR = '5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX';

describe('setup requests', () => {
  it('accepts the well-formed ones', () => {
    expect(validateRequest('wallet.createColdkey', { wallet: 'default', password: 'pw' }).ok).toBe(true);
    expect(validateRequest('wallet.importColdkey', { wallet: 'default', secret: 'a b c d e f g h i j k l', password: 'pw' }).ok).toBe(true);
    expect(validateRequest('wallet.setColdkeyAddress', { wallet: 'default', address: ADDR }).ok).toBe(true);
    expect(validateRequest('wallet.registerWithBrowser', { mode: 'register-limit', limitTao: '1.5' }).ok).toBe(true);
    expect(validateRequest('wallet.registerWithBrowser', { mode: 'register-limit', limitTao: '1.5', coldkey: ADDR }).ok).toBe(true);
    // Answers to an open browser-wallet request, from a UI that signs in place: exactly one of three.
    expect(validateRequest('wallet.answerSigning', { account: ADDR }).ok).toBe(true);
    expect(validateRequest('wallet.answerSigning', { signature: `0x01${'ab'.repeat(64)}` }).ok).toBe(true);
    expect(validateRequest('wallet.answerSigning', { decline: 'Cancelled' }).ok).toBe(true);
    expect(validateRequest('serve.detectRuntimes', { refresh: true }).ok).toBe(true);
    expect(validateRequest('checkpoint.checkFolder', { dir: null }).ok).toBe(true);
    for (const m of ['wallet.verifyMinerKey', 'hardware.alternatives', 'serve.installSglang', 'serve.cancelSglangInstall', 'diagnostics.download'] as const)
      expect(validateRequest(m, null).ok).toBe(true);
  });

  it('refuses hostile ones without echoing secrets', () => {
    const secret = 'zoo '.repeat(300);
    const bad: [Parameters<typeof validateRequest>[0], unknown][] = [
      ['wallet.createColdkey', { wallet: '../x', password: 'pw' }],
      ['wallet.createColdkey', { wallet: 'w', password: 'x'.repeat(5000) }],
      ['wallet.createColdkey', { wallet: 'w', password: 42 }],
      ['wallet.createColdkey', { wallet: 'w' }],
      ['wallet.createColdkey', JSON.parse('{"wallet":"w","password":"pw","__proto__":{"x":1}}')],
      ['wallet.createColdkey', { wallet: 'w', password: 'pw', constructor: 'x' }],
      ['wallet.importColdkey', { wallet: 'w', secret: 'short', password: 'pw' }],
      ['wallet.importColdkey', { wallet: 'w', secret, password: 'pw' }],
      ['wallet.setColdkeyAddress', { wallet: 'w', address: 'not base58 0OIl' }],
      ['wallet.setColdkeyAddress', { wallet: 'w', address: ADDR.repeat(50) }],
      ['wallet.registerWithBrowser', { mode: 'register-limit', limitTao: '1', coldkey: ['x'] }],
      ['wallet.registerWithBrowser', { mode: 'register-limit' }],
      ['wallet.answerSigning', {}],
      ['wallet.answerSigning', null],
      ['wallet.answerSigning', { account: ADDR, signature: `0x01${'ab'.repeat(64)}` }],
      ['wallet.answerSigning', { account: 'not base58 0OIl' }],
      ['wallet.answerSigning', { signature: 'ab'.repeat(65) }],
      ['wallet.answerSigning', { signature: `0x${'ab'.repeat(500)}` }],
      ['wallet.answerSigning', { decline: secret }],
      ['wallet.answerSigning', { decline: 42 }],
      ['wallet.answerSigning', JSON.parse(`{"__proto__":{"account":"${ADDR}"}}`)],
      ['wallet.answerSigning', [ADDR]],
      ['serve.detectRuntimes', { refresh: 'yes' }],
      ['serve.installSglang', { python: '/bin/sh' }],
      ['checkpoint.checkFolder', { dir: 'x'.repeat(5000) }],
      ['checkpoint.checkFolder', {}],
      ['diagnostics.download', []],
    ];
    for (const [m, req] of bad) {
      const r = validateRequest(m, req);
      expect(r.ok, `${m} ${JSON.stringify(req).slice(0, 60)}`).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('bad-request');
        expect(r.error.message).not.toContain('zoo zoo');
        expect(r.error.message).not.toContain('xxxxxxxx');
      }
    }
  });
});
