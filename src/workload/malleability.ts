/**
 * The malleability facet of a job (DESIGN §10.1; seed 002, Iserte et al., the DMR API paper): an
 * iterative MPI job's work (`steps` steps of an application whose step time depends on its node count)
 * and its malleability limits. The malleable engine (src/malleable/) runs it; every other engine runs it
 * as a rigid job of its nominal run time (`nominalRuntime`).
 *
 * **Limits** `{min, max, pref, factor, inhibit}` (seed §5.1): the job is resized within `[min, max]`
 * nodes, preferably to `pref`, by a power of `factor` ("a factor of 2 will expand/shrink the number of
 * processes to a value multiple/divisor of 2"); `inhibit` (s) is the scheduling-inhibitor period during
 * which calls to the DMR API are ignored. It is submitted at `max`. Its allowed sizes are
 *
 *     S = { pref * factor^k : k integer, min <= pref * factor^k <= max },   max in S,
 *
 * (`max * factor^k` when `pref` is not given). Without limits (`spec: null`) the job is rigid at its node
 * count: its work is still its steps (the rigid jobs of a malleable workload).
 *
 * **Speed-up model** (the step time on `n` nodes):
 * - Amdahl's law (`AppModel`, the seed's applications): `d(n) = t1 * (s + (1 - s) / n)`, `t1` the step
 *   time on one node, `s` the serial fraction;
 * - a table of measured step times by size (`StepTable`): `d(n) = times[n]`, given for every size the
 *   job can run at.
 *
 * **Resize cost** (Table 1, synchronous: about 0.42 s per expand or shrink): time during which the job
 * makes no progress; a job may carry its own (`resizeCost`), else the engine's applies.
 */

/** Speed-up model of an application: Amdahl's law over the step time. */
export interface AppModel {
  /** Name (`cg`, `jacobi`, `nbody`, or a workload's own). */
  name: string;
  /** Duration of one step on one node (s). */
  t1: number;
  /** Serial (non-scaling) fraction of a step, in [0, 1]. */
  serial: number;
}

/** Speed-up model given as measured step times by node count. */
export interface StepTable {
  name: string;
  /** Duration of one step (s) at each node count the job can run at. */
  times: Readonly<Record<number, number>>;
}

/** How long a step takes on `n` nodes. */
export type SpeedupModel = AppModel | StepTable;

/** The malleability limits of a job (seed §5.1). */
export interface MalleableSpec {
  /** Minimum size (nodes). */
  min: number;
  /** Maximum size (nodes); the job is submitted at this size. */
  max: number;
  /** Preferred size (nodes), or null: no preference (only the wide optimisation, §4.3, applies). */
  pref: number | null;
  /** Resize factor (sizes are `pref * factor^k`). */
  factor: number;
  /** Scheduling-inhibitor period (s); 0 = a reconfiguration point at every step boundary. */
  inhibit: number;
}

/** Resize costs (s). */
export interface ResizeCost {
  expand: number;
  shrink: number;
}

/** Table 1 of seed 002 (synchronous column, 400-job workload): an expand costs 0.423 s, a shrink 0.425 s. */
export const TABLE1_RESIZE_COST: ResizeCost = { expand: 0.423, shrink: 0.425 };

/** The malleability facet of a job (`Job.malleable`). */
export interface MalleableWork {
  /** Malleability limits, or null: rigid at its node count. */
  spec: MalleableSpec | null;
  /** Number of iterations. */
  steps: number;
  speedup: SpeedupModel;
  /** The job's own resize cost, else the engine's. */
  resizeCost?: ResizeCost | undefined;
}

/** Duration of one step on `n` nodes: `t1 * (s + (1 - s) / n)`, or the table's entry. */
export function stepTime(model: SpeedupModel, n: number): number {
  if ('times' in model) {
    const t = model.times[n];
    if (t === undefined) throw new RangeError(`speed-up table ${JSON.stringify(model.name)} has no step time for ${n} nodes`);
    return t;
  }
  return model.t1 * (model.serial + (1 - model.serial) / n);
}

/** Run time of `w` rigid at `nodes` nodes: `steps * d(nodes)`. */
export function nominalRuntime(w: MalleableWork, nodes: number): number {
  return w.steps * stepTime(w.speedup, nodes);
}

/** The allowed sizes of `spec`, ascending: `pref * factor^k` (`max * factor^k` without pref) within `[min, max]`. */
export function allowedSizes(spec: MalleableSpec): number[] {
  const out: number[] = [];
  let s = spec.pref ?? spec.max;
  while (s / spec.factor >= spec.min && Number.isInteger(s / spec.factor)) s /= spec.factor;
  for (; s <= spec.max; s *= spec.factor) if (s >= spec.min) out.push(s);
  return out;
}

/** Why `spec` is not a valid malleability spec, or null when it is. */
export function specProblem(spec: MalleableSpec): string | null {
  if (spec.min > spec.max) return `expected min <= max, found min ${spec.min}, max ${spec.max}`;
  if (spec.pref !== null && !(spec.min <= spec.pref && spec.pref <= spec.max))
    return `expected min <= pref <= max, found min ${spec.min}, pref ${spec.pref}, max ${spec.max}`;
  if (spec.factor < 2) return `factor must be an integer >= 2, found ${spec.factor}`;
  if (!allowedSizes(spec).includes(spec.max))
    return `max (${spec.max}) must be pref (${spec.pref}) times a power of factor (${spec.factor}): the job is submitted at max and resized by the factor`;
  return null;
}

/** Why `w` cannot run a job of `nodes` nodes, or null: its limits, or a step table missing a size it can run at. */
export function malleableProblem(w: MalleableWork, nodes: number): string | null {
  const sizes = w.spec ? allowedSizes(w.spec) : [nodes];
  if (w.spec) {
    const problem = specProblem(w.spec);
    if (problem) return problem;
    if (nodes !== w.spec.max) return `a malleable job is submitted at max (${w.spec.max} nodes); its shape gives ${nodes}`;
  }
  if ('times' in w.speedup) {
    const table = w.speedup.times;
    const missing = sizes.filter((n) => !(n in table));
    if (missing.length > 0) return `the step-time table gives no time for ${missing.join(', ')} node(s); the job can run at ${sizes.join(', ')}`;
  }
  return null;
}

/** Whether a resize `from -> to` of a job with `spec` keeps min, max and the factor. */
export function validResize(spec: MalleableSpec, from: number, to: number): boolean {
  if (to < spec.min || to > spec.max || to === from) return false;
  let r = to > from ? to / from : from / to;
  if (!Number.isInteger(r)) return false;
  while (r > 1 && r % spec.factor === 0) r /= spec.factor;
  return r === 1;
}
