// Detects sglang per runtime (python interpreters, docker with the pinned image) and runs the
// own-environment installer from the UI: progress, cancel, a log tail. One install at a time.
import { Emitter } from '../lib/emitter.ts';
import type { Logger } from '../lib/logger.ts';
import { describeNetworkError } from '../lib/network-words.ts';
import type { RuntimeReport } from '../../../shared/serve.ts';
import type { SglangInstallView, SglangSetupSnapshot } from '../../../shared/sglang-setup.ts';
import { AppFailure, errorMessage } from '../../../shared/errors.ts';
import { detectRuntimes, type DetectRuntimesOptions } from './runtime-detect.ts';
import { appVenvDir } from './runtime-python.ts';
import { installSglangVenv, type VenvInstallOptions } from './venv-install.ts';

const LOG_LINES = 200;
/** sglang with torch and flashinfer wheels: what pip leaves on disk, plus headroom for its cache. */
export const SGLANG_INSTALL_NEEDS = { diskGiB: 15, minutes: '10-30 min on a fast connection' };

export interface SglangSetupDeps {
  dataDir: string;
  log: Logger;
  /** Tests point detection and the installer at doubles. */
  detect?: Omit<DetectRuntimesOptions, 'dataDir'>;
  install?: Pick<VenvInstallOptions, 'spawn' | 'env' | 'version'>;
}

const IDLE: SglangInstallView = { state: 'idle', step: null, log: [], downloads: 0, lastDownload: null, error: null, startedAt: null, finishedAt: null };

export class SglangSetupService {
  private runtimes: RuntimeReport | null = null;
  private detecting: Promise<RuntimeReport> | null = null;
  private install: SglangInstallView = IDLE;
  private abort: AbortController | null = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly d: SglangSetupDeps;

  constructor(d: SglangSetupDeps) {
    this.d = d;
  }

  snapshot(): SglangSetupSnapshot {
    return { runtimes: this.runtimes, detecting: this.detecting !== null, install: this.install, needs: { ...SGLANG_INSTALL_NEEDS, into: appVenvDir(this.d.dataDir) } };
  }

  /** Joins a detection already running; `refresh` forces a new one when none is. */
  detect(refresh = false): Promise<RuntimeReport> {
    if (this.detecting) return this.detecting;
    if (this.runtimes && !refresh) return Promise.resolve(this.runtimes);
    this.detecting = detectRuntimes({ ...this.d.detect, dataDir: this.d.dataDir })
      .then((r) => {
        this.runtimes = r;
        return r;
      })
      .finally(() => {
        this.detecting = null;
        this.changes.fire();
      });
    this.changes.fire();
    return this.detecting;
  }

  private update(patch: Partial<SglangInstallView>): void {
    this.install = { ...this.install, ...patch };
    this.changes.fire();
  }

  private push(line: string): void {
    const log = [...this.install.log, line.slice(0, 500)];
    this.install = { ...this.install, log: log.length > LOG_LINES ? log.slice(-LOG_LINES) : log };
  }

  /** Starts the install and answers at once; progress arrives on the snapshot. */
  start(): void {
    if (this.install.state === 'running') throw new AppFailure('conflict', 'sglang is already being installed: wait for it or cancel it.');
    const base = this.runtimes?.pythonTried.find((p) => p.pythonVersion !== null)?.python ?? null;
    if (!base)
      throw new AppFailure(
        'unavailable',
        'No Python 3 was found to build the environment from: install Python 3.10-3.12 with venv (e.g. apt install python3-venv), press "Detect again", then install.',
      );
    const abort = new AbortController();
    this.abort = abort;
    this.install = { ...IDLE, state: 'running', step: 'creating-venv', startedAt: Date.now() };
    this.changes.fire();
    const log = this.d.log;
    log.info(`installing sglang into ${appVenvDir(this.d.dataDir)} with ${base}`);
    let pending = false;
    void installSglangVenv({
      basePython: base,
      dataDir: this.d.dataDir,
      signal: abort.signal,
      ...this.d.install,
      onProgress: (p) => {
        this.push(p.line);
        if (p.download) this.install = { ...this.install, downloads: this.install.downloads + 1, lastDownload: `${p.download.name} (${p.download.size})` };
        this.install = { ...this.install, step: p.step };
        // pip prints fast: coalesce snapshot pushes to one per tick.
        if (!pending) {
          pending = true;
          queueMicrotask(() => {
            pending = false;
            this.changes.fire();
          });
        }
      },
    }).then(
      () => {
        this.update({ state: 'done', step: 'done', finishedAt: Date.now() });
        log.info('sglang installed in the panel environment');
        void this.detect(true).catch(() => undefined);
      },
      (e: unknown) => {
        if (abort.signal.aborted) {
          this.update({ state: 'cancelled', finishedAt: Date.now(), error: 'Cancelled. Installing again resumes with what pip already cached.' });
          return;
        }
        const msg = errorMessage(e);
        const offline = /Could not find a version|Failed to establish a new connection|Name or service not known|Temporary failure in name resolution|No matching distribution/i.test(msg);
        const error = offline
          ? 'pip could not download sglang: this machine looks offline or cannot reach pypi.org. Check the connection (or a proxy in PIP_INDEX_URL), then install again.'
          : `The install stopped: ${describeNetworkError(e)}. The log below has pip's last lines; free disk space or fix what it names, then install again.`;
        this.update({ state: 'failed', finishedAt: Date.now(), error });
        log.warn(`sglang install failed: ${msg.split('\n')[0]}`);
      },
    );
  }

  cancel(): void {
    if (this.install.state !== 'running') return;
    this.abort?.abort();
  }

  dispose(): void {
    this.abort?.abort();
  }
}
