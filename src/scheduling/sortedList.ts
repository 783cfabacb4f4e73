/**
 * A sorted multiset kept as a list of small sorted chunks (a flat B-tree of height one), used by the
 * schedulers for the running jobs ordered by expected end and for queues ordered by a static
 * priority key.
 *
 * Cost: insert and delete are `O(log n + B)` (a binary search over the chunks, a binary search in the
 * chunk, then a shift of at most `2B` elements, `B` = 64); iteration in order is `O(1)` per item;
 * `first()` is `O(1)`. A plain sorted array would cost `O(n)` per insert (a `memmove` of the whole
 * tail), too much with tens of thousands of running jobs and millions of starts.
 *
 * Items are ordered by a strict total order `compare` (callers break ties with a sequence number), so
 * an item is found again by comparison alone.
 */

const CHUNK = 64;

/** A sorted multiset with cheap insert, delete and in-order iteration. */
export class SortedList<T> {
  private chunks: T[][] = [];
  private count = 0;

  /** `compare(a, b) < 0` when `a` comes first; must be a strict total order on the stored items. */
  constructor(private readonly compare: (a: T, b: T) => number) {}

  /** Number of items. */
  get length(): number {
    return this.count;
  }

  /** Smallest item, or undefined. */
  first(): T | undefined {
    return this.chunks.length > 0 ? this.chunks[0]![0] : undefined;
  }

  /** Index of the chunk that holds (or would hold) `item`. */
  private chunkFor(item: T): number {
    const cs = this.chunks;
    let lo = 0;
    let hi = cs.length - 1;
    // first chunk whose last item is >= item
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = cs[mid]!;
      if (this.compare(c[c.length - 1]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Position of the first item of `c` that is >= `item`. */
  private lowerBound(c: T[], item: T): number {
    let lo = 0;
    let hi = c.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(c[mid]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Inserts `item`. */
  insert(item: T): void {
    this.count++;
    if (this.chunks.length === 0) {
      this.chunks.push([item]);
      return;
    }
    const ci = this.chunkFor(item);
    const c = this.chunks[ci]!;
    const at = this.lowerBound(c, item);
    c.push(item);
    for (let i = c.length - 1; i > at; i--) c[i] = c[i - 1]!;
    c[at] = item;
    if (c.length > 2 * CHUNK) this.chunks.splice(ci + 1, 0, c.splice(CHUNK));
  }

  /** Removes `item` (found by comparison); returns whether it was present. */
  delete(item: T): boolean {
    if (this.chunks.length === 0) return false;
    const ci = this.chunkFor(item);
    const c = this.chunks[ci]!;
    const at = this.lowerBound(c, item);
    if (at >= c.length || this.compare(c[at]!, item) !== 0) return false;
    for (let i = at + 1; i < c.length; i++) c[i - 1] = c[i]!;
    c.pop();
    this.count--;
    if (c.length === 0) this.chunks.splice(ci, 1);
    return true;
  }

  /** Removes and returns the smallest item. */
  shift(): T | undefined {
    if (this.chunks.length === 0) return undefined;
    const c = this.chunks[0]!;
    const item = c.shift();
    this.count--;
    if (c.length === 0) this.chunks.shift();
    return item;
  }

  /** Items in order (do not insert or delete while iterating). */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const c of this.chunks) for (let i = 0; i < c.length; i++) yield c[i]!;
  }

  /** The first `k` items in order (fewer when the list is shorter), skipping `skip` first. */
  slice(skip: number, k: number): T[] {
    const out: T[] = [];
    let s = skip;
    for (const c of this.chunks) {
      if (s >= c.length) {
        s -= c.length;
        continue;
      }
      for (let i = s; i < c.length && out.length < k; i++) out.push(c[i]!);
      s = 0;
      if (out.length >= k) break;
    }
    return out;
  }

  /** Appends the first `k` items in order (fewer when the list is shorter) to `into`, without a callback per item. */
  firstInto(k: number, into: { push(item: T): void }): void {
    let n = 0;
    const cs = this.chunks;
    for (let ci = 0; ci < cs.length && n < k; ci++) {
      const c = cs[ci]!;
      for (let i = 0; i < c.length && n < k; i++, n++) into.push(c[i]!);
    }
  }

  /** Calls `fn` on items in order until it returns false. */
  forEachWhile(fn: (item: T) => boolean): void {
    for (const c of this.chunks) for (let i = 0; i < c.length; i++) if (!fn(c[i]!)) return;
  }

  /** All items in order. */
  toArray(): T[] {
    // (filled by push: an array made by `new Array(n)` stays holey, slower to read and to sort)
    const out: T[] = [];
    for (const c of this.chunks) for (let i = 0; i < c.length; i++) out.push(c[i]!);
    return out;
  }

  /** Replaces the items with `sorted` (in order already): chunks are cut from it, without a search per item. */
  load(sorted: readonly T[]): void {
    this.chunks = [];
    for (let i = 0; i < sorted.length; i += CHUNK) this.chunks.push(sorted.slice(i, i + CHUNK));
    this.count = sorted.length;
  }

  /** Removes every item. */
  clear(): void {
    this.chunks = [];
    this.count = 0;
  }
}
