// TEST DOUBLE (fake sglang): a radix tree over token ids standing in for sglang's RadixCache,
// so a repeated prefix reports cached_tokens and a fully cached prompt gets the empty prefill
// block stock sglang returns. Only the matching logic is real: no KV lives here.

interface RadixNode {
  label: number[];
  children: Map<number, RadixNode>;
}

function node(label: number[]): RadixNode {
  return { label, children: new Map() };
}

export class PrefixCache {
  private root = node([]);
  private tokens = 0;
  private readonly maxTokens: number;

  constructor(maxTokens: number) {
    this.maxTokens = maxTokens;
  }

  get cachedTokens(): number {
    return this.tokens;
  }

  /** Length of the longest cached prefix of ids. */
  match(ids: readonly number[]): number {
    let n = this.root;
    let at = 0;
    for (;;) {
      const first = ids[at];
      if (first === undefined) return at;
      const child = n.children.get(first);
      if (!child) return at;
      let k = 0;
      while (k < child.label.length && at + k < ids.length && child.label[k] === ids[at + k]) k++;
      at += k;
      if (k < child.label.length) return at;
      n = child;
    }
  }

  insert(ids: readonly number[]): void {
    if (ids.length > this.maxTokens) return;
    let n = this.root;
    let at = 0;
    while (at < ids.length) {
      const first = ids[at]!;
      const child = n.children.get(first);
      if (!child) {
        n.children.set(first, node(ids.slice(at)));
        this.tokens += ids.length - at;
        break;
      }
      let k = 0;
      while (k < child.label.length && at + k < ids.length && child.label[k] === ids[at + k]) k++;
      if (k < child.label.length) {
        // Split the edge where the new sequence leaves it.
        const tail = node(child.label.slice(k));
        tail.children = child.children;
        child.label = child.label.slice(0, k);
        child.children = new Map([[tail.label[0]!, tail]]);
      }
      at += k;
      n = child;
    }
    // Crude eviction: a full pool starts over (sglang evicts LRU leaves; tests only need hits).
    if (this.tokens > this.maxTokens) this.flush();
  }

  flush(): void {
    this.root = node([]);
    this.tokens = 0;
  }
}
