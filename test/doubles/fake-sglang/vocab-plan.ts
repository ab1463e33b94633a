// TEST DOUBLE (fake sglang): reads the tiny checkpoint's config.json and tokenizer.json to learn
// the hidden size and which token ids the fake model may emit (words, punctuation, the chat
// specials), so its output decodes to real text with the real tokenizer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface VocabPlan {
  /** Number of ids the tokenizer knows (BPE vocab + added tokens). */
  vocabSize: number;
  imStart: number;
  imEnd: number;
  endOfText: number;
  thinkOpen: number;
  thinkClose: number;
  /** Space-prefixed whole-word tokens: the model's ordinary output. */
  words: number[];
  period: number;
  comma: number;
  paragraph: number;
}

export interface CheckpointSpec {
  hiddenSize: number;
  vocab: VocabPlan;
}

interface TokenizerJson {
  added_tokens: Array<{ id: number; content: string }>;
  model: { vocab: Record<string, number> };
}

interface ConfigJson {
  hidden_size?: number;
  text_config?: { hidden_size?: number };
}

export function loadCheckpointSpec(dir: string): CheckpointSpec {
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as ConfigJson;
  const tok = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as TokenizerJson;
  const hiddenSize = config.text_config?.hidden_size ?? config.hidden_size;
  if (hiddenSize === undefined) throw new Error(`${dir}/config.json has no hidden_size`);
  return { hiddenSize, vocab: planVocab(tok) };
}

function planVocab(tok: TokenizerJson): VocabPlan {
  const added = (content: string): number => {
    const t = tok.added_tokens.find((a) => a.content === content);
    if (!t) throw new Error(`tokenizer.json lacks the added token ${content}`);
    return t.id;
  };
  const regular = (piece: string, fallback: string): number => tok.model.vocab[piece] ?? tok.model.vocab[fallback] ?? 0;
  const words = Object.entries(tok.model.vocab)
    // 'Ġ' is the byte-level form of a leading space.
    .filter(([piece]) => /^Ġ[a-z]{2,}$/.test(piece))
    .map(([, id]) => id)
    .sort((a, b) => a - b);
  if (words.length < 8) throw new Error('tokenizer.json has too few word tokens for the fake model');
  const ids = [...Object.values(tok.model.vocab), ...tok.added_tokens.map((a) => a.id)];
  return {
    vocabSize: Math.max(...ids) + 1,
    imStart: added('<|im_start|>'),
    imEnd: added('<|im_end|>'),
    endOfText: added('<|endoftext|>'),
    thinkOpen: added('<think>'),
    thinkClose: added('</think>'),
    words,
    period: regular('.', '.'),
    comma: regular(',', ','),
    paragraph: regular('ĊĊ', 'Ċ'),
  };
}
