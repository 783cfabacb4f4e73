/**
 * Malleable jobs (DESIGN §10.1; seed 002, Iserte et al., the DMR API paper): MPI jobs that the
 * resource manager expands and shrinks while they run.
 *
 * **Job.** A malleable job carries `{min, max, pref, factor, inhibit}` (seed §5.1): the limits of
 * malleability `[min, max]` in nodes, the preferred size `pref`, the resize `factor` ("a factor of 2
 * will expand/shrink the number of processes to a value multiple/divisor of 2") and the scheduling
 * inhibitor `inhibit` (s), the period during which calls to the DMR API are ignored. The job is
 * submitted at `max` ("each job is launched with its maximum number of processes", §7.5). Its allowed
 * sizes are
 *
 *     S = { pref * factor^k : k integer, min <= pref * factor^k <= max },   max in S,
 *
 * (`max * factor^k` when `pref` is not given) so every resize multiplies or divides the size by a
 * power of `factor`. A job without `malleable`
 * is rigid: it runs on `nodes` nodes from start to end.
 *
 * **Work.** A job is iterative (the applications of Table 3): `steps` steps of one application. A
 * step on `n` nodes lasts (Amdahl's law, `t1` the step time on one node, `s` the serial fraction)
 *
 *     d(n) = t1 * (s + (1 - s) / n).
 *
 * **Reconfiguration points** (§5.1) are step boundaries: the application calls `dmr_check_status`
 * after every step, and the inhibitor ignores the calls until `inhibit` seconds have passed since
 * the previous point (or the start). Running at size `n` from a point at time `t`, the next point is
 * after `k = max(1, ceil(inhibit / d(n)))` steps, at `t + k * d(n)` (or the job ends first). At a
 * point the policy answers no-action, expand or shrink (synchronous mode: the step waits for it).
 *
 * **Resize cost** (Table 1, synchronous column, 400-job workload): an expand costs on average
 * 0.423 s and a shrink 0.425 s (a no-action 0.0094 s, neglected here). During the cost the job makes
 * no progress; an expand holds its new nodes from the decision, a shrink releases its surplus
 * nodes when the cost is over. The inhibitor restarts when the job resumes.
 *
 * **The paper's applications and how their parameters are derived** (`deriveApps`, from the
 * published figures, not typed in):
 * 1. Per-step work ratio CG : Jacobi = 4 : 1 from Table 3's input data (square matrices of
 *    dimension 2^14 and 2^13: a dense sweep costs n^2) and their equal step counts (10K).
 * 2. The mean rigid execution time `E_r` (Table 4, fixed, averaged over the four workloads:
 *    564.9 s) is the mean over the three applications in equal shares at `max` nodes:
 *    `E_r = (T_cg + T_jac + T_nb) / 3`.
 * 3. The node-seconds per job `W` of the rigid workloads: a saturated FCFS queue of `N` jobs
 *    arriving every `a = 10` s and leaving every `D` s has a mean completion time of
 *    `(N + 1) / 2 * (D - a)`, so each Table 4 rigid row gives `D = 2 C / (N + 1) + a`, and
 *    `W = D * 64 * U` (U its utilisation); averaged over the rows, `W` = 12,107 node-s. With step 2:
 *    `3 W = 32 T_cg + 32 T_jac + 16 T_nb`, which with 1. gives `T_jac = (3 W - 48 E_r) / 80`.
 * 4. Under DMR jobs run at `pref` nearly all the time ("scaled-down as soon as possible", §7.5), so
 *    the ratio of mean execution times malleable / rigid of Table 4, `rho` = 856.9 / 564.9 = 1.517,
 *    is the slow-down `d(pref) / d(max)` of every application; Amdahl's law then gives the serial
 *    fraction `s = (1/p - rho/M) / (1/p - rho/M + rho - 1)` (p = pref, M = max).
 * 5. `t1` follows from `T(max) = steps * d(max)`.
 * This gives CG 460 s, Jacobi 115 s, N-body 1,119 s at `max` (s = 0.130, 0.130, 0.637).
 *
 * The job's facet (limits, speed-up models, sizes, resize checks) is the workload's
 * (`src/workload/malleability.ts`, re-exported here); this module keeps the seed's workload and figures.
 */
import type { TimelineRow } from '../metrics/writers.js';
import type { AppModel, MalleableSpec, ResizeCost, SpeedupModel } from '../workload/malleability.js';

export {
  type AppModel,
  allowedSizes,
  type MalleableSpec,
  type ResizeCost,
  type SpeedupModel,
  specProblem,
  type StepTable,
  stepTime,
  validResize,
} from '../workload/malleability.js';

/** A job of a malleable workload. */
export interface MJob {
  /** Identifier (unique in the workload). */
  id: string;
  /** Submission time (s). */
  subtime: number;
  /** Application (its speed-up model). */
  app: SpeedupModel;
  /** Number of iterations. */
  steps: number;
  /** Size of a rigid job, or `max` of a malleable one (the size it is submitted at). */
  nodes: number;
  /** Malleability, or null for a rigid job. */
  malleable: MalleableSpec | null;
}

/** A workload: the platform's node count and the jobs in submission order. */
export interface MWorkload {
  /** Nodes of the (homogeneous) platform. */
  nodes: number;
  jobs: MJob[];
}

/** Table 1, synchronous column: average expand 0.423 s, shrink 0.425 s. */
export const TABLE1_COST: ResizeCost = { expand: 0.423, shrink: 0.425 };

/** Table 4 of the seed (averaged measures; allocation in %). */
export const TABLE4 = {
  jobs: [50, 100, 200, 400],
  rigid: {
    allocation: [98.71, 97.39, 98.38, 98.38],
    wait: [4115.02, 9750.34, 17466.2, 31788.39],
    execution: [620.26, 586.64, 520.58, 532.14],
    completion: [4735.28, 10336.98, 17986.78, 32320.53],
  },
  malleable: {
    allocation: [68.67, 71.91, 73.54, 73.54],
    wait: [1359.92, 2990.6, 6856.8, 13861.03],
    execution: [900.3, 858.16, 825.88, 843.19],
    completion: [2260.22, 3848.76, 7676.67, 14704.22],
  },
  /** Figure 4: gain of the malleable workload completion time (makespan), %. */
  makespanGain: [46.48, 49.04, 41.42, 41.97],
} as const;

/** The paper's applications (Table 3): sizes, inhibitor, steps, and relative per-step work. */
export const TABLE3 = {
  cg: { min: 2, max: 32, pref: 8, inhibit: 15, steps: 10_000, matrixDim: 2 ** 14 },
  jacobi: { min: 2, max: 32, pref: 8, inhibit: 15, steps: 10_000, matrixDim: 2 ** 13 },
  nbody: { min: 1, max: 16, pref: 1, inhibit: 0, steps: 25, matrixDim: 0 },
} as const;

/** Paper's application names. */
export type PaperApp = keyof typeof TABLE3;

/** The intermediate figures of the derivation (see the module comment), for docs and tests. */
export interface Derivation {
  /** Mean rigid execution time (s). */
  meanRigidExecution: number;
  /** Node-seconds per rigid job. */
  nodeSecondsPerJob: number;
  /** Malleable / rigid execution ratio. */
  rho: number;
  /** Rigid execution time at `max` per application (s). */
  atMax: Record<PaperApp, number>;
  apps: Record<PaperApp, AppModel>;
}

const mean = (a: readonly number[]) => a.reduce((x, y) => x + y, 0) / a.length;

/** Amdahl serial fraction such that `d(pref) / d(max) = rho`. */
export function serialFractionFor(pref: number, max: number, rho: number): number {
  const a = 1 / pref - rho / max;
  return a / (a + rho - 1);
}

/**
 * Derives the three applications' speed-up models from Tables 3 and 4 (module comment, steps 1-5).
 * `platformNodes` is the paper's 64 and `interArrival` the mean inter-arrival time (10 s, §7.1).
 */
export function deriveApps(platformNodes = 64, interArrival = 10): Derivation {
  const er = mean(TABLE4.rigid.execution);
  const rho = mean(TABLE4.malleable.execution) / er;
  const w = mean(
    TABLE4.jobs
      .map((n, i) => (2 * TABLE4.rigid.completion[i]!) / (n + 1) + interArrival)
      .map((d, i) => d * platformNodes * (TABLE4.rigid.allocation[i]! / 100)),
  );
  const workRatio = (TABLE3.cg.matrixDim / TABLE3.jacobi.matrixDim) ** 2;
  const m = { cg: TABLE3.cg.max, jacobi: TABLE3.jacobi.max, nbody: TABLE3.nbody.max };
  // 3W = m_cg * ratio * x + m_jac * x + m_nb * (3 E_r - (ratio + 1) x)
  const x = (3 * w - m.nbody * 3 * er) / (m.cg * workRatio + m.jacobi - m.nbody * (workRatio + 1));
  const atMax = { cg: workRatio * x, jacobi: x, nbody: 3 * er - (workRatio + 1) * x };
  const app = (name: PaperApp): AppModel => {
    const t = TABLE3[name];
    const serial = serialFractionFor(t.pref, t.max, rho);
    const perStepAtMax = atMax[name] / t.steps;
    return { name, serial, t1: perStepAtMax / (serial + (1 - serial) / t.max) };
  };
  return { meanRigidExecution: er, nodeSecondsPerJob: w, rho, atMax, apps: { cg: app('cg'), jacobi: app('jacobi'), nbody: app('nbody') } };
}

/** The paper's applications (derived once). */
export const PAPER_APPS: Readonly<Record<PaperApp, AppModel>> = deriveApps().apps;

/** The Table 3 malleability spec of a paper application (factor 2). */
export function paperSpec(name: PaperApp): MalleableSpec {
  const t = TABLE3[name];
  return { min: t.min, max: t.max, pref: t.pref, factor: 2, inhibit: t.inhibit };
}

// ------------------------------------------------------------------ the outcome of a run (the DMR preset's, `preset.ts`)

/** One resize (a row of resizes.csv). */
export interface ResizeRecord {
  time: number;
  job: string;
  from: number;
  to: number;
  cost: number;
}

/** Per-job outcome (a row of jobs.csv). */
export interface MJobResult {
  id: string;
  app: string;
  malleable: boolean;
  submit: number;
  start: number;
  finish: number;
  /** Size at start (`max` for a malleable job) and at the end. */
  startSize: number;
  endSize: number;
  expands: number;
  shrinks: number;
  /** Node-seconds allocated. */
  nodeSeconds: number;
}

/** Outcome of a run. */
export interface MRunResult {
  jobs: MJobResult[];
  resizes: ResizeRecord[];
  /** Allocated fraction and queue length over time (with `timeline`; module comment). */
  timeline: TimelineRow[];
  makespan: number;
  /** Allocated node-seconds / (nodes * makespan). */
  allocation: number;
  meanWait: number;
  meanExecution: number;
  meanCompletion: number;
  expands: number;
  shrinks: number;
  noActions: number;
  /** Decisions refused (outside min/max/factor or beyond the free nodes); applied as no-action. */
  invalidResizes: number;
  /** Time spent resizing, summed over jobs (s). */
  resizeTime: number;
  /** Queue points offered (0 unless `queuePoints`). */
  queuePoints: number;
  /** Shrink requests made at queue points (each applied at the job's next point). */
  shrinkRequests: number;
  /** Events processed (arrivals, reconfiguration points, resize ends, job ends). */
  events: number;
}
