// Cancellation state of one routed request, registered before any work starts so a `cancel`
// that arrives early still lands.

export class CancelledError extends Error {
  constructor() {
    super('cancelled by the gateway');
    this.name = 'CancelledError';
  }
}

export class Job {
  readonly corrId: string;
  cancelled = false;
  /** The serve URL once picked: aborts are addressed to it. */
  serve: string | null = null;
  /** sglang rids of this request currently in flight. */
  readonly rids = new Set<string>();
  /** Ends our side of every HTTP call of this request. */
  readonly controller = new AbortController();

  constructor(corrId: string) {
    this.corrId = corrId;
  }

  /** A checkpoint: between calls and per network chunk. */
  check(): void {
    if (this.cancelled) throw new CancelledError();
  }
}
