// The light validator as a service: a chained-timeout loop of ticks (never overlapping), a watchdog
// that restarts a wedged loop, the best-effort provider heartbeat after every tick, and an immutable
// snapshot for the UI with a rising version.
import type { ChainPort, KeySigner } from '../chain/ports.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Disposable } from '../lib/disposable.ts';
import type { Logger } from '../lib/logger.ts';
import type { ValidatorSnapshot, ValidatorStatus } from '../../../shared/validator.ts';
import { stallLimitMs } from './constants.ts';
import { postHeartbeat, type HeartbeatResult } from './heartbeat.ts';
import type { ValidatorHistory } from './history.ts';
import type { FetchFn } from '../lib/fetch.ts';
import { estimateBlockMs, minutesText, type BlockObservation, type BlockTime } from './schedule.ts';
import { readState } from './state-file.ts';
import { commitRevealView } from './commit-reveal.ts';
import { commitStorePath, readCommitStore } from './commit-reveal-store.ts';
import { blankReport, runTick, type TickConfig, type TickReport } from './tick.ts';
import { errorMessage } from '../../../shared/errors.ts';

export interface ValidatorServiceOptions {
  config: TickConfig;
  signer: KeySigner;
  /** Opens a fresh chain connection; the service closes it after each tick that used it. */
  openChain: () => Promise<ChainPort>;
  history: ValidatorHistory;
  logger: Logger;
  pollMs: number;
  /** Version string sent in the heartbeat. */
  version: string;
  fetch?: FetchFn;
  clock?: Clock;
  /** Default max(3 x poll, 900 s). */
  stallMs?: number;
  /** How often the watchdog looks; default 30 s. */
  watchdogCheckMs?: number;
  /** Send the provider heartbeat after each tick (default true). */
  heartbeat?: boolean;
  recentLimit?: number;
}

export class ValidatorService implements Disposable {
  private readonly opts: ValidatorServiceOptions;
  private readonly clock: Clock;
  private readonly changes = new Emitter<ValidatorSnapshot>();
  readonly onDidChange = this.changes.event;
  private readonly tickDone = new Emitter<TickReport>();
  /** Fires after each completed tick (tests and the daemon's log use it). */
  readonly onDidTick = this.tickDone.event;
  private snap: ValidatorSnapshot;
  private status: ValidatorStatus = 'stopped';
  private loopTimer: unknown = undefined;
  private watchdogTimer: unknown = undefined;
  private generation = 0;
  /** The tick running now: never two at once, a second could submit the same vector twice. */
  private inFlight: Promise<TickReport> | null = null;
  private pendingHeartbeats = new Set<Promise<HeartbeatResult>>();
  private lastCompletedMs: number | null = null;
  private loopStartedMs = 0;
  private knownRateLimit: number | null = null;
  /** Measured by the ticks that reach the chain; a fresh process knows nothing and measures first. */
  private blockTime: BlockTime = { ms: null, unreadable: false };
  private lastObservation: BlockObservation | null = null;
  private recentBlockMs: number[] = [];
  private openChains = new Set<ChainPort>();

  constructor(opts: ValidatorServiceOptions) {
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    const { state } = readState(opts.config.statePath);
    this.snap = {
      version: 0,
      status: 'stopped',
      failure: null,
      hotkey: opts.signer.address,
      netuid: opts.config.netuid,
      providerUrl: opts.config.providerUrl,
      masterHotkey: opts.config.masterHotkey,
      lastVerified: null,
      applied: state.lastApplied === null ? null : { epochIndex: state.lastApplied, block: state.lastSubmitBlock, at: state.lastSubmitMs, digest: state.cachedDigest },
      nextResubmit: null,
      chain: { health: 'unknown', block: null, error: null, at: null },
      provider: { health: 'unknown', error: null, at: null },
      neuron: null,
      warnings: [],
      lastTickAt: null,
      watchdogRestarts: 0,
      recentTicks: opts.history.recentTicks(opts.recentLimit ?? 50),
      recentSubmissions: opts.history.recentSubmissions(opts.recentLimit ?? 50),
      commitReveal: commitRevealView(null, null, readCommitStore(commitStorePath(opts.config.statePath)).store),
    };
  }

  snapshot(): ValidatorSnapshot {
    return this.snap;
  }

  start(): void {
    if (this.status === 'running' || this.status === 'starting') return;
    this.setStatus('running');
    this.loopStartedMs = this.clock.now();
    this.opts.logger.info(`[validator] hotkey=${this.opts.signer.address} api=${this.opts.config.providerUrl} netuid=${this.opts.config.netuid} master=${this.opts.config.masterHotkey}`);
    this.opts.logger.info(`[health] stall limit ${Math.round(this.stallMs() / 1000)} s`);
    this.scheduleLoop(0);
    this.armWatchdog();
  }

  /** Run one tick now, outside the timer (the UI's "check now", and tests). */
  async runOnce(): Promise<TickReport> {
    return this.tickGuarded(this.generation);
  }

  async stop(): Promise<void> {
    if (this.status === 'stopped') return;
    this.setStatus('stopping');
    this.generation++;
    this.clock.clearTimeout(this.loopTimer);
    this.clock.clearTimeout(this.watchdogTimer);
    // A wedged tick must not hold the stop hostage: wait a little, then let it go.
    if (this.inFlight) await Promise.race([this.inFlight.catch(() => {}), new Promise((r) => this.clock.setTimeout(() => r(undefined), 5_000))]);
    await Promise.allSettled([...this.pendingHeartbeats]);
    await this.closeChains();
    this.setStatus('stopped');
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.changes.clear();
    this.tickDone.clear();
  }

  private stallMs(): number {
    return this.opts.stallMs ?? stallLimitMs(this.opts.pollMs);
  }

  private scheduleLoop(delayMs: number): void {
    const gen = this.generation;
    this.clock.clearTimeout(this.loopTimer);
    this.loopTimer = this.clock.setTimeout(() => {
      void this.tickGuarded(gen).finally(() => {
        if (gen === this.generation && this.status === 'running') this.scheduleLoop(this.opts.pollMs);
      });
    }, delayMs);
  }

  private armWatchdog(): void {
    this.clock.clearTimeout(this.watchdogTimer);
    this.watchdogTimer = this.clock.setTimeout(() => {
      if (this.status !== 'running') return;
      const since = this.lastCompletedMs ?? this.loopStartedMs;
      const age = this.clock.now() - since;
      if (age > this.stallMs()) this.restartWedgedLoop(age);
      this.armWatchdog();
    }, this.opts.watchdogCheckMs ?? 30_000);
  }

  private restartWedgedLoop(ageMs: number): void {
    this.opts.logger.error(`[health] no completed tick in ${Math.round(ageMs / 1000)} s (limit ${Math.round(this.stallMs() / 1000)} s): restarting the loop`);
    // The wedged tick keeps its old generation, so when (if) it returns it schedules nothing.
    this.generation++;
    this.inFlight = null;
    this.loopStartedMs = this.clock.now();
    void this.closeChains();
    this.snap = { ...this.snap, watchdogRestarts: this.snap.watchdogRestarts + 1 };
    this.publish();
    this.scheduleLoop(0);
  }

  private async closeChains(): Promise<void> {
    const chains = [...this.openChains];
    this.openChains.clear();
    // A shared connection's close() only returns the lease: the wedged connection must go for everyone.
    await Promise.allSettled(chains.map((c) => (c.discard ? c.discard() : c.close())));
  }

  private tickGuarded(gen: number): Promise<TickReport> {
    if (this.inFlight) return this.inFlight;
    const p = this.tickBody(gen).finally(() => {
      if (this.inFlight === p) this.inFlight = null;
    });
    this.inFlight = p;
    return p;
  }

  private async tickBody(gen: number): Promise<TickReport> {
    const opened: ChainPort[] = [];
    const run = runTick(this.opts.config, {
      openChain: async () => {
        const c = await this.opts.openChain();
        opened.push(c);
        this.openChains.add(c);
        return c;
      },
      signer: this.opts.signer,
      fetch: this.opts.fetch,
      now: () => this.clock.now(),
      logger: this.opts.logger,
      knownRateLimit: this.knownRateLimit,
      blockTime: this.blockTime,
      lastObservation: this.lastObservation,
    }).catch((e: unknown): TickReport => {
      const { state } = readState(this.opts.config.statePath);
      const msg = errorMessage(e);
      this.opts.logger.error(`[tick] error: ${msg}`);
      return blankReport(this.clock.now(), state, this.opts.config.resubmitBlocks, `the tick failed: ${msg}`);
    });
    const report = await run;
    // Close what this tick opened: the next tick that needs the chain opens it again (the pre-gate's point).
    for (const c of opened) {
      this.openChains.delete(c);
      await c.close().catch(() => {});
    }
    if (gen !== this.generation && this.status === 'running') return report; // a tick the watchdog gave up on
    this.lastCompletedMs = this.clock.now();
    this.absorb(report);
    // Every tick says when the loop looks again, so a quiet log is itself a symptom.
    const next = this.status === 'running' ? ` (next check in ${minutesText(this.opts.pollMs)})` : '';
    this.opts.logger.info(`[tick] ${report.tick.outcome}: ${report.tick.detail}${next}`);
    if (this.opts.heartbeat !== false) this.sendHeartbeat(report);
    this.tickDone.fire(report);
    return report;
  }

  private sendHeartbeat(report: TickReport): void {
    // Reports what is on chain (the state), not what was just fetched.
    const p = postHeartbeat({
      apiBase: this.opts.config.providerUrl,
      signer: this.opts.signer,
      netuid: this.opts.config.netuid,
      version: this.opts.version,
      syncedEpoch: report.state.lastApplied,
      digest: report.state.cachedDigest,
      nowMs: this.clock.now(),
      fetch: this.opts.fetch,
    });
    this.pendingHeartbeats.add(p);
    void p.then((r) => {
      this.pendingHeartbeats.delete(p);
      if (!r.ok) this.opts.logger.debug(`[heartbeat] ${r.error ?? 'failed'}`);
    });
  }

  private absorb(r: TickReport): void {
    const limit = this.opts.recentLimit ?? 50;
    this.opts.history.recordTick(r.tick);
    if (r.submission) this.opts.history.recordSubmission(r.submission);
    if (r.facts) this.knownRateLimit = r.facts.weightsRateLimit;
    if (typeof r.blockMs === 'number') {
      // The fastest of the last few measurements: a pre-gate that over-estimates the block time
      // submits late, one that under-estimates only looks at the chain a little early.
      this.recentBlockMs = [...this.recentBlockMs.slice(-4), r.blockMs];
      this.blockTime = { ms: Math.min(...this.recentBlockMs), unreadable: false };
    }
    // Not readable this time: a value measured before still holds; never measured, the next tick reads again.
    else if (r.blockMs === 'unreadable' && this.blockTime.ms === null) this.blockTime = { ms: null, unreadable: false };
    else if (r.blockMs === 'not-offered') this.blockTime = { ms: null, unreadable: true };
    if (r.chain.block !== null) this.lastObservation = { block: r.chain.block, atMs: r.tick.at, lastSubmitBlock: r.state.lastSubmitBlock };
    const s = r.state;
    const at = r.tick.at;
    const chainBlock = r.chain.block ?? this.snap.chain.block;
    const n = r.neuron ?? null;
    const cutoff = r.facts?.activityCutoff ?? this.snap.neuron?.activityCutoff ?? null;
    this.snap = {
      ...this.snap,
      lastVerified: r.verified ? { ...r.verified, at } : this.snap.lastVerified,
      applied: s.lastApplied === null ? null : { epochIndex: s.lastApplied, block: s.lastSubmitBlock, at: s.lastSubmitMs, digest: s.cachedDigest },
      nextResubmit:
        s.lastApplied === null
          ? null
          : {
              block: s.lastSubmitBlock === null ? null : s.lastSubmitBlock + r.intervalBlocks,
              at: s.lastSubmitMs === null ? null : s.lastSubmitMs + r.intervalBlocks * estimateBlockMs(this.blockTime),
            },
      chain: r.chain.contacted ? { health: r.chain.ok ? 'ok' : 'down', block: chainBlock, error: r.chain.error, at } : this.snap.chain,
      provider: { health: r.provider.ok ? 'ok' : 'down', error: r.provider.error, at },
      neuron: n
        ? {
            uid: n.uid,
            validatorPermit: n.validatorPermit,
            stakeRao: n.stakeRao.toString(),
            lastUpdate: n.lastUpdate,
            blocksSinceUpdate: n.lastUpdate !== null && chainBlock !== null ? chainBlock - n.lastUpdate : null,
            activityCutoff: cutoff,
          }
        : this.snap.neuron,
      warnings: r.chain.contacted ? r.warnings : [...new Set([...r.warnings, ...this.snap.warnings])],
      lastTickAt: at,
      recentTicks: this.opts.history.recentTicks(limit),
      recentSubmissions: this.opts.history.recentSubmissions(limit),
      ...(r.commitReveal ? { commitReveal: r.commitReveal } : {}),
    };
    if (this.snap.neuron && this.snap.neuron.blocksSinceUpdate !== null && cutoff !== null && this.snap.neuron.blocksSinceUpdate > cutoff) {
      this.snap.warnings = [
        ...this.snap.warnings,
        `the last weights update was ${this.snap.neuron.blocksSinceUpdate} blocks ago, past the activity cutoff of ${cutoff}: the chain counts this validator as inactive`,
      ];
    }
    this.publish();
  }

  private setStatus(status: ValidatorStatus): void {
    this.status = status;
    this.snap = { ...this.snap, status };
    this.publish();
  }

  private publish(): void {
    this.snap = { ...this.snap, version: this.snap.version + 1 };
    this.changes.fire(this.snap);
  }
}
