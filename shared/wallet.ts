// Wallet, miner-key and registration snapshots for the UI. Serializable and secret-free by
// construction: addresses, masked keys, statuses. Amounts are rao as decimal strings (bigint
// does not survive JSON).

/** How a keyfile is stored on disk, from its first bytes (btwallet `keyfile_data_is_encrypted_*`). */
export type KeyfileEncryption = 'none' | 'nacl' | 'ansible-vault' | 'fernet' | 'unreadable' | 'missing';

export interface HotkeyEntry {
  name: string;
  /** From `hotkeys/<name>pub.txt`, else the hotkey JSON's ss58Address when the file is plaintext. */
  ss58Address: string | null;
  encryption: KeyfileEncryption;
  /** Older btcli versions did not write `<name>pub.txt`. */
  hasPublicFile: boolean;
}

export interface WalletEntry {
  name: string;
  /** From coldkeypub.txt; null when that file is missing or unreadable. */
  coldkeyAddress: string | null;
  coldkeyEncryption: KeyfileEncryption;
  hotkeys: HotkeyEntry[];
  /** Plain sentences about files that could not be read. */
  problems: string[];
}

export interface WalletListing {
  walletPath: string;
  exists: boolean;
  wallets: WalletEntry[];
}

export type MinerKeyStorage = 'os-keyring' | 'file' | 'env-file';

export interface MinerKeyStatus {
  present: boolean;
  /** e.g. `ek_…3f9a`; null when absent. */
  masked: string | null;
  /** Where the key lives (or would be stored by `set`). */
  storage: MinerKeyStorage;
  /** Set when the key is kept in a plain 0600 file because the OS keyring is unavailable. */
  warning?: string;
}

export interface HotkeyRegistration {
  netuid: number;
  hotkey: string;
  registered: boolean;
  uid: number | null;
  validatorPermit: boolean;
  /** Alpha stake on the hotkey, rao. */
  stakeRao: string;
  /** Blocks of immunity left after registration; omitted when the chain client does not expose it. */
  immunityBlocksLeft?: number;
  block: number;
}

export interface RegistrationQuote {
  netuid: number;
  /** Current burned_register cost (Burn), rao. It moves every block. */
  costRao: string;
  coldkey: string | null;
  /** Free balance of the coldkey, rao; null when no coldkey is known. */
  coldkeyFreeRao: string | null;
  /** null when the coldkey balance is unknown. */
  canAfford: boolean | null;
  block: number;
}

export interface RegistrationStatusSnapshot {
  registration: HotkeyRegistration;
  quote: RegistrationQuote;
}

export type RegistrationMode = 'register-limit' | 'burned-register';

export interface RegistrationSuccess {
  netuid: number;
  hotkey: string;
  uid: number | null;
  blockHash: string;
  blockNumber: number;
  extrinsicHash: string;
  /** What the chain asked when we sent it (the cost at send time), rao. */
  quotedCostRao: string;
}

const RAO_PER_TAO = 1_000_000_000n;

/** `123456789012` rao -> `"123.456789012 τ"`, trailing zeros trimmed; shared so UI and CLI print the same. */
export function formatTao(rao: bigint | string): string {
  const v = typeof rao === 'string' ? BigInt(rao) : rao;
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const whole = abs / RAO_PER_TAO;
  const frac = (abs % RAO_PER_TAO).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? '.' + frac : ''} τ`;
}

/** `"1.5"` TAO -> 1500000000n rao; throws on anything that is not a plain non-negative decimal. */
export function parseTao(text: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not an amount of TAO (use digits, e.g. 0.5)`);
  return BigInt(m[1]!) * RAO_PER_TAO + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/** The miner key as the gateway judged it: one hello, answered by admit or by the gateway's own deny reason. */
export interface MinerKeyVerification {
  state: 'checking' | 'admitted' | 'denied' | 'unreachable';
  /** The gateway's deny reason, or a sentence saying why the gateway could not be asked. */
  reason: string | null;
  /** The masked key this verdict is about (so a replaced key is never shown as verified). */
  masked: string | null;
  /** The wallet/hotkey selected when the gateway was asked: a key belongs to one hotkey, so a verdict made
   * under another selection says nothing about the one selected now (absent from engines before this field). */
  hotkey?: string | null;
  at: number;
}

/** A coldkey created or imported by the panel. The words come back once, for the show-once dialog. */
export interface CreatedColdkeyView {
  ss58Address: string;
  mnemonic?: string;
}

/**
 * The simulated network's faucet as the panel shows it (WalletView.faucet is null on a real chain: only the
 * simulated network's dev chain offers one). Test τ: nothing here is worth anything.
 */
export interface FaucetView {
  /** The chain's own words for it, shown beside the button. */
  label: string;
  /** One drip: the registration burn plus a fee allowance, each formatted ("1.1 τ"). */
  dripTao: string;
  burnTao: string;
  feeTao: string;
  /** The selected wallet's coldkey and its free balance (null: no coldkey chosen yet). */
  coldkey: string | null;
  balanceTao: string | null;
  /** The coldkey holds a drip's worth: registration's burn plus fees. */
  enough: boolean | null;
  /** What the last drip credited this coldkey (null: none asked this session). */
  lastCreditedTao: string | null;
  at: number;
}
