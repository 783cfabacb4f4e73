/**
 * Free cores per node in a max segment tree, so that "the first node at or after position `from`
 * with at least `k` free cores" is found in O(log N) instead of a walk over the platform. Nodes are
 * indexed by their position in an order (platform order, or a policy's order); `update` is O(log N).
 */
export class NodeFreeTree {
  private readonly size: number;
  private readonly tree: Int32Array;
  /** Number of positions. */
  readonly length: number;

  constructor(free: ArrayLike<number>) {
    this.length = free.length;
    let s = 1;
    while (s < Math.max(1, free.length)) s <<= 1;
    this.size = s;
    this.tree = new Int32Array(2 * s);
    for (let i = 0; i < free.length; i++) this.tree[s + i] = free[i]!;
    for (let i = s - 1; i >= 1; i--) this.tree[i] = Math.max(this.tree[2 * i]!, this.tree[2 * i + 1]!);
  }

  /** Free cores at position `i`. */
  get(i: number): number {
    return this.tree[this.size + i]!;
  }

  /** Largest free count over all positions. */
  max(): number {
    return this.tree[1]!;
  }

  /** Sets the free count of position `i`. */
  update(i: number, free: number): void {
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

  /** First position `>= from` whose free count is `>= k`, or -1. */
  findFirst(from: number, k: number): number {
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
