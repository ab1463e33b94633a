// Every rig in one panel (docs/fleet.md): the registry, one RigLink per rig, the Fleet snapshot, and
// start / stop / drain / start-engine per rig or for a selection. Links are independent: one rig that
// hangs, floods or lies only changes its own row.
import { randomBytes } from 'node:crypto';
import { AppFailure } from '../../../shared/errors.ts';
import { isRelayableMethod, type FleetSnapshot, type RigAction, type RigActionResult, type RigConfig, type RigRelayEvent } from '../../../shared/fleet.ts';
import { err, type Result } from '../../../shared/result.ts';
import { Emitter } from '../lib/emitter.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { Disposable } from '../lib/disposable.ts';
import type { Logger } from '../lib/logger.ts';
import { fleetSnapshot, rigAlerts, rigRow } from './fleet-row.ts';
import { DEFAULT_RIG_LIMITS, RigLink, type RigLinkLimits } from './rig-link.ts';
import { RigAlertTracker, type RigAlertEvent } from './rig-alerts.ts';
import { RigRelay } from './rig-relay.ts';
import type { RigNotification } from './rig-topics.ts';
import { fleetPaths, loadRigs, MAX_RIGS, saveRigs } from './rig-registry.ts';
import { checkRemotePath, parseRemoteCommand, parseRigTarget } from './rig-target.ts';
import type { SshTools } from './ssh.ts';

export interface FleetServiceOptions {
  /** The panel's data dir: rigs.json and known_hosts live in its fleet/ folder. */
  dataDir: string;
  log: Logger;
  clock?: Clock;
  /** ssh binaries and an ssh_config other than ~/.ssh/config (tests, or ENGY_FLEET_SSH_CONFIG). */
  tools?: Partial<Omit<SshTools, 'knownHosts'>>;
  limits?: Partial<RigLinkLimits>;
}

export interface AddRigRequest {
  target: string;
  name?: string | null;
  command?: string | null;
  dataDir?: string | null;
}

/** How long a drain waits for the rig's requests in flight to finish before stopping anyway. */
const DRAIN_LIMIT_MS = 15 * 60_000;
/** A window keeps a rig's full panel open by renewing its watch; one that went away stops costing after this. */
export const WATCH_LEASE_MS = 60_000;
/** A relayed invoke may start a serve or a registration on the rig: long, but never forever. */
const RELAYED_INVOKE_MS = 15 * 60_000;

export class FleetService implements Disposable {
  private rigs: RigConfig[];
  private readonly links = new Map<string, RigLink>();
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly paths: ReturnType<typeof fleetPaths>;
  private readonly tools: SshTools;
  private readonly clock: Clock;
  private readonly opts: FleetServiceOptions;
  private disposed = false;
  private readonly relayEvents = new Emitter<RigRelayEvent>();
  /** A watched rig's snapshots, logs and relay state, for the `rig` event. */
  readonly onRelay = this.relayEvents.event;
  private readonly alertEvents = new Emitter<RigAlertEvent>();
  /** Each alert a rig raises while the panel watches it, once (never the ones open when the panel first read the rig). */
  readonly onRigAlert = this.alertEvents.event;
  private readonly alertTracker = new RigAlertTracker();
  private readonly watches = new Map<string, { until: number; relay: RigRelay }>();
  private sweepTimer: unknown = null;

  constructor(opts: FleetServiceOptions) {
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    this.paths = fleetPaths(opts.dataDir);
    this.tools = {
      ssh: opts.tools?.ssh ?? 'ssh',
      keyscan: opts.tools?.keyscan ?? 'ssh-keyscan',
      keygen: opts.tools?.keygen ?? 'ssh-keygen',
      configFile: opts.tools?.configFile ?? null,
      knownHosts: this.paths.knownHosts,
    };
    this.rigs = loadRigs(this.paths.rigs, (m) => opts.log.warn(m));
    for (const r of this.rigs) this.startLink(r);
  }

  private startLink(cfg: RigConfig): void {
    const link = new RigLink({
      config: cfg,
      tools: this.tools,
      clock: this.clock,
      log: this.opts.log,
      onChange: () => {
        this.changes.fire();
        // A watched rig that came (back) online gets its relay (re)opened.
        this.watches.get(cfg.id)?.relay.ensure();
      },
      onNotifications: (rig, recent, rigWebhook) => this.rigNotifications(rig, recent, rigWebhook),
      ...(this.opts.limits ? { limits: this.opts.limits } : {}),
    });
    this.links.set(cfg.id, link);
    link.start();
  }

  snapshot(): FleetSnapshot {
    const rows = [];
    const alerts = [];
    for (const cfg of this.rigs) {
      const link = this.links.get(cfg.id);
      if (!link) continue;
      const view = link.view();
      rows.push(rigRow(cfg, view));
      alerts.push(...rigAlerts(cfg, view));
    }
    return fleetSnapshot(rows, alerts);
  }

  list(): RigConfig[] {
    return [...this.rigs];
  }

  /** For tests and the bench: a rig's link by id. */
  link(id: string): RigLink | undefined {
    return this.links.get(id);
  }

  add(req: AddRigRequest): RigConfig {
    if (this.rigs.length >= MAX_RIGS) throw new AppFailure('conflict', `The panel holds at most ${MAX_RIGS} rigs: remove one first.`);
    const addr = parseRigTarget(req.target);
    const target = req.target.trim();
    const command = (req.command ?? '').trim() || 'engy-panel';
    parseRemoteCommand(command);
    const dataDir = req.dataDir?.trim() ? checkRemotePath(req.dataDir) : null;
    const name = (req.name ?? '').trim() || addr.destination.replace(/^.*@/, '') + (addr.port !== null ? `:${addr.port}` : '');
    if (name.length > 64 || [...name].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127))
      throw new AppFailure('bad-request', 'A rig name is at most 64 characters without control characters.');
    if (this.rigs.some((r) => r.name === name)) throw new AppFailure('conflict', `A rig is already named ${name}: give this one another name, so nobody stops the wrong rig.`);
    if (this.rigs.some((r) => r.target === target && r.dataDir === dataDir)) throw new AppFailure('conflict', `${target} is already in the fleet.`);
    const cfg: RigConfig = { id: randomBytes(6).toString('hex'), name, target, command, dataDir };
    this.rigs = [...this.rigs, cfg];
    saveRigs(this.paths.rigs, this.rigs);
    this.opts.log.info(`rig added: ${name} (${target})`);
    this.startLink(cfg);
    this.changes.fire();
    return cfg;
  }

  private find(id: string): { cfg: RigConfig; link: RigLink } {
    const cfg = this.rigs.find((r) => r.id === id);
    const link = this.links.get(id);
    if (!cfg || !link) throw new AppFailure('not-found', 'That rig is no longer in the fleet: reload the Fleet page.');
    return { cfg, link };
  }

  remove(id: string): void {
    const { cfg, link } = this.find(id);
    this.unwatch(id);
    this.alertTracker.forget(id);
    link.dispose();
    this.links.delete(id);
    this.rigs = this.rigs.filter((r) => r.id !== id);
    saveRigs(this.paths.rigs, this.rigs);
    this.opts.log.info(`rig removed: ${cfg.name}`);
    this.changes.fire();
  }

  async acceptHostKey(id: string, fingerprints: readonly string[]): Promise<void> {
    await this.find(id).link.acceptHostKey(fingerprints);
  }

  retry(id: string): void {
    this.find(id).link.retryNow();
  }

  /**
   * Keeps the rig's full panel open for WATCH_LEASE_MS more: a relay to its engine forwards its
   * snapshots and logs as `rig` events (the first open replays every current snapshot). `fresh`: a
   * window that just opened the rig gets a new relay, so the rig's replay refills its store.
   */
  watch(id: string, fresh = false): void {
    const { cfg, link } = this.find(id);
    if (fresh) this.unwatch(id);
    let w = this.watches.get(id);
    if (!w) {
      const limits = { ...DEFAULT_RIG_LIMITS, ...this.opts.limits };
      const relay = new RigRelay({
        rigId: id,
        name: cfg.name,
        access: () => link.relayAccess(),
        emit: (ev) => this.relayEvents.fire(ev),
        clock: this.clock,
        maxFrameBytes: limits.maxFrameBytes,
        connectTimeoutMs: limits.invokeTimeoutMs,
      });
      w = { until: 0, relay };
      this.watches.set(id, w);
      this.opts.log.info(`${cfg.name}: its full panel was opened`);
    }
    w.until = this.clock.now() + WATCH_LEASE_MS;
    w.relay.ensure();
    this.scheduleSweep();
  }

  /** Rigs whose full panel is open now (tests and the bench). */
  watched(): string[] {
    return [...this.watches.keys()];
  }

  private unwatch(id: string): void {
    const w = this.watches.get(id);
    if (!w) return;
    this.watches.delete(id);
    w.relay.close();
  }

  private scheduleSweep(): void {
    if (this.sweepTimer !== null || this.disposed) return;
    this.sweepTimer = this.clock.setTimeout(() => {
      this.sweepTimer = null;
      const now = this.clock.now();
      for (const [id, w] of [...this.watches]) if (w.until <= now) this.unwatch(id);
      if (this.watches.size > 0) this.scheduleSweep();
    }, WATCH_LEASE_MS / 4);
  }

  /** One invoke on a rig's engine for its full panel: over its relay when open, else over the row's link. */
  async rigInvoke(id: string, method: string, req: unknown): Promise<Result<unknown>> {
    if (!isRelayableMethod(method)) return err('bad-request', `${method} is the panel's own action: it is not sent to a rig.`);
    const { link } = this.find(id);
    const relay = this.watches.get(id)?.relay;
    return relay?.open ? relay.invoke(method, req, RELAYED_INVOKE_MS) : link.invoke(method, req, RELAYED_INVOKE_MS);
  }

  /** New alerts only, once each (RigAlertTracker says which). */
  private rigNotifications(cfg: RigConfig, recent: readonly RigNotification[], rigWebhook: boolean | null): void {
    for (const ev of this.alertTracker.take(cfg, recent, rigWebhook)) this.alertEvents.fire(ev);
  }

  /** One action on several rigs at once, each on its own: one rig failing never holds the others. */
  async control(ids: readonly string[], action: RigAction): Promise<RigActionResult[]> {
    const unique = [...new Set(ids)];
    for (const id of unique) this.find(id);
    return Promise.all(unique.map((id) => this.controlOne(id, action)));
  }

  private async controlOne(id: string, action: RigAction): Promise<RigActionResult> {
    const { cfg, link } = this.find(id);
    const done = (ok: boolean, message: string): RigActionResult => {
      this.opts.log.info(`${cfg.name}: ${action}: ${message}`);
      return { id, name: cfg.name, ok, message };
    };
    const validator = link.view().topics.settings?.role === 'validate';
    if (action === 'start-engine') {
      const r = await link.runRemote(['service', 'start', '--role', validator ? 'validator' : 'miner']);
      if (r.ok) link.retryNow();
      return done(r.ok, r.message);
    }
    if (action === 'drain' && !validator) {
      void this.drain(cfg, link);
      const inflight = (link.view().topics.miners ?? []).reduce((s, m) => s + m.stats.inflight, 0);
      return done(true, `${cfg.name} stops once its ${inflight} request${inflight === 1 ? '' : 's'} in flight finish.`);
    }
    const method = action === 'start' ? (validator ? 'validator.start' : 'mining.start') : validator ? 'validator.stop' : 'mining.stop';
    const r = await link.invoke(method, null, 60_000);
    return r.ok ? done(true, `${cfg.name}: ${action === 'start' ? 'started' : 'stopped'}.`) : done(false, r.error.message);
  }

  /** Waits (from the rig's own miner snapshots) until nothing is in flight, then stops it. */
  private async drain(cfg: RigConfig, link: RigLink): Promise<void> {
    const until = this.clock.now() + DRAIN_LIMIT_MS;
    const busy = () => (link.view().topics.miners ?? []).some((m) => m.stats.inflight > 0);
    while (busy() && this.clock.now() < until && !this.disposed) await new Promise((r) => this.clock.setTimeout(() => r(null), 1000));
    if (this.disposed) return;
    const r = await link.invoke('mining.stop', null, 60_000);
    if (r.ok) this.opts.log.info(`${cfg.name}: drained and stopped`);
    else this.opts.log.warn(`${cfg.name}: drain could not stop the miner: ${r.error.message}`);
  }

  dispose(): void {
    this.disposed = true;
    if (this.sweepTimer !== null) this.clock.clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    for (const id of [...this.watches.keys()]) this.unwatch(id);
    for (const l of this.links.values()) l.dispose();
    this.links.clear();
  }
}
