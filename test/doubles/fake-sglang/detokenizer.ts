// TEST DOUBLE (fake sglang): turns output token ids into text the way sglang's detokenizer does
// with skip_special_tokens=true (the default): byte-level pieces back to bytes, special added
// tokens (<|im_end|>) dropped, non-special ones (<think>) kept.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { byteToUnicode } from '../../fixtures/checkpoint-tiny-src/bpe-train.ts';

interface TokenizerJson {
  added_tokens: Array<{ id: number; content: string; special: boolean }>;
  model: { vocab: Record<string, number> };
}

export class Detokenizer {
  private readonly bytes = new Map<number, Uint8Array>();
  private readonly special = new Set<number>();

  constructor(checkpointDir: string) {
    const tok = JSON.parse(readFileSync(join(checkpointDir, 'tokenizer.json'), 'utf8')) as TokenizerJson;
    const u2b = new Map<string, number>(byteToUnicode().map((ch, b) => [ch, b]));
    for (const [piece, id] of Object.entries(tok.model.vocab)) {
      this.bytes.set(
        id,
        Uint8Array.from(Array.from(piece), (ch) => u2b.get(ch) ?? 0x3f),
      );
    }
    const enc = new TextEncoder();
    for (const a of tok.added_tokens) {
      this.bytes.set(a.id, enc.encode(a.content));
      if (a.special) this.special.add(a.id);
    }
  }

  /** The id of the byte-level token that is exactly this one byte. */
  byteToken(b: number): number | undefined {
    for (const [id, bytes] of this.bytes) if (bytes.length === 1 && bytes[0] === b && !this.special.has(id)) return id;
    return undefined;
  }

  decode(ids: readonly number[], skipSpecialTokens = true): string {
    const parts: Uint8Array[] = [];
    let len = 0;
    for (const id of ids) {
      if (skipSpecialTokens && this.special.has(id)) continue;
      const b = this.bytes.get(id);
      if (!b) continue;
      parts.push(b);
      len += b.length;
    }
    const all = new Uint8Array(len);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return new TextDecoder().decode(all);
  }
}
