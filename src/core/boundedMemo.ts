/**
 * Values derived from their key by a pure function and kept for the next caller, at most `size` of them (the
 * oldest kept goes first): what a run of short episodes rebuilds at every reset from the same inputs (a
 * workload generator's tables, a preset's parsed configuration and platform), made once. A kept value is
 * shared by every caller: none may change it.
 */
export class BoundedMemo<K, V> {
  private readonly kept = new Map<K, V>();

  constructor(readonly size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`BoundedMemo: size must be an integer >= 1, found ${size}`);
  }

  /** The value kept for `key`, or `make()`'s, kept then (the oldest value dropped past `size`). */
  get(key: K, make: () => V): V {
    let v = this.kept.get(key);
    if (v === undefined) {
      v = make();
      if (this.kept.size >= this.size) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(key, v);
    }
    return v;
  }
}
