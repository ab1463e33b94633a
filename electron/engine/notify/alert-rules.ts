// Which states deserve an alert. Pure functions of the snapshots, so each rule is tested alone.
import type { EarningsSnapshot } from '../../../shared/earnings.ts';
import type { MinerSnapshot } from '../../../shared/miner.ts';
import type { AppNotification } from '../../../shared/notifications.ts';
import type { NotificationKind } from '../../../shared/settings.ts';
import type { ServeSnapshot } from '../../../shared/serve.ts';
import type { ValidatorSnapshot } from '../../../shared/validator.ts';
import { SUBNET_NETUID } from '../../../shared/network.ts';

export interface Alert {
  /** Same key = same ongoing condition: alerted once until it clears. */
  key: string;
  kind: NotificationKind;
  severity: 'warn' | 'error';
  title: string;
  body: string;
  /** The page that explains it (default: by kind). */
  action?: AppNotification['action'];
}

/** Where each kind is explained: the notification's action opens that page. */
export function actionOf(kind: NotificationKind): AppNotification['action'] {
  switch (kind) {
    case 'miner-offline':
    case 'miner-pulled':
    case 'gate-at-risk':
    case 'serve-crashed':
    case 'serve-stalled':
      return { page: 'mine', label: 'Open Mine' };
    case 'validator-stalled':
    case 'validator-failing':
    case 'activity-cutoff-near':
      return { page: 'validate', label: 'Open Validate' };
    case 'deregistered':
      return { page: 'setup', label: 'Open Setup' };
    case 'epoch-failed':
      return { page: 'earnings', label: 'Open Earnings' };
    case 'data-recovered':
    case 'storage-failing':
      return { page: 'logs', label: 'Open Logs' };
  }
}

export function minerAlerts(m: MinerSnapshot | null): Alert[] {
  if (!m) return [];
  const out: Alert[] = [];
  if (m.phase === 'pulled' || m.phase === 'denied') {
    out.push({
      key: `miner-${m.phase}`,
      kind: 'miner-pulled',
      severity: 'error',
      title: m.phase === 'denied' ? 'The gateway denied this miner' : 'The gateway pulled this miner',
      body: `${m.detail}. Open Mine for the reason and what to check.`,
    });
  }
  if (m.phase === 'failed') {
    out.push({ key: 'miner-offline', kind: 'miner-offline', severity: 'error', title: 'The miner is offline', body: `${m.detail}. It is not serving: nothing is earned until it reconnects.` });
  } else if (m.phase === 'reconnecting' && m.legsLive === 0) {
    // No leg reaches the gateway: an outage of the gateway (or of this rig's network), said as such.
    const err = m.legs.find((l) => l.lastError)?.lastError;
    out.push({
      key: 'gateway-outage',
      kind: 'miner-offline',
      severity: 'error',
      title: 'Gateway unreachable',
      body: `No leg reaches ${m.gatewayUrl ?? 'the gateway'}${err ? ` (${err})` : ''}. The miner keeps redialling on its own; nothing is served until a leg is back.`,
    });
  }
  if (m.forecast.status === 'at-risk' || m.forecast.status === 'failing') {
    out.push({
      key: `gate-${m.forecast.gate ?? 'any'}-${m.forecast.status}`,
      kind: 'gate-at-risk',
      severity: m.forecast.status === 'failing' ? 'error' : 'warn',
      title: `Gate forecast: ${m.forecast.status === 'failing' ? 'failing' : 'at risk'}`,
      body: `${m.forecast.text}. A failed gate costs this epoch's score.`,
    });
  }
  return out;
}

export function serveAlerts(s: ServeSnapshot | null): Alert[] {
  if (!s) return [];
  const out: Alert[] = [];
  for (const e of s.engines) {
    const st = e.status;
    if (st.state === 'failed' || st.state === 'crashed' || st.state === 'restarting') {
      out.push({
        key: `serve-${e.index}-down`,
        kind: 'serve-crashed',
        severity: 'error',
        title: `Engine ${e.index} ${st.state === 'failed' ? 'gave up' : 'crashed'}`,
        body: `${st.cause.cause} Fix: ${st.cause.fix}`,
      });
    }
    if (st.state === 'degraded' && st.cause.code === 'stalled') {
      out.push({ key: `serve-${e.index}-stalled`, kind: 'serve-stalled', severity: 'error', title: `Engine ${e.index} stalled`, body: `${st.cause.cause} Fix: ${st.cause.fix}` });
    }
  }
  return out;
}

export function validatorAlerts(v: ValidatorSnapshot | null, now: number): Alert[] {
  if (!v || v.status === 'stopped') return [];
  const out: Alert[] = [];
  if (v.provider.health === 'down') out.push(providerOutage(v.provider.error, 'validate'));
  if (v.chain.health === 'down') out.push(chainOutage(v.chain.error, 'validate'));
  if (v.status === 'failed') out.push({ key: 'validator-failed', kind: 'validator-stalled', severity: 'error', title: 'The validator stopped', body: v.failure ?? 'See Validate for the reason.' });
  if (v.lastTickAt !== null && now - v.lastTickAt > 30 * 60_000) {
    out.push({
      key: 'validator-stalled',
      kind: 'validator-stalled',
      severity: 'error',
      title: 'The validator has not ticked for 30 minutes',
      body: 'The watchdog restarts a wedged loop; if this persists, check the Logs page.',
    });
  }
  const lastTwo = v.recentSubmissions.slice(0, 2);
  if (lastTwo.length === 2 && lastTwo.every((s) => !s.ok)) {
    out.push({
      key: `validator-failing-${lastTwo[0]!.errorCode ?? 'x'}`,
      kind: 'validator-failing',
      severity: 'error',
      title: 'Weight submissions are failing',
      body: lastTwo[0]!.error ?? 'See Validate for the chain error.',
    });
  }
  const n = v.neuron;
  if (n && n.blocksSinceUpdate !== null && n.activityCutoff !== null && n.blocksSinceUpdate >= 0.8 * n.activityCutoff) {
    out.push({
      key: 'cutoff-near',
      kind: 'activity-cutoff-near',
      severity: 'warn',
      title: 'Activity cutoff near',
      body: `${n.blocksSinceUpdate} of ${n.activityCutoff} blocks since your last weights: past the cutoff this validator drops out of consensus.`,
    });
  }
  return out;
}

/** Every worker on the box alerts on its own: with several, keys and titles carry the worker name so two never merge. */
export function workerAlerts(workers: readonly MinerSnapshot[]): Alert[] {
  return workers.flatMap((m, i) => {
    const alerts = minerAlerts(m);
    if (workers.length <= 1) return alerts;
    const name = m.workerName ?? `worker ${i}`;
    return alerts.map((a) => ({ ...a, key: `${m.workerName ?? i}:${a.key}`, title: `${a.title} (${name})` }));
  });
}

/** What the engine repaired at start (a damaged database moved aside): one notification each. */
export function startupAlerts(warnings: readonly { title: string; body: string }[]): Alert[] {
  return warnings.map((w, i) => ({ key: `startup-${i}`, kind: 'data-recovered', severity: 'warn', title: w.title, body: w.body }));
}

// Outages share their key across sources (the validator and the earnings poll see the same provider),
// so one outage is one notification. The kinds reuse the mutable ones the settings page lists.
function providerOutage(error: string | null, page: 'validate' | 'earnings'): Alert {
  // A provider that answers 404 (no epoch result published yet) is reached: neither source reports it down.
  return {
    key: 'provider-outage',
    kind: 'validator-stalled',
    severity: 'warn',
    title: 'Provider unreachable',
    body: `The provider's epoch results cannot be read${error ? ` (${error})` : ''}. Validators resubmit their cached weights meanwhile; new epochs and earnings wait until it is back.`,
    action: { page, label: page === 'validate' ? 'Open Validate' : 'Open Earnings' },
  };
}

function chainOutage(error: string | null, page: 'validate' | 'earnings'): Alert {
  return {
    key: 'chain-outage',
    kind: 'validator-failing',
    severity: 'error',
    title: 'Chain unreachable',
    body: `The chain node cannot be reached${error ? ` (${error})` : ''}. Weights cannot land and on-chain earnings are not updated until it answers; check the chain URL in Settings.`,
    action: { page, label: page === 'validate' ? 'Open Validate' : 'Open Earnings' },
  };
}

/** The earnings poll watches the provider and the chain too: a miner-only rig hears of their outages. */
export function earningsAlerts(e: EarningsSnapshot | null): Alert[] {
  if (!e || !e.hotkey) return [];
  const out: Alert[] = [];
  if (e.sources.provider.ok === false) out.push(providerOutage(e.sources.provider.error, 'earnings'));
  if (e.sources.chain.ok === false) out.push(chainOutage(e.sources.chain.error, 'earnings'));
  // The signed verdict, not a forecast: while the newest verified epoch failed a gate, one alert says which.
  const newest = e.epochs.reduce<EarningsSnapshot['epochs'][number] | null>((a, x) => (a === null || x.epochIndex > a.epochIndex ? x : a), null);
  if (newest && newest.gate.passed === false) {
    out.push({
      key: 'epoch-gate-failed',
      kind: 'epoch-failed',
      severity: 'error',
      title: `Epoch #${newest.epochIndex} scored nothing: a gate failed`,
      body: `The master-signed result for epoch #${newest.epochIndex} says this hotkey failed a gate${newest.gate.reason ? ` (${newest.gate.reason})` : ''}, so it earns nothing for that epoch. Open Mine for the live latency, acceptance and proofs against the gates, and Earnings for the published row.`,
    });
  }
  const lost = e.registration?.uid === null ? e.registration.lost : null;
  if (lost) {
    out.push({
      key: `deregistered-${e.hotkey}`,
      kind: 'deregistered',
      severity: 'error',
      title: `Hotkey no longer registered on subnet ${SUBNET_NETUID}`,
      body: `The chain no longer lists ${e.hotkey} on subnet ${SUBNET_NETUID}${lost.uid !== null ? ` (it had uid ${lost.uid})` : ''}: a new registration took its slot, which happens to the lowest-ranked uid once its immunity is over. Nothing is earned until it is registered again: Setup > Registration shows the current cost.`,
    });
  }
  return out;
}
