/**
 * A list that is emptied and refilled many times over (the hooks of an instant, the tasks whose speeds an
 * event changed), which keeps its storage when it is emptied. V8 gives an array's storage back when its
 * `length` is set to 0, so the next `push` allocates it again (about 150 bytes for a list of a few items):
 * once per instant or per event in the engines' hot paths, a large part of a run's garbage.
 */
export class ScratchList<T> {
  private readonly items: T[] = [];
  /** Items in the list (`at(0 .. length - 1)`). */
  length = 0;

  /** Appends `x`. */
  push(x: T): void {
    this.items[this.length++] = x;
  }

  /** The item at `i` (`0 <= i < length`). */
  at(i: number): T {
    return this.items[i]!;
  }

  /** Whether `x` is in the list. */
  includes(x: T): boolean {
    for (let i = 0; i < this.length; i++) if (this.items[i] === x) return true;
    return false;
  }

  /** Removes the first `x` in the list (the items after it move up one); whether it was there. */
  remove(x: T): boolean {
    const items = this.items;
    for (let i = 0; i < this.length; i++)
      if (items[i] === x) {
        for (let j = i + 1; j < this.length; j++) items[j - 1] = items[j]!;
        this.length--;
        return true;
      }
    return false;
  }

  /** The items in a new array. */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.length; i++) out.push(this.items[i]!);
    return out;
  }

  /** Empties the list; its storage is kept (the items it held stay referenced until overwritten). */
  clear(): void {
    this.length = 0;
  }
}

/**
 * A `ScratchList` of integers (waiting slots, processor and node ids: 0 <= x < 2^31) kept in an `Int32Array`
 * that grows by doubling. Beside the lists of objects, a list of numbers on the same `push` would make that
 * store site see arrays of several element kinds, and V8 then handles every push through its generic
 * (megamorphic) store; this one's stores are typed-array stores, inlined.
 */
export class ScratchIndexList {
  private items = new Int32Array(16);
  /** Items in the list (`at(0 .. length - 1)`). */
  length = 0;

  /** Appends `x` (an integer, 0 <= x < 2^31). */
  push(x: number): void {
    if (this.length === this.items.length) {
      const grown = new Int32Array(2 * this.items.length);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = x;
  }

  /** The item at `i` (`0 <= i < length`). */
  at(i: number): number {
    return this.items[i]!;
  }

  /** Whether `x` is in the list. */
  includes(x: number): boolean {
    for (let i = 0; i < this.length; i++) if (this.items[i] === x) return true;
    return false;
  }

  /** Removes the first `x` in the list (the items after it move up one); whether it was there. */
  remove(x: number): boolean {
    const items = this.items;
    for (let i = 0; i < this.length; i++)
      if (items[i] === x) {
        items.copyWithin(i, i + 1, this.length);
        this.length--;
        return true;
      }
    return false;
  }

  /** The items in a new array. */
  toArray(): number[] {
    return Array.from(this.items.subarray(0, this.length));
  }

  /** Empties the list (its storage is kept). */
  clear(): void {
    this.length = 0;
  }
}
