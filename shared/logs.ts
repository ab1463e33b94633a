export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  /** Monotonic per process, so the UI can de-duplicate and order batches. */
  seq: number;
  ts: number;
  level: LogLevel;
  /** The service or process the line belongs to: `hardware`, `serve:0`, `miner`, `validator`... */
  source: string;
  msg: string;
}
