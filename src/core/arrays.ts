/**
 * Arrays shaped for V8's fast paths.
 *
 * An empty array literal starts with small-integer elements; the first object pushed onto it changes
 * its elements kind. A list made fresh per run (an episode's resize records, a scheduler's running
 * jobs) then sends the optimized code that pushes onto it back to the interpreter at the first push of
 * a later run, to be compiled again (measured on Malleable-v0: the engine's resize path recompiled
 * within the first episodes). `objectList()` gives an empty array whose elements are already of the
 * objects' kind (elements kinds never go back), so every list of a site has one shape from the start.
 *
 * Dense per-slot tables (typed arrays indexed by a recycled slot) grow by copying into a larger array:
 * `grown`.
 */

/** An empty array with object elements (see the module comment). */
export function objectList<T extends object>(): T[] {
  const a: (T | null)[] = [null];
  a.pop();
  return a as T[];
}

/** A typed array of the same kind as `a`: `a`'s elements, then `fill` up to length `n` (`n >= a.length`). */
export function grown<T extends Float64Array | Int32Array | Uint8Array>(a: T, n: number, fill = 0): T {
  const out = new (a.constructor as new (n: number) => T)(n);
  if (fill !== 0) out.fill(fill, a.length);
  out.set(a);
  return out;
}
