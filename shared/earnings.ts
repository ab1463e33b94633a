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

export interface EarningsSnapshot {
  hotkey: string | null;
  epochs: EpochEarnings[];
  onChain: OnChainEarnings | null;
  local: { day: LocalTokens; week: LocalTokens; all: LocalTokens };
  updatedAt: number | null;
  error: string | null;
}
