import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeAddress, sr25519Verify } from '@polkadot/util-crypto';
import { loadHotkeySigner } from '../../../electron/engine/validator/hotkey-file.ts';

// btwallet's own keyfile test vector (CHAIN.md 1.2).
const PHRASE = 'old leopard transfer rib spatial phone calm indicate online fire caution review';
const SEED = '0xda3cf5b1e9144931a0f0db65664aab662673b099415a7f8121b7245fb0be4143';
const SS58 = '5HDvhV6WDCjCKyrXqGQSDYqQAzkzabNhctmiDYEqgBC66BsX';

function wallet(content: string): string {
  const root = mkdtempSync(join(tmpdir(), 'engy-wallets-'));
  mkdirSync(join(root, 'w', 'hotkeys'), { recursive: true });
  writeFileSync(join(root, 'w', 'hotkeys', 'h'), content);
  return root;
}

describe('btcli hotkey file', () => {
  it('loads the phrase, or the seed, into a signer for the right address', () => {
    for (const file of [{ secretPhrase: PHRASE, ss58Address: SS58 }, { secretSeed: SEED, ss58Address: SS58 }]) {
      const r = loadHotkeySigner(wallet(JSON.stringify(file)), 'w', 'h');
      if (!r.ok) throw new Error(r.message);
      expect(r.signer.address).toBe(SS58);
      const sig = r.signer.sign(Buffer.from('hello'));
      expect(sr25519Verify(Buffer.from('hello'), sig, decodeAddress(SS58))).toBe(true);
      expect(JSON.stringify(r)).not.toContain('leopard');
    }
  });

  it('explains a missing, encrypted or empty hotkey without echoing secrets', () => {
    const missing = loadHotkeySigner(wallet('{}'), 'w', 'other');
    expect(missing).toMatchObject({ ok: false });
    expect(loadHotkeySigner(wallet('$NACLxxxx'), 'w', 'h')).toMatchObject({ ok: false, message: expect.stringContaining('encrypted') });
    expect(loadHotkeySigner(wallet(JSON.stringify({ ss58Address: SS58 })), 'w', 'h')).toMatchObject({ ok: false });
    const wrong = loadHotkeySigner(wallet(JSON.stringify({ secretPhrase: PHRASE, ss58Address: '5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ' })), 'w', 'h');
    expect(wrong.ok).toBe(false);
    expect(JSON.stringify(wrong)).not.toContain('leopard');
    expect(loadHotkeySigner(wallet('{}'), '../w', 'h')).toMatchObject({ ok: false });
  });
});
