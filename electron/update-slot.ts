// Where the desktop shell's updater meets the contract: the `update` topic and the update.* invokes.
// The engine is composed before the shell creates its UpdateController (and a headless engine never
// has one), so compose.ts owns an empty slot and main.ts attaches the controller to it.
import type { UpdateView } from '../shared/api.ts';
import { AppFailure } from '../shared/errors.ts';
import { toDisposable, type Disposable } from './engine/lib/disposable.ts';
import { Emitter } from './engine/lib/emitter.ts';
import type { UpdateController, UpdateSnapshot } from './update-controller.ts';

/** What the slot needs of an updater: the controller in main, or its relay in the desktop engine process. */
export type UpdateControl = Pick<UpdateController, 'snapshot' | 'onDidChange' | 'checkNow' | 'download' | 'restartToUpdate'>;

const NO_UPDATER = 'This engine runs without the desktop updater: a headless install is updated by installing the new package (docs/upgrade.md).';

export function updateView(s: UpdateSnapshot): UpdateView {
  const st = s.state;
  return {
    currentVersion: s.currentVersion,
    autoUpdate: s.autoUpdate,
    state: st.kind,
    version: 'version' in st && st.version !== undefined ? st.version : null,
    percent: st.kind === 'downloading' ? st.percent : null,
    message: s.message,
  };
}

export class UpdateSlot {
  private controller: UpdateControl | null = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;

  /** The shell's updater; detached again on dispose (the topic goes back to null). */
  attach(c: UpdateControl): Disposable {
    this.controller = c;
    const sub = c.onDidChange(() => this.changes.fire());
    this.changes.fire();
    return toDisposable(async () => {
      await sub.dispose();
      if (this.controller === c) this.controller = null;
      this.changes.fire();
    });
  }

  view(): UpdateView | null {
    return this.controller ? updateView(this.controller.snapshot()) : null;
  }

  private need(): UpdateControl {
    if (!this.controller) throw new AppFailure('unavailable', NO_UPDATER);
    return this.controller;
  }

  async check(): Promise<null> {
    const c = this.need();
    const kind = c.snapshot().state.kind;
    if (kind !== 'idle' && kind !== 'disabled' && kind !== 'error') throw new AppFailure('conflict', `Not now: ${c.snapshot().message}`);
    await c.checkNow();
    return null;
  }

  /** Starts the download and answers at once: progress and failures arrive on the update topic. */
  download(): null {
    const c = this.need();
    const s = c.snapshot();
    if (s.state.kind !== 'available')
      throw new AppFailure('conflict', `There is no update to download: ${s.message}${s.state.kind === 'idle' || s.state.kind === 'disabled' ? ' Check for updates first.' : ''}`);
    void c.download();
    return null;
  }

  async restart(): Promise<null> {
    const c = this.need();
    if (c.snapshot().state.kind !== 'downloaded') throw new AppFailure('conflict', `There is no downloaded update to install: ${c.snapshot().message}`);
    if (!(await c.restartToUpdate())) throw new AppFailure('conflict', c.snapshot().message);
    return null;
  }
}
