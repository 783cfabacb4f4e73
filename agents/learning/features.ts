/**
 * From observations and masks to what the network scores, and from scores to actions: the masked
 * categorical policy.
 *
 * The network never sees a masked action. For each state, the VALID actions are listed as
 * candidates (a masked action has probability 0, so its logit is irrelevant and never computed):
 *
 * - `Job-v0`: one row per valid job slot `j`: `jobs[j]` (8 features) ++ log-scaled copies of its
 *   wait, req_time and ntasks (3) ++ `global` (5) = 16;
 * - `JobNode-v0`: one row per valid pair `(j, n)` (action `j * N + n`): `jobs[j]` ++ the 3 log
 *   features ++ `nodes[n]` (7) ++ `global` = 23; with the `pair_products` row features (a model's
 *   choice, `network.row_features`; the default `base` rows stay as they were) 7 more, each the
 *   product of a job feature and a node feature of the pair (`PAIR_PRODUCTS`): a linear score of
 *   base rows is a job term plus a node term, so it ranks the nodes alike for every job; the
 *   products let it send a long job to a fast, uncontended, empty node and pack the short ones.
 *
 * The log copies, `log(1 + 1000 x) / log(1 + 1000)`, matter: the observation divides req_time by the
 * workload's 99th percentile, so with heavy-tailed runtimes most jobs sit in [0, 0.01] and a small
 * tanh network can hardly tell a 2-minute job from a 2-hour one.
 *
 * Row feature sets (`network.row_features`; a model records its own, so an old model keeps seeing
 * exactly what it was trained on): `base` is the above (every model before the option), `priority`
 * appends 8 derived job features that let a LINEAR score express RLScheduler's priority functions
 * and what they ignore, with `r = max(req_time, 1e-6)`, `n = ntasks`, `w = wait`, `c = can_start_now`
 * (the observation's normalised values), `u = global utilisation`:
 *
 * | feature                       | value                                        | why |
 * |-------------------------------|----------------------------------------------|-----|
 * | `job_log10_req_time`          | `log10(r) / 6` (in [-1, 0])                  | F1's log of the runtime estimate |
 * | `job_ntasks_log10_req_time`   | `n log10(r) / 6`                             | F1's `ntasks x log10(req_time)`: with `job_ntasks` (F1's `log10` of the limit x ntasks) and `job_wait` (its `log10(subtime)` term, locally linear), a linear score reproduces F1 |
 * | `job_fit_ntasks`              | `c n`                                        | size of a job that starts now (F1 ranks it as any other) |
 * | `job_fit_log10_req_time`      | `c log10(r) / 6`                             | runtime estimate of a job that starts now |
 * | `job_log10_wait_over_req`     | `clamp(log10(max(w, 1e-6) / r) / 6, -1, 1)`  | the wait-to-runtime ratio of WFP3 and UNICEP |
 * | `job_shortfall`               | `max(0, n - (1 - u))`                        | cores the job lacks now, in units of the ntasks limit (exact when that limit is the platform's core count, as on lublin_256) |
 * | `job_shortfall_log10_req_time`| `job_shortfall x log10(r) / 6`               | the same, weighted by the runtime estimate |
 * | `job_window_rank`             | `j / K` for visible slot `j`                 | the job's rank in the env's `queue_order`: with `queue_order: "f1"`, F1's own order, so `-job_window_rank` alone scores exactly as F1 |
 * - `wait` (when the mask allows it) is the last candidate; it is scored by the wait head from the
 *   state's pooled features.
 *
 * Pooled features (the critic's and the wait head's input, 30 values): the mean (8) and maximum (8)
 * of the present job rows, the mean node row (7), `global` (5), the fraction of the visible queue
 * that can start now (some valid action) and the visible queue's fill (present rows / K).
 *
 * Logits of one state are the kernel scores of its rows and the wait logit; the policy is their
 * softmax. `FeatureBatch` holds a batch of states in flat typed arrays (rows of state `i` are
 * `rowStart[i] .. rowStart[i + 1]`), ready to become tensors.
 */
import type { Rng } from '../../src/core/rng.js';
import { GLOBAL_FEATURES, JOB_FEATURES, NODE_FEATURES } from '../../envs/observation.js';
import type { PpoEnvId } from './config.js';

const FJ = JOB_FEATURES.length;
const FN = NODE_FEATURES.length;
const FG = GLOBAL_FEATURES.length;
const PRESENT = JOB_FEATURES.indexOf('present');
/** Job features that also get a log-scaled copy (heavy-tailed: most jobs are far below the limit). */
const LOG_FEATURES = ['wait', 'req_time', 'ntasks'] as const;
const LOG_INDEX = LOG_FEATURES.map((f) => JOB_FEATURES.indexOf(f));
const FL = LOG_FEATURES.length;
/** `log(1 + LOG_SCALE x) / log(1 + LOG_SCALE)`: maps [0, 1] onto [0, 1], spreading small values. */
const LOG_SCALE = 1000;
const LOG_NORM = 1 / Math.log1p(LOG_SCALE);
/** The derived job features of the `priority` row feature set, in order. */
export const PRIORITY_FEATURES = [
  'log10_req_time',
  'ntasks_log10_req_time',
  'fit_ntasks',
  'fit_log10_req_time',
  'log10_wait_over_req',
  'shortfall',
  'shortfall_log10_req_time',
  'window_rank',
] as const;
const FP = PRIORITY_FEATURES.length;
const WAIT = JOB_FEATURES.indexOf('wait');
const REQ = JOB_FEATURES.indexOf('req_time');
const NTASKS = JOB_FEATURES.indexOf('ntasks');
const CAN_START = JOB_FEATURES.indexOf('can_start_now');
const UTILISATION = GLOBAL_FEATURES.indexOf('utilisation');

/**
 * Row feature sets (`network.row_features`): `base` (every model trained before sets existed),
 * `priority` (base + PRIORITY_FEATURES, either env), `pair_products` (base + PAIR_PRODUCTS, JobNode-v0 only).
 */
export const ROW_FEATURE_SETS = ['base', 'priority', 'pair_products'] as const;
/** A row feature set. */
export type RowFeatureSet = (typeof ROW_FEATURE_SETS)[number];

/** The feature sets an env kind accepts (`pair_products` needs node rows). */
export function rowFeatureSetsOf(envId: PpoEnvId): readonly RowFeatureSet[] {
  return envId === 'clustergym/Job-v0' ? ['base', 'priority'] : ROW_FEATURE_SETS;
}

/**
 * The `pair_products` extra features of JobNode-v0 rows: `[name, job feature, node feature]`, the
 * value the product of the two (each in [0, 1], so the product is too). `log_*` job features are
 * the log-scaled copies.
 */
export const PAIR_PRODUCTS: readonly (readonly [string, string, string])[] = [
  ['log_req_time_x_clock', 'log_req_time', 'clock'],
  ['log_req_time_x_free_cores', 'log_req_time', 'free_cores'],
  ['log_req_time_x_mem_bw_use', 'log_req_time', 'mem_bw_use'],
  ['log_req_time_x_power', 'log_req_time', 'power'],
  ['req_time_x_clock', 'req_time', 'clock'],
  ['mem_bw_x_mem_bw_use', 'mem_bw', 'mem_bw_use'],
  ['log_ntasks_x_free_cores', 'log_ntasks', 'free_cores'],
];
/** Offsets of each product's job feature (within the job block: features, then log copies) and node feature. */
// (`req_time` itself, not its log copy, in `req_time_x_clock`: it singles out the few longest jobs,
// whose node decides the makespan)
const PRODUCT_JOB = PAIR_PRODUCTS.map(([, j]) =>
  j.startsWith('log_') ? FJ + (LOG_FEATURES as readonly string[]).indexOf(j.slice(4)) : (JOB_FEATURES as readonly string[]).indexOf(j),
);
const PRODUCT_NODE = PAIR_PRODUCTS.map(([, , n]) => (NODE_FEATURES as readonly string[]).indexOf(n));

/** Size of the pooled feature vector. */
export const POOLED_SIZE = 2 * FJ + FN + FG + 2;

/** Names of the pooled features, in order (for docs and model metadata). */
export const POOLED_FEATURES: readonly string[] = [
  ...JOB_FEATURES.map((f) => `mean_${f}`),
  ...JOB_FEATURES.map((f) => `max_${f}`),
  ...NODE_FEATURES.map((f) => `mean_${f}`),
  ...GLOBAL_FEATURES,
  'startable_fraction',
  'queue_fill',
];

/** The shape of an environment as the network sees it. */
export interface RowLayout {
  envId: PpoEnvId;
  /** Queue window K. */
  k: number;
  /** Nodes N. */
  nodes: number;
  /** Actions (K + 1 or K * N + 1). */
  actions: number;
  /** The `wait` action. */
  waitAction: number;
  /** Features per candidate row. */
  rowSize: number;
  /** The row feature set. */
  features: RowFeatureSet;
}

/**
 * Names of the row features of an env kind and feature set, in order (the `priority` or
 * `pair_products` features come last). Throws for `pair_products` on Job-v0 (its rows have no node).
 */
export function rowFeatureNames(envId: PpoEnvId, features: RowFeatureSet = 'base'): string[] {
  const jobs = [...JOB_FEATURES.map((f) => `job_${f}`), ...LOG_FEATURES.map((f) => `job_log_${f}`)];
  const global = GLOBAL_FEATURES.map((f) => `global_${f}`);
  if (!rowFeatureSetsOf(envId).includes(features)) throw new Error(`the ${features} row features are for JobNode-v0 (Job-v0 rows have no node)`);
  const base = envId === 'clustergym/Job-v0' ? [...jobs, ...global] : [...jobs, ...NODE_FEATURES.map((f) => `node_${f}`), ...global];
  if (features === 'priority') return [...base, ...PRIORITY_FEATURES.map((f) => `job_${f}`)];
  if (features === 'pair_products') return [...base, ...PAIR_PRODUCTS.map(([name]) => `pair_${name}`)];
  return base;
}

/** The feature set whose names are `names` for env kind `envId`, or null when none is. */
export function rowFeatureSetOf(envId: PpoEnvId, names: readonly string[]): RowFeatureSet | null {
  const key = JSON.stringify(names);
  return rowFeatureSetsOf(envId).find((s) => JSON.stringify(rowFeatureNames(envId, s)) === key) ?? null;
}

/** The layout of env `envId` with window `k` on `nodes` nodes, rows of feature set `features`. */
export function rowLayout(envId: PpoEnvId, k: number, nodes: number, features: RowFeatureSet = 'base'): RowLayout {
  const actions = envId === 'clustergym/Job-v0' ? k + 1 : k * nodes + 1;
  return { envId, k, nodes, actions, waitAction: actions - 1, rowSize: rowFeatureNames(envId, features).length, features };
}

/** A batch of states: their candidate rows, pooled features and valid actions. */
export class FeatureBatch {
  /** States in the batch. */
  size = 0;
  /** Rows in the batch. */
  rowCount = 0;
  /** Rows of state i: `rowStart[i] .. rowStart[i + 1]` (length size + 1). */
  rowStart: Int32Array;
  /** Whether state i may wait (the wait candidate follows its rows). */
  hasWait: Uint8Array;
  /** The action of each row. */
  rowAction: Int32Array;
  /** Row features, rowCount x rowSize. */
  rows: Float32Array;
  /** Pooled features, size x POOLED_SIZE. */
  pooled: Float32Array;

  constructor(
    readonly rowSize: number,
    capacity = 16,
    rowCapacity = 256,
  ) {
    this.rowStart = new Int32Array(capacity + 1);
    this.hasWait = new Uint8Array(capacity);
    this.pooled = new Float32Array(capacity * POOLED_SIZE);
    this.rowAction = new Int32Array(rowCapacity);
    this.rows = new Float32Array(rowCapacity * rowSize);
  }

  /** Empties the batch (keeps the memory). */
  clear(): void {
    this.size = 0;
    this.rowCount = 0;
    this.rowStart[0] = 0;
  }

  /** Candidates of state i (rows, plus one for wait). */
  candidates(i: number): number {
    return this.rowStart[i + 1]! - this.rowStart[i]! + this.hasWait[i]!;
  }

  /** Makes room for one more state with up to `rows` rows. */
  reserve(rows: number): void {
    if (this.size >= this.hasWait.length) {
      const cap = Math.max(16, this.hasWait.length * 2);
      this.rowStart = grow(this.rowStart, cap + 1) as Int32Array;
      this.hasWait = grow(this.hasWait, cap) as Uint8Array;
      this.pooled = grow(this.pooled, cap * POOLED_SIZE) as Float32Array;
    }
    const need = this.rowCount + rows;
    if (need > this.rowAction.length) {
      const cap = Math.max(need, this.rowAction.length * 2);
      this.rowAction = grow(this.rowAction, cap) as Int32Array;
      this.rows = grow(this.rows, cap * this.rowSize) as Float32Array;
    }
  }

  /** Appends state `src` of another batch (a copy of its rows and pooled features). */
  appendFrom(src: FeatureBatch, i: number): void {
    const r0 = src.rowStart[i]!;
    const r1 = src.rowStart[i + 1]!;
    this.reserve(r1 - r0);
    const s = this.size;
    this.rows.set(src.rows.subarray(r0 * this.rowSize, r1 * this.rowSize), this.rowCount * this.rowSize);
    this.rowAction.set(src.rowAction.subarray(r0, r1), this.rowCount);
    this.pooled.set(src.pooled.subarray(i * POOLED_SIZE, (i + 1) * POOLED_SIZE), s * POOLED_SIZE);
    this.hasWait[s] = src.hasWait[i]!;
    this.rowCount += r1 - r0;
    this.size = s + 1;
    this.rowStart[s + 1] = this.rowCount;
  }
}

function grow(a: Int32Array | Uint8Array | Float32Array, n: number): Int32Array | Uint8Array | Float32Array {
  const b = new (a.constructor as new (n: number) => typeof a)(n);
  b.set(a);
  return b;
}

/** One dict observation (or row `i` of a batch): views on its arrays. */
export interface ObservationRows {
  jobs: Float32Array;
  nodes: Float32Array;
  global: Float32Array;
}

/**
 * Appends one state (observation + mask) to `batch`. `mask` is the state's action mask (length
 * `layout.actions`). The wait candidate is added when the mask allows `wait`.
 */
export function appendState(batch: FeatureBatch, layout: RowLayout, obs: ObservationRows, mask: ArrayLike<number>): void {
  const { k, nodes: N, rowSize } = layout;
  const pair = layout.envId === 'clustergym/JobNode-v0';
  const derived = layout.features === 'priority' ? rowSize - FP : -1;
  const products = layout.features === 'pair_products';
  const { jobs, nodes, global } = obs;
  // count valid non-wait actions to reserve room
  let valid = 0;
  for (let a = 0; a < layout.waitAction; a++) valid += mask[a] === 1 ? 1 : 0;
  batch.reserve(valid);
  const s = batch.size;
  const rows = batch.rows;
  let r = batch.rowCount;
  let startable = 0;
  for (let j = 0; j < k; j++) {
    let jobValid = false;
    if (!pair) {
      if (mask[j] !== 1) continue;
      const o = r * rowSize;
      writeJob(rows, o, jobs, j);
      for (let f = 0; f < FG; f++) rows[o + FJ + FL + f] = global[f]!;
      if (derived >= 0) writePriority(rows, o + derived, jobs, j, k, global);
      batch.rowAction[r++] = j;
      jobValid = true;
    } else {
      for (let n = 0; n < N; n++) {
        const a = j * N + n;
        if (mask[a] !== 1) continue;
        const o = r * rowSize;
        writeJob(rows, o, jobs, j);
        for (let f = 0; f < FN; f++) rows[o + FJ + FL + f] = nodes[n * FN + f]!;
        for (let f = 0; f < FG; f++) rows[o + FJ + FL + FN + f] = global[f]!;
        if (derived >= 0) writePriority(rows, o + derived, jobs, j, k, global);
        if (products) {
          const p = o + FJ + FL + FN + FG;
          for (let x = 0; x < PRODUCT_JOB.length; x++) rows[p + x] = rows[o + PRODUCT_JOB[x]!]! * rows[o + FJ + FL + PRODUCT_NODE[x]!]!;
        }
        batch.rowAction[r++] = a;
        jobValid = true;
      }
    }
    if (jobValid) startable++;
  }
  batch.rowCount = r;
  batch.hasWait[s] = mask[layout.waitAction] === 1 ? 1 : 0;
  pool(batch.pooled, s * POOLED_SIZE, obs, k, N, startable);
  batch.size = s + 1;
  batch.rowStart[s + 1] = r;
}

/** Writes job slot j's features and their log-scaled copies at `rows[o ..]`. */
function writeJob(rows: Float32Array, o: number, jobs: Float32Array, j: number): void {
  const base = j * FJ;
  for (let f = 0; f < FJ; f++) rows[o + f] = jobs[base + f]!;
  for (let f = 0; f < FL; f++) rows[o + FJ + f] = Math.log1p(LOG_SCALE * jobs[base + LOG_INDEX[f]!]!) * LOG_NORM;
}

/** Writes job slot j's derived `priority` features (PRIORITY_FEATURES, in order) at `rows[o ..]`. */
function writePriority(rows: Float32Array, o: number, jobs: Float32Array, j: number, k: number, global: Float32Array): void {
  const base = j * FJ;
  const r = Math.max(jobs[base + REQ]!, 1e-6);
  const n = jobs[base + NTASKS]!;
  const c = jobs[base + CAN_START]!;
  const lr = Math.log10(r) / 6;
  const shortfall = Math.max(0, n - (1 - global[UTILISATION]!));
  rows[o] = lr;
  rows[o + 1] = n * lr;
  rows[o + 2] = c * n;
  rows[o + 3] = c * lr;
  rows[o + 4] = Math.min(1, Math.max(-1, Math.log10(Math.max(jobs[base + WAIT]!, 1e-6) / r) / 6));
  rows[o + 5] = shortfall;
  rows[o + 6] = shortfall * lr;
  rows[o + 7] = j / k;
}

/** Writes the pooled features of one state at `out[o ..]`. */
function pool(out: Float32Array, o: number, obs: ObservationRows, k: number, N: number, startable: number): void {
  const { jobs, nodes, global } = obs;
  out.fill(0, o, o + POOLED_SIZE);
  let present = 0;
  for (let j = 0; j < k; j++) {
    if (jobs[j * FJ + PRESENT] !== 1) continue;
    present++;
    for (let f = 0; f < FJ; f++) {
      const v = jobs[j * FJ + f]!;
      out[o + f]! += v;
      if (v > out[o + FJ + f]!) out[o + FJ + f] = v;
    }
  }
  if (present > 0) for (let f = 0; f < FJ; f++) out[o + f]! /= present;
  for (let n = 0; n < N; n++) for (let f = 0; f < FN; f++) out[o + 2 * FJ + f]! += nodes[n * FN + f]!;
  if (N > 0) for (let f = 0; f < FN; f++) out[o + 2 * FJ + f]! /= N;
  for (let f = 0; f < FG; f++) out[o + 2 * FJ + FN + f] = global[f]!;
  out[o + 2 * FJ + FN + FG] = present > 0 ? startable / present : 0;
  out[o + 2 * FJ + FN + FG + 1] = present / k;
}

/** Row `i` of a batched dict observation (views, no copy). */
export function observationRow(obs: Record<string, Float32Array>, i: number, layout: RowLayout): ObservationRows {
  const jk = layout.k * FJ;
  const nn = layout.nodes * FN;
  return {
    jobs: obs['jobs']!.subarray(i * jk, (i + 1) * jk),
    nodes: obs['nodes']!.subarray(i * nn, (i + 1) * nn),
    global: obs['global']!.subarray(i * FG, (i + 1) * FG),
  };
}

/** Appends every state of a batched dict observation with its masks (n x actions). */
export function appendBatch(batch: FeatureBatch, layout: RowLayout, obs: Record<string, Float32Array>, masks: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) appendState(batch, layout, observationRow(obs, i, layout), masks.subarray(i * layout.actions, (i + 1) * layout.actions));
}

/** The pooled features of one observation alone (for bootstrapping from a final observation). */
export function pooledOf(obs: ObservationRows, layout: RowLayout): Float32Array {
  const out = new Float32Array(POOLED_SIZE);
  pool(out, 0, obs, layout.k, layout.nodes, 0);
  return out;
}

/** What the policy chose for each state of a batch. */
export interface Choice {
  /** The env action. */
  actions: Int32Array;
  /** The chosen candidate's position among the state's candidates (rows first, then wait). */
  positions: Int32Array;
  /** log-probability of the choice. */
  logps: Float32Array;
}

/**
 * The masked categorical policy over each state's candidates: logits are `scores` of its rows
 * (`scores[r]` for batch row r) and `waitLogits[i]` for its wait candidate. With `rng`, samples;
 * without, takes the most probable candidate (ties: the first). Only candidates (valid actions) can
 * be chosen. Throws when a state has no candidate.
 */
export function choose(batch: FeatureBatch, layout: RowLayout, scores: ArrayLike<number>, waitLogits: ArrayLike<number>, rng: Rng | null): Choice {
  const n = batch.size;
  const out: Choice = { actions: new Int32Array(n), positions: new Int32Array(n), logps: new Float32Array(n) };
  for (let i = 0; i < n; i++) {
    const r0 = batch.rowStart[i]!;
    const r1 = batch.rowStart[i + 1]!;
    const w = batch.hasWait[i] === 1;
    const count = r1 - r0 + (w ? 1 : 0);
    if (count === 0) throw new Error(`state ${i} of the batch has no valid action (is the episode over?)`);
    const logit = (p: number) => (p < r1 - r0 ? scores[r0 + p]! : waitLogits[i]!);
    let max = -Infinity;
    let arg = 0;
    for (let p = 0; p < count; p++) {
      const v = logit(p);
      if (v > max) {
        max = v;
        arg = p;
      }
    }
    let sum = 0;
    for (let p = 0; p < count; p++) sum += Math.exp(logit(p) - max);
    const lse = max + Math.log(sum);
    let pos = arg;
    if (rng) {
      let u = rng.next() * sum;
      pos = count - 1;
      for (let p = 0; p < count; p++) {
        u -= Math.exp(logit(p) - max);
        if (u < 0) {
          pos = p;
          break;
        }
      }
    }
    out.positions[i] = pos;
    out.actions[i] = pos < r1 - r0 ? batch.rowAction[r0 + pos]! : layout.waitAction;
    out.logps[i] = logit(pos) - lse;
  }
  return out;
}

/**
 * The full action distribution of state `i` (length `layout.actions`; 0 for every masked action),
 * from the same logits as `choose`.
 */
export function probabilities(batch: FeatureBatch, layout: RowLayout, scores: ArrayLike<number>, waitLogits: ArrayLike<number>, i: number): Float64Array {
  const p = new Float64Array(layout.actions);
  const r0 = batch.rowStart[i]!;
  const r1 = batch.rowStart[i + 1]!;
  const w = batch.hasWait[i] === 1;
  let max = w ? waitLogits[i]! : -Infinity;
  for (let r = r0; r < r1; r++) max = Math.max(max, scores[r]!);
  let sum = 0;
  for (let r = r0; r < r1; r++) sum += Math.exp(scores[r]! - max);
  if (w) sum += Math.exp(waitLogits[i]! - max);
  for (let r = r0; r < r1; r++) p[batch.rowAction[r]!] = Math.exp(scores[r]! - max) / sum;
  if (w) p[layout.waitAction] = Math.exp(waitLogits[i]! - max) / sum;
  return p;
}
