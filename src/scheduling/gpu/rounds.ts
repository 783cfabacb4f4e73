/**
 * Round-based GPU schedulers (DESIGN §16): decision makers of the one engine for deep-learning jobs
 * (`gpus.dl`), run at round boundaries (the engine's `passClock: { every }`), each deciding the whole
 * round again through a `RoundPlan` (gang placement, consolidated preferred; preemption between rounds,
 * the DL jobs keeping their steps: `src/execution/dlProgress.ts`).
 *
 * **Greedy orders** (`fifo`, `las`, `srtf`; `jobOrders.ts`): jobs in the order's sequence, each on the
 * option of highest rate among those that fit now (a GPU type on one server, else on several), so the
 * fastest free GPU type for its job type: heterogeneity-aware greedy. FIFO orders by arrival (a job
 * is never displaced by a later one), LAS by GPU-seconds received (Tiresias' least attained service),
 * SRTF by remaining steps over the job's best rate.
 *
 * **Gavel's policies** (Narayanan et al., OSDI'20; its `scheduler.py` as of commit c4fa400, matched, not
 * copied): an allocation `x_ij` (the fraction of time job `i` should run on type `j`, `allocation.ts`:
 * `max_min_fairness_perf` the heterogeneity-aware max-min fairness, `max_min_fairness` the agnostic one,
 * `finish_time_fairness_perf` and `finish_time_fairness`), turned into rounds by Gavel's mechanism:
 *
 * - each job has, per GPU type, the time it ran there since the last reset (starting at half a round) and
 *   each type the sum over jobs; its priority on a type is `x_ij / (its time / the type's time)` (`x_ij
 *   1e9` before the type has run anything; 0 without an allocation, or where its rate is 0); a deficit
 *   (the time it should have had minus what it had, summed at each reset) breaks ties;
 * - the allocation is recomputed, and the times reset, when the set of jobs changed AND 1,920 s have
 *   passed since the last reset (or none was made since time 0); a job that arrived since has no
 *   allocation until then (it takes no GPU, as in Gavel, where it is selected and not placed);
 * - the round: GPU types in the order V100, P100, K80 (others after, in the platform's order), shuffled
 *   every round with CPython's generator seeded `seed + 5` for the agnostic policies; for each type in
 *   turn its jobs by priority, deficit and allocation, descending (ties: arrival); a job runs on the
 *   first type where it comes up with enough GPUs left of that type and a positive rate.
 *
 * The time a job ran in a round is from the round's start to the next one, or to its end when it ended
 * within the round (an engine listener records the ends), as in Gavel.
 */
import { InputError } from '../../core/errors.js';
import { PythonRandom } from '../../core/rng.js';
import type { DlProgress } from '../../execution/dlProgress.js';
import type { ClusterSimulator, DecisionMaker } from '../../execution/simulator.js';
import { jobGpus } from '../../workload/gpuRequest.js';
import type { Job } from '../../workload/job.js';
import { type Allocation, FinishTimeFairness, type GpuJobRates, maxMinFairness, referenceThroughputs } from './allocation.js';
import { type JobOrder, orderJobs } from './jobOrders.js';
import { RoundPlan, type Servers } from './roundPlan.js';

/** An active DL job as the round schedulers see it at a round boundary. */
export interface GpuJobView {
  job: Job;
  /** Submission time (rebased). */
  arrival: number;
  /** GPUs it needs at once. */
  scale: number;
  /** Steps left now, and in all. */
  remaining: number;
  steps: number;
  /** GPU-seconds received so far. */
  attained: number;
  /** Per platform GPU type: its rate on `scale` GPUs of that type on one server, and spread over several (steps/s, 0: cannot run). */
  rates: Float64Array;
  spreadRates: Float64Array;
  /** The platform GPU type it runs on now (-1: waiting), and whether spread. */
  runType: number;
  runSpread: boolean;
}

/** The active DL jobs at the current time, in submission order (`seen` numbers them on first sight). */
export function activeGpuJobs(sim: ClusterSimulator, dl: DlProgress, seen: Map<Job, number>): GpuJobView[] {
  const now = sim.now;
  const types = sim.platform.gpuTypes.length;
  const out: GpuJobView[] = [];
  const add = (job: Job) => {
    if (job.gpus?.dl === undefined)
      throw new InputError(`job ${job.id}: the GPU round schedulers run deep-learning jobs (a gpus facet with a job type and steps)`, job.source);
    if (!seen.has(job)) seen.set(job, seen.size);
    const run = dl.progressOf(job);
    const scale = jobGpus(job);
    const rates = new Float64Array(types);
    const spreadRates = new Float64Array(types);
    for (let t = 0; t < types; t++) {
      rates[t] = dl.rate(job, t, scale, false);
      spreadRates[t] = scale >= 2 ? dl.rate(job, t, scale, true) : 0;
    }
    const steps = job.gpus.dl.steps;
    out.push({
      job,
      arrival: job.subtime,
      scale,
      remaining: run ? run.remainingAt(now) : steps,
      steps,
      attained: run ? run.gpuSecondsAt(now) : 0,
      rates,
      spreadRates,
      runType: run && run.gpus > 0 ? run.gpuType : -1,
      runSpread: run !== undefined && run.gpus > 0 && run.spread,
    });
  };
  for (const rj of sim.running()) if (rj.gpus.length > 0) add(rj.job);
  const q = sim.queue;
  for (let i = q.start; i < q.end; i = q.nextAt(i + 1)) add(q.at(i)!);
  out.sort((a, b) => a.arrival - b.arrival || seen.get(a.job)! - seen.get(b.job)!);
  return out;
}

/** The option of highest rate for `v` that fits `plan` now: a type on one server, else on several (ties: one server, then the lower type). */
export function bestOption(plan: RoundPlan, v: GpuJobView): { type: number; servers: Servers; rate: number } | null {
  let best: { type: number; servers: Servers; rate: number } | null = null;
  for (let t = 0; t < v.rates.length; t++) {
    if (v.rates[t]! > 0 && (best === null || v.rates[t]! > best.rate) && plan.find(v.job, t, 'one') !== null)
      best = { type: t, servers: 'one', rate: v.rates[t]! };
    if (v.spreadRates[t]! > 0 && (best === null || v.spreadRates[t]! > best.rate) && plan.find(v.job, t, 'several') !== null)
      best = { type: t, servers: 'several', rate: v.spreadRates[t]! };
  }
  return best;
}

/** The names of the round schedulers. */
export const GPU_POLICIES = ['fifo', 'las', 'srtf', 'max_min_fairness_perf', 'max_min_fairness', 'finish_time_fairness_perf', 'finish_time_fairness'] as const;
/** A round scheduler's name. */
export type GpuPolicy = (typeof GPU_POLICIES)[number];

/** What every round scheduler shares: the DL progress model of its engine and the jobs' submission order. */
abstract class RoundScheduler implements DecisionMaker {
  protected readonly seen = new Map<Job, number>();
  constructor(
    readonly name: string,
    protected readonly dl: DlProgress,
  ) {}

  schedule(sim: ClusterSimulator): void {
    const plan = new RoundPlan(sim);
    this.choose(sim, plan);
    plan.apply();
  }

  /**
   * Makes this round's choices in `plan` (a fresh plan of `sim` at the round boundary), without carrying
   * them out: `schedule` applies them; an environment agent plays them as actions. Call once per round.
   */
  choose(sim: ClusterSimulator, plan: RoundPlan): void {
    this.plan(sim, activeGpuJobs(sim, this.dl, this.seen), plan);
  }

  /** Chooses the round's jobs in `plan`. */
  protected abstract plan(sim: ClusterSimulator, views: GpuJobView[], plan: RoundPlan): void;
}

/** The greedy orders (see the module comment). */
export class GreedyRounds extends RoundScheduler {
  constructor(
    readonly order: JobOrder,
    dl: DlProgress,
  ) {
    super(order, dl);
  }

  protected plan(_sim: ClusterSimulator, views: GpuJobView[], plan: RoundPlan): void {
    const keyed = views.map((v) => ({
      arrival: v.arrival,
      attained: v.attained,
      remainingSteps: v.remaining,
      bestRate: Math.max(0, ...v.rates, ...v.spreadRates),
    }));
    for (const i of orderJobs(this.order, keyed)) {
      const v = views[i]!;
      const o = bestOption(plan, v);
      if (o !== null) plan.choose(v.job, o.type, o.servers);
    }
  }
}

/** Gavel's GPU type order: V100, P100, K80 first when the platform has them, then its other types. */
export function gavelTypeOrder(gpuTypes: readonly string[]): number[] {
  const first = ['v100', 'p100', 'k80'].map((n) => gpuTypes.indexOf(n)).filter((i) => i >= 0);
  return [...first, ...gpuTypes.map((_, i) => i).filter((i) => !first.includes(i))];
}

/** Gavel's per-job mechanism state. */
interface GavelJob {
  view: GpuJobView;
  /** Per type: seconds run since the last reset (plus half a round), deficit, priority. */
  time: Float64Array;
  deficit: Float64Array;
  priority: Float64Array;
}

/** Options of Gavel's mechanism. */
export interface GavelOptions {
  /** Round length, s (Gavel's `time_per_iteration`, 360). */
  round: number;
  /** Least time between allocation resets, s (1,920). */
  minResetInterval?: number;
  /** Gavel's seed (the agnostic policies' type shuffle uses `seed + 5`). */
  seed?: number;
}

/** Gavel's policies on its round mechanism (see the module comment). */
export class GavelRounds extends RoundScheduler {
  readonly aware: boolean;
  private readonly objective: 'max-min' | 'finish-time';
  private readonly round: number;
  private readonly minReset: number;
  private readonly shuffler: PythonRandom | null;
  private readonly jobs = new Map<Job, GavelJob>();
  private workerTime = new Float64Array(0);
  private lastReset = 0;
  private needUpdate = false;
  private allocation = new Map<Job, Float64Array>();
  private readonly ftf = new FinishTimeFairness();
  /** What the last round ran (job and GPU type), and when it began. */
  private lastRound: { job: Job; type: number }[] = [];
  private roundStart = 0;
  /** Ends of jobs since the last round (an engine listener fills it). */
  private readonly ends = new Map<Job, number>();
  private listening: ClusterSimulator | null = null;
  /** Allocations computed (for reports). */
  allocations = 0;

  /** The allocation in force for `job` (its fraction of time per platform GPU type), or undefined. */
  allocationOf(job: Job): Float64Array | undefined {
    return this.allocation.get(job);
  }

  constructor(
    policy: 'max_min_fairness_perf' | 'max_min_fairness' | 'finish_time_fairness_perf' | 'finish_time_fairness',
    dl: DlProgress,
    options: GavelOptions,
  ) {
    super(policy, dl);
    this.aware = policy.endsWith('_perf');
    this.objective = policy.startsWith('max_min') ? 'max-min' : 'finish-time';
    this.round = options.round;
    this.minReset = options.minResetInterval ?? 1920;
    this.shuffler = this.aware ? null : new PythonRandom((options.seed ?? 0) + 5);
  }

  protected plan(sim: ClusterSimulator, views: GpuJobView[], plan: RoundPlan): void {
    const now = sim.now;
    const G = sim.platform.gpuTypes.length;
    if (this.listening !== sim) {
      this.listening = sim;
      sim.addListener({ onEnd: (s, rec) => void (this.listening === s && this.ends.set(rec.job, s.now)) });
    }
    if (this.workerTime.length !== G) this.workerTime = new Float64Array(G);
    // the last round's times (jobs that ended in it count until their end)
    for (const r of this.lastRound) {
      const exec = (this.ends.get(r.job) ?? now) - this.roundStart;
      const j = this.jobs.get(r.job);
      if (j !== undefined) j.time[r.type]! += exec;
      this.workerTime[r.type]! += exec;
    }
    this.ends.clear();
    // jobs that left, jobs that arrived
    const active = new Set(views.map((v) => v.job));
    for (const job of this.jobs.keys())
      if (!active.has(job)) {
        this.jobs.delete(job);
        this.needUpdate = true;
      }
    for (const v of views) {
      const j = this.jobs.get(v.job);
      if (j !== undefined) j.view = v;
      else {
        this.jobs.set(v.job, { view: v, time: new Float64Array(G).fill(this.round / 2), deficit: new Float64Array(G), priority: new Float64Array(G) });
        this.needUpdate = true;
      }
    }
    this.lastRound = [];
    this.roundStart = now;
    this.updatePriorities(sim, now);
    // the round: per type, its jobs by priority, deficit, allocation (descending; ties: arrival)
    const order = gavelTypeOrder(sim.platform.gpuTypes);
    if (this.shuffler !== null)
      for (let i = order.length - 1; i > 0; i--) {
        const k = this.shuffler.int(i + 1);
        [order[i], order[k]] = [order[k]!, order[i]!];
      }
    const left = Float64Array.from(sim.platform.gpuTypeSpecs, (t) => t.count);
    const done = new Set<Job>();
    const list = [...this.jobs.values()];
    for (const t of order) {
      const sorted = list
        .map((j, i) => ({ j, i }))
        .sort((a, b) => {
          const pa = a.j.priority[t]!;
          const pb = b.j.priority[t]!;
          if (pa !== pb) return pb - pa;
          if (a.j.deficit[t] !== b.j.deficit[t]) return b.j.deficit[t]! - a.j.deficit[t]!;
          const xa = this.allocation.get(a.j.view.job)?.[t] ?? 0;
          const xb = this.allocation.get(b.j.view.job)?.[t] ?? 0;
          return xb - xa || a.i - b.i;
        });
      for (const { j } of sorted) {
        if (left[t] === 0) break;
        const v = j.view;
        if (done.has(v.job) || !(v.rates[t]! > 0) || v.scale > left[t]!) continue;
        left[t]! -= v.scale;
        done.add(v.job);
        // a job without an allocation holds its place and takes no GPU (Gavel selects it, then skips it)
        if (this.allocation.has(v.job) && plan.choose(v.job, t, 'any')) this.lastRound.push({ job: v.job, type: t });
      }
    }
  }

  /** Gavel's `_update_priorities` (with its `_reset_time_run_so_far` and allocation). */
  private updatePriorities(sim: ClusterSimulator, now: number): void {
    const G = this.workerTime.length;
    if (this.needUpdate && (now - this.lastReset >= this.minReset || this.lastReset === 0)) {
      const elapsed = now - this.lastReset;
      this.workerTime.fill(0);
      for (const [job, j] of this.jobs) {
        const x = this.allocation.get(job);
        for (let t = 0; t < G; t++) {
          const received = j.time[t]! - this.round / 2;
          const should = x === undefined ? 0 : x[t]! * elapsed;
          j.deficit[t]! += should - received;
          j.time[t] = this.round / 2;
          this.workerTime[t]! += j.time[t]!;
        }
      }
      this.lastReset = now;
      this.allocation = this.computeAllocation(sim, now);
      this.needUpdate = false;
    }
    for (const [job, j] of this.jobs) {
      const x = this.allocation.get(job);
      for (let t = 0; t < G; t++) {
        const fraction = this.workerTime[t] === 0 ? 0 : j.time[t]! / this.workerTime[t]!;
        let p = 0;
        if (x !== undefined && x[t]! !== 0 && j.view.rates[t]! !== 0) p = fraction > 0 ? x[t]! / fraction : x[t]! * 1e9;
        j.priority[t] = p;
      }
    }
  }

  private computeAllocation(sim: ClusterSimulator, now: number): Map<Job, Float64Array> {
    const G = this.workerTime.length;
    const list = [...this.jobs.values()];
    const out = new Map<Job, Float64Array>();
    if (list.length === 0) return out;
    this.allocations++;
    const capacity = Float64Array.from(sim.platform.gpuTypeSpecs, (t) => t.count);
    let rates: GpuJobRates[] = list.map((j) => ({ throughput: j.view.rates, scale: j.view.scale, weight: j.view.job.gpus!.weight }));
    let a: Allocation;
    if (this.objective === 'max-min') a = maxMinFairness(rates, capacity, { aware: this.aware });
    else {
      if (!this.aware) {
        const ref = sim.platform.gpuTypeIndex(this.dl.table.referenceGpu());
        rates = rates.map((r) => referenceThroughputs(r, ref >= 0 ? ref : 0));
      }
      a = this.ftf.allocate(
        list.map((j) => j.view.job.id),
        rates,
        list.map((j) => ({ timeSinceStart: now - j.view.arrival, remainingSteps: j.view.remaining })),
        capacity,
      );
    }
    for (let i = 0; i < list.length; i++) out.set(list[i]!.view.job, a.x.slice(i * G, (i + 1) * G));
    return out;
  }
}

/** A round scheduler by name (`GPU_POLICIES`) on the engine whose DL progress model is `dl`. */
export function makeGpuScheduler(name: string, dl: DlProgress, options: GavelOptions): DecisionMaker & { readonly name: string } {
  switch (name) {
    case 'fifo':
    case 'las':
    case 'srtf':
      return new GreedyRounds(name, dl);
    case 'max_min_fairness_perf':
    case 'max_min_fairness':
    case 'finish_time_fairness_perf':
    case 'finish_time_fairness':
      return new GavelRounds(name, dl, options);
    default:
      throw new InputError(`unknown GPU policy ${JSON.stringify(name)}; expected one of ${GPU_POLICIES.join(', ')}`);
  }
}
