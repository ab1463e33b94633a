import type { CheckpointProgress, CheckpointSnapshot, CheckpointState } from '../../../../shared/serve.ts';
import type { Disposable } from '../../lib/disposable.ts';
import { Emitter } from '../../lib/emitter.ts';
import { silentLogger, type Logger } from '../../lib/logger.ts';
import type { FetchFn } from '../../lib/fetch.ts';
import type { SpawnFn } from '../process-group.ts';
import { checkCheckpointFolder, checkpointIdentity } from './checkpoint-folder.ts';
import { downloadWithHfCli } from './hf-cli-download.ts';
import { downloadFromHub, type HubDownloadOptions } from './hub-download.ts';
import { hubLocation, listHubFiles } from './hub-files.ts';
import { downloadErrorSentence } from './download-errors.ts';

export interface CheckpointServiceOptions {
  repo: string;
  dir: string;
  /** The catalog's published Merkle root, shown beside the folder's identity. */
  publishedRoot: string | null;
  /** The catalog's size of the files, shown until the hub listing gives the exact total. */
  downloadBytes?: number;
  revision?: string;
  env?: NodeJS.ProcessEnv;
  fetch?: FetchFn;
  spawn?: SpawnFn;
  logger?: Logger;
  /** `hf` / `huggingface-cli` to download with instead of the built-in HTTP downloader. */
  hfCli?: string | null;
  freeBytes?: HubDownloadOptions['freeBytes'];
}

/** The checkpoint folder as the UI sees it: absent, downloading (with progress), complete with its identity. */
export class CheckpointService implements Disposable {
  private readonly opts: CheckpointServiceOptions;
  private readonly log: Logger;
  private readonly changes = new Emitter<CheckpointSnapshot>();
  readonly onDidChange = this.changes.event;
  private state: CheckpointState = 'absent';
  private progress: CheckpointProgress | null = null;
  private identity: string | null = null;
  private missing: string[] = [];
  private error: string | null = null;
  private listedBytes: number | null = null;
  private abort: AbortController | null = null;
  private job: Promise<void> | null = null;

  constructor(opts: CheckpointServiceOptions) {
    this.opts = opts;
    this.log = opts.logger ?? silentLogger;
  }

  snapshot(): CheckpointSnapshot {
    return {
      repo: this.opts.repo,
      dir: this.opts.dir,
      state: this.state,
      progress: this.progress ? { ...this.progress } : null,
      identity: this.identity,
      publishedRoot: this.opts.publishedRoot,
      missing: [...this.missing],
      error: this.error,
      downloadBytes: this.listedBytes ?? this.opts.downloadBytes ?? null,
    };
  }

  /** Looks at the folder: complete (identity computed), incomplete (what is missing) or absent. */
  async refresh(): Promise<CheckpointSnapshot> {
    if (this.job) return this.snapshot();
    await this.verify();
    return this.snapshot();
  }

  private async verify(): Promise<void> {
    this.set('verifying');
    const check = checkCheckpointFolder(this.opts.dir);
    this.missing = check.problems;
    this.listedBytes = check.expectedBytes;
    this.identity = check.complete ? await checkpointIdentity(this.opts.dir) : null;
    const absent = check.problems.length === 1 && check.problems[0]!.endsWith('does not exist');
    this.set(check.complete ? 'complete' : absent ? 'absent' : 'incomplete');
  }

  /** Starts (or resumes) the download; resolves when it ends, whatever the outcome (see the snapshot). */
  download(): Promise<void> {
    if (this.job) return this.job;
    this.abort = new AbortController();
    this.error = null;
    this.job = this.run(this.abort.signal).finally(() => {
      this.job = null;
      this.abort = null;
    });
    return this.job;
  }

  cancel(): void {
    this.abort?.abort(new Error('download cancelled'));
  }

  async dispose(): Promise<void> {
    this.cancel();
    await this.job;
    this.changes.clear();
  }

  private async run(signal: AbortSignal): Promise<void> {
    const location = hubLocation(this.opts.repo, this.opts.env ?? process.env, this.opts.revision);
    const onProgress = (p: CheckpointProgress) => {
      this.progress = p;
      this.set('downloading');
    };
    try {
      this.set('listing');
      if (this.opts.hfCli) {
        const files = await listHubFiles(location, this.opts.fetch ?? fetch, signal);
        await downloadWithHfCli({
          cli: this.opts.hfCli,
          location,
          dir: this.opts.dir,
          files,
          signal,
          onProgress,
          onLine: (l) => this.log.info(l),
          ...(this.opts.spawn ? { spawn: this.opts.spawn } : {}),
          ...(this.opts.env ? { env: this.opts.env } : {}),
        });
      } else {
        await downloadFromHub({
          location,
          dir: this.opts.dir,
          signal,
          onProgress,
          ...(this.opts.fetch ? { fetch: this.opts.fetch } : {}),
          ...(this.opts.freeBytes ? { freeBytes: this.opts.freeBytes } : {}),
        });
      }
      await this.verify();
    } catch (e) {
      this.error = signal.aborted ? 'Download paused: start it again to resume where it stopped.' : downloadErrorSentence(e);
      this.log.warn(`checkpoint download: ${this.error}`);
      this.set('failed');
    }
  }

  private set(state: CheckpointState): void {
    this.state = state;
    this.changes.fire(this.snapshot());
  }
}
