/**
 * The Lublin–Feitelson model of the synthetic workloads (`model: "lublin"`, DESIGN §3; seeding as in
 * `generators.ts`), with the gamma functions it needs.
 *
 * U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
 * characteristics of rigid jobs", J. Parallel Distrib. Comput. 63(11):1105–1122, 2003; default
 * parameters are those of the authors' public C implementation (`lublin99.c`, Parallel Workloads
 * Archive), see docs/workloads.md.
 * - Size: with probability `serialProb` the job is serial (1 task); otherwise `x` is drawn from a
 *   two-stage uniform on log2 size: `U[uLow, uMed)` with probability `uProb`, else `U[uMed, uHi)`,
 *   where `uHi = log2(maxProcs)` and `uMed = uHi - 2.5` by default; with probability `pow2Prob`
 *   (counted on the same uniform draw as the serial choice: `u <= serialProb + pow2Prob`) `x` is
 *   rounded to an integer (a power-of-two size); size = `round(2^x)` (clamped to `maxProcs`).
 * - Runtime: `log(runtime)` follows a hyper-gamma: `Gamma(a1, b1)` with probability
 *   `p = clamp(pa * size + pb, 0, 1)`, else `Gamma(a2, b2)` (shape, scale), redrawn while above
 *   `maxLogRuntime` (12, about 45 h); runtime = `floor(exp(.))` seconds. `pa < 0` makes larger jobs longer.
 * - Arrivals: the day is cut into 48 half-hour buckets with weights
 *   `w_k = F(k + 0.5) - F(k - 0.5)` (`F`: CDF of `Gamma(anum, bnum)`, over buckets 11..58 folded
 *   cyclically, normalised to mean 1). Each inter-arrival draws `g ~ Gamma(aarr * arar, barr)` (redrawn
 *   while above `maxLogInterarrival` = 13) and earns `e^g / 1800` points, which are spent walking the
 *   buckets from the current one (each costs its weight, 1800 s), so arrivals are dense in heavy
 *   buckets (the daily cycle) and the rush-hour inter-arrival is `e^g`. Times are whole seconds.
 * - `classes: "batch-interactive"` runs two such streams (batch and interactive parameters of the C
 *   code), each job taking the class whose next arrival comes first; `typeless` (default) uses the
 *   whole-sample parameters.
 */
import { z } from 'zod';
import { derive, type Rng } from '../core/rng.js';
import { commonShape, finite, makeGeneratedJob, parseConfig } from './generatorCommon.js';
import type { Job, Workload } from './job.js';

/** Parameters of one class of the Lublin–Feitelson model (see docs/workloads.md). */
export interface LublinParams {
  /** Probability that a job is serial. */
  serialProb: number;
  /** Probability that a parallel job has a power-of-two size (added to serialProb on one draw). */
  pow2Prob: number;
  /** log2 of the smallest parallel size. */
  uLow: number;
  /** Breakpoint of the two-stage uniform on log2 size. */
  uMed: number;
  /** log2 of the largest size. */
  uHi: number;
  /** Probability of the first stage `[uLow, uMed)`. */
  uProb: number;
  /** Shape and scale of the first gamma of log(runtime). */
  a1: number;
  b1: number;
  /** Shape and scale of the second gamma of log(runtime). */
  a2: number;
  b2: number;
  /** Mixing probability of the first gamma: `p = pa * size + pb`, clamped to [0, 1]. */
  pa: number;
  pb: number;
  /** Shape and scale of the gamma of log(inter-arrival) at rush hours (shape multiplied by `arar`). */
  aarr: number;
  barr: number;
  /** Shape and scale of the gamma whose CDF weighs the half-hour buckets of the day. */
  anum: number;
  bnum: number;
  /** Arrive-rush-to-all ratio: multiplies `aarr`. */
  arar: number;
}

/** `uMed = uHi - offset` when uMed is not given. */
interface ParamsTemplate extends Omit<LublinParams, 'uMed' | 'uHi'> {
  uHiOffset: number;
  uMedOffset: number;
}

/** Whole-sample ("typeless") parameters of lublin99.c (SERIAL_PROB, POW2_PROB, ... ARAR). */
export const LUBLIN_TYPELESS: Readonly<ParamsTemplate> = {
  serialProb: 0.244,
  pow2Prob: 0.576,
  uLow: 0.8,
  uHiOffset: 0,
  uMedOffset: 2.5,
  uProb: 0.86,
  a1: 4.2,
  b1: 0.94,
  a2: 312,
  b2: 0.03,
  pa: -0.0054,
  pb: 0.78,
  aarr: 10.2303,
  barr: 0.4871,
  anum: 8.1737,
  bnum: 3.9631,
  arar: 1.0225,
};

/** Batch-class parameters of lublin99.c (`*_BATCH`; UHI 7, UMED 5 on a 128-processor machine). */
export const LUBLIN_BATCH: Readonly<ParamsTemplate> = {
  serialProb: 0.2927,
  pow2Prob: 0.6686,
  uLow: 1.2,
  uHiOffset: 0,
  uMedOffset: 2,
  uProb: 0.875,
  a1: 6.57,
  b1: 0.823,
  a2: 639.1,
  b2: 0.0156,
  pa: -0.003,
  pb: 0.6986,
  aarr: 6.0415,
  barr: 0.8531,
  anum: 6.1271,
  bnum: 5.274,
  arar: 1.0519,
};

/** Interactive-class parameters of lublin99.c (`*_ACTIVE`; UHI 5.5, UMED 3 on a 128-processor machine). */
export const LUBLIN_INTERACTIVE: Readonly<ParamsTemplate> = {
  serialProb: 0.1541,
  pow2Prob: 0.625,
  uLow: 1,
  uHiOffset: 1.5,
  uMedOffset: 2.5,
  uProb: 0.705,
  a1: 3.8351,
  b1: 0.6605,
  a2: 7.073,
  b2: 0.6856,
  pa: -0.0118,
  pb: 0.9156,
  aarr: 6.551,
  barr: 0.6621,
  anum: 8.9186,
  bnum: 3.668,
  arar: 0.9797,
};

const prob = finite.min(0).max(1);
const ParamsOverrideSchema = z
  .object({
    serialProb: prob,
    pow2Prob: prob,
    uLow: finite.nonnegative(),
    uMed: finite.nonnegative(),
    uHi: finite.nonnegative(),
    uProb: prob,
    a1: finite.positive(),
    b1: finite.positive(),
    a2: finite.positive(),
    b2: finite.positive(),
    pa: finite,
    pb: finite,
    aarr: finite.positive(),
    barr: finite.positive(),
    anum: finite.positive(),
    bnum: finite.positive(),
    arar: finite.positive(),
  })
  .partial()
  .strict();

/** Configuration of the Lublin–Feitelson model; every field but `jobs` has a default. */
export const LublinConfigSchema = z
  .object({
    model: z.literal('lublin'),
    ...commonShape,
    /** Processors of the machine: `uHi = log2(maxProcs)`; sizes never exceed it. */
    maxProcs: z.number().int().min(2).default(128),
    /** `typeless`: the whole-sample parameters; `batch-interactive`: two classes of jobs. */
    classes: z.enum(['typeless', 'batch-interactive']).default('typeless'),
    /** Overrides of the typeless parameters. */
    params: ParamsOverrideSchema.default({}),
    /** Overrides of the batch-class parameters. */
    batch: ParamsOverrideSchema.default({}),
    /** Overrides of the interactive-class parameters. */
    interactive: ParamsOverrideSchema.default({}),
    /** Hour of the day (0-23) at time 0. */
    startHour: z.number().int().min(0).max(23).default(0),
    /** log(runtime) is redrawn while above this (TOO_MUCH_TIME). */
    maxLogRuntime: finite.positive().default(12),
    /** log(inter-arrival) is redrawn while above this (TOO_MUCH_ARRIVE_TIME). */
    maxLogInterarrival: finite.positive().default(13),
  })
  .strict();

/** Lublin model configuration as given by the caller. */
export type LublinConfig = z.input<typeof LublinConfigSchema>;

const BUCKETS = 48;
const SECONDS_IN_BUCKET = 1800;
const CYCLIC_DAY_START = 11;

/** log Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error below 1e-13). */
export function logGamma(x: number): number {
  const g = 7;
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + g + 0.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * CDF of Gamma(shape `a`, scale `b`) at `x`: the regularised lower incomplete gamma `P(a, x / b)`,
 * by its series for `x < a + 1` and its continued fraction otherwise (Numerical Recipes §6.2).
 */
export function gammaCdf(x: number, a: number, b: number): number {
  const y = x / b;
  if (y <= 0) return 0;
  const lnPre = -y + a * Math.log(y) - logGamma(a);
  if (y < a + 1) {
    let ap = a;
    let del = 1 / a;
    let sum = del;
    for (let n = 0; n < 1000; n++) {
      ap += 1;
      del *= y / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-15) break;
    }
    return sum * Math.exp(lnPre);
  }
  // Lentz's continued fraction for Q(a, y).
  const tiny = 1e-300;
  let bb = y + 1 - a;
  let c = 1 / tiny;
  let d = 1 / bb;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    bb += 2;
    d = an * d + bb;
    if (Math.abs(d) < tiny) d = tiny;
    c = bb + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return 1 - Math.exp(lnPre) * h;
}

/** The 48 half-hour weights of the daily cycle (mean 1), as in lublin99.c's `arrive_init`. */
export function lublinDailyWeights(anum: number, bnum: number): Float64Array {
  const w = new Float64Array(BUCKETS);
  let mean = 0;
  for (let i = CYCLIC_DAY_START; i < BUCKETS + CYCLIC_DAY_START; i++) {
    const idx = (i - 1) % BUCKETS;
    w[idx] = gammaCdf(i + 0.5, anum, bnum) - gammaCdf(i - 0.5, anum, bnum);
    mean += w[idx]!;
  }
  mean /= BUCKETS;
  for (let i = 0; i < BUCKETS; i++) w[i]! /= mean;
  return w;
}

/** The resolved parameters of the model's classes (one for typeless, batch then interactive otherwise). */
export function lublinParams(config: LublinConfig): LublinParams[] {
  const c = parseConfig(LublinConfigSchema, config, 'lublin workload config');
  const log2P = Math.log2(c.maxProcs);
  const build = (t: Readonly<ParamsTemplate>, o: z.infer<typeof ParamsOverrideSchema>): LublinParams => {
    const { uHiOffset, uMedOffset, ...rest } = t;
    const uHi = o.uHi ?? log2P - uHiOffset;
    return { ...rest, uHi, uMed: uHi - uMedOffset, ...o };
  };
  return c.classes === 'typeless' ? [build(LUBLIN_TYPELESS, c.params)] : [build(LUBLIN_BATCH, c.batch), build(LUBLIN_INTERACTIVE, c.interactive)];
}

/** One arrival stream of the Lublin model (`calc_next_arrive` of lublin99.c). */
class LublinArrivals {
  /** Time of this class's next arrival, whole seconds. */
  next = 0;
  private bucket: number;
  private points = 0;
  private reminder = 0;
  private readonly weights: Float64Array;

  constructor(
    private readonly rng: Rng,
    private readonly p: LublinParams,
    startHour: number,
    private readonly maxLog: number,
  ) {
    this.weights = lublinDailyWeights(p.anum, p.bnum);
    this.bucket = (startHour * BUCKETS) / 24;
    this.advance();
  }

  /** Draws the next inter-arrival and moves `next` forward. */
  advance(): void {
    const w = this.weights;
    let gam: number;
    do gam = this.rng.gamma(this.p.aarr * this.p.arar, this.p.barr);
    while (gam > this.maxLog);
    this.points += Math.exp(gam) / SECONDS_IN_BUCKET;
    let dt = 0;
    let b = this.bucket;
    while (this.points > w[b]!) {
      this.points -= w[b]!;
      b = (b + 1) % BUCKETS;
      dt += SECONDS_IN_BUCKET;
    }
    const rem = this.points / w[b]!;
    dt += SECONDS_IN_BUCKET * (rem - this.reminder);
    this.reminder = rem;
    this.bucket = b;
    this.next = Math.floor(this.next + dt);
  }
}

/** Size of a job of class `p` (`calc_number_of_nodes`). */
function lublinSize(rng: Rng, p: LublinParams, maxProcs: number): number {
  const u = rng.next();
  if (u <= p.serialProb) return 1;
  const lo = rng.next() <= p.uProb;
  let par = lo ? rng.uniform(p.uLow, p.uMed) : rng.uniform(p.uMed, p.uHi);
  if (u <= p.serialProb + p.pow2Prob) par = Math.floor(par + 0.5);
  return Math.min(maxProcs, Math.max(1, Math.floor(2 ** par + 0.5)));
}

/** Runtime of a job of class `p` and `size` tasks (`time_from_nodes`), whole seconds >= 1. */
function lublinRuntime(rng: Rng, p: LublinParams, size: number, maxLog: number): number {
  const pr = Math.min(1, Math.max(0, p.pa * size + p.pb));
  let hg: number;
  do hg = rng.next() <= pr ? rng.gamma(p.a1, p.b1) : rng.gamma(p.a2, p.b2);
  while (hg > maxLog);
  return Math.max(1, Math.floor(Math.exp(hg)));
}

/** Streams the jobs of the Lublin–Feitelson model, seeded from `seed` (see the module comment). */
export function* lublinJobs(config: LublinConfig, seed: number | string, where = 'lublin workload config'): Generator<Job, void, undefined> {
  const c = parseConfig(LublinConfigSchema, config, where);
  const params = lublinParams(c);
  const rng = derive(seed, 'workload');
  const est = derive(seed, 'workload/req_time');
  const streams = params.map((p) => new LublinArrivals(rng, p, c.startHour, c.maxLogInterarrival));
  const none = { mem: 0, memVol: 0, commVol: 0, tCompute: 1 };
  for (let i = 0; i < c.jobs; i++) {
    // The class whose next arrival comes first (batch wins only when strictly earlier, as in the C code).
    let k = streams.length - 1;
    for (let j = 0; j < streams.length - 1; j++) if (streams[j]!.next < streams[k]!.next) k = j;
    const s = streams[k]!;
    const p = params[k]!;
    const t = s.next;
    s.advance();
    const size = lublinSize(rng, p, c.maxProcs);
    const runtime = lublinRuntime(rng, p, size, c.maxLogRuntime);
    const reqTime = c.reqTimeFactor ? runtime * est.uniform(c.reqTimeFactor.min, c.reqTimeFactor.max) : runtime;
    yield makeGeneratedJob(i, t, size, runtime, reqTime, c, none, 'lublin');
  }
}

/** Generates the Lublin–Feitelson model's workload. */
export function generateLublin(config: LublinConfig, seed: number | string, where?: string): Workload {
  const c = parseConfig(LublinConfigSchema, config, where ?? 'lublin workload config');
  return { name: `lublin(seed=${seed})`, jobs: [...lublinJobs(c, seed, where)], maxProcs: c.maxProcs, skipped: {} };
}
