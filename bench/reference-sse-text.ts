// The SSE text scanner as it was before issue 30 (a copy of each line's prefix, a decode and a
// JSON.parse of the whole event): kept only so bench/miner.bench.ts can measure the current
// scanner beside it in the same run. Never imported by shipped code.

export interface SseTextEvent {
  /** Cumulative output text so far, or null when this event did not expose it within the prefix. */
  text: string | null;
  /** Output tokens the event carries (cumulative `output_ids`), or null when not readable within the prefix. */
  tokens: number | null;
  error: string | null;
  done: boolean;
}

const NL = 0x0a;

export class ReferenceSseTextScanner {
  private prefix: Buffer[] = [];
  private prefixLen = 0;
  private lineLen = 0;
  private readonly limit: number;
  private readonly onEvent: (e: SseTextEvent) => void;

  constructor(onEvent: (e: SseTextEvent) => void, prefixLimit = 256 * 1024) {
    this.onEvent = onEvent;
    this.limit = prefixLimit;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk, start, end);
      if (nl < 0) return;
      this.endLine();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.lineLen > 0) this.endLine();
  }

  private take(chunk: Buffer, start: number, end: number): void {
    const n = end - start;
    if (n <= 0) return;
    this.lineLen += n;
    const room = this.limit - this.prefixLen;
    if (room > 0) {
      const part = chunk.subarray(start, start + Math.min(room, n));
      // Copy: the socket may reuse its buffer.
      this.prefix.push(Buffer.from(part));
      this.prefixLen += part.length;
    }
  }

  private endLine(): void {
    const whole = this.lineLen <= this.limit;
    const line = Buffer.concat(this.prefix, this.prefixLen).toString('utf8');
    this.prefix = [];
    this.prefixLen = 0;
    this.lineLen = 0;
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (!trimmed.startsWith('data:')) return;
    const data = trimmed.slice(5).trimStart();
    if (data === '[DONE]') {
      this.onEvent({ text: null, tokens: null, error: null, done: true });
      return;
    }
    if (whole) {
      try {
        const v = JSON.parse(data) as { text?: unknown; error?: unknown; output_ids?: unknown; meta_info?: { output_token_logprobs?: unknown } };
        const error = v.error === undefined ? null : errorText(v.error);
        this.onEvent({ text: typeof v.text === 'string' ? v.text : null, tokens: tokenCount(v), error, done: false });
        return;
      } catch {
        // fall through to the prefix reader
      }
    }
    this.onEvent({ text: leadingText(data), tokens: leadingOutputCount(data), error: null, done: false });
  }
}

function tokenCount(v: { output_ids?: unknown; meta_info?: { output_token_logprobs?: unknown } }): number | null {
  if (Array.isArray(v.output_ids)) return v.output_ids.length;
  const lp = typeof v.meta_info === 'object' && v.meta_info !== null ? v.meta_info.output_token_logprobs : undefined;
  return Array.isArray(lp) ? lp.length : null;
}

/** sglang writes `"output_ids": [...]` right after `text`: count its entries when the prefix holds the list. */
export function leadingOutputCount(data: string): number | null {
  const m = /"output_ids"\s*:\s*\[([0-9,\s]*)\]/.exec(data);
  if (!m) return null;
  const body = m[1]!.trim();
  return body.length === 0 ? 0 : body.split(',').length;
}

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  return JSON.stringify(e).slice(0, 200);
}

/** `{"text": "<json string>", ...` -> the decoded string, when the prefix holds all of it. */
export function leadingText(data: string): string | null {
  const m = /^\{\s*"text"\s*:\s*"/.exec(data);
  if (!m) return null;
  let i = m[0].length;
  while (i < data.length) {
    const c = data.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) {
      try {
        return JSON.parse(data.slice(m[0].length - 1, i + 1)) as string;
      } catch {
        return null;
      }
    } else i += 1;
  }
  return null;
}
