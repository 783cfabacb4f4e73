/**
 * Statistics helpers, written once: quantiles (numpy's default, linear interpolation between the
 * closest ranks: the `q` quantile of `n` sorted values is at position `h = (n - 1) q`, `x[floor h] +
 * (h - floor h)(x[floor h + 1] - x[floor h])`), means, Jain's fairness index, and an exact sum whose bits do
 * not depend on the order of its terms (`ExactSum`).
 */

/** The `q` (0..1) quantile of ascending `sorted`, linear interpolation (numpy's default); NaN when empty. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** The `q` quantile of `values` in any order (a sorted copy; see `quantile`). */
export function quantileOf(values: ArrayLike<number>, q: number): number {
  return quantile(Float64Array.from(values).sort(), q);
}

/** The `q` quantile taken as the value at rank `floor(q (n - 1))` of the sorted values (no interpolation); NaN when empty. */
export function quantileLowerRank(values: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const v = Float64Array.from(values).sort();
  return v[Math.min(n - 1, Math.floor(q * (n - 1)))]!;
}

/** Arithmetic mean; NaN when empty. */
export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  let s = 0;
  for (let i = 0; i < n; i++) s += values[i]!;
  return s / n;
}

/** Jain's fairness index of non-negative values: `(Σx)² / (n Σx²)`, 1 when all are equal; 1 for all zeros. */
export function jainIndex(xs: ArrayLike<number>): number {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < xs.length; i++) {
    s += xs[i]!;
    s2 += xs[i]! * xs[i]!;
  }
  return s2 === 0 ? 1 : (s * s) / (xs.length * s2);
}

/**
 * A sum of finite floats computed exactly and rounded once at the end (Shewchuk's partials, as Python's
 * `math.fsum`): the same bits whatever the order of the terms, where a running `+=` gives bits that depend on it.
 * A reader that sums over a set (the waiting jobs of an engine) gets one answer from every engine, whatever
 * order each keeps the set in. Kept for reuse: `clear` keeps its storage.
 */
export class ExactSum {
  /** Non-overlapping partial sums, increasing in magnitude (`count` of them). */
  private readonly partials: number[] = [];
  private count = 0;

  /** Adds finite `x`. */
  add(x: number): void {
    const p = this.partials;
    let i = 0;
    for (let j = 0; j < this.count; j++) {
      let y = p[j]!;
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[i++] = lo;
      x = hi;
    }
    p[i++] = x;
    this.count = i;
  }

  /** The sum of the terms added since the last `clear`, correctly rounded (0 when none). */
  value(): number {
    const p = this.partials;
    let n = this.count;
    if (n === 0) return 0;
    let hi = p[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = p[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // a half-way case rounds by the sign of the partials below (round half to even on the exact sum)
    if (n > 0 && ((lo < 0 && p[n - 1]! < 0) || (lo > 0 && p[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }

  /** Starts a new sum. */
  clear(): void {
    this.count = 0;
  }
}
