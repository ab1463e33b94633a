// Worker thread: owns the checkpoint's native tokenizer (native-tokenizer-thread.ts says why). The
// binding's `Tokenizer.fromFile` is synchronous: on the engine's thread it held every leg, the UI's
// socket and the gateway's pings for about 570 ms as mining started (a 151k-token tokenizer.json here;
// the checkpoint's own has 248,320 tokens). Encodes still run on libuv's pool as before; only their
// answers come back through this thread, as flat id arrays handed over without a copy.
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from 'tokenizers';

export type TokenizerAskBody = { op: 'batch'; texts: string[] } | { op: 'decode'; ids: number[]; skipSpecial: boolean };
export type TokenizerAsk = TokenizerAskBody & { id: number };

export type TokenizerReply =
  | { loaded: true }
  | { loadFailed: string }
  /** A batch's ids end to end, and each text's count: one transfer for the whole batch. */
  | { id: number; flat: Uint32Array; counts: Uint32Array }
  | { id: number; text: string }
  | { id: number; error: string };

const port = parentPort!;

function load(): Tokenizer | null {
  try {
    const t = Tokenizer.fromFile((workerData as { path: string }).path);
    port.postMessage({ loaded: true } satisfies TokenizerReply);
    return t;
  } catch (e) {
    port.postMessage({ loadFailed: (e as Error).message } satisfies TokenizerReply);
    return null;
  }
}

async function answer(tokenizer: Tokenizer, ask: TokenizerAsk): Promise<void> {
  try {
    if (ask.op === 'decode') {
      port.postMessage({ id: ask.id, text: await tokenizer.decode(ask.ids, ask.skipSpecial) } satisfies TokenizerReply);
      return;
    }
    const lists = (await tokenizer.encodeBatch(ask.texts)).map((e) => e.getIds());
    if (lists.length !== ask.texts.length) throw new Error('the batch answered for a different number of texts');
    let total = 0;
    for (const l of lists) total += l.length;
    const flat = new Uint32Array(total);
    const counts = new Uint32Array(lists.length);
    let at = 0;
    for (let k = 0; k < lists.length; k++) {
      flat.set(lists[k]!, at);
      at += lists[k]!.length;
      counts[k] = lists[k]!.length;
    }
    port.postMessage({ id: ask.id, flat, counts } satisfies TokenizerReply, [flat.buffer, counts.buffer]);
  } catch (e) {
    port.postMessage({ id: ask.id, error: (e as Error)?.message ?? String(e) } satisfies TokenizerReply);
  }
}

const tokenizer = load();
if (tokenizer) port.on('message', (ask: TokenizerAsk) => void answer(tokenizer, ask));
