// A key whose show-once words were never confirmed written down (the page reloaded with the dialog open) is
// offered with that said, never with a plain "Use"; the record survives hostile storage; a new key's name
// is never pre-filled with one that exists; addresses have a copy button.
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WalletView } from '../../../shared/api.ts';
import { defaultSettings } from '../../../shared/settings.ts';
import { coldkeyWords, hotkeyWords, markConfirmed, markUnconfirmed, unconfirmedWords } from '../../../renderer/src/features/setup/unconfirmed-words.ts';
import { freeName, HotkeyStep } from '../../../renderer/src/features/setup/wallet-steps.tsx';

function memoryStorage(initial: Record<string, string> = {}) {
  const m = new Map(Object.entries(initial));
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    clear: () => m.clear(),
    key: () => null,
    length: 0,
  };
}

const ADDR = '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty';
const wallet = (hotkeys: string[]): WalletView =>
  ({
    listing: { walletPath: '/w', wallets: [{ name: 'default', coldkeyAddress: null, coldkeyEncryption: 'missing', hotkeys: hotkeys.map((name) => ({ name, ss58Address: ADDR })) }] },
    minerKey: { present: false, masked: null },
    registration: null,
    registrationError: null,
    signingUrl: null,
    minerKeyCheck: null,
  }) as unknown as WalletView;

afterEach(() => vi.unstubAllGlobals());

describe('unconfirmed recovery words', () => {
  it('are recorded until confirmed, by name only', () => {
    const s = memoryStorage();
    markUnconfirmed(hotkeyWords('default', 'miner'), s);
    markUnconfirmed(coldkeyWords('default'), s);
    expect([...unconfirmedWords(s)].sort()).toEqual(['coldkey:default', 'hotkey:default/miner']);
    markConfirmed(hotkeyWords('default', 'miner'), s);
    expect([...unconfirmedWords(s)]).toEqual(['coldkey:default']);
  });

  it('read hostile storage as nothing recorded, never a throw', () => {
    for (const raw of ['{', '"x"', '{"__proto__":{"a":1}}', JSON.stringify([1, null, {}, 'ok', 'x'.repeat(10_000)]), 'null']) {
      const s = memoryStorage({ 'engy.unconfirmedWords': raw });
      expect(() => unconfirmedWords(s)).not.toThrow();
      expect([...unconfirmedWords(s)].every((k) => k === 'ok')).toBe(true);
    }
    const throwing = {
      getItem: () => {
        throw new Error('blocked');
      },
      setItem: () => {
        throw new Error('full');
      },
    };
    expect(unconfirmedWords(throwing).size).toBe(0);
    expect(() => markUnconfirmed(hotkeyWords('a', 'b'), throwing)).not.toThrow();
    expect(unconfirmedWords(null).size).toBe(0);
  });

  it('the hotkey table says so and offers "Use without a backup" instead of a plain "Use"; the address has a copy button', () => {
    const s = memoryStorage();
    markUnconfirmed(hotkeyWords('default', 'miner'), s);
    vi.stubGlobal('localStorage', s);
    const html = renderToStaticMarkup(<HotkeyStep wallet={wallet(['miner', 'old'])} settings={defaultSettings()} showWords={() => undefined} />);
    expect(html).toContain('You never confirmed writing its recovery words down');
    expect(html).toContain('>Use without a backup<');
    expect(html).toContain('aria-label="Use default/miner without a backup of its words"');
    // The other key, whose words were confirmed (or imported), keeps a plain Use.
    expect(html).toContain('aria-label="Use default/old"');
    expect(html).toContain('aria-label="Copy the address of default/miner"');
  });

  it('a new hotkey name is never pre-filled with one that exists', () => {
    expect(freeName('miner', new Set())).toBe('miner');
    expect(freeName('miner', new Set(['miner', 'miner-2']))).toBe('miner-3');
    const html = renderToStaticMarkup(<HotkeyStep wallet={wallet(['miner'])} settings={defaultSettings()} showWords={() => undefined} />);
    expect(html).toMatch(/aria-label="Hotkey name" value="miner-2"/);
    expect(html).not.toContain('hotkey-name-taken');
  });
});
