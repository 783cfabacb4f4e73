/**
 * A binary min-heap whose items know their position (`heapPos`), so that any item can be deleted in
 * O(log n), and whose smallest items can be VISITED in ascending order without being removed:
 * `forEachInOrder` walks the heap best-first (a small auxiliary heap of positions holds the frontier),
 * O(m log m) for the m items visited, whatever the heap's size.
 *
 * The schedulers keep the running jobs by expected end in one: a start and an end cost O(log R), and
 * an EASY reservation visits only the jobs that end before the head can start.
 */

/** An item of an `IndexedHeap`; `heapPos` is maintained by the heap (-1 when not in it). */
export interface HeapItem {
  heapPos: number;
}

/** A cursor over a heap's items in ascending order; `next()` gives undefined at the end. */
export interface InOrderCursor<T> {
  next(): T | undefined;
}

/** See the module comment. */
export class IndexedHeap<T extends HeapItem> {
  private readonly a: T[] = [];
  private aux = new Int32Array(64);
  /** Frontier of the cursor (`inOrder`): positions of `a`, a min-heap by the items there. */
  private cur = new Int32Array(64);
  private curN = 0;
  private readonly cursor: InOrderCursor<T> = { next: () => this.cursorNext() };

  /** `less(x, y)`: x comes first; must be a strict order (break ties, e.g. by a sequence number). */
  constructor(private readonly less: (x: T, y: T) => boolean) {}

  /** Number of items. */
  get size(): number {
    return this.a.length;
  }

  /** Smallest item, or undefined. */
  peek(): T | undefined {
    return this.a[0];
  }

  /** Adds `item`. */
  push(item: T): void {
    this.a.push(item);
    this.up(this.a.length - 1);
  }

  /** Removes `item` (which must be in this heap). */
  delete(item: T): void {
    const a = this.a;
    const i = item.heapPos;
    if (i < 0 || a[i] !== item) throw new Error('IndexedHeap.delete: the item is not in this heap');
    const last = a.pop()!;
    item.heapPos = -1;
    if (i === a.length) return;
    a[i] = last;
    last.heapPos = i;
    this.up(i);
    this.down(last.heapPos);
  }

  /** Removes and returns the smallest item. */
  pop(): T | undefined {
    const top = this.a[0];
    if (top) this.delete(top);
    return top;
  }

  private up(i: number): void {
    const a = this.a;
    const e = a[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const q = a[p]!;
      if (!this.less(e, q)) break;
      a[i] = q;
      q.heapPos = i;
      i = p;
    }
    a[i] = e;
    e.heapPos = i;
  }

  private down(i: number): void {
    const a = this.a;
    const n = a.length;
    const e = a[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.less(a[c + 1]!, a[c]!)) c++;
      if (!this.less(a[c]!, e)) break;
      a[i] = a[c]!;
      a[i]!.heapPos = i;
      i = c;
    }
    a[i] = e;
    e.heapPos = i;
  }

  /**
   * Starts a walk of the items in ascending order without a callback: `cursor.next()` gives them one
   * by one (O(log m) each for the m-th). One walk at a time per heap (a new call restarts it); do not
   * modify the heap meanwhile.
   */
  inOrder(): InOrderCursor<T> {
    this.curN = 0;
    if (this.a.length > 0) {
      this.cur[0] = 0;
      this.curN = 1;
    }
    return this.cursor;
  }

  private cursorNext(): T | undefined {
    const a = this.a;
    let h = this.cur;
    let n = this.curN;
    if (n === 0) return undefined;
    const less = this.less;
    const top = h[0]!;
    // pop the smallest position
    n--;
    if (n > 0) {
      const last = h[n]!;
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && less(a[h[c + 1]!]!, a[h[c]!]!)) c++;
        if (!less(a[h[c]!]!, a[last]!)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    // push its children
    for (let ch = 2 * top + 1; ch <= 2 * top + 2 && ch < a.length; ch++) {
      if (n === h.length) {
        const bigger = new Int32Array(h.length * 2);
        bigger.set(h);
        h = this.cur = bigger;
      }
      let i = n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!less(a[ch]!, a[h[p]!]!)) break;
        h[i] = h[p]!;
        i = p;
      }
      h[i] = ch;
    }
    this.curN = n;
    return a[top];
  }

  /** Calls `fn` on items in ascending order until it returns false (do not modify the heap meanwhile). */
  forEachInOrder(fn: (item: T) => boolean): void {
    const a = this.a;
    if (a.length === 0) return;
    // auxiliary min-heap of positions of `a`, ordered by the items there
    let aux = this.aux;
    let n = 1;
    aux[0] = 0;
    const less = (i: number, j: number) => this.less(a[i]!, a[j]!);
    while (n > 0) {
      const top = aux[0]!;
      // pop
      n--;
      if (n > 0) {
        const last = aux[n]!;
        let i = 0;
        for (;;) {
          let c = 2 * i + 1;
          if (c >= n) break;
          if (c + 1 < n && less(aux[c + 1]!, aux[c]!)) c++;
          if (!less(aux[c]!, last)) break;
          aux[i] = aux[c]!;
          i = c;
        }
        aux[i] = last;
      }
      if (!fn(a[top]!)) return;
      // push the children of `top`
      for (let ch = 2 * top + 1; ch <= 2 * top + 2 && ch < a.length; ch++) {
        if (n === aux.length) {
          const bigger = new Int32Array(aux.length * 2);
          bigger.set(aux);
          aux = this.aux = bigger;
        }
        let i = n++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (!less(ch, aux[p]!)) break;
          aux[i] = aux[p]!;
          i = p;
        }
        aux[i] = ch;
      }
    }
  }
}
