/**
 * The leaderboard's statistics: a learned policy against the best heuristic, paired by episode.
 *
 * For episodes `i = 1..n` with the learned policy's metric `x_i` and the best heuristic's `y_i`
 * (same episode), the relative paired difference is `d_i = (x_i - y_i) / |mean(y)|`; the reported
 * difference is `mean(d)` (so -0.05 is "5 % lower than the best heuristic's mean"). Its 95 %
 * interval is the percentile bootstrap over episodes: `B` resamples of `n` episodes drawn with
 * replacement from a seeded stream (`derive(seed, 'bootstrap')`, so a run is reproducible), the mean
 * of `d` over each, and the 2.5th and 97.5th percentiles of those means (linear interpolation
 * between order statistics). Verdict: `better` when the whole interval is on the good side of 0
 * (below it when lower is better), `worse` when wholly on the bad side, else `tie`.
 */
import { derive } from '../../src/core/rng.js';
import { quantile } from '../../src/core/statistics.js';

export { quantile };

/** Bootstrap resamples (enough for the 2.5 % tails to move by well under 0.1 % of the difference). */
export const BOOTSTRAP_RESAMPLES = 10_000;

/** A paired comparison. */
export interface PairedDiff {
  /** Mean relative paired difference, `mean(x - y) / |mean(y)|`. */
  mean: number;
  /** 95 % percentile-bootstrap interval of `mean`. */
  ci95: [number, number];
}

/** The verdict of a learned policy against the best heuristic. */
export type Verdict = 'better' | 'worse' | 'tie';

/** The relative paired difference of `x` against `y` (same episodes, same order) with its bootstrap interval. */
export function pairedDiff(x: readonly number[], y: readonly number[], seed: number | string, resamples = BOOTSTRAP_RESAMPLES): PairedDiff {
  if (x.length !== y.length || x.length === 0) throw new Error(`paired difference needs two equal, non-empty series (found ${x.length} and ${y.length})`);
  const n = x.length;
  const scale = Math.abs(y.reduce((a, b) => a + b, 0) / n) || 1;
  const d = x.map((xi, i) => (xi - y[i]!) / scale);
  const mean = d.reduce((a, b) => a + b, 0) / n;
  const rng = derive(seed, 'bootstrap');
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += d[rng.int(n)]!;
    means[b] = s / n;
  }
  means.sort();
  return { mean, ci95: [quantile(means, 0.025), quantile(means, 0.975)] };
}

/** `better`, `worse` or `tie` from an interval of (learned - best heuristic). */
export function verdictOf(ci95: readonly [number, number], lowerIsBetter: boolean): Verdict {
  const [lo, hi] = ci95;
  if (lowerIsBetter ? hi < 0 : lo > 0) return 'better';
  if (lowerIsBetter ? lo > 0 : hi < 0) return 'worse';
  return 'tie';
}
