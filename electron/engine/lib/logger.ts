import { appendFileSync, mkdirSync, renameSync, statSync, existsSync, rmSync } from 'node:fs';
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

  constructor(opts: LogHubOptions = {}) {
    this.opts = { ringSize: 2000, maxFileBytes: 5 * 1024 * 1024, keepFiles: 5, minLevel: 'debug', ...opts };
    if (opts.dir) {
      mkdirSync(opts.dir, { recursive: true });
      this.file = join(opts.dir, 'engy-panel.log');
    }
  }

  /** Settings > Log level: lines below it are dropped from now on (the ring, the file and the UI). */
  setMinLevel(level: LogLevel): void {
    this.opts.minLevel = level;
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
    if (LEVELS[level] < LEVELS[this.opts.minLevel]) return;
    const line: LogLine = { seq: ++this.seq, ts: Date.now(), level, source, msg: this.redactor.redact(msg) };
    let ring = this.rings.get(source);
    if (!ring) {
      ring = [];
      this.rings.set(source, ring);
    }
    ring.push(line);
    if (ring.length > this.opts.ringSize) ring.splice(0, ring.length - this.opts.ringSize);
    const text = formatLine(line);
    this.opts.echo?.(text);
    this.appendToFile(text);
    this.pending.push(line);
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), 100);
      this.flushTimer.unref?.();
    }
  }

  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
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

  private appendToFile(text: string): void {
    if (!this.file) return;
    try {
      if (existsSync(this.file) && statSync(this.file).size > this.opts.maxFileBytes) this.rotate(this.file);
      appendFileSync(this.file, text + '\n');
    } catch {
      // A full or read-only disk must not take the engine down; the ring still has the line.
    }
  }

  private rotate(file: string): void {
    const keep = this.opts.keepFiles;
    if (existsSync(`${file}.${keep}`)) rmSync(`${file}.${keep}`);
    for (let i = keep - 1; i >= 1; i--) if (existsSync(`${file}.${i}`)) renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    renameSync(file, `${file}.1`);
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
