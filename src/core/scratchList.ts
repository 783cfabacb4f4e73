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
