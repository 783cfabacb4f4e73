/**
 * Statistics helpers, written once: quantiles (numpy's default, linear interpolation between the
 * closest ranks: the `q` quantile of `n` sorted values is at position `h = (n - 1) q`, `x[floor h] +
 * (h - floor h)(x[floor h + 1] - x[floor h])`), means, and Jain's fairness index.
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
