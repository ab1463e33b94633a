// TEST DOUBLE (simulated network): prepares the demo's own data dir, never the real one. The demo
// wallet (two generated hotkeys, no coldkey secret), the demo miner key and, once the network's
// URLs are known, a complete settings.json with `network: 'simulated'`.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../electron/engine/lib/atomic-file.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { createHotkey } from '../../../electron/engine/wallet/hotkey-create.ts';
import { loadHotkeyAddress } from '../../../electron/engine/wallet/hotkey-address.ts';
import { MinerKeyStore } from '../../../electron/engine/wallet/miner-key-store.ts';
import { defaultSettings, type Settings } from '../../../shared/settings.ts';
import { defaultStatePath } from '../../../electron/engine/validator/daemon-config.ts';

/** The gateway double admits exactly these two keys: the demo rig's and the cheat worker's. */
export const HONEST_KEY = 'mk-demo-honest-rig-0001';
export const CHEAT_KEY = 'mk-demo-cheat-rig-0002';
export const DEMO_WALLET = 'demo';
export const RIG_WORKER = 'demo-rig';
export const CHEAT_WORKER = 'cheat-rig';

export interface DemoIdentity {
  walletsDir: string;
  rigHotkey: string;
  cheatHotkey: string;
}

/** The network profile a data dir's settings.json names ('mainnet' when the field or the file is absent). */
export function settingsNetwork(dataDir: string): 'mainnet' | 'simulated' | null {
  const file = dataPaths(dataDir).settings;
  if (!existsSync(file)) return null;
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { network?: unknown };
    return raw.network === 'simulated' ? 'simulated' : 'mainnet';
  } catch {
    // Unreadable settings: treat as real, never overwrite them.
    return 'mainnet';
  }
}

export class NotADemoDataDir extends Error {}

/**
 * Refuses a real data dir; in a demo dir from an earlier run, drops the validator state and the
 * database: the chain and the provider start over at epoch 1 each run, and the validator's replay
 * guard would otherwise refuse every epoch older than the one it applied last time.
 */
export async function prepareDemoDataDir(dataDir: string): Promise<DemoIdentity> {
  const paths = dataPaths(dataDir);
  const net = settingsNetwork(dataDir);
  if (net === 'mainnet') throw new NotADemoDataDir(`${dataDir} holds settings for the real network (mainnet): the demo never touches it. Pass another --data-dir.`);
  if (net === null && existsSync(defaultStatePath(dataDir))) {
    throw new NotADemoDataDir(`${dataDir} holds a validator state but no demo settings: it is not a demo data dir. Pass another --data-dir.`);
  }
  mkdirSync(dataDir, { recursive: true });
  if (net === 'simulated') {
    for (const f of [defaultStatePath(dataDir), paths.database, `${paths.database}-wal`, `${paths.database}-shm`]) rmSync(f, { force: true });
  }
  const walletsDir = join(dataDir, 'wallets');
  const hotkey = async (name: string): Promise<string> => {
    try {
      return loadHotkeyAddress({ walletPath: walletsDir, wallet: DEMO_WALLET, hotkey: name });
    } catch {
      return (await createHotkey({ walletPath: walletsDir, wallet: DEMO_WALLET, hotkey: name, source: { kind: 'generate' } })).ss58Address;
    }
  };
  const rigHotkey = await hotkey('rig');
  const cheatHotkey = await hotkey('cheat');
  // A plain 0600 file: headless has no OS keyring, and this key only opens the gateway double.
  new MinerKeyStore({ secretsDir: paths.secrets, env: {} }).set(HONEST_KEY);
  return { walletsDir, rigHotkey, cheatHotkey };
}

export interface DemoUrls {
  serveUrl: string;
  checkpointDir: string;
  gatewayUrl: string;
  chainUrl: string;
  providerUrl: string;
  masterHotkey: string;
  pollSeconds: number;
  resubmitBlocks: number;
  maxInflight: number;
  /** The τ price double (CoinGecko's shape). */
  priceUrl: string;
}

/** The whole settings file, written before the app starts (it reads it once at start). */
export function writeDemoSettings(dataDir: string, id: DemoIdentity, u: DemoUrls): Settings {
  const d = defaultSettings();
  const s: Settings = {
    ...d,
    role: 'both',
    network: 'simulated',
    wallet: { path: id.walletsDir, name: DEMO_WALLET, hotkey: 'rig' },
    mining: {
      ...d.mining,
      runtime: 'external',
      externalServeUrls: [u.serveUrl],
      checkpointDir: u.checkpointDir,
      gatewayUrl: u.gatewayUrl,
      workerName: RIG_WORKER,
      maxInflightOverride: u.maxInflight,
    },
    validating: { chainUrl: u.chainUrl, providerUrl: u.providerUrl, masterHotkey: u.masterHotkey, netuid: 53, pollSeconds: u.pollSeconds, resubmitBlocks: u.resubmitBlocks },
    profit: { ...d.profit, priceUrl: u.priceUrl },
  };
  writeFileAtomic(dataPaths(dataDir).settings, JSON.stringify(s, null, 2) + '\n');
  return s;
}
