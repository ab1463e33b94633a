// One Fleet row from a rig's link state and its latest (checked) snapshots. Pure, so every state and
// every half-known rig is unit-tested without SSH.
import type { FleetEarner, RigActivity, RigAlert, RigConfig, RigRow, FleetSnapshot, RigHostKey, RigLinkState } from '../../../shared/fleet.ts';
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
    hotkey: t.earnings?.hotkey ?? null,
    sharedHotkey: null,
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

// No hotkey earns more than all the τ there will ever be (21 M): a larger figure is a broken rig, not money.
const TAO_SUPPLY = 21_000_000;

/** A τ figure the totals may add: finite, not negative, below the supply; anything else counts as unknown. */
const sane = (x: number | null): number | null => (x !== null && Number.isFinite(x) && x >= 0 && x <= TAO_SUPPLY ? x : null);

/**
 * The rows grouped by hotkey, in the fleet's order: a rig's Earnings are its hotkey's, so rigs mining for one
 * hotkey (boxes behind one uid) all report the same τ, and adding their rows would count it once per rig. A
 * group's τ is taken from its first rig with a sane 24 h figure (else the first rig); a rig whose hotkey is not
 * known yet is a group of its own (counting it alone may overstate, never silently drop τ).
 */
function earnerGroups(rows: RigRow[]): { hotkey: string | null; rows: RigRow[]; counted: RigRow }[] {
  const byKey = new Map<string, RigRow[]>();
  const groups: RigRow[][] = [];
  for (const r of rows) {
    if (r.hotkey === null) {
      groups.push([r]);
      continue;
    }
    const g = byKey.get(r.hotkey);
    if (g) g.push(r);
    else {
      const fresh = [r];
      byKey.set(r.hotkey, fresh);
      groups.push(fresh);
    }
  }
  return groups.map((g) => ({ hotkey: g[0]!.hotkey, rows: g, counted: g.find((r) => sane(r.todayTao) !== null) ?? g.find((r) => sane(r.weekTao) !== null) ?? g[0]! }));
}

export function fleetSnapshot(rows: RigRow[], alerts: RigAlert[] = []): FleetSnapshot {
  const groups = earnerGroups(rows);
  const shared = new Map<string, RigRow['sharedHotkey']>();
  for (const g of groups) {
    if (g.rows.length < 2) continue;
    for (const r of g.rows) shared.set(r.id, { with: g.rows.filter((o) => o !== r).map((o) => o.name), counted: r === g.counted, countedFrom: g.counted.name });
  }
  const rigs = rows.map((r) => ({ ...r, sharedHotkey: shared.get(r.id) ?? null }));
  const sum = (xs: Array<number | null>) => xs.reduce<number>((s, x) => s + (x ?? 0), 0);
  const earners: FleetEarner[] = groups.map((g) => ({ hotkey: g.hotkey, rigs: g.rows.map((r) => r.name), todayTao: sane(g.counted.todayTao) }));
  return {
    rigs,
    totals: {
      rigs: rows.length,
      earners: groups.length,
      online: rows.filter((r) => r.link === 'online').length,
      todayTao: sum(groups.map((g) => sane(g.counted.todayTao))),
      weekTao: sum(groups.map((g) => sane(g.counted.weekTao))),
      tokensPerSecond: sum(rows.map((r) => (r.tokensPerSecond !== null && Number.isFinite(r.tokensPerSecond) && r.tokensPerSecond >= 0 ? r.tokensPerSecond : null))),
      openAlerts: sum(rows.map((r) => r.openAlerts)),
    },
    earners,
    alerts: [...alerts].sort((a, b) => b.at - a.at).slice(0, 200),
  };
}
