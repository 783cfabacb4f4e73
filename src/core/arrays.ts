/**
 * Arrays shaped for V8's fast paths.
 *
 * An empty array literal starts with small-integer elements; the first object pushed onto it changes
 * its elements kind. A list made fresh per run (an episode's resize records, a scheduler's running
 * jobs) then sends the optimized code that pushes onto it back to the interpreter at the first push of
 * a later run, to be compiled again (measured on Malleable-v0: the engine's resize path recompiled
 * within the first episodes). `objectList()` gives an empty array whose elements are already of the
 * objects' kind (elements kinds never go back), so every list of a site has one shape from the start.
 */

/** An empty array with object elements (see the module comment). */
export function objectList<T extends object>(): T[] {
  const a: (T | null)[] = [null];
  a.pop();
  return a as T[];
}
