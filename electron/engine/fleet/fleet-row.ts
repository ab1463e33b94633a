// One Fleet row from a rig's link state and its latest (checked) snapshots. Pure, so every state and
// every half-known rig is unit-tested without SSH.
import type { RigActivity, RigAlert, RigConfig, RigRow, FleetSnapshot, RigHostKey, RigLinkState } from '../../../shared/fleet.ts';
import { ROLES, type Role } from '../../../shared/settings.ts';
import type { RigTopics } from './rig-topics.ts';

export interface RigLinkView {
  link: RigLinkState;
  detail: string;
  unreachableSince: number | null;
  hostKey: RigHostKey | null;
  version: string | null;
  contract: number | null;
  refused: number;
  updatedAt: number | null;
  topics: RigTopics;
}

const QUALIFYING = new Set(['starting-serve', 'connecting', 'waiting-for-probe', 'probing', 'reconnecting']);

function activity(view: RigLinkView): RigActivity {
  if (view.link === 'unreachable' || view.link === 'engine-down') return 'unreachable';
  if (view.link !== 'online') return 'unknown';
  const miners = view.topics.miners;
  if (miners && miners.length > 0) {
    const phases = miners.map((m) => m.phase);
    if (phases.includes('active')) return 'mining';
    if (phases.some((p) => QUALIFYING.has(p))) return 'qualifying';
    if (phases.some((p) => p === 'pulled' || p === 'denied')) return 'withdrawn';
    return 'stopped';
  }
  const val = view.topics.validator;
  if (val && val.status !== 'stopped' && val.status !== 'failed') return 'validating';
  return miners || val !== undefined ? 'stopped' : 'unknown';
}

function maxOrNull(xs: Array<number | null>): number | null {
  const known = xs.filter((x): x is number => x !== null);
  return known.length > 0 ? Math.max(...known) : null;
}

export function rigRow(cfg: RigConfig, view: RigLinkView): RigRow {
  const t = view.topics;
  const miners = t.miners ?? [];
  const online = view.link === 'online';
  const stats = miners.map((m) => m.stats);
  const ok = stats.reduce((s, x) => s + x.ok, 0);
  const errors = stats.reduce((s, x) => s + x.errors, 0);
  const temps = new Map<number, number | null>();
  for (const g of t.serve?.gpus ?? []) temps.set(g.index, g.points.at(-1)?.temperatureC ?? null);
  const gpus = (t.hardware?.gpus ?? []).map((g, i) => ({ name: g.name, temperatureC: temps.get(i) ?? g.temperatureC }));
  const epochs = t.earnings?.epochs ?? [];
  const newest = epochs.reduce<(typeof epochs)[number] | null>((a, e) => (a === null || e.epochIndex > a.epochIndex ? e : a), null);
  const role = t.settings?.role;
  return {
    id: cfg.id,
    name: cfg.name,
    target: cfg.target,
    link: view.link,
    detail: view.detail,
    unreachableSince: view.unreachableSince,
    hostKey: view.hostKey,
    version: view.version,
    contract: view.contract,
    role: role && (ROLES as readonly string[]).includes(role) ? (role as Role) : null,
    activity: activity(view),
    gpus: online ? gpus : [],
    windowMs: online && stats.length > 0 ? stats[0]!.windowMs : null,
    tokensPerSecond: online && stats.length > 0 ? stats.reduce((s, x) => s + x.tokensPerSecond, 0) : null,
    ttftP99Ms: online ? maxOrNull(stats.map((s) => s.ttftMs.p99)) : null,
    tpotP99Ms: online ? maxOrNull(stats.map((s) => s.tpotMs.p99)) : null,
    acceptance: online && ok + errors > 0 ? ok / (ok + errors) : null,
    gates: miners[0]?.targets ?? null,
    inflight: online ? stats.reduce((s, x) => s + x.inflight, 0) : 0,
    uid: t.earnings?.registration?.uid ?? t.earnings?.onChain?.uid ?? null,
    // Earnings are what the rig last said, kept while it is away: τ already earned does not vanish with a tunnel.
    epochTao: newest?.projectedTao ?? null,
    todayTao: t.earnings?.totals.day.projectedTao ?? null,
    weekTao: t.earnings?.totals.week.projectedTao ?? null,
    openAlerts: (t.notifications?.recent ?? []).filter((n) => n.active).length,
    refused: view.refused,
    updatedAt: view.updatedAt,
  };
}

/** A rig's open alerts, tagged with it. */
export function rigAlerts(cfg: RigConfig, view: RigLinkView): RigAlert[] {
  return (view.topics.notifications?.recent ?? [])
    .filter((n) => n.active)
    .map((n) => ({ rigId: cfg.id, rigName: cfg.name, id: n.id, at: n.at, severity: n.severity === 'error' ? 'error' : 'warn', title: n.title, body: n.body }));
}

export function fleetSnapshot(rows: RigRow[], alerts: RigAlert[] = []): FleetSnapshot {
  const sum = (f: (r: RigRow) => number | null) => rows.reduce((s, r) => s + (f(r) ?? 0), 0);
  return {
    rigs: rows,
    totals: {
      rigs: rows.length,
      online: rows.filter((r) => r.link === 'online').length,
      todayTao: sum((r) => r.todayTao),
      weekTao: sum((r) => r.weekTao),
      tokensPerSecond: sum((r) => r.tokensPerSecond),
      openAlerts: sum((r) => r.openAlerts),
    },
    alerts: [...alerts].sort((a, b) => b.at - a.at).slice(0, 200),
  };
}
