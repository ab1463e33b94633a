// Several serves (one per engine): each request goes to the one with the fewest in flight.

export class ServePool {
  private readonly inflight = new Map<string, number>();
  readonly urls: readonly string[];

  constructor(urls: readonly string[]) {
    if (urls.length === 0) throw new Error('no serve URL configured');
    this.urls = urls;
    for (const u of urls) this.inflight.set(u, 0);
  }

  /** When each serve last sent us a byte of a generation (the health gate's proof of life under load). */
  private readonly lastBytes = new Map<string, number>();

  touch(url: string, at: number): void {
    this.lastBytes.set(url, at);
  }

  lastActivity(url: string): number | null {
    return this.lastBytes.get(url) ?? null;
  }

  /** Serves the health gate found down: skipped while another one is up. */
  private readonly down = new Set<string>();

  setDown(url: string, down: boolean): void {
    if (down) this.down.add(url);
    else this.down.delete(url);
  }

  acquire(): string {
    const best = this.peek();
    this.inflight.set(best, this.inflight.get(best)! + 1);
    return best;
  }

  /** The serve acquire() would pick now, without counting a request on it. */
  peek(): string {
    const pool = this.urls.filter((u) => !this.down.has(u));
    const candidates = pool.length > 0 ? pool : this.urls;
    let best = candidates[0]!;
    for (const u of candidates) if (this.inflight.get(u)! < this.inflight.get(best)!) best = u;
    return best;
  }

  release(url: string): void {
    this.inflight.set(url, Math.max(0, (this.inflight.get(url) ?? 0) - 1));
  }

  load(url: string): number {
    return this.inflight.get(url) ?? 0;
  }
}
