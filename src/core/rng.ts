/**
 * Seeded random streams. Every random choice in clustergym comes from a stream derived from the
 * run's seed and a purpose label (`derive(seed, 'workload')`, `derive(seed, 'policy')`), so that
 * adding randomness in one place never shifts the numbers drawn in another. `Math.random` is
 * never used.
 *
 * Two generators stand behind the one `Rng` interface: the default (seedrandom's Alea), and
 * `PythonRandom`, a bit-exact copy of CPython's `random` module (MT19937 seeded as
 * `random.seed(int)` does; `random()`, `shuffle` and `randint` as CPython computes them). IRMaSim
 * seeds Python's global generator with its options' `seed` and draws its heuristics' random choices
 * from it, so runs of IRMaSim's options files use `PythonRandom` to make the same draws.
 */
import seedrandom from 'seedrandom';

/** A deterministic source of uniform numbers in [0, 1) with a few derived distributions. */
export class Rng {
  private readonly prng: seedrandom.PRNG | null;

  constructor(seed: string | number | null) {
    this.prng = seed === null ? null : seedrandom.alea(String(seed));
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.prng!();
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal deviate (Box–Muller; one draw of two uniforms per call, for reproducibility). */
  normal(mean = 0, sd = 1): number {
    let u = this.next();
    while (u <= 0) u = this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Lognormal deviate: `exp(N(mu, sigma))`. */
  lognormal(mu: number, sigma: number): number {
    return Math.exp(this.normal(mu, sigma));
  }

  /** Exponential deviate with the given rate (mean `1 / rate`). */
  exponential(rate: number): number {
    let u = this.next();
    while (u <= 0) u = this.next();
    return -Math.log(u) / rate;
  }

  /** Gamma deviate (Marsaglia–Tsang), shape `k > 0`, scale `theta`. */
  gamma(k: number, theta: number): number {
    if (k < 1) {
      const u = this.next();
      return this.gamma(k + 1, theta) * (u <= 0 ? Number.MIN_VALUE : u) ** (1 / k);
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

  /** In-place Fisher–Yates shuffle (`j = int(i + 1)` for `i` from the last index down to 1, as CPython's). */
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

const MT_N = 624;
const MT_M = 397;

/**
 * CPython's `random.Random`, bit for bit: the MT19937 generator seeded from a non-negative integer as
 * `random.seed(n)` does (`init_by_array` over the 32-bit words of `|n|`), `next()` = `random()`
 * (53 bits from two draws), `int(n)` = `_randbelow(n)` (rejection sampling over `getrandbits`), so that
 * `shuffle` and `randint` give Python's results.
 */
export class PythonRandom extends Rng {
  private readonly mt = new Uint32Array(MT_N);
  private mti = MT_N + 1;

  constructor(seed: number | bigint) {
    super(null);
    let n = BigInt(seed);
    if (n < 0n) n = -n;
    const key: number[] = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < MT_N; i++) {
      const prev = mt[i - 1]!;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.mti = MT_N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(MT_N, key.length); k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1664525)) >>> 0) + key[j]! + j;
      i++;
      j++;
      if (i >= MT_N) {
        mt[0] = mt[MT_N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = MT_N - 1; k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) >>> 0) - i;
      i++;
      if (i >= MT_N) {
        mt[0] = mt[MT_N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output of MT19937 (`genrand_uint32`). */
  uint32(): number {
    const mt = this.mt;
    if (this.mti >= MT_N) {
      let kk = 0;
      for (; kk < MT_N - MT_M; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
        mt[kk] = mt[kk + MT_M]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < MT_N - 1; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
        mt[kk] = mt[kk + (MT_M - MT_N)]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      const y = (mt[MT_N - 1]! & 0x80000000) | (mt[0]! & 0x7fffffff);
      mt[MT_N - 1] = mt[MT_M - 1]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random.getrandbits(k)` for `0 < k <= 32`. */
  getrandbits(k: number): number {
    return this.uint32() >>> (32 - k);
  }

  /** `random.random()`. */
  override next(): number {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** `random._randbelow(n)`: uniform integer in [0, n), `0 < n < 2^32`. */
  override int(n: number): number {
    if (!(n > 0 && n <= 0xffffffff)) throw new RangeError(`PythonRandom.int(${n}): expected 0 < n < 2^32`);
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `random.randint(a, b)`: uniform integer in [a, b]. */
  randint(a: number, b: number): number {
    return a + this.int(b - a + 1);
  }
}

/** A stream derived from `seed` for one purpose; different labels give independent streams. */
export function derive(seed: number | string, label: string): Rng {
  return new Rng(`${seed}/${label}`);
}
