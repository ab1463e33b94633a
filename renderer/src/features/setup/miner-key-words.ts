// The Miner key step's state and sentence. Green only when the gateway admitted THIS key while THIS hotkey
// was selected, and the chain does not say the hotkey is unregistered: a key belongs to one hotkey, and the
// gateway's admit does not name it, so a key admitted for another hotkey would earn for that one.
import type { WalletView } from '../../../../shared/api.ts';
import { PROVIDER_HOST } from '../../../../shared/network.ts';
import type { HotkeyRegistration } from '../../../../shared/wallet.ts';

export function minerKeyStage(wallet: WalletView, registration: HotkeyRegistration | null, hotkeyLabel: string | null): { state: 'done' | 'todo'; detail: string } {
  const k = wallet.minerKey;
  const c = wallet.minerKeyCheck;
  if (!k.present) return { state: 'todo', detail: `Paste the key issued at ${PROVIDER_HOST} for your registered hotkey.` };
  if (c?.state === 'admitted') {
    if (registration && !registration.registered) {
      return {
        state: 'todo',
        detail: `The gateway admits ${k.masked}, but the selected hotkey${hotkeyLabel ? ` ${hotkeyLabel}` : ''} is not registered on subnet ${registration.netuid}: this key was issued for another hotkey and earns for that one. Register this hotkey and paste its own key, or select the hotkey the key belongs to.`,
      };
    }
    return { state: 'done', detail: `${k.masked}: admitted by the gateway${hotkeyLabel ? ` for the selected hotkey ${hotkeyLabel}` : ''}.` };
  }
  if (c?.state === 'denied') return { state: 'todo', detail: `The gateway refused ${k.masked}: ${c.reason ?? 'no reason given'}.` };
  if (c?.state === 'checking') return { state: 'todo', detail: `${k.masked}: asking the gateway…` };
  if (c?.state === 'unreachable') return { state: 'todo', detail: `${k.masked}: ${c.reason ?? 'the gateway could not be asked'}` };
  return { state: 'todo', detail: `${k.masked}: not verified for the selected hotkey yet. A key belongs to one hotkey: check it again, or paste the key issued for this hotkey.` };
}
