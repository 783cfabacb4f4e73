/**
 * Free cores per node in a max segment tree, so that "the first node at or after position `from`
 * with at least `k` free cores" is found in O(log N) instead of a walk over the platform. Nodes are
 * indexed by their position in an order (platform order, or a policy's order); `update` is O(log N).
 *
 * A job that takes or frees cores on k nodes at once changes k leaves: `setLeaf` for each; the next
 * search (or `commit`) recomputes every ancestor of the leaves set since the last one once, level by
 * level (about k + k log(N / k) nodes instead of k log N), and stops climbing where a maximum did not
 * change. The leaves set by several placements between two searches (a resize, a job end, a start)
 * are recomputed together.
 */
export class NodeFreeTree {
  private readonly size: number;
  private readonly tree: Int32Array;
  /** Number of positions. */
  readonly length: number;
  // batched updates: tree indices whose parents must be recomputed
  private readonly pending: Int32Array;
  private pendingCount = 0;

  constructor(free: ArrayLike<number>) {
    this.length = free.length;
    let s = 1;
    while (s < Math.max(1, free.length)) s <<= 1;
    this.size = s;
    this.tree = new Int32Array(2 * s);
    for (let i = 0; i < free.length; i++) this.tree[s + i] = free[i]!;
    for (let i = s - 1; i >= 1; i--) this.tree[i] = Math.max(this.tree[2 * i]!, this.tree[2 * i + 1]!);
    this.pending = new Int32Array(s);
  }

  /** Free cores at position `i`. */
  get(i: number): number {
    return this.tree[this.size + i]!;
  }

  /** Largest free count over all positions. */
  max(): number {
    if (this.pendingCount > 0) this.commit();
    return this.tree[1]!;
  }

  /** Sets the free count of position `i`. */
  update(i: number, free: number): void {
    if (this.pendingCount > 0) this.commit();
    let p = this.size + i;
    this.tree[p] = free;
    p >>= 1;
    while (p >= 1) {
      const m = Math.max(this.tree[2 * p]!, this.tree[2 * p + 1]!);
      if (this.tree[p] === m) break;
      this.tree[p] = m;
      p >>= 1;
    }
  }

  /** Sets the free count of position `i`; the inner nodes follow at the next search (or `commit`). */
  setLeaf(i: number, free: number): void {
    const p = this.size + i;
    if (this.tree[p] === free) return;
    if (this.pendingCount === this.pending.length) this.commit();
    this.tree[p] = free;
    this.pending[this.pendingCount++] = p;
  }

  /**
   * Recomputes the inner nodes above the leaves set since the last commit, level by level. A parent
   * reached twice is recomputed twice; the second time its maximum is already current, so it is not
   * climbed from again.
   */
  commit(): void {
    let n = this.pendingCount;
    const q = this.pending;
    const t = this.tree;
    while (n > 0) {
      let m = 0;
      for (let i = 0; i < n; i++) {
        const p = q[i]! >> 1;
        if (p < 1) continue;
        const a = t[2 * p]!;
        const b = t[2 * p + 1]!;
        const mx = a > b ? a : b;
        if (t[p] !== mx) {
          t[p] = mx;
          q[m++] = p;
        }
      }
      n = m;
    }
    this.pendingCount = 0;
  }

  /** First position `>= from` whose free count is `>= k`, or -1. */
  findFirst(from: number, k: number): number {
    if (this.pendingCount > 0) this.commit();
    if (from >= this.length || this.tree[1]! < k) return -1;
    // Walk up from the leaf, then down.
    let p = this.size + Math.max(0, from);
    if (this.tree[p]! >= k) return p - this.size;
    // climb until a right sibling subtree has enough
    for (;;) {
      if (p === 1) return -1;
      if ((p & 1) === 0 && this.tree[p + 1]! >= k) {
        p = p + 1;
        break;
      }
      p >>= 1;
    }
    while (p < this.size) {
      p = this.tree[2 * p]! >= k ? 2 * p : 2 * p + 1;
    }
    const i = p - this.size;
    return i < this.length ? i : -1;
  }
}
