import type { SnapshotEnvelope } from './api.ts';
import type { LogLine } from './logs.ts';
import type { Role } from './settings.ts';

// The fleet: the rigs this panel reaches over SSH (electron/engine/fleet) and one row per rig for the
// Fleet page. Plain data: never a rig's token, never a key. docs/fleet.md explains what runs where.

/** How a rig is reached: `user@host[:port]`, `host[:port]`, or a Host alias from ~/.ssh/config. */
export interface RigConfig {
  id: string;
  /** Shown everywhere the rig is named (confirmations, alerts, the scoped panel's header). */
  name: string;
  target: string;
  /** The engy-panel command on the rig (default `engy-panel`; a path when it is not on PATH). */
  command: string;
  /** The rig engine's data dir, when not its default. */
  dataDir: string | null;
}

/**
 * Where the panel stands with a rig, in the order a connection goes through them:
 * host-key-unknown / host-key-changed wait for the user to accept the fingerprint shown;
 * engine-down: SSH works but no engine runs there (start it with the service);
 * incompatible: the rig speaks another contract version (`update` says which side to update).
 */
export type RigLinkState = 'connecting' | 'online' | 'host-key-unknown' | 'host-key-changed' | 'engine-down' | 'incompatible' | 'unreachable';

/** What the rig is doing, as the Fleet page's state column says it. */
export type RigActivity = 'mining' | 'qualifying' | 'withdrawn' | 'validating' | 'stopped' | 'unreachable' | 'unknown';

export interface RigHostKey {
  /** `SHA256:...` fingerprints with their type, as `ssh-keygen -lf` prints them. */
  fingerprints: string[];
  /** Changed: the fingerprints the panel knew before. */
  previous: string[] | null;
}

export interface RigGpu {
  name: string;
  temperatureC: number | null;
}

export interface RigRow {
  id: string;
  name: string;
  target: string;
  link: RigLinkState;
  /** One sentence: what is wrong and what to do ("SSH refused the key: add the panel's key to the rig"). */
  detail: string;
  /** When the rig was last reachable failed and has stayed down since (null while up). */
  unreachableSince: number | null;
  hostKey: RigHostKey | null;
  /** The engine's version and contract, once read. */
  version: string | null;
  contract: number | null;
  role: Role | null;
  activity: RigActivity;
  gpus: RigGpu[];
  /** Window of the figures below (ms), from the rig's miner stats. */
  windowMs: number | null;
  tokensPerSecond: number | null;
  ttftP99Ms: number | null;
  tpotP99Ms: number | null;
  acceptance: number | null;
  gates: { ttftP99Ms: number; tpotP99Ms: number; acceptance: number } | null;
  inflight: number;
  uid: number | null;
  /** The hotkey (SS58) the rig's Earnings are for, from its earnings snapshot; null until the rig said. */
  hotkey: string | null;
  /**
   * Other rigs of this fleet earning for the same hotkey (set by fleetSnapshot): their τ is the hotkey's, one
   * figure, so the totals count it once, from the rig named in `countedFrom` (this rig when `counted`).
   */
  sharedHotkey: { with: string[]; counted: boolean; countedFrom: string } | null;
  /** τ of the newest epoch (projected from the signed result), over the last 24 h and 7 days (projected; the rig's Earnings totals). */
  epochTao: number | null;
  todayTao: number | null;
  weekTao: number | null;
  openAlerts: number;
  /** Snapshots refused from this rig (malformed or oversized): counted, never shown as data. */
  refused: number;
  updatedAt: number | null;
}

export interface FleetTotals {
  rigs: number;
  /** Distinct earners the τ totals add: one per known hotkey, plus each rig whose hotkey is not known yet. */
  earners: number;
  online: number;
  todayTao: number;
  weekTao: number;
  tokensPerSecond: number;
  openAlerts: number;
}

/** An open alert on a rig, tagged with it (the rig posts it to its own chat webhook; the panel never re-posts). */
export interface RigAlert {
  rigId: string;
  rigName: string;
  id: number;
  at: number;
  severity: 'warn' | 'error';
  title: string;
  body: string;
}

/** One bar of the share chart: τ is earned per hotkey, so rigs of one hotkey share one bar. */
export interface FleetEarner {
  hotkey: string | null;
  rigs: string[];
  todayTao: number | null;
}

export interface FleetSnapshot {
  rigs: RigRow[];
  totals: FleetTotals;
  /** The τ totals' terms, in the fleet's order (the share chart's bars). */
  earners: FleetEarner[];
  /** Open alerts of every rig, newest first (at most 200). */
  alerts: RigAlert[];
}

export const RIG_ACTIONS = ['start', 'stop', 'drain', 'start-engine'] as const;
export type RigAction = (typeof RIG_ACTIONS)[number];

export interface RigActionResult {
  id: string;
  name: string;
  ok: boolean;
  message: string;
}

/**
 * What the panel relays from one rig's engine while a window has that rig's full panel open
 * (fleet.watch): its snapshots and log lines exactly as the rig sent them, and whether the relay is
 * up. The rig's token stays in the panel's engine; the renderer only ever names the rig by id.
 */
export type RigRelayEvent =
  { rigId: string; kind: 'state'; state: 'open' | 'closed'; detail: string } | { rigId: string; kind: 'snapshot'; payload: SnapshotEnvelope } | { rigId: string; kind: 'logs'; payload: LogLine[] };

/** Methods a scoped panel may not relay to a rig: the rig's own fleet is its business, and relays never chain. */
export const isRelayableMethod = (method: string): boolean => !method.startsWith('fleet.');
