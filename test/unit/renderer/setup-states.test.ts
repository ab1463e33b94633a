// Setup's hardware step is never green "done" while its own sentence says the disk cannot hold the checkpoint;
// its Registration step never says "Asking the chain…" beside a chain that could not be asked.
import { describe, expect, it } from 'vitest';
import { diskShort } from '../../../renderer/src/features/setup/hardware-words.ts';
import { registrationDetail } from '../../../renderer/src/features/setup/registration-words.ts';
import type { WalletView } from '../../../shared/api.ts';
import type { HardwareReport } from '../../../shared/hardware.ts';

const report = (over: Partial<HardwareReport>) => ({ verdict: 'ready', space: { ok: true }, ...over }) as unknown as HardwareReport;

describe('setup hardware step', () => {
  it('a disk too small for the checkpoint keeps the step open, unless the GPUs cannot mine anyway', () => {
    expect(diskShort(report({ space: { ok: false } as HardwareReport['space'] }))).toBe(true);
    expect(diskShort(report({}))).toBe(false);
    expect(diskShort(report({ space: null as unknown as HardwareReport['space'] }))).toBe(false);
    expect(diskShort(report({ verdict: 'unsupported', space: { ok: false } as HardwareReport['space'] }))).toBe(false);
  });
});

describe('setup registration step', () => {
  const base = { reg: null, hotkeyChosen: true, registrationError: null, netuid: 53, validating: false };
  const reg = (registered: boolean) =>
    ({
      registration: { netuid: 53, hotkey: '5F', registered, uid: registered ? 7 : null, validatorPermit: false, stakeRao: '0', block: 1 },
      quote: { costRao: '1000000000', coldkey: null, coldkeyFreeRao: null },
    }) as unknown as NonNullable<WalletView['registration']>;

  it('a failed chain read says so with its cause, never "Asking the chain…"', () => {
    const failed = registrationDetail({ ...base, registrationError: 'The chain at ws://127.0.0.1:9 did not answer.' });
    expect(failed).toBe('Could not ask the chain: The chain at ws://127.0.0.1:9 did not answer.');
    expect(failed).not.toMatch(/Asking/);
    // Still being asked (no answer, no error yet) is the only "Asking".
    expect(registrationDetail(base)).toBe('Asking the chain…');
  });

  it('an answer wins over an older error; no hotkey yet says what the step is for', () => {
    expect(registrationDetail({ ...base, reg: reg(true), registrationError: 'old' })).toBe('uid 7 on subnet 53.');
    expect(registrationDetail({ ...base, reg: reg(false) })).toMatch(/^Not registered yet: it costs 1(\.0+)? τ now/);
    expect(registrationDetail({ ...base, hotkeyChosen: false, registrationError: 'x' })).toBe('Puts the hotkey on subnet 53; needs a coldkey holding the cost.');
  });
});
