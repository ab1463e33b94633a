// Registration failures in plain words: one sentence per chain error (CHAIN.md 3.2), saying what to do.
import type { SubmitOutcome } from '../chain/ports.ts';
import { AppFailure } from '../../../shared/errors.ts';
import { formatTao } from '../../../shared/wallet.ts';

export interface RegistrationContext {
  netuid: number;
  hotkey: string;
  coldkey: string;
  costRao?: bigint;
  capRao?: bigint;
  balanceRao?: bigint;
  uid?: number | null;
}

export function registrationSentence(code: string, c: RegistrationContext): string {
  const cost = c.costRao !== undefined ? formatTao(c.costRao) : 'the registration cost';
  switch (code) {
    case 'HotKeyAlreadyRegisteredInSubNet':
      return `Hotkey ${c.hotkey} is already registered on subnet ${c.netuid}${c.uid != null ? ` as uid ${c.uid}` : ''}: nothing to pay, you can start mining or validating with it.`;
    case 'NotEnoughBalanceToStake':
      return `Coldkey ${c.coldkey} has ${c.balanceRao !== undefined ? formatTao(c.balanceRao) : 'too little TAO'}, less than the ${cost} registration costs: add TAO to the coldkey and try again.`;
    case 'RegistrationPriceLimitExceeded':
      return `Registration now costs ${cost}, above your limit of ${c.capRao !== undefined ? formatTao(c.capRao) : 'the cap you set'}: raise the limit or wait for the price to fall (it decays every block).`;
    case 'NonAssociatedColdKey':
      return `Hotkey ${c.hotkey} already belongs to another coldkey: register it with that coldkey, or create a new hotkey.`;
    case 'SubNetRegistrationDisabled':
      return `Subnet ${c.netuid} does not accept registrations right now: try again later.`;
    case 'NoNeuronIdAvailable':
      return `Subnet ${c.netuid} is full and no neuron can be replaced right now: try again after the next epoch.`;
    case 'SubnetNotExists':
      return `Subnet ${c.netuid} does not exist on this chain: check that you are connected to the right network.`;
    case 'TooManyRegistrationsThisBlock':
    case 'TooManyRegistrationsThisInterval':
      return `Too many registrations on subnet ${c.netuid} just now: wait a few minutes and try again.`;
    default:
      return `The chain refused the registration (${code}): check the wallet and the network, then try again.`;
  }
}

/** Turns a failed extrinsic into the error the user sees; transport failures say the outcome is unknown. */
export function registrationFailure(outcome: Extract<SubmitOutcome, { ok: false }>, c: RegistrationContext): AppFailure {
  if (outcome.kind === 'transport')
    return new AppFailure('chain-unreachable', `The chain did not answer (${outcome.message}): check the hotkey's status before trying again, the registration may have landed.`, outcome.code);
  return new AppFailure('chain-rejected', registrationSentence(outcome.code, c), outcome.code);
}
