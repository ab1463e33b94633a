// Runs the light validator from the user's settings: the wallet hotkey signs, a fresh chain
// connection per tick, history in the shared database.
import type { ValidatorSnapshot } from '../../../shared/validator.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { ChainPort } from '../chain/ports.ts';
import { Emitter } from '../lib/emitter.ts';
import type { LogHub } from '../lib/logger.ts';
import type { DataPaths } from '../lib/paths.ts';
import type { SettingsStore } from '../settings/settings-store.ts';
import type { Database } from '../store/database.ts';
import { SqliteValidatorHistory } from '../validator/history.ts';
import type { ValidatorService } from '../validator/validator-service.ts';
import type { TickReport } from '../validator/tick.ts';

export interface ValidatingControllerDeps {
  settings: SettingsStore;
  logs: LogHub;
  db: Database;
  paths: DataPaths;
  version: string;
  openChain: (url: string) => Promise<ChainPort>;
  /** Start's gate: refuses with every pre-flight blocker (compose passes the PreflightService). */
  preflight?: { gate(role: 'validate'): Promise<unknown> };
}

export class ValidatingController {
  private service: ValidatorService | null = null;
  private sub: { dispose(): void | Promise<void> } | null = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly ticks = new Emitter<TickReport>();
  /** Every finished tick of the running validator (the health lines read reachability from it). */
  readonly onDidTick = this.ticks.event;
  private readonly d: ValidatingControllerDeps;

  constructor(d: ValidatingControllerDeps) {
    this.d = d;
  }

  snapshot(): ValidatorSnapshot | null {
    return this.service?.snapshot() ?? null;
  }

  get running(): boolean {
    return this.service !== null;
  }

  async start(): Promise<void> {
    if (this.service) return;
    await this.d.preflight?.gate('validate');
    if (this.service) return;
    const s = this.d.settings.get();
    if (s.role !== 'validate' && s.role !== 'both') throw new AppFailure('bad-request', 'Choose the Validate (or Both) role in Setup first.');
    if (!s.wallet.name || !s.wallet.hotkey) throw new AppFailure('wallet-not-found', 'Pick the wallet and hotkey the validator signs with (Setup > Hotkey).');
    // The validator (commit-reveal, timelock, polkadot-js) is loaded when first started, never by an idle engine.
    const [{ loadHotkeySigner }, { ValidatorService }, { defaultStatePath }] = await Promise.all([
      import('../wallet/hotkey-signer.ts'),
      import('../validator/validator-service.ts'),
      import('../validator/daemon-config.ts'),
    ]);
    if (this.service) return;
    let signer;
    try {
      signer = await loadHotkeySigner({ ...(s.wallet.path ? { walletPath: s.wallet.path } : {}), wallet: s.wallet.name, hotkey: s.wallet.hotkey, redactor: this.d.logs.redactor });
    } catch (e) {
      throw new AppFailure('wallet-not-found', `The hotkey ${s.wallet.name}/${s.wallet.hotkey} could not be loaded: ${(e as Error).message}`);
    }
    const v = s.validating;
    const service = new ValidatorService({
      config: { providerUrl: v.providerUrl, masterHotkey: v.masterHotkey, netuid: v.netuid, statePath: defaultStatePath(this.d.paths.root), resubmitBlocks: v.resubmitBlocks },
      signer,
      openChain: () => this.d.openChain(v.chainUrl),
      history: new SqliteValidatorHistory(this.d.db),
      logger: this.d.logs.logger('validator'),
      pollMs: v.pollSeconds * 1000,
      version: this.d.version,
    });
    this.service = service;
    const subs = [service.onDidChange(() => this.changes.fire()), service.onDidTick((r) => this.ticks.fire(r))];
    this.sub = { dispose: async () => void (await Promise.all(subs.map((d) => d.dispose()))) };
    service.start();
    this.changes.fire();
  }

  async stop(): Promise<void> {
    const service = this.service;
    if (!service) return;
    this.service = null;
    await service.dispose();
    await this.sub?.dispose();
    this.sub = null;
    this.changes.fire();
  }

  dispose(): Promise<void> {
    return this.stop();
  }
}
