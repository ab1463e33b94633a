// A connection that drops and retries by itself (the chain's websocket provider reports every failed
// attempt as another "disconnected") is one outage with a start and an end, not a line per attempt:
// the log says when it went down, and once, when it came back, how long it lasted and how many drops.

/** "45 s", "7 min 3 s", "2 h 5 min": enough to read an outage's length in a log line. */
function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export interface LinkOutageLine {
  level: 'warn' | 'info';
  text: string;
}

export class LinkOutage {
  private downSince: number | null = null;
  private drops = 0;
  private readonly what: string;

  /** `what` names the link in the sentences ("chain connection to wss://...). */
  constructor(what: string) {
    this.what = what;
  }

  /** True while an outage is open (dropped, not yet back). */
  get down(): boolean {
    return this.downSince !== null;
  }

  /** A drop: the first of an outage returns its log line; the retries that fail again return null. */
  dropped(now: number): LinkOutageLine | null {
    this.drops++;
    if (this.downSince !== null) return null;
    this.downSince = now;
    return { level: 'warn', text: `${this.what} dropped; reconnecting by itself (further drops are counted, not logged, until it is back)` };
  }

  /** Connected: after an outage, one line saying how long it lasted; the first connection says nothing here. */
  connected(now: number): LinkOutageLine | null {
    if (this.downSince === null) return null;
    const line: LinkOutageLine = { level: 'info', text: `${this.what} is back after ${duration(now - this.downSince)} (${this.drops} ${this.drops === 1 ? 'drop' : 'drops'})` };
    this.downSince = null;
    this.drops = 0;
    return line;
  }
}
