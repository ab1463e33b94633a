// User settings: what the user chose. Never secrets (those live in the engine's key stores).

export type Role = 'mine' | 'validate' | 'both';
export type NetworkProfile = 'mainnet' | 'simulated';
export type ThemePref = 'system' | 'dark' | 'light';

export const NOTIFICATION_KINDS = [
  'miner-offline',
  'miner-pulled',
  'serve-crashed',
  'serve-stalled',
  'gate-at-risk',
  'validator-stalled',
  'validator-failing',
  'activity-cutoff-near',
  'data-recovered',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface Settings {
  schemaVersion: number;
  role: Role | null;
  network: NetworkProfile;
  theme: ThemePref;
  /** Chosen in first run; completed stages are derived from the engines, not stored. */
  wallet: { path: string | null; name: string | null; hotkey: string | null };
  mining: {
    modelId: string;
    checkpointDir: string | null;
    runtime: 'python' | 'docker' | 'external' | null;
    externalServeUrls: string[];
    gatewayUrl: string;
    workerName: string | null;
    maxInflightOverride: number | null;
  };
  validating: {
    chainUrl: string;
    providerUrl: string;
    masterHotkey: string;
    netuid: number;
    pollSeconds: number;
    resubmitBlocks: number;
  };
  desktop: { runAtLogin: boolean; keepRunningOnClose: boolean; minimizeToTray: boolean; autoUpdate: boolean };
  mutedNotifications: NotificationKind[];
}

export const DEFAULT_GATEWAY_URL = 'wss://api.engy.ai/gw';
export const DEFAULT_CHAIN_URL = 'wss://entrypoint-finney.opentensor.ai:443';
export const DEFAULT_PROVIDER_URL = 'https://provider.engy.ai';
export const PINNED_MASTER_HOTKEY = '5DXSBCCKH5ENuyHFNaAvtaMfbhEEWpjSJB4rzc4mJfsc1uvJ';
export const SUBNET_NETUID = 53;

export const SETTINGS_SCHEMA_VERSION = 1;

export function defaultSettings(): Settings {
  return {
    schemaVersion: SETTINGS_SCHEMA_VERSION,
    role: null,
    network: 'mainnet',
    theme: 'system',
    wallet: { path: null, name: null, hotkey: null },
    mining: {
      modelId: 'qwen3.6-35b-a3b',
      checkpointDir: null,
      runtime: null,
      externalServeUrls: [],
      gatewayUrl: DEFAULT_GATEWAY_URL,
      workerName: null,
      maxInflightOverride: null,
    },
    validating: {
      chainUrl: DEFAULT_CHAIN_URL,
      providerUrl: DEFAULT_PROVIDER_URL,
      masterHotkey: PINNED_MASTER_HOTKEY,
      netuid: SUBNET_NETUID,
      pollSeconds: 300,
      resubmitBlocks: 120,
    },
    desktop: { runAtLogin: false, keepRunningOnClose: false, minimizeToTray: true, autoUpdate: true },
    mutedNotifications: [],
  };
}

/** A partial update the UI may send: each section shallow-merged. */
export interface SettingsPatch {
  role?: Role;
  theme?: ThemePref;
  wallet?: Partial<Settings['wallet']>;
  mining?: Partial<Pick<Settings['mining'], 'workerName' | 'maxInflightOverride' | 'runtime' | 'checkpointDir' | 'externalServeUrls'>>;
  validating?: Partial<Pick<Settings['validating'], 'chainUrl' | 'pollSeconds' | 'resubmitBlocks'>>;
  desktop?: Partial<Settings['desktop']>;
  mutedNotifications?: NotificationKind[];
}
