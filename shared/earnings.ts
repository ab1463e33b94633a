// Earnings read model: per epoch from the verified provider result (projected), on-chain emission
// (realised), and local token counts. Projected and realised are never added together.

export interface EpochEarnings {
  epochIndex: number;
  digest: string;
  /** As the payload states them (format not published: shown as given). */
  epochStart: string | null;
  epochEnd: string | null;
  /** My hotkey's u16 weight in the verified vector (0 when absent). */
  weight: number;
  /** weight / 65535: my projected share of the miner emission for this epoch. */
  weightShare: number;
  /** Gate fields found in my row, by whatever names the provider used. */
  gate: { passed: boolean | null; reason: string | null };
  /** My row of `miners` exactly as published (unpublished field names, shown, never depended on). */
  row: Record<string, unknown> | null;
  burn: boolean;
  /** The window as instants (ms), parsed from epochStart/epochEnd; null when the provider's format is unknown. */
  startMs: number | null;
  endMs: number | null;
  /** Projected from the signed result: weight share x the miner emission over the window x the α price. */
  projectedTao: number | null;
  projectedNote: string;
  /** Realised from the chain: what it emitted to my uid while this epoch's weights applied (its end to the next end). */
  realisedTao: number | null;
  realisedNote: string;
  /** The newest epoch: its weights still apply, so its realised τ is still growing (shown as "running", never as a final figure). */
  realisedRunning: boolean;
  /** Tokens this rig served inside the window (local records). */
  tokens: LocalTokens | null;
}

/** A missing epoch index between two known ones, and why it is missing. */
export interface EpochGap {
  epochIndex: number;
  reason: string;
  /** The provider outage that explains it, if one overlapped (the page shows it in local time). */
  outage: Outage | null;
}

export interface SourceHealth {
  ok: boolean | null;
  error: string | null;
  /** When the current outage began (null while reachable). */
  downSince: number | null;
}

export interface Outage {
  source: 'provider' | 'chain';
  from: number;
  /** null while it lasts. */
  to: number | null;
  error: string | null;
}

export interface TauTotal {
  /** Sum over the epochs that ended inside the window; projected and realised stay apart. */
  projectedTao: number;
  realisedTao: number;
  epochs: number;
}

export interface LocalTokens {
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

export interface OnChainEarnings {
  block: number;
  uid: number;
  tempo: number;
  incentive: number;
  /** Alpha (rao) emitted to my uid at the last epoch. */
  emissionRao: string;
  alphaPriceTao: number;
  /** emission x price, in TAO: realised at the last chain epoch. */
  emissionTao: number;
  arithmetic: string;
}

/** Whether the chain still lists my hotkey on the subnet, from the last chain read. */
export interface RegistrationWatch {
  /** My uid, or null when the chain does not list the hotkey on the subnet. */
  uid: number | null;
  /** Set when the hotkey was registered (seen with a uid, or weighted in a verified epoch) and is no longer: its slot was taken. */
  lost: { uid: number | null } | null;
  at: number;
}

export interface EarningsSnapshot {
  hotkey: string | null;
  epochs: EpochEarnings[];
  onChain: OnChainEarnings | null;
  /** Null until the chain was read for this hotkey. */
  registration: RegistrationWatch | null;
  local: { day: LocalTokens; week: LocalTokens; all: LocalTokens };
  totals: { day: TauTotal; week: TauTotal; all: TauTotal };
  /** Projected τ per day from the recent epochs (their τ over their summed duration), with what it rests on. */
  estimatePerDay: { tao: number | null; basis: string };
  gaps: EpochGap[];
  sources: { provider: SourceHealth; chain: SourceHealth };
  outages: Outage[];
  updatedAt: number | null;
  error: string | null;
}
