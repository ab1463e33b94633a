// What each chain refusal means for the user, in plain words. Two sources (CHAIN.md 3.1/3.2):
// dispatch errors (ExtrinsicFailed, SubtensorModule error by name) and pool rejections before inclusion
// (`1010: Invalid Transaction: Custom error: N` from SubtensorTransactionExtension, or a standard validity error).

export interface ChainErrorText {
  /** Module error name, `Custom:N`, or a short transport/pool code. */
  code: string;
  message: string;
}

/** SubtensorModule (and a few Balances) errors by name. */
export const MODULE_ERROR_TEXT: Readonly<Record<string, string>> = {
  NeuronNoValidatorPermit:
    'This hotkey has no validator permit on the subnet, so the chain refuses its weights. Permits go to the highest-stake validators at each epoch: add stake to the hotkey and wait for the next epoch.',
  SettingWeightsTooFast: 'Weights were set too recently: the subnet accepts one submission per rate-limit window. Nothing to fix; the next scheduled submission will go through.',
  CommittingWeightsTooFast: 'Weights were committed too recently: the subnet accepts one commit per rate-limit window. Nothing to fix; the next scheduled commit will go through.',
  HotKeyNotRegisteredInSubNet: 'This hotkey is not registered on the subnet. Register it first (Wallet > Register), or check that the right hotkey is selected.',
  NotEnoughStakeToSetWeights: 'This hotkey has less stake than the chain requires to set weights. Add stake to the hotkey, then try again.',
  CommitRevealEnabled: 'The subnet has commit-reveal turned on, so plain set_weights is refused. Nothing to fix: the validator reads the switch every tick and commits instead on its next try.',
  CommitRevealDisabled: 'The subnet has commit-reveal turned off, so the commit was refused. Nothing to fix: the validator submits plain weights on its next try.',
  IncorrectCommitRevealVersion: 'The chain expects another commit-reveal version than the one sent. The validator reads the version every tick; if this repeats, update the app.',
  InvalidRevealRound: 'The commit was locked to a drand round the chain has already passed. Nothing to fix: the next try locks it to a later round.',
  IncorrectWeightVersionKey: 'The subnet requires a newer weights version key than the one sent. Update the app, or ask the subnet owner for the current version key.',
  WeightVecNotEqualSize: 'The weight vector is malformed (uids and values differ in length). This is a bug: please report it.',
  DuplicateUids: 'The weight vector names the same uid twice. This is a bug: please report it.',
  UidVecContainInvalidOne: 'The weight vector names a uid that does not exist on the subnet. Read the metagraph again and resubmit.',
  UidsLengthExceedUidsInSubNet: 'The weight vector is longer than the subnet has uids. Read the metagraph again and resubmit.',
  WeightVecLengthIsLow: 'The weight vector covers fewer uids than the subnet minimum (MinAllowedWeights). Submit weights for more neurons.',
  MaxWeightExceeded: 'One uid holds more weight than the subnet allows (MaxWeightsLimit). Spread the weights more evenly.',
  CanNotSetRootNetworkWeights: 'Weights cannot be set on the root network (netuid 0). Pick the right subnet.',
  MechanismDoesNotExist: 'The subnet (or its mechanism) does not exist on this chain. Check the netuid and the network.',
  TooManyUnrevealedCommits:
    'Ten commits of this hotkey are still waiting for their reveal, the most the chain holds. Nothing to fix: the validator keeps trying each tick and commits again once one is revealed.',
  NotEnoughBalanceToStake: 'The coldkey balance is below the registration cost (burn). Add TAO to the coldkey, then try again.',
  HotKeyAlreadyRegisteredInSubNet: 'This hotkey is already registered on the subnet: nothing to do.',
  RegistrationPriceLimitExceeded: 'The registration cost rose above your price cap, so nothing was paid. Check the current cost and raise the cap if you still want to register.',
  NonAssociatedColdKey: 'This hotkey belongs to another coldkey. Register it with the coldkey that owns it, or use a new hotkey.',
  NoNeuronIdAvailable: 'The subnet is full and no neuron can be replaced right now. Try again later.',
  SubNetRegistrationDisabled: 'Registration is currently closed on this subnet. Try again later.',
  SubnetNotExists: 'The subnet does not exist on this chain. Check the netuid and the network (finney or testnet).',
  RegistrationNotPermittedOnRootSubnet: 'Neurons cannot register on the root network (netuid 0). Pick the right subnet.',
  TooManyRegistrationsThisBlock: 'Too many registrations in this block. Try again in a few blocks.',
  TooManyRegistrationsThisInterval: 'The subnet reached its registration limit for this interval. Try again later.',
  InsufficientBalance: 'The account balance is too low for this transaction. Add TAO to it, then try again.',
};

/** SubtensorTransactionExtension custom codes (common/src/transaction_error.rs). */
export const POOL_CUSTOM_TEXT: Readonly<Record<number, ChainErrorText>> = {
  1: { code: 'StakeAmountTooLow', message: 'This hotkey has less stake than the chain requires to set weights. Add stake to the hotkey, then try again.' },
  6: {
    code: 'RateLimitExceeded',
    message: 'Weights were set too recently: the subnet accepts one submission per rate-limit window. Nothing to fix; the next scheduled submission will go through.',
  },
  15: { code: 'InvalidRevealRound', message: 'The commit-reveal round is already past. Commit again with a later round.' },
  18: { code: 'InputLengthsUnequal', message: 'The weight vector is malformed (uids and values differ in length). This is a bug: please report it.' },
  19: {
    code: 'UidNotFound',
    message: 'This hotkey is not registered on the subnet. Register it first (Wallet > Register), or check that the right hotkey is selected.',
  },
  255: { code: 'BadRequest', message: 'The chain refused the request as malformed. Update the app; if it persists, please report it.' },
};

/** Standard validity errors (sp_runtime InvalidTransaction) by a distinctive piece of their text. */
const POOL_STANDARD: readonly [needle: string, text: ChainErrorText][] = [
  ['inability to pay some fees', { code: 'Payment', message: 'The signing account cannot pay the transaction fee. Add TAO to it, then try again.' }],
  ['bad signature', { code: 'BadProof', message: 'The chain rejected the signature. Check that the key file matches the address, then try again.' }],
  ['outdated', { code: 'Stale', message: 'The transaction was outdated (nonce already used). It will be rebuilt on the next try.' }],
  ['future', { code: 'Future', message: 'The transaction nonce is ahead of the chain. Wait a block and try again.' }],
  ['ancient birth block', { code: 'AncientBirthBlock', message: 'The transaction referenced a block the node no longer knows. Try again.' }],
  ['already imported', { code: 'AlreadyImported', message: 'The same transaction is already waiting in the pool. Wait for it to land.' }],
  ['priority is too low', { code: 'Priority', message: 'Another transaction from this account is already pending. Wait for it to land.' }],
];

export function describeModuleError(name: string, docs?: string): ChainErrorText {
  const known = MODULE_ERROR_TEXT[name];
  if (known) return { code: name, message: known };
  const hint = docs && docs.trim().length > 0 ? ` (${docs.trim()})` : '';
  return { code: name, message: `The chain refused the transaction with ${name}${hint}. Check the subnet settings, then try again.` };
}

/** Parse `1010: Invalid Transaction: Custom error: 6` (or another pool refusal) into code + sentence. */
export function describePoolRejection(raw: string): ChainErrorText {
  const custom = /Custom error:\s*(\d+)/i.exec(raw);
  if (custom) {
    const n = Number(custom[1]);
    const known = POOL_CUSTOM_TEXT[n];
    return { code: `Custom:${n}`, message: known?.message ?? `The chain refused the transaction before inclusion (custom error ${n}). Try again later.` };
  }
  const lower = raw.toLowerCase();
  for (const [needle, text] of POOL_STANDARD) if (lower.includes(needle)) return text;
  return { code: 'Invalid', message: `The chain refused the transaction before inclusion (${raw}). Try again later.` };
}

/** True for errors the node answered (a refusal), as opposed to a broken connection or timeout. */
export function isPoolRejection(raw: string): boolean {
  return /^10(1[0-4])\b|Invalid Transaction|Custom error/i.test(raw);
}
