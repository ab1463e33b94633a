import type { WalletView } from '../../../../shared/api.ts';
import { formatTao } from '../../../../shared/wallet.ts';

/**
 * The Registration step's one-line state. A failed chain read says so with its cause: "Asking the chain…"
 * beside "Cannot reach the chain" read as a question still pending, forever.
 */
export function registrationDetail(o: { reg: WalletView['registration']; hotkeyChosen: boolean; registrationError: string | null | undefined; netuid: number; validating: boolean }): string {
  const { reg } = o;
  if (reg)
    return reg.registration.registered
      ? `uid ${reg.registration.uid} on subnet ${reg.registration.netuid}${o.validating ? (reg.registration.validatorPermit ? ', validator permit' : ', no validator permit yet') : ''}.`
      : `Not registered yet: it costs ${formatTao(reg.quote.costRao)} now, paid by the coldkey.`;
  if (!o.hotkeyChosen) return `Puts the hotkey on subnet ${o.netuid}; needs a coldkey holding the cost.`;
  return o.registrationError ? `Could not ask the chain: ${o.registrationError}` : 'Asking the chain…';
}
