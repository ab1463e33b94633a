// Earnings for my hotkey: the verified epoch results from the provider (projected share), the
// chain's emission at the current alpha price (realised), and the tokens this rig served.
import type { EarningsSnapshot, EpochEarnings, LocalTokens } from '../../../shared/earnings.ts';
import type { EarningsFacts, NeuronFacts } from '../chain/ports.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Logger } from '../lib/logger.ts';
import type { Database } from '../store/database.ts';
import { MINER_MIGRATIONS } from '../miner/request-records.ts';
import { fetchJsonCapped } from '../validator/payload-fetch.ts';
import { verifyPayload } from '../validator/payload-verify.ts';
import { epochEarnings } from './epoch-row.ts';

export interface EarningsChain {
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
}

const EMPTY: LocalTokens = { requests: 0, promptTokens: 0, completionTokens: 0 };
const KEEP_EPOCHS = 60;

export class EarningsService {
  private snap: EarningsSnapshot = { hotkey: null, epochs: [], onChain: null, local: { day: EMPTY, week: EMPTY, all: EMPTY }, updatedAt: null, error: null };
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private timer: ReturnType<typeof setTimeout> | null = null;
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
  }

  snapshot(): EarningsSnapshot {
    return this.snap;
  }

  /** Refreshes now and then every `everyMs`, chained so two refreshes never overlap. */
  start(everyMs: number): void {
    const loop = async () => {
      await this.refresh().catch((e: unknown) => this.log.warn(`earnings refresh failed: ${(e as Error).message}`));
      this.timer = setTimeout(() => void loop(), everyMs);
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

  private local(sinceMs: number): LocalTokens {
    const r = this.db.db
      .prepare("SELECT COUNT(*) AS n, COALESCE(SUM(prompt_tokens),0) AS p, COALESCE(SUM(completion_tokens),0) AS c FROM miner_requests WHERE outcome = 'ok' AND received_at >= ?")
      .get(sinceMs) as { n: number; p: number; c: number };
    return { requests: r.n, promptTokens: r.p, completionTokens: r.c };
  }

  async refresh(now = Date.now()): Promise<EarningsSnapshot> {
    const cfg = this.cfg();
    const hotkey = cfg.hotkey();
    let error: string | null = null;
    const epochs = new Map<number, EpochEarnings>(this.snap.epochs.map((e) => [e.epochIndex, e]));
    if (hotkey) {
      const fetched = await fetchJsonCapped(`${cfg.providerUrl.replace(/\/$/, '')}/api/subnet/v1/epoch/latest`);
      if (fetched.ok) {
        const v = verifyPayload(fetched.value, { masterHotkey: cfg.masterHotkey, netuid: cfg.netuid });
        if (v.ok) epochs.set(v.epochIndex, epochEarnings(v, hotkey, cfg.ownerHotkey));
        else error = `The provider's latest epoch result was refused (${v.reason}): it is not shown. ${v.detail}`;
      } else error = `The provider could not be read (${fetched.error.message}); epochs already verified are still shown.`;
    }
    let onChain = this.snap.onChain;
    if (hotkey) {
      let chain: EarningsChain | null = null;
      try {
        chain = await this.openChain();
        const n = await chain.neuron(cfg.netuid, hotkey);
        if (n.uid !== null) {
          const f = await chain.earningsFacts(cfg.netuid, n.uid);
          const alpha = Number(f.emissionRao) / 1e9;
          const tao = alpha * f.alphaPriceTao;
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
      } catch (e) {
        error = error ?? `The chain could not be read (${(e as Error).message}); on-chain emission is not shown.`;
      } finally {
        await chain?.close().catch(() => undefined);
      }
    }
    const sorted = [...epochs.values()].sort((a, b) => b.epochIndex - a.epochIndex).slice(0, KEEP_EPOCHS);
    this.snap = {
      hotkey,
      epochs: sorted,
      onChain,
      local: { day: this.local(now - 86_400_000), week: this.local(now - 7 * 86_400_000), all: this.local(0) },
      updatedAt: now,
      error,
    };
    this.changes.fire();
    return this.snap;
  }
}
