// Earnings for my hotkey: the verified epoch results from the provider (projected share), the
// chain's emission at the current alpha price (realised), and the tokens this rig served.
import type { EarningsSnapshot, EpochEarnings, LocalTokens, Outage, SourceHealth } from '../../../shared/earnings.ts';
import type { EarningsFacts, NeuronFacts } from '../chain/ports.ts';
import { Backoff } from '../lib/backoff.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Logger } from '../lib/logger.ts';
import type { Database } from '../store/database.ts';
import { MINER_MIGRATIONS } from '../store/miner-tables.ts';
import { fetchJsonCapped, type FetchFailure } from '../validator/payload-fetch.ts';
import { describeChainError, describeNetworkError } from '../lib/network-words.ts';
import { BLOCK_S } from '../validator/constants.ts';
import { readBlockTimeMs, type BlockTimeSource } from '../chain/block-time.ts';
import { localTokens } from '../store/request-totals.ts';
import { epochEarnings } from './epoch-row.ts';
import { EarningsStore, type StoredEpoch } from './earnings-store.ts';
import { estimatePerDay, findGaps, minerPoolAlphaPerSec, projectTao, realiseTao, toInstant, totalSince, type ChainRead } from './tau.ts';

const NO_TOKENS: LocalTokens = { requests: 0, promptTokens: 0, completionTokens: 0 };

export interface EarningsChain extends BlockTimeSource {
  neuron(netuid: number, hotkey: string): Promise<NeuronFacts>;
  earningsFacts(netuid: number, uid: number): Promise<EarningsFacts>;
  close(): Promise<void>;
}

export interface EarningsConfig {
  hotkey: () => string | null;
  providerUrl: string;
  masterHotkey: string;
  netuid: number;
  ownerHotkey: string;
  /** Named in the sentence when the chain cannot be read. */
  chainUrl?: string;
}

/** Why the provider could not be read, without naming it: the sentence around it does, once. */
function providerCause(f: FetchFailure): string {
  return f.cause ?? f.message;
}

const EMPTY: LocalTokens = { requests: 0, promptTokens: 0, completionTokens: 0 };
// Signature checks need polkadot-js (~150 MB resident): loaded at the first epoch to verify, never
// by an engine with no hotkey chosen.
const payloadVerify = () => import('../validator/payload-verify.ts');
const KEEP_EPOCHS = 60;
/** Missing epochs fetched by index per refresh (GET /epoch/{i}), so a gap after an outage fills in. */
const BACKFILL_PER_REFRESH = 5;
const BACKFILL_DEPTH = 10;
const NO_TAU = { projectedTao: 0, realisedTao: 0, epochs: 0 };
const UNKNOWN: SourceHealth = { ok: null, error: null, downSince: null };

/** Tracks one upstream's reachability and its outages (kept for the gap explanations). */
class SourceWatch {
  health: SourceHealth = UNKNOWN;
  readonly outages: Outage[] = [];
  private readonly source: Outage['source'];
  constructor(source: Outage['source']) {
    this.source = source;
  }
  up(now: number): void {
    const open = this.outages.find((o) => o.to === null);
    if (open) open.to = now;
    this.health = { ok: true, error: null, downSince: null };
  }
  down(now: number, error: string): void {
    if (!this.outages.some((o) => o.to === null)) this.outages.push({ source: this.source, from: now, to: null, error });
    if (this.outages.length > 50) this.outages.shift();
    this.health = { ok: false, error, downSince: this.health.downSince ?? now };
  }
}

export class EarningsService {
  private snap: EarningsSnapshot = {
    hotkey: null,
    epochs: [],
    onChain: null,
    registration: null,
    local: { day: EMPTY, week: EMPTY, all: EMPTY },
    totals: { day: NO_TAU, week: NO_TAU, all: NO_TAU },
    estimatePerDay: { tao: null, basis: 'no epoch yet' },
    gaps: [],
    sources: { provider: UNKNOWN, chain: UNKNOWN },
    outages: [],
    updatedAt: null,
    error: null,
  };
  private readonly store: EarningsStore;
  private readonly provider = new SourceWatch('provider');
  private readonly chainWatch = new SourceWatch('chain');
  private readonly fetchErrors = new Map<number, string>();
  /** The last uid each hotkey was seen with: losing it is a deregistration, not a hotkey that never registered. */
  private readonly seenUid = new Map<string, number>();
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly retry = new Backoff({ initialMs: 30_000, maxMs: 600_000, jitter: 0.1 });
  private readonly cfg: () => EarningsConfig;
  private readonly db: Database;
  private readonly openChain: () => Promise<EarningsChain>;
  private readonly log: Logger;

  constructor(cfg: () => EarningsConfig, db: Database, openChain: () => Promise<EarningsChain>, log: Logger) {
    this.cfg = cfg;
    this.db = db;
    this.openChain = openChain;
    this.log = log;
    db.migrate(MINER_MIGRATIONS);
    this.store = new EarningsStore(db);
  }

  snapshot(): EarningsSnapshot {
    return this.snap;
  }

  /**
   * How long until the next refresh: `everyMs` while both sources answer; while one is down, sooner (30 s,
   * then doubling up to `everyMs`), so an outage alert closes soon after its cause clears, not 10 min later.
   */
  nextRefreshInMs(everyMs: number): number {
    const down = this.snap.sources.provider.ok === false || this.snap.sources.chain.ok === false;
    if (!down) {
      this.retry.reset();
      return everyMs;
    }
    return Math.min(everyMs, this.retry.next());
  }

  /** Refreshes now and then every `everyMs` (sooner while a source is down), chained so two refreshes never overlap. */
  start(everyMs: number): void {
    const loop = async () => {
      await this.refresh().catch((e: unknown) => this.log.warn(`earnings refresh failed: ${(e as Error).message}`));
      this.timer = setTimeout(() => void loop(), this.nextRefreshInMs(everyMs));
      this.timer.unref?.();
    };
    void loop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  dispose(): void {
    this.stop();
  }

  /** Null only for a window reaching into pruned rows (an epoch older than the kept days). */
  private local(sinceMs: number, untilMs?: number): LocalTokens | null {
    return localTokens(this.db, sinceMs, untilMs);
  }

  /** Fetches and verifies one epoch by index; records why not when it fails. */
  private async fetchEpoch(cfg: EarningsConfig, hotkey: string, index: number): Promise<void> {
    const fetched = await fetchJsonCapped(`${cfg.providerUrl.replace(/\/$/, '')}/api/subnet/v1/epoch/${index}`);
    if (!fetched.ok) {
      this.fetchErrors.set(index, providerCause(fetched.error));
      return;
    }
    const { verifyPayload } = await payloadVerify();
    const v = verifyPayload(fetched.value, { masterHotkey: cfg.masterHotkey, netuid: cfg.netuid });
    if (!v.ok || v.epochIndex !== index) {
      this.fetchErrors.set(index, v.ok ? `it answered epoch ${v.epochIndex} instead` : `refused (${v.reason}): ${v.detail}`);
      return;
    }
    this.fetchErrors.delete(index);
    this.store.saveEpoch(hotkey, epochEarnings(v, hotkey, cfg.ownerHotkey));
  }

  private registrationOf(hotkey: string, uid: number | null, now: number): EarningsSnapshot['registration'] {
    if (uid !== null) {
      this.seenUid.set(hotkey, uid);
      return { uid, lost: null, at: now };
    }
    // Across a restart the last uid is not known, but a weight in a verified epoch proves it was registered.
    const was = this.seenUid.has(hotkey) || this.store.epochs(hotkey, KEEP_EPOCHS).some((e) => e.weight > 0);
    return { uid: null, lost: was ? { uid: this.seenUid.get(hotkey) ?? null } : null, at: now };
  }

  /** Stored epochs with their τ, tokens and readable window, newest first. */
  private derive(hotkey: string, now: number): EpochEarnings[] {
    const stored: StoredEpoch[] = this.store.epochs(hotkey, KEEP_EPOCHS);
    const reads: ChainRead[] = this.store.chainReads(hotkey, now - 30 * 86_400_000);
    const asc = stored.map((e) => ({ ...e, startMs: toInstant(e.epochStart), endMs: toInstant(e.epochEnd) })).sort((a, b) => a.epochIndex - b.epochIndex);
    return asc
      .map((e, i) => {
        const next = asc[i + 1];
        const projected = projectTao(e, reads);
        const realised = realiseTao(e.endMs, next?.endMs ?? null, reads, now);
        return {
          ...e,
          projectedTao: projected.tao,
          projectedNote: projected.note,
          realisedTao: realised.tao,
          realisedNote: realised.note,
          realisedRunning: next === undefined,
          tokens: e.startMs !== null && e.endMs !== null ? this.local(e.startMs, e.endMs) : null,
        };
      })
      .reverse();
  }

  async refresh(now = Date.now()): Promise<EarningsSnapshot> {
    const cfg = this.cfg();
    const hotkey = cfg.hotkey();
    let error: string | null = null;
    if (hotkey) {
      const fetched = await fetchJsonCapped(`${cfg.providerUrl.replace(/\/$/, '')}/api/subnet/v1/epoch/latest`);
      if (fetched.ok) {
        this.provider.up(now);
        const { verifyPayload } = await payloadVerify();
        const v = verifyPayload(fetched.value, { masterHotkey: cfg.masterHotkey, netuid: cfg.netuid });
        if (v.ok) {
          this.store.saveEpoch(hotkey, epochEarnings(v, hotkey, cfg.ownerHotkey));
          // Fill the epochs published while the app was off or the provider was down.
          const known = new Set(this.store.epochs(hotkey, KEEP_EPOCHS).map((e) => e.epochIndex));
          const missing: number[] = [];
          for (let i = v.epochIndex - 1; i >= Math.max(0, v.epochIndex - BACKFILL_DEPTH) && missing.length < BACKFILL_PER_REFRESH; i--) if (!known.has(i)) missing.push(i);
          for (const i of missing) await this.fetchEpoch(cfg, hotkey, i).catch((e: unknown) => this.fetchErrors.set(i, describeNetworkError(e)));
        } else error = `The provider's latest epoch result was refused (${v.reason}): it is not shown. ${v.detail}`;
      } else if (fetched.error.kind === 'http' && fetched.error.status === 404) {
        // Reachable, nothing published yet (a new network, or before the first epoch closes).
        this.provider.up(now);
        error = 'The provider has not published an epoch result yet.';
      } else {
        const cause = providerCause(fetched.error);
        this.provider.down(now, cause);
        error = `The provider at ${cfg.providerUrl} could not be read: ${cause}. Epochs already verified are still shown, and it is asked again at the next refresh; if this lasts, check the connection or the provider address in Settings.`;
      }
    }
    let onChain = this.snap.onChain;
    let registration = this.snap.hotkey === hotkey ? this.snap.registration : null;
    if (hotkey) {
      let chain: EarningsChain | null = null;
      try {
        chain = await this.openChain();
        const n = await chain.neuron(cfg.netuid, hotkey);
        registration = this.registrationOf(hotkey, n.uid, now);
        if (n.uid !== null) {
          const f = await chain.earningsFacts(cfg.netuid, n.uid);
          const alpha = Number(f.emissionRao) / 1e9;
          const tao = alpha * f.alphaPriceTao;
          // Emission is per tempo: its seconds follow the chain's own pace (a local fast chain is not 12 s a block).
          const blockS = ((await readBlockTimeMs(chain)).ms ?? BLOCK_S * 1000) / 1000;
          const alphaPerSec = f.tempo > 0 ? alpha / (f.tempo * blockS) : 0;
          this.store.saveChainRead(hotkey, { at: now, alphaPerSec, poolAlphaPerSec: minerPoolAlphaPerSec(alphaPerSec, f.incentive, f.dividends), priceTao: f.alphaPriceTao });
          onChain = {
            block: f.block,
            uid: n.uid,
            tempo: f.tempo,
            incentive: f.incentive,
            emissionRao: f.emissionRao.toString(),
            alphaPriceTao: f.alphaPriceTao,
            emissionTao: tao,
            arithmetic: `${alpha.toFixed(6)} α emitted to uid ${n.uid} at the last chain epoch × ${f.alphaPriceTao.toFixed(6)} τ/α (SubnetTAO ÷ SubnetAlphaIn) = ${tao.toFixed(6)} τ`,
          };
        } else onChain = null;
        this.chainWatch.up(now);
      } catch (e) {
        const cause = describeChainError(e);
        this.chainWatch.down(now, cause);
        error =
          error ??
          `The chain at ${cfg.chainUrl ?? 'the chosen endpoint'} could not be read: ${cause}. On-chain emission is not shown until it answers; if this lasts, check the connection or choose another chain endpoint in Settings.`;
      } finally {
        await chain?.close().catch(() => undefined);
      }
    }
    const epochs = hotkey ? this.derive(hotkey, now) : [];
    const outages = [...this.provider.outages, ...this.chainWatch.outages].sort((a, b) => b.from - a.from);
    this.snap = {
      hotkey,
      epochs,
      onChain,
      registration,
      // Day and week lie inside the kept rows and all time reads whole days: none of the three can be null.
      local: { day: this.local(now - 86_400_000) ?? NO_TOKENS, week: this.local(now - 7 * 86_400_000) ?? NO_TOKENS, all: this.local(0) ?? NO_TOKENS },
      totals: { day: totalSince(epochs, now - 86_400_000), week: totalSince(epochs, now - 7 * 86_400_000), all: totalSince(epochs, 0) },
      estimatePerDay: estimatePerDay(epochs),
      gaps: findGaps(epochs, this.fetchErrors, outages),
      sources: { provider: this.provider.health, chain: this.chainWatch.health },
      outages,
      updatedAt: now,
      error,
    };
    this.changes.fire();
    return this.snap;
  }
}
