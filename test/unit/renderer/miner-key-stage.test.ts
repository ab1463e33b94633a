// The Setup Miner key step: green only for an admitted key while the selected hotkey is not known to be
// unregistered; every other case says what to do in a sentence.
import { describe, expect, it } from 'vitest';
import type { WalletView } from '../../../shared/api.ts';
import type { HotkeyRegistration } from '../../../shared/wallet.ts';
import { minerKeyStage } from '../../../renderer/src/features/setup/miner-key-words.ts';

const key = { present: true, masked: 'mk_…0001' } as WalletView['minerKey'];
const view = (check: WalletView['minerKeyCheck']): WalletView => ({
  listing: null,
  minerKey: key,
  registration: null,
  registrationError: null,
  signingUrl: null,
  signing: null,
  faucet: null,
  minerKeyCheck: check,
});
const admitted = { state: 'admitted' as const, reason: null, masked: 'mk_…0001', hotkey: 'w/new', at: 1 };
const reg = (registered: boolean) => ({ netuid: 53, hotkey: '5New', registered, uid: registered ? 4 : null, validatorPermit: false, stakeRao: '0', block: 1 }) as HotkeyRegistration;

describe('Miner key step', () => {
  it('is not green for an admitted key when the selected hotkey is not registered', () => {
    const s = minerKeyStage(view(admitted), reg(false), 'w/new');
    expect(s.state).toBe('todo');
    expect(s.detail).toMatch(/^The gateway admits mk_…0001, but the selected hotkey w\/new is not registered on subnet 53: this key was issued for another hotkey/);
  });

  it('is green for an admitted key with a registered (or not yet read) hotkey, naming the hotkey', () => {
    expect(minerKeyStage(view(admitted), reg(true), 'w/new')).toEqual({ state: 'done', detail: 'mk_…0001: admitted by the gateway for the selected hotkey w/new.' });
    expect(minerKeyStage(view(admitted), null, 'w/new').state).toBe('done');
  });

  it('no verdict for this hotkey, denied, unreachable, no key: todo with a sentence', () => {
    expect(minerKeyStage(view(null), reg(true), 'w/new').detail).toMatch(/not verified for the selected hotkey yet/);
    expect(minerKeyStage(view({ ...admitted, state: 'denied', reason: 'unknown miner key' }), null, null).detail).toBe('The gateway refused mk_…0001: unknown miner key.');
    expect(minerKeyStage(view({ ...admitted, state: 'unreachable', reason: 'The gateway did not answer.' }), null, null)).toEqual({ state: 'todo', detail: 'mk_…0001: The gateway did not answer.' });
    expect(minerKeyStage({ ...view(null), minerKey: { present: false, masked: null } as WalletView['minerKey'] }, null, null).state).toBe('todo');
  });
});
