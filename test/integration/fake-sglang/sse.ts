// Test helper: reads a /generate SSE body event by event (linear scan over the bytes).

export interface GenerateBody {
  text: string;
  output_ids: number[];
  meta_info: {
    id: string;
    finish_reason: null | { type: string; [k: string]: unknown };
    prompt_tokens: number;
    completion_tokens: number;
    cached_tokens: number;
    output_token_logprobs?: Array<[number, number, null]>;
    hidden_states?: Array<number[][] | number[]>;
  };
}

export async function readSse(res: Response, onEvent?: (events: GenerateBody[]) => Promise<void>): Promise<{ events: GenerateBody[]; done: boolean; bytes: number }> {
  const events: GenerateBody[] = [];
  let done = false;
  let bytes = 0;
  let pending = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    pending += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, at);
      pending = pending.slice(at + 2);
      if (!block.startsWith('data: ')) continue;
      const data = block.slice(6);
      if (data === '[DONE]') {
        done = true;
        continue;
      }
      events.push(JSON.parse(data) as GenerateBody);
      await onEvent?.(events);
    }
  }
  return { events, done, bytes };
}
