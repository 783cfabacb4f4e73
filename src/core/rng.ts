/**
 * Seeded random streams. Every random choice in clustergym comes from a stream derived from the
 * run's seed and a purpose label (`derive(seed, 'workload')`, `derive(seed, 'policy')`), so that
 * adding randomness in one place never shifts the numbers drawn in another. `Math.random` is
 * never used.
 */
import seedrandom from 'seedrandom';

/** A deterministic source of uniform numbers in [0, 1) with a few derived distributions. */
export class Rng {
  private readonly prng: seedrandom.PRNG;

  constructor(seed: string | number) {
    this.prng = seedrandom.alea(String(seed));
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.prng();
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.prng();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.prng() * n);
  }

  /** Standard normal deviate (Box–Muller; one draw of two uniforms per call, for reproducibility). */
  normal(mean = 0, sd = 1): number {
    let u = this.prng();
    while (u <= 0) u = this.prng();
    const v = this.prng();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Lognormal deviate: `exp(N(mu, sigma))`. */
  lognormal(mu: number, sigma: number): number {
    return Math.exp(this.normal(mu, sigma));
  }

  /** Exponential deviate with the given rate (mean `1 / rate`). */
  exponential(rate: number): number {
    let u = this.prng();
    while (u <= 0) u = this.prng();
    return -Math.log(u) / rate;
  }

  /** Gamma deviate (Marsaglia–Tsang), shape `k > 0`, scale `theta`. */
  gamma(k: number, theta: number): number {
    if (k < 1) {
      const u = this.next();
      return this.gamma(k + 1, theta) * Math.pow(u <= 0 ? Number.MIN_VALUE : u, 1 / k);
    }
    const d = k - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.next();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v * theta;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * theta;
    }
  }

  /** In-place Fisher–Yates shuffle. */
  shuffle<T>(a: T[]): T[] {
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = a[i]!;
      a[i] = a[j]!;
      a[j] = t;
    }
    return a;
  }
}

/** A stream derived from `seed` for one purpose; different labels give independent streams. */
export function derive(seed: number | string, label: string): Rng {
  return new Rng(`${seed}/${label}`);
}
