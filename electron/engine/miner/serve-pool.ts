// Several serves (one per engine): each request goes to the one with the fewest in flight.

export class ServePool {
  private readonly inflight = new Map<string, number>();
  readonly urls: readonly string[];

  constructor(urls: readonly string[]) {
    if (urls.length === 0) throw new Error('no serve URL configured');
    this.urls = urls;
    for (const u of urls) this.inflight.set(u, 0);
  }

  acquire(): string {
    let best = this.urls[0]!;
    for (const u of this.urls) if (this.inflight.get(u)! < this.inflight.get(best)!) best = u;
    this.inflight.set(best, this.inflight.get(best)! + 1);
    return best;
  }

  release(url: string): void {
    this.inflight.set(url, Math.max(0, (this.inflight.get(url) ?? 0) - 1));
  }

  load(url: string): number {
    return this.inflight.get(url) ?? 0;
  }
}
