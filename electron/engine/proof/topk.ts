// Top-k by absolute value, choosing the same SET as torch's CPU topk on a bf16 tensor.
//
// Ties at the cut-off are common (equal bf16 magnitudes) and decide which indices enter a proof, so
// this is a faithful port of what torch (aten/src/ATen/native/TopKImpl.h) does with GCC 12's
// libstdc++: (float(|x|), index) pairs in index order, comparator "NaN first, else larger";
// std::partial_sort (heap select) when k * 64 <= n, else std::nth_element (introselect). Only the
// set matters to the proof, so the final sort of the chosen elements is not reproduced.
//
// On |bf16| bit patterns (sign cleared) the float order is the integer order, and every NaN
// (pattern above 0x7F80) is "first" and equivalent to every other NaN: one key 0x7F81 for them all.

const NAN_KEY = 0x7f81;

export class TopkSelector {
  private keys = new Uint16Array(0);
  private idx = new Int32Array(0);

  /**
   * Writes into out[0..k) the indices (relative to start) of the k elements torch's topk chooses
   * among bits[start .. start+n). Order is unspecified. Throws when n < k, as torch does.
   */
  select(bits: Uint16Array, start: number, n: number, k: number, out: Int32Array): void {
    if (k > n) throw new RangeError(`selected index k out of range (k ${k} > ${n} elements)`);
    if (k <= 0) return;
    if (this.keys.length < n) {
      this.keys = new Uint16Array(n);
      this.idx = new Int32Array(n);
    }
    const keys = this.keys;
    const idx = this.idx;
    const heapPath = k * 64 <= n;
    // The heap path only ever holds k elements; the rest are read from the source once.
    const filled = heapPath ? k : n;
    for (let i = 0; i < filled; i++) {
      const a = bits[start + i]! & 0x7fff;
      keys[i] = a > 0x7f80 ? NAN_KEY : a;
      idx[i] = i;
    }
    if (heapPath) this.heapSelectFromSource(bits, start, n, k);
    else this.introselect(0, k - 1, n, 2 * (31 - Math.clz32(n)));
    for (let i = 0; i < k; i++) out[i] = idx[i]!;
  }

  /**
   * std::partial_sort's __heap_select over [0, k) with the candidates k..n-1 read from the source.
   * (Its __pop_heap also writes the old top into the candidate's slot, which is never read again.)
   */
  private heapSelectFromSource(bits: Uint16Array, start: number, n: number, k: number): void {
    const keys = this.keys;
    this.makeHeap(0, k);
    let top = keys[0]!;
    for (let i = k; i < n; i++) {
      let a = bits[start + i]! & 0x7fff;
      if (a <= top) continue;
      if (a > 0x7f80) a = NAN_KEY;
      if (a > top) {
        this.adjustHeap(0, 0, k, a, i);
        top = keys[0]!;
      }
    }
  }

  // --- libstdc++ (GCC 12) algorithms, comparator comp(a, b) = key(a) > key(b) ---

  private heapSelect(first: number, middle: number, last: number): void {
    const keys = this.keys;
    this.makeHeap(first, middle);
    for (let i = middle; i < last; i++) {
      if (keys[i]! > keys[first]!) this.popHeap(first, middle, i);
    }
  }

  private makeHeap(first: number, last: number): void {
    const len = last - first;
    if (len < 2) return;
    let parent = ((len - 2) / 2) | 0;
    for (;;) {
      this.adjustHeap(first, parent, len, this.keys[first + parent]!, this.idx[first + parent]!);
      if (parent === 0) return;
      parent--;
    }
  }

  private popHeap(first: number, last: number, result: number): void {
    const keys = this.keys;
    const idx = this.idx;
    const vk = keys[result]!;
    const vi = idx[result]!;
    keys[result] = keys[first]!;
    idx[result] = idx[first]!;
    this.adjustHeap(first, 0, last - first, vk, vi);
  }

  private adjustHeap(first: number, holeIndex: number, len: number, vk: number, vi: number): void {
    const keys = this.keys;
    const idx = this.idx;
    const top = holeIndex;
    let hole = holeIndex;
    let second = holeIndex;
    const limit = ((len - 1) / 2) | 0;
    while (second < limit) {
      second = 2 * (second + 1);
      if (keys[first + second]! > keys[first + second - 1]!) second--;
      keys[first + hole] = keys[first + second]!;
      idx[first + hole] = idx[first + second]!;
      hole = second;
    }
    if ((len & 1) === 0 && second === (((len - 2) / 2) | 0)) {
      second = 2 * (second + 1);
      keys[first + hole] = keys[first + second - 1]!;
      idx[first + hole] = idx[first + second - 1]!;
      hole = second - 1;
    }
    // __push_heap
    let parent = ((hole - 1) / 2) | 0;
    while (hole > top && keys[first + parent]! > vk) {
      keys[first + hole] = keys[first + parent]!;
      idx[first + hole] = idx[first + parent]!;
      hole = parent;
      parent = ((hole - 1) / 2) | 0;
    }
    keys[first + hole] = vk;
    idx[first + hole] = vi;
  }

  private swap(a: number, b: number): void {
    const keys = this.keys;
    const idx = this.idx;
    const k = keys[a]!;
    keys[a] = keys[b]!;
    keys[b] = k;
    const i = idx[a]!;
    idx[a] = idx[b]!;
    idx[b] = i;
  }

  private introselect(first: number, nth: number, last: number, depthLimit: number): void {
    while (last - first > 3) {
      if (depthLimit === 0) {
        this.heapSelect(first, nth + 1, last);
        this.swap(first, nth);
        return;
      }
      depthLimit--;
      const cut = this.partitionPivot(first, last);
      if (cut <= nth) first = cut;
      else last = cut;
    }
    this.insertionSort(first, last);
  }

  private partitionPivot(first: number, last: number): number {
    const mid = first + ((last - first) >> 1);
    this.moveMedianToFirst(first, first + 1, mid, last - 1);
    return this.unguardedPartition(first + 1, last, first);
  }

  private moveMedianToFirst(result: number, a: number, b: number, c: number): void {
    const keys = this.keys;
    const ka = keys[a]!;
    const kb = keys[b]!;
    const kc = keys[c]!;
    if (ka > kb) {
      if (kb > kc) this.swap(result, b);
      else if (ka > kc) this.swap(result, c);
      else this.swap(result, a);
    } else if (ka > kc) this.swap(result, a);
    else if (kb > kc) this.swap(result, c);
    else this.swap(result, b);
  }

  private unguardedPartition(first: number, last: number, pivot: number): number {
    const keys = this.keys;
    for (;;) {
      while (keys[first]! > keys[pivot]!) first++;
      last--;
      while (keys[pivot]! > keys[last]!) last--;
      if (!(first < last)) return first;
      this.swap(first, last);
      first++;
    }
  }

  private insertionSort(first: number, last: number): void {
    if (first === last) return;
    const keys = this.keys;
    const idx = this.idx;
    for (let i = first + 1; i !== last; i++) {
      const vk = keys[i]!;
      const vi = idx[i]!;
      if (vk > keys[first]!) {
        for (let j = i; j > first; j--) {
          keys[j] = keys[j - 1]!;
          idx[j] = idx[j - 1]!;
        }
        keys[first] = vk;
        idx[first] = vi;
      } else {
        let hole = i;
        let next = i - 1;
        while (vk > keys[next]!) {
          keys[hole] = keys[next]!;
          idx[hole] = idx[next]!;
          hole = next;
          next--;
        }
        keys[hole] = vk;
        idx[hole] = vi;
      }
    }
  }
}
