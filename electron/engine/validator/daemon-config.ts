// Settings of the headless validator: flags first, then the upstream ENGY_SN53_* environment names
// (so an existing .env.validator keeps working), then the protocol defaults. Every problem is a
// sentence for the operator; nothing is guessed for the wallet, which is the operator's own key.
import { dirname, join } from 'node:path';
import { polkadot } from '../lib/polkadot.ts';
import { defaultHeadlessDataDir } from '../lib/paths.ts';
import { DEFAULT_POLL_S, DEFAULT_RESUBMIT_BLOCKS } from './constants.ts';
import { CHAIN_ENDPOINTS, DEFAULT_PROVIDER_URL, PINNED_MASTER_HOTKEY, SUBNET_NETUID } from '../../../shared/network.ts';

const { decodeAddress } = polkadot('@polkadot/util-crypto');

export interface DaemonConfig {
  wallet: string;
  hotkey: string;
  walletPath: string | undefined;
  chainUrl: string;
  providerUrl: string;
  masterHotkey: string;
  netuid: number;
  pollS: number;
  resubmitBlocks: number;
  dataDir: string;
  statePath: string;
  /** Upstream's liveness file ({"ts": unix seconds} after every tick), read by container health checks. */
  heartbeatFile: string;
}

/** `--chain` / ENGY_SN53_NETWORK names, as bittensor spells them. */
export const NETWORKS: Record<string, string> = { ...CHAIN_ENDPOINTS, archive: 'wss://archive.chain.opentensor.ai:443' };

export type ConfigResult = { ok: true; config: DaemonConfig } | { ok: false; errors: string[] };

/** Flag values as the CLI parsed them (undefined when absent). */
export interface DaemonFlags {
  wallet?: string;
  hotkey?: string;
  walletPath?: string;
  chain?: string;
  api?: string;
  master?: string;
  netuid?: string;
  pollS?: string;
  resubmitBlocks?: string;
  dataDir?: string;
  stateFile?: string;
}

function pick(flag: string | undefined, env: string | undefined): string | undefined {
  if (flag !== undefined && flag.length > 0) return flag;
  return env !== undefined && env.length > 0 ? env : undefined;
}

/** Where the headless validator keeps its state inside a data dir (the app can share it). */
export function defaultStatePath(dataDir: string): string {
  return join(dataDir, 'validator', 'state.json');
}

export function resolveDaemonConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv): ConfigResult {
  const errors: string[] = [];
  const wallet = pick(flags.wallet, env.ENGY_SN53_WALLET);
  const hotkey = pick(flags.hotkey, env.ENGY_SN53_WALLET_HOTKEY);
  if (!wallet) errors.push('--wallet (or ENGY_SN53_WALLET) is required: the wallet name you pass to btcli as --wallet.name');
  if (!hotkey) errors.push('--hotkey (or ENGY_SN53_WALLET_HOTKEY) is required: the hotkey name you pass to btcli as --wallet.hotkey');

  const int = (name: string, raw: string | undefined, dflt: number, min: number, max: number): number => {
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      errors.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return dflt;
    }
    return n;
  };
  const netuid = int('--netuid', pick(flags.netuid, env.ENGY_SN53_NETUID), SUBNET_NETUID, 0, 65535);
  const pollS = int('--poll-s', pick(flags.pollS, env.ENGY_SN53_POLL_S), DEFAULT_POLL_S, 1, 86_400);
  const resubmitBlocks = int('--resubmit-blocks', pick(flags.resubmitBlocks, env.ENGY_SN53_RESUBMIT_BLOCKS), DEFAULT_RESUBMIT_BLOCKS, 1, 100_000);

  const chainRaw = pick(flags.chain, env.ENGY_SN53_NETWORK) ?? 'finney';
  const chainUrl = NETWORKS[chainRaw] ?? chainRaw;
  if (!/^wss?:\/\/\S+$/.test(chainUrl)) errors.push(`--chain must be finney, test, local, archive or a ws:// or wss:// URL, got "${chainRaw}"`);

  // The provider and its master key are one pair: the master signs only for its own provider.
  const api = pick(flags.api, env.ENGY_SN53_API);
  const master = pick(flags.master, env.ENGY_SN53_MASTER_HOTKEY);
  // Naming the default value of one half (as the service's env template does) changes nothing, so it is no override.
  const changesApi = api !== undefined && api.replace(/\/+$/, '') !== DEFAULT_PROVIDER_URL;
  const changesMaster = master !== undefined && master !== PINNED_MASTER_HOTKEY;
  if ((changesApi && master === undefined) || (changesMaster && api === undefined)) {
    errors.push('the provider URL and the master hotkey are overridden together or not at all: set both --api and --master (or ENGY_SN53_API and ENGY_SN53_MASTER_HOTKEY)');
  }
  const providerUrl = (api ?? DEFAULT_PROVIDER_URL).replace(/\/+$/, '');
  const masterHotkey = master ?? PINNED_MASTER_HOTKEY;
  if (!/^https?:\/\/\S+$/.test(providerUrl)) errors.push(`--api must be an http(s) URL, got "${providerUrl}"`);
  try {
    decodeAddress(masterHotkey);
  } catch {
    errors.push(`--master must be an SS58 address, got "${masterHotkey}"`);
  }

  const dataDir = flags.dataDir ?? (env.ENGY_PANEL_DATA_DIR && env.ENGY_PANEL_DATA_DIR.length > 0 ? env.ENGY_PANEL_DATA_DIR : defaultHeadlessDataDir(env));
  const statePath = pick(flags.stateFile, env.ENGY_SN53_STATE_FILE) ?? defaultStatePath(dataDir);
  const heartbeatFile = env.ENGY_SN53_HEARTBEAT_FILE && env.ENGY_SN53_HEARTBEAT_FILE.length > 0 ? env.ENGY_SN53_HEARTBEAT_FILE : join(dirname(statePath), 'heartbeat.json');
  if (errors.length > 0 || !wallet || !hotkey) return { ok: false, errors };
  return {
    ok: true,
    config: { wallet, hotkey, walletPath: pick(flags.walletPath, undefined), chainUrl, providerUrl, masterHotkey, netuid, pollS, resubmitBlocks, dataDir, statePath, heartbeatFile },
  };
}
