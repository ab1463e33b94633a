import { chmodSync, closeSync, existsSync, fchmodSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { LogLevel, LogLine } from '../../../shared/logs.ts';
import { Emitter } from './emitter.ts';

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  child(source: string): Logger;
}

export interface LogHubOptions {
  /** Folder for rotating files; omit to keep logs in memory only (tests, CLI one-shots). */
  dir?: string;
  ringSize?: number;
  maxFileBytes?: number;
  keepFiles?: number;
  /** Also echo each line to this writer (headless daemons log to stdout). */
  echo?: (line: string) => void;
  minLevel?: LogLevel;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Values registered here are replaced by a mask in every line, whatever service logs them. */
export class SecretRedactor {
  private readonly secrets = new Set<string>();
  register(secret: string): void {
    if (secret.length >= 6) this.secrets.add(secret);
  }
  forget(secret: string): void {
    this.secrets.delete(secret);
  }
  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join('«redacted»');
    return out;
  }
}

/**
 * Control characters (C0 but tab, DEL, C1, the Unicode line separators) shown as escapes: a gateway's
 * deny reason, a worker name or any peer string quoted in a message can then never print as a line
 * of its own (a forged "ERROR [miner]" line) nor move the terminal's cursor.
 */
export function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

export function formatLine(l: LogLine): string {
  return `${new Date(l.ts).toISOString()} ${l.level.toUpperCase().padEnd(5)} [${l.source}] ${l.msg}`;
}

/**
 * Every service logs through one hub: a bounded ring per source for the UI, a rotating file
 * per data dir, and batches pushed to listeners so the transport sends a few frames, not one per line.
 */
export class LogHub {
  readonly redactor = new SecretRedactor();
  private seq = 0;
  private readonly rings = new Map<string, LogLine[]>();
  private pending: LogLine[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly batches = new Emitter<LogLine[]>();
  readonly onBatch = this.batches.event;
  private readonly opts: Required<Omit<LogHubOptions, 'dir' | 'echo'>> & Pick<LogHubOptions, 'dir' | 'echo'>;
  private readonly file: string | undefined;
  /** The open log file, its size as we count it, and text not yet written (written each batch tick). */
  private fd: number | null = null;
  private fileBytes = 0;
  private fileText = '';

  constructor(opts: LogHubOptions = {}) {
    this.opts = { ringSize: 2000, maxFileBytes: 5 * 1024 * 1024, keepFiles: 5, minLevel: 'debug', ...opts };
    if (opts.dir) {
      // Logs name hotkeys, endpoints and errors: owner-only, like every other file in the data dir.
      mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
      try {
        chmodSync(opts.dir, 0o700);
      } catch {
        // Not ours to change (a shared folder): the files below are still 0600.
      }
      this.file = join(opts.dir, 'engy-panel.log');
      // Lines wait up to one batch tick in memory: write them even when the process exits abruptly.
      process.on('exit', this.flushAtExit);
    }
  }

  private readonly flushAtExit = (): void => this.flush();

  /** Change the level at runtime (settings, a debugging session); lines below it are dropped. */
  setMinLevel(level: LogLevel): void {
    if (!Object.hasOwn(LEVELS, level)) return;
    this.opts.minLevel = level;
  }

  get minLevel(): LogLevel {
    return this.opts.minLevel;
  }

  logger(source: string): Logger {
    const write = (level: LogLevel) => (msg: string) => this.write(source, level, msg);
    return {
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
      child: (sub: string) => this.logger(`${source}:${sub}`),
    };
  }

  write(source: string, level: LogLevel, msg: string): void {
    if (!(LEVELS[level] >= LEVELS[this.opts.minLevel])) return;
    const line: LogLine = { seq: ++this.seq, ts: Date.now(), level, source, msg: escapeControls(this.redactor.redact(msg)) };
    let ring = this.rings.get(source);
    if (!ring) {
      ring = [];
      this.rings.set(source, ring);
    }
    ring.push(line);
    if (ring.length > this.opts.ringSize) ring.splice(0, ring.length - this.opts.ringSize);
    const text = formatLine(line);
    this.opts.echo?.(text);
    if (this.file) this.fileText += text + '\n';
    this.pending.push(line);
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), 100);
      this.flushTimer.unref?.();
    }
  }

  /** Push the pending batch to listeners and write it to the file (also called at shutdown). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.writeFile();
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.batches.fire(batch);
  }

  /** Recent lines, across sources, oldest first. */
  recent(opts: { source?: string; limit?: number; sinceSeq?: number } = {}): LogLine[] {
    const rings = opts.source ? [this.rings.get(opts.source) ?? []] : [...this.rings.values()];
    const all = rings.flat().filter((l) => opts.sinceSeq === undefined || l.seq > opts.sinceSeq);
    all.sort((a, b) => a.seq - b.seq);
    const limit = opts.limit ?? 1000;
    return all.length > limit ? all.slice(all.length - limit) : all;
  }

  sources(): string[] {
    return [...this.rings.keys()].sort();
  }

  /** Write what is pending and close the file; lines after this open it again. */
  close(): void {
    this.flush();
    process.off('exit', this.flushAtExit);
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /**
   * One write per batch tick on a file kept open, with the size counted here rather than asked of
   * the disk per line. Synchronous on purpose: a batch is a few KB into the page cache, and a
   * shutdown's last flush must reach the file before the process exits.
   */
  private writeFile(): void {
    if (!this.file || this.fileText.length === 0) return;
    const text = this.fileText;
    this.fileText = '';
    try {
      if (this.fd !== null && this.fileBytes >= this.opts.maxFileBytes) this.rotate(this.file);
      if (this.fd === null) this.open(this.file);
      this.fileBytes += writeSync(this.fd!, text);
    } catch {
      // A full or read-only disk must not take the engine down; the ring still has the lines.
      if (this.fd !== null) closeSync(this.fd);
      this.fd = null;
    }
  }

  private open(file: string): void {
    const fd = openSync(file, 'a', 0o600);
    try {
      fchmodSync(fd, 0o600);
      this.fileBytes = fstatSync(fd).size;
      this.fd = fd;
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    // A file already over the size from an earlier run rotates before the first write.
    if (this.fileBytes >= this.opts.maxFileBytes) this.rotate(file);
  }

  private rotate(file: string): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    const keep = this.opts.keepFiles;
    if (existsSync(`${file}.${keep}`)) rmSync(`${file}.${keep}`);
    for (let i = keep - 1; i >= 1; i--) if (existsSync(`${file}.${i}`)) renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    renameSync(file, `${file}.1`);
    this.open(file);
  }
}

/** A logger that drops everything: for pure functions' callers in tests. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
