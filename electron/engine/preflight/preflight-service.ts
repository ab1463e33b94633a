// Gathers the facts the pre-flight checks read (snapshots the engine already has, plus what only
// this service measures: sglang detection and free disk), publishes both roles' checklists, and is
// the gate Start goes through: it re-checks what can go stale, then refuses with every blocker.
import type { WalletView } from '../../../shared/api.ts';
import { AppFailure, errorMessage } from '../../../shared/errors.ts';
import type { HardwareReport } from '../../../shared/hardware.ts';
import { blockerSentence, type PreflightReport, type PreflightSnapshot } from '../../../shared/preflight.ts';
import type { CheckpointSnapshot, RuntimeReport } from '../../../shared/serve.ts';
import type { Settings } from '../../../shared/settings.ts';
import type { CheckpointFolderVerdict } from '../../../shared/sglang-setup.ts';
import type { Disposable } from '../lib/disposable.ts';
import { Emitter } from '../lib/emitter.ts';
import type { Logger } from '../lib/logger.ts';
import { mineChecks, report, validateChecks, type PreflightFacts } from './checks.ts';

type Event = (listener: () => void) => Disposable;

export interface PreflightDeps {
  settings: { get(): Settings; onDidChange: Event };
  hardware: { snapshot(): HardwareReport | null; onDidChange: Event };
  wallet: { snapshot(): WalletView; refreshRegistration(): Promise<unknown>; onDidChange: Event };
  checkpoint: { snapshot(): CheckpointSnapshot | null; onDidChange: Event };
  checkpointDir: () => string;
  /** Looks at the checkpoint folder again (files copied in by hand, or the first look not finished yet). */
  refreshCheckpoint?: () => Promise<unknown>;
  detectRuntimes: () => Promise<RuntimeReport>;
  /** Room in a checkpoint folder for what is still to download (folder-space.ts's checkFolderSpace). */
  space: (dir: string) => CheckpointFolderVerdict;
  /** The chosen hotkey's address; throws with a plain message when its files cannot be read. */
  hotkeyAddress: (w: Settings['wallet']) => string;
  log: Logger;
  now?: () => number;
  /** How long Start waits for the chain to answer the registration check. */
  registrationTimeoutMs?: number;
}

export class PreflightService implements Disposable {
  private runtimes: RuntimeReport | null = null;
  private runtimesFor: string | null = null;
  private disk: PreflightFacts['disk'] = null;
  private hotkeyKey = '';
  private hotkey: { address: string | null; problem: string | null } = { address: null, problem: null };
  /** The hotkey whose registration this service already asked the chain about (once per hotkey). */
  private registrationAskedFor: string | null = null;
  private asking: { address: string; done: Promise<void> } | null = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly subs: Disposable[];
  private readonly d: PreflightDeps;
  private disposed = false;

  constructor(d: PreflightDeps) {
    this.d = d;
    const changed = () => {
      this.changes.fire();
      this.background();
    };
    // A wallet change may be the chosen hotkey's files appearing (created or imported): read them again.
    const walletChanged = () => {
      this.hotkeyKey = '';
      changed();
    };
    this.subs = [d.settings.onDidChange(changed), d.hardware.onDidChange(changed), d.wallet.onDidChange(walletChanged), d.checkpoint.onDidChange(changed)];
    this.background();
  }

  snapshot(): PreflightSnapshot {
    const f = this.facts();
    const at = (this.d.now ?? Date.now)();
    return { mine: report('mine', mineChecks(f), at), validate: report('validate', validateChecks(f), at) };
  }

  /**
   * Start's gate: sglang, free space and registration are looked at again (each may have changed
   * outside the panel), then the checklist decides. Refuses with every blocker in one sentence.
   */
  async gate(role: 'mine' | 'validate'): Promise<PreflightReport> {
    if (role === 'mine') {
      const c = this.d.checkpoint.snapshot()?.state;
      const settle = c === 'complete' || c === 'downloading' || c === 'listing' ? Promise.resolve() : (this.d.refreshCheckpoint?.() ?? Promise.resolve());
      await Promise.all([this.detect(true), this.measureDisk(true), settle.catch(() => undefined)]);
    }
    const pick = () => (role === 'mine' ? this.snapshot().mine : this.snapshot().validate);
    // The chain is the slow part: ask it only when nothing local blocks already (it keeps checking in the background).
    const local = pick();
    if (local.checks.every((c) => c.state === 'ok' || c.id === 'registration' || c.id === 'permit')) await this.askRegistration(true);
    const r = pick();
    if (!r.ready)
      throw new AppFailure(
        'preflight-blocked',
        blockerSentence(r),
        r.checks
          .filter((c) => c.state !== 'ok')
          .map((c) => c.id)
          .join(','),
      );
    return r;
  }

  private facts(): PreflightFacts {
    const s = this.d.settings.get();
    const w = this.d.wallet.snapshot();
    this.readHotkey(s.wallet);
    return {
      settings: s,
      hardware: this.d.hardware.snapshot(),
      runtimes: this.runtimesFor === this.runtimeKey(s) ? this.runtimes : null,
      checkpoint: this.d.checkpoint.snapshot(),
      hotkeyAddress: this.hotkey.address,
      hotkeyProblem: this.hotkey.problem,
      registration: w.registration,
      registrationError: w.registrationError,
      minerKey: w.minerKey,
      minerKeyVerification: w.minerKeyCheck ?? null,
      disk: this.disk,
    };
  }

  private readHotkey(w: Settings['wallet']): void {
    const key = `${w.path ?? ''}\0${w.name ?? ''}\0${w.hotkey ?? ''}`;
    if (key === this.hotkeyKey) return;
    this.hotkeyKey = key;
    if (!w.name || !w.hotkey) {
      this.hotkey = { address: null, problem: null };
      return;
    }
    try {
      this.hotkey = { address: this.d.hotkeyAddress(w), problem: null };
    } catch (e) {
      this.hotkey = { address: null, problem: errorMessage(e) };
    }
  }

  private runtimeKey(s: Settings): string | null {
    return s.mining.runtime === 'python' || s.mining.runtime === 'docker' ? s.mining.runtime : null;
  }

  /** What can go stale on its own is refreshed in the background after each change. */
  private background(): void {
    if (this.disposed) return;
    void this.detect(false);
    void this.measureDisk();
    void this.askRegistration(false);
  }

  private detecting: Promise<void> | null = null;
  private async detect(force: boolean): Promise<void> {
    const key = this.runtimeKey(this.d.settings.get());
    if (key === null || (!force && this.runtimesFor === key)) return;
    if (this.detecting) return this.detecting;
    this.detecting = this.d
      .detectRuntimes()
      .then((r) => {
        this.runtimes = r;
        this.runtimesFor = key;
        this.changes.fire();
      })
      .catch((e: unknown) => this.d.log.warn(`pre-flight: sglang detection failed: ${errorMessage(e)}`))
      .finally(() => {
        this.detecting = null;
      });
    return this.detecting;
  }

  private diskAt = 0;
  private diskDir = '';
  private async measureDisk(force = false): Promise<void> {
    // A download in progress changes the checkpoint snapshot many times a second: measure at most every few seconds.
    const now = (this.d.now ?? Date.now)();
    const dir = this.d.checkpointDir();
    if (!force && dir === this.diskDir && now - this.diskAt < 5_000) return;
    this.diskAt = now;
    this.diskDir = dir;
    try {
      const next = this.d.space(dir);
      if (this.disk?.ok === next.ok && this.disk.sentence === next.sentence) return;
      this.disk = next;
      this.changes.fire();
    } catch (e) {
      this.d.log.warn(`pre-flight: free space at ${dir} could not be measured: ${errorMessage(e)}`);
    }
  }

  /** Background: once per chosen hotkey. Start: again whenever the answer is missing or for another hotkey. */
  private async askRegistration(atStart: boolean): Promise<void> {
    const s = this.d.settings.get();
    this.readHotkey(s.wallet);
    const address = this.hotkey.address;
    if (!address) return;
    const known = this.d.wallet.snapshot().registration?.registration.hotkey === address;
    if (known || (!atStart && this.registrationAskedFor === address)) return;
    if (this.asking?.address === address) return this.asking.done;
    this.registrationAskedFor = address;
    const ms = this.d.registrationTimeoutMs ?? 20_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    // The wallet controller keeps the answer (or its error) in its snapshot; the checklist reads it there.
    const done = Promise.race([
      this.d.wallet.refreshRegistration().then(
        () => undefined,
        () => undefined,
      ),
      timeout,
    ]).finally(() => {
      clearTimeout(timer);
      if (this.asking?.done === done) this.asking = null;
    });
    this.asking = { address, done };
    return done;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const s of this.subs) await s.dispose();
    this.changes.clear();
  }
}
