// TEST DOUBLE (fake sglang): writes /generate bodies the way sglang's JSON looks (Python float
// repr, the ragged hidden_states list inside meta_info) and streams the hidden rows out in
// pieces with backpressure, so a 100+ MB body is never one string.
import type { ReqProgress } from './engine.ts';
import { bf16Text, pyFloatRepr } from './numerics.ts';

export interface Sink {
  write(chunk: string): Promise<void>;
}

export type HiddenMode =
  | 'omit' // the request did not ask
  | 'full' // stock sglang: the whole accumulated list on every event
  | 'trimmed'; // the trim hook: prefill block cut to its last row, rows only on the finishing event

export interface BodyOptions {
  returnLogprob: boolean;
  hidden: HiddenMode;
}

const PIECE = 1 << 20;

function rowText(row: Float32Array): string {
  const parts = new Array<string>(row.length);
  for (let j = 0; j < row.length; j++) parts[j] = bf16Text(row[j]!);
  return `[${parts.join(',')}]`;
}

async function writeRows(sink: Sink, rows: readonly Float32Array[], buf: { s: string }): Promise<void> {
  for (let i = 0; i < rows.length; i++) {
    buf.s += (i > 0 ? ',' : '') + rowText(rows[i]!);
    if (buf.s.length >= PIECE) {
      await sink.write(buf.s);
      buf.s = '';
    }
  }
}

function metaHead(p: ReqProgress, o: BodyOptions): string {
  const fields: string[] = [
    `"id":${JSON.stringify(p.rid)}`,
    `"finish_reason":${p.finish === null ? 'null' : JSON.stringify(p.finish)}`,
    `"prompt_tokens":${p.promptTokens}`,
    `"weight_version":"default"`,
    `"total_retractions":0`,
    `"completion_tokens":${p.outputIds.length}`,
    `"cached_tokens":${p.cachedTokens}`,
    `"e2e_latency":${pyFloatRepr((performance.now() - p.startedAt) / 1000)}`,
  ];
  if (o.returnLogprob) {
    const lp = p.outputIds.map((id, i) => `[${pyFloatRepr(p.logprobs[i]!)},${id},null]`);
    fields.push(`"input_token_logprobs":[]`, `"output_token_logprobs":[${lp.join(',')}]`);
  }
  return fields.join(',');
}

/** One /generate JSON object: the whole non-stream body, or one SSE event's payload. */
export async function writeGenerateObject(sink: Sink, p: ReqProgress, o: BodyOptions): Promise<void> {
  const head = `{"text":${JSON.stringify(p.text)},"output_ids":[${p.outputIds.join(',')}],"meta_info":{${metaHead(p, o)}`;
  if (o.hidden === 'omit') {
    await sink.write(head + '}}');
    return;
  }
  const buf = { s: head + ',"hidden_states":[' };
  const carries = o.hidden === 'full' || p.finish !== null;
  if (carries) {
    buf.s += '[';
    await writeRows(sink, p.prefillRows, buf);
    buf.s += ']';
    if (p.decodeRows.length > 0) {
      buf.s += ',';
      await writeRows(sink, p.decodeRows, buf);
    }
  }
  await sink.write(buf.s + ']}}');
}
