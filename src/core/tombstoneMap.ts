/**
 * A map for keys that come and go all the time (the waiting jobs of an engine, each a key from its submission
 * to its start), whose storage does not follow them up and down.
 *
 * V8's `Map` shrinks its hash table when a `delete` leaves it less than half full, and grows it again (a new
 * table, the entries copied) as keys are added; `clear` drops it. A queue of waiting jobs that drains and fills
 * again thus reallocates its map's table over and over, and the tables of a long queue live long enough to be
 * copied by the young-generation collector before they die: measured on the Raijin replay at shrink 50, the two
 * per-job maps of the one engine's Slurm preset were 45 of the 104 MB that survived a scavenge.
 *
 * Here a deletion writes a tombstone over the entry's value, which costs no reallocation, and the table is
 * rebuilt (one allocation, the live entries) only when the tombstones outnumber the live entries (and 1,024):
 * amortised O(1) per operation, a table at most about twice the live entries.
 */

/** The value of a deleted entry (one object, compared by identity). */
const TOMBSTONE: unique symbol = Symbol('deleted');

/** A map whose deletions write tombstones, rebuilt when they outnumber its live entries (module comment). */
export class TombstoneMap<K, V> {
  private map = new Map<K, V | typeof TOMBSTONE>();
  private dead = 0;

  /** Live entries. */
  get size(): number {
    return this.map.size - this.dead;
  }

  /** The value of `key`, or undefined. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    return v === TOMBSTONE ? undefined : v;
  }

  /** Whether `key` has a value. */
  has(key: K): boolean {
    const v = this.map.get(key);
    return v !== undefined && v !== TOMBSTONE;
  }

  /** Sets `key`'s value. */
  set(key: K, value: V): void {
    const m = this.map;
    if (this.dead > 0 && m.get(key) === TOMBSTONE) this.dead--;
    m.set(key, value);
  }

  /** Removes `key`'s value; whether it had one. */
  delete(key: K): boolean {
    const m = this.map;
    const v = m.get(key);
    if (v === TOMBSTONE || (v === undefined && !m.has(key))) return false;
    m.set(key, TOMBSTONE);
    if (++this.dead > 1024 && this.dead > m.size - this.dead) this.rebuild();
    return true;
  }

  /** Removes every entry. */
  clear(): void {
    this.map.clear();
    this.dead = 0;
  }

  /** Calls `fn` on the live entries, in insertion order. */
  forEach(fn: (value: V, key: K) => void): void {
    for (const [k, v] of this.map) if (v !== TOMBSTONE) fn(v, k);
  }

  /** The live values, in insertion order. */
  values(): V[] {
    const out: V[] = [];
    for (const v of this.map.values()) if (v !== TOMBSTONE) out.push(v);
    return out;
  }

  private rebuild(): void {
    const live = new Map<K, V | typeof TOMBSTONE>();
    for (const [k, v] of this.map) if (v !== TOMBSTONE) live.set(k, v);
    this.map = live;
    this.dead = 0;
  }
}
