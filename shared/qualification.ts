// What the gateway is waiting for before a worker gets paid traffic, and how far along it is, from what the
// protocol tells the miner (PROTOCOL.md section 6: every leg admitted, probe traffic served with >= 99 %
// success and latency inside the model's gates, TOPLOC proofs that pass). The gateway never says "active":
// the traffic-based estimate's own rule (answered requests over a window) is one of the steps, named as such.
import { withUnit } from './figure-units.ts';
import { windowLabel, type MinerSnapshot } from './miner.ts';

export interface QualificationStep {
  id: 'legs' | 'answered' | 'window' | 'acceptance' | 'ttft' | 'tpot' | 'proofs';
  label: string;
  /** null: not measurable yet (no traffic). */
  met: boolean | null;
  detail: string;
}

export interface Qualification {
  steps: QualificationStep[];
  met: number;
  total: number;
  /** In words: the first step not met yet, or that the gateway decides now. */
  waitingFor: string;
}

const QUALIFYING = new Set<MinerSnapshot['phase']>(['connecting', 'waiting-for-probe', 'probing', 'reconnecting']);

function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** The steps while a worker qualifies; null once it earns, when stopped or refused (those say their own why). */
export function qualification(m: MinerSnapshot, now: number): Qualification | null {
  if (!QUALIFYING.has(m.phase) || m.history.some((t) => t.phase === 'active')) return null;
  const p = m.probe;
  const planned = m.legsPlanned;
  const admitted = p?.legsAdmitted ?? m.legs.filter((l) => l.status === 'admitted').length;
  const st = m.stats;
  const served = st.ok + st.errors > 0;
  const steps: QualificationStep[] = [
    {
      id: 'legs',
      label: 'every leg admitted',
      met: planned > 0 && admitted >= planned,
      detail: planned > 0 ? `${admitted} of ${planned} legs admitted: the gateway probes a worker only once all its legs are live` : 'reading how many workers the gateway runs',
    },
  ];
  if (p) {
    steps.push({ id: 'answered', label: 'probe requests answered', met: p.servedOk >= p.minRequests, detail: `${p.servedOk} ok since the first probe (needs at least ${p.minRequests})` });
    const elapsed = p.firstServeAt === null ? 0 : now - p.firstServeAt;
    steps.push({
      id: 'window',
      label: 'probe traffic outlasted',
      met: p.firstServeAt !== null && elapsed >= p.windowMs,
      detail:
        p.firstServeAt === null
          ? `no probe traffic yet; the panel calls the worker active once traffic outlasts ${span(p.windowMs)}`
          : `${span(Math.min(elapsed, p.windowMs))} of ${span(p.windowMs)} of traffic (the panel's estimate: the gateway never says "active")`,
    });
  }
  const acc = st.acceptanceRate;
  // The same statistic and window as the Mine page's acceptance card ("Acceptance, last 5 min").
  const w = windowLabel(st.windowMs);
  steps.push({
    id: 'acceptance',
    label: 'success rate',
    met: acc === null ? null : acc >= m.targets.acceptance,
    detail:
      acc === null
        ? `needs at least ${(m.targets.acceptance * 100).toFixed(0)} % of answered requests ok; nothing answered yet`
        : `${withUnit.pct(acc)} ok of ${st.ok + st.errors} requests answered, ${w} (needs at least ${(m.targets.acceptance * 100).toFixed(0)} %)`,
  });
  const ttft = st.ttftMs.p99;
  steps.push({
    id: 'ttft',
    label: 'TTFT p99',
    met: ttft === null || !served ? null : ttft <= m.targets.ttftP99Ms,
    detail: ttft === null ? `needs at most ${withUnit.ttft(m.targets.ttftP99Ms)}; not measured yet` : `${withUnit.ttft(ttft)}, ${w} (needs at most ${withUnit.ttft(m.targets.ttftP99Ms)})`,
  });
  const tpot = st.tpotMs.p99;
  steps.push({
    id: 'tpot',
    label: 'TPOT p99',
    met: tpot === null || !served ? null : tpot <= m.targets.tpotP99Ms,
    detail:
      tpot === null
        ? `needs at most ${Math.round(m.targets.tpotP99Ms)} ms per token; not measured yet`
        : `${withUnit.tpot(tpot)} per token, ${w} (needs at most ${withUnit.tpot(m.targets.tpotP99Ms)})`,
  });
  const a = m.audit;
  steps.push({
    id: 'proofs',
    label: 'TOPLOC proofs',
    met: a.audited === 0 || a.maxScore === null ? null : a.maxScore <= a.threshold,
    detail:
      a.audited === 0 || a.maxScore === null
        ? 'the gateway checks the proofs; the panel has not re-checked one yet'
        : `the panel's own re-check: worst score ${a.maxScore.toFixed(3)} of ${a.audited} audited (cut ${a.threshold.toFixed(3)})`,
  });
  const met = steps.filter((s) => s.met === true).length;
  const first = steps.find((s) => s.met !== true);
  return {
    steps,
    met,
    total: steps.length,
    waitingFor: first ? `${first.label}: ${first.detail}` : 'everything it measures is met: paid traffic follows when the gateway is satisfied (hours early on, faster lately)',
  };
}

/** When the worker turned active (earning), or null while it is not. */
export function earningSince(m: MinerSnapshot): number | null {
  return m.phase === 'active' ? m.since : null;
}
