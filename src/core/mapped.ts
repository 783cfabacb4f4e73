/**
 * An iterator that hands out `f(x)` for each `x` of a source, for the streams an engine pulls one item at a
 * time (a preset converting its jobs as the engine takes them). Rather than a generator, it indexes an
 * array source and hands out one result object (the engine reads each item as it pulls it): a generator
 * costs a frame's resumption and a result per item, which a run of millions of jobs notices.
 */
export function mapped<T, U>(source: Iterable<T>, f: (x: T) => U): IterableIterator<U> {
  return new Mapped(source, f);
}

class Mapped<T, U> implements IterableIterator<U> {
  private readonly array: readonly T[] | null;
  private readonly iterator: Iterator<T> | null;
  private i = 0;
  private readonly result: { done: false; value: U } = { done: false, value: undefined as unknown as U };

  constructor(
    source: Iterable<T>,
    private readonly f: (x: T) => U,
  ) {
    this.array = Array.isArray(source) ? (source as readonly T[]) : null;
    this.iterator = this.array === null ? source[Symbol.iterator]() : null;
  }

  [Symbol.iterator](): IterableIterator<U> {
    return this;
  }

  next(): IteratorResult<U> {
    const a = this.array;
    if (a !== null) {
      if (this.i >= a.length) return { done: true, value: undefined };
      this.result.value = this.f(a[this.i++]!);
      return this.result;
    }
    const r = this.iterator!.next();
    if (r.done) return { done: true, value: undefined };
    this.result.value = this.f(r.value);
    return this.result;
  }
}
