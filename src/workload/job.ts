/**
 * Jobs and tasks (DESIGN §2.2).
 *
 * A job has `ntasks` tasks. Under the `ops` work model a task carries `ops = ceil(req_ops / ipc)`
 * operations and runs at `mops * 1e6 * S` operations per second (S: its current speed factor);
 * under the `delay` work model a task runs exactly `runtime` seconds on any core and neither feels
 * nor causes contention (Batsim `delay` profiles, SWF replay).
 *
 * `seq` jobs put all their tasks on one node, and each task frees its core when it ends. `mpi` jobs
 * may spread over nodes (exactly `nodes` nodes when that is set, see `nodeTaskShare`); no core of an
 * MPI job is freed before its last task ends.
 *
 * **Facets** are optional parts of a job that some engines use and the others ignore (absent = not
 * given): who submits it (`user`, `account`), where (`partition`, `qos`), how its work scales and may be
 * resized (`malleable`, `malleability.ts`), what an operator does to it while it runs
 * (`operatorEvents`), the GPUs it needs with, for a deep-learning job, its training steps (`gpus`,
 * `gpuRequest.ts`), and the cores each task holds when that is not one whole core (`cpusPerTask`).
 * Every reader fills the facets its format has (docs/workloads.md); `makeJob` and
 * `writeNativeWorkload` carry them. Slurm's node request (`--exclusive`, `-N`, `-c`, `--mem`: `slurmRequest`) is
 * a facet too (`--mem-per-cpu` is the job's `mem`, MB per task, a task one core); its other request details
 * (features, dependencies, nice) are the Slurm engine's.
 */
import type { GpuRequest } from './gpuRequest.js';
import type { MalleableWork } from './malleability.js';

export type { DlWork, GpuRequest } from './gpuRequest.js';
export type { MalleableWork } from './malleability.js';

/** `seq`: all tasks on one node; `mpi`: tasks anywhere, synchronised release. */
export type JobType = 'seq' | 'mpi';
/** `ops`: work in operations, speed depends on the core and contention; `delay`: fixed duration. */
export type WorkModel = 'ops' | 'delay';

/** Per-task work when a job's tasks differ (`tasks: [...]` in the workload file). */
export interface TaskWork {
  /** Operations (ops model): `ceil(req_ops / ipc)`. */
  ops: number;
  /** Seconds (delay model). */
  runtime: number;
  /** Memory held on its node, MB. */
  mem: number;
  /** Memory traffic, MB. */
  memVol: number;
}

/**
 * A timed suspension of a running job by an operator (`scontrol suspend`, then `scontrol resume`): after
 * `after` seconds of run (time suspended not counted), the job is suspended for `duration` seconds.
 */
export interface OperatorEvent {
  /** Seconds of run before the suspension (>= 0). */
  after: number;
  /** Seconds suspended (> 0). */
  duration: number;
}

/** Slurm's node request of a job (the `slurmRequest` facet; sbatch's options). */
export interface SlurmRequest {
  /** `--exclusive`: whole idle nodes, `minNodes` of them. */
  exclusive?: boolean | undefined;
  /** `-N MIN-MAX`: nodes at least (default 1) and at most (0 or absent: no maximum). */
  minNodes?: number | undefined;
  maxNodes?: number | undefined;
  /** `-c`: CPUs per Slurm task (a node takes the job's cores in multiples of it; default 1). */
  cpusPerTask?: number | undefined;
  /**
   * `--mem`: memory (MB) the job holds on each of its nodes, whatever its tasks there (absent: its tasks'
   * `mem`, which is `--mem-per-cpu`). The core capacity holds it (`nodeMemOf`); Slurm's select plugin uses a
   * node only when that much is free there. Not with `exclusive`, which holds its nodes whole, all their memory.
   */
  memPerNode?: number | undefined;
  /**
   * The job gave no node option (sbatch's defaults: its CPUs anywhere, at least one node): its request is not
   * tested against its partition's nodes at submission, as the Slurm engine tests only a job's shape, so one
   * Slurm's select plugin can never place (GPUs on each node that too few nodes have) waits for ever rather
   * than being refused (`SlurmNodeSelection.refusal`; the Slurm preset's unshaped jobs).
   */
  defaults?: boolean | undefined;
}

/** A job, immutable once loaded. */
export interface Job {
  /** Identifier from the workload (string, unique within the workload). */
  id: string;
  /** Submission time, seconds, as in the source (the simulator rebases to the first submission). */
  subtime: number;
  ntasks: number;
  /** The user's runtime estimate, seconds (walltime). */
  reqTime: number;
  /** The user's energy estimate per task, J (IRMaSim's `req_energy`; 0 when not given). */
  reqEnergy: number;
  type: JobType;
  work: WorkModel;
  /** Operations per task (ops model; tasks without their own profile). */
  ops: number;
  /** Seconds per task (delay model; tasks without their own profile). */
  runtime: number;
  /** Memory per task, MB. */
  mem: number;
  /** Memory traffic per task, MB. */
  memVol: number;
  /** Bytes exchanged between each pair of this job's tasks on different nodes (MPI). */
  commVol: number;
  /** Fraction of time computing, in [0, 1] (MPI); the rest communicates. */
  tCompute: number;
  /** Exact number of nodes (0: any). Always 1 for `seq`. */
  nodes: number;
  /**
   * Free cores each node of an exact-shape job must offer (IRMaSim's `ntasks_per_node`; 0: not given,
   * then `ceil(ntasks / nodes)`), see `perNodeCores`.
   */
  ntasksPerNode: number;
  /** Per-task work when tasks differ, else null (all tasks use the fields above). */
  tasks: TaskWork[] | null;
  /** Profile name in the source, if any. */
  profile?: string | undefined;
  /** Where the job comes from in its source, for error messages: `$.jobs[3]` or `line 42`. */
  source: string;
  /** Facet: the user who submits it (a name; SWF and Slurm user ids as decimal strings). */
  user?: string | undefined;
  /** Facet: the account it is charged to (Slurm's `--account`; SWF: the group id). */
  account?: string | undefined;
  /** Facet: the partition it asks for (`Platform.partitions`; absent: the default partition). */
  partition?: string | undefined;
  /** Facet: its quality of service, by name (SWF: the queue number). */
  qos?: string | undefined;
  /**
   * Facet: an iterative MPI job's steps, speed-up model and malleability (`malleability.ts`). Its size
   * (`nodes`) is the size it is submitted at (`max` when malleable); `runtime` is its nominal run time
   * there, `steps * d(nodes)`, so that an engine without malleability runs it as a rigid `delay` job.
   */
  malleable?: MalleableWork | undefined;
  /** Facet: timed operator suspensions while it runs, in increasing `after`. */
  operatorEvents?: OperatorEvent[] | undefined;
  /**
   * Facet (Slurm): its end reaches slurmctld as an epilog message, whose handler runs the main scheduler at
   * once rather than on the background thread's next tick (`batch_sched_delay`; `SlurmPassClock`).
   */
  epilogPass?: boolean | undefined;
  /**
   * Facet (Slurm): seconds its nodes stay `COMPLETING` after its end (until slurmd answers, or its epilog
   * message comes; > 0), on the core capacity: its cores are free at its end, but no job starts on those nodes
   * until then, and the release is what asks for the next pass (the engine's `onRelease`; with `epilogPass`,
   * the epilog's pass runs at the release). See docs/model.md "Nodes COMPLETING after a job".
   */
  completing?: number | undefined;
  /** Facet: the GPUs it needs and, for a deep-learning job, its steps of a job type (`gpuRequest.ts`). */
  gpus?: GpuRequest | undefined;
  /**
   * Facet (Slurm): how the job asks for nodes beyond its cores (`sbatch --exclusive`, `-N MIN-MAX`, `-c`),
   * read by Slurm's select plugin (`pass_clock.slurm.within: "nodes"`, src/scheduling/slurmSelect.ts). Its
   * `ntasks` are the CPUs it asks for (what Slurm's priority and its admission read); it holds the CPUs the
   * select plugin gives it (`holdsItsPlacement`): its tasks' CPUs, which may be more (`-N` above its tasks,
   * `-c` not dividing its CPUs, an exclusive job's whole nodes) or fewer (where Slurm oversubscribes a `-c` job).
   */
  slurmRequest?: SlurmRequest | undefined;
  /**
   * Facet: the cores each task holds (> 0, possibly fractional: a share of a host's CPU, as task traces
   * give it); absent: 1. The capacity of continuous CPU and memory vectors (`capacity: 'vectors'`,
   * src/execution/hostVectors.ts) holds it with the task's `mem`; the core allocation runs one task per
   * core and refuses a job that sets it to anything but 1.
   */
  cpusPerTask?: number | undefined;
}

/** Cores each task of `job` holds (its `cpusPerTask` facet, else 1). */
export function taskCpus(job: Job): number {
  return job.cpusPerTask ?? 1;
}

/** Work of task `t` of a job (its own profile or the job's). */
export function taskOps(job: Job, t: number): number {
  return job.tasks ? job.tasks[t]!.ops : job.ops;
}

/** Duration of task `t` of a delay job. */
export function taskRuntime(job: Job, t: number): number {
  return job.tasks ? job.tasks[t]!.runtime : job.runtime;
}

/** Memory of task `t`, MB. */
export function taskMem(job: Job, t: number): number {
  return job.tasks ? job.tasks[t]!.mem : job.mem;
}

/** Memory traffic of task `t`, MB. */
export function taskMemVol(job: Job, t: number): number {
  return job.tasks ? job.tasks[t]!.memVol : job.memVol;
}

/** Total memory of the job's tasks, MB. */
export function jobMemory(job: Job): number {
  if (!job.tasks) return job.mem * job.ntasks;
  let m = 0;
  for (const t of job.tasks) m += t.mem;
  return m;
}

/**
 * Whether `job` holds the cores its placement gives it rather than one per task (a `delay` job without
 * tasks of its own that has a Slurm node request, `slurmRequest`: the CPUs Slurm's select plugin gives it,
 * `SlurmNodeSelection.cores`, at least one). Its `ntasks` then are the CPUs it asks for.
 */
export function holdsItsPlacement(job: Job): boolean {
  return job.slurmRequest !== undefined && job.tasks === null && job.work === 'delay';
}

/** Whether `job` holds memory by the node, whatever its tasks there (Slurm's `--exclusive` or `--mem`: `nodeMemOf`). */
export function holdsNodeMemory(job: Job): boolean {
  const r = job.slurmRequest;
  return r !== undefined && (r.exclusive === true || r.memPerNode !== undefined);
}

/**
 * Memory (MB) `job` holds on a node of `nodeMemory` MB where it runs its tasks `[from, from + k)`: as Slurm's
 * select plugin holds it, the whole node's for an exclusive request (`slurmRequest.exclusive`), its `--mem`
 * (`slurmRequest.memPerNode`) on each of its nodes; else the memory of those tasks.
 */
export function nodeMemOf(job: Job, from: number, k: number, nodeMemory: number): number {
  if (k > 0 && holdsNodeMemory(job)) return job.slurmRequest!.exclusive === true ? wholeNodeMem(nodeMemory) : job.slurmRequest!.memPerNode!;
  if (!job.tasks) return job.mem * k;
  let m = 0;
  for (let t = from; t < from + k; t++) m += job.tasks[t]!.mem;
  return m;
}

/**
 * The memory (MB) a job holding a node of `nodeMemory` MB whole holds there: all of it, none when the node's
 * memory is not consumable (Infinity), as the Slurm engine's `allocOf` holds it.
 */
export function wholeNodeMem(nodeMemory: number): number {
  return nodeMemory === Number.POSITIVE_INFINITY ? 0 : nodeMemory;
}

/** Largest memory of one task, MB. */
export function maxTaskMem(job: Job): number {
  if (!job.tasks) return job.mem;
  let m = 0;
  for (const t of job.tasks) if (t.mem > m) m = t.mem;
  return m;
}

/**
 * Free cores (and room for as many tasks) each node of an `mpi` job with an exact node count must
 * offer: `ntasks_per_node`, or `ceil(ntasks / nodes)` when that is not given. This is IRMaSim's rule
 * (`Heuristic.layout_job` keeps the nodes with at least `ntasks_per_node` idle cores).
 */
export function perNodeCores(job: Job): number {
  return job.ntasksPerNode > 0 ? job.ntasksPerNode : Math.ceil(job.ntasks / job.nodes);
}

/**
 * Tasks that the `i`-th node (0-based, in placement order) of an exact-shape `mpi` job holds: tasks are
 * dealt round-robin over its `nodes` nodes (task `t` on node `t mod nodes`, as IRMaSim's layout does),
 * so node `i` holds `ceil((ntasks - i) / nodes)`; e.g. 7 tasks on 3 nodes: 3, 2, 2.
 */
export function nodeTaskShare(job: Job, i: number): number {
  return Math.ceil((job.ntasks - i) / job.nodes);
}

/** Builds a job with defaults for every field not given (a delay MPI job of one task); facets are kept as given. */
export function makeJob(fields: Partial<Job> & { id: string; subtime: number; ntasks: number }): Job {
  const work = fields.work ?? 'delay';
  const runtime = fields.runtime ?? 0;
  return {
    reqTime: runtime,
    reqEnergy: 0,
    type: 'mpi',
    work,
    ops: 0,
    runtime,
    mem: 0,
    memVol: 0,
    commVol: 0,
    tCompute: 1,
    nodes: fields.type === 'seq' ? 1 : 0,
    ntasksPerNode: 0,
    tasks: null,
    source: fields.id,
    ...fields,
  };
}

/** The facets a trace's rigid job carries (`makeDelayJob`); every one is set, absent ones `undefined`. */
export interface DelayJobFacets {
  user: string | undefined;
  partition: string | undefined;
  qos: string | undefined;
  operatorEvents: OperatorEvent[] | undefined;
  epilogPass: boolean | undefined;
  gpus: GpuRequest | undefined;
  slurmRequest: SlurmRequest | undefined;
  /** (absent: undefined; set on every job all the same, so that every such job has one shape) */
  completing?: number | undefined;
}

/**
 * `makeJob` of an `mpi` job of fixed duration (`runtime` s, `reqTime` its time limit) with `facets`: a
 * `DelayJob`, whose fields shared by every such job live on its prototype, so that a job is its twelve
 * own fields (a run of millions of jobs, the Slurm preset's, allocates a small object per job rather than
 * `makeJob`'s full literal, and every job made here has one shape). Copy it with `withSubtime` (a spread,
 * `{...job}`, would drop the shared fields). A numeric `id` is kept as the number and its string made when
 * it is read (`job.id`): a run reads a job's id at most at its end, and a million ids as strings that live as
 * long as their jobs were a fifth of what the preset's Raijin replay left for the young-generation collector
 * to copy.
 */
export function makeDelayJob(id: string | number, subtime: number, ntasks: number, runtime: number, reqTime: number, facets: DelayJobFacets): Job {
  return new DelayJob(id, subtime, ntasks, runtime, reqTime, facets);
}

/**
 * A job class whose fields shared by every job of its kind live on its prototype (`sharedJobFields`), its
 * own fields on the instance: `makeDelayJob`'s jobs, the fairness preset's task jobs. Copy one with
 * `withSubtime`, never with a spread.
 */
export abstract class PrototypeJob {
  declare readonly reqEnergy: number;
  declare readonly type: JobType;
  declare readonly work: WorkModel;
  declare readonly ops: number;
  declare readonly mem: number;
  declare readonly memVol: number;
  declare readonly commVol: number;
  declare readonly tCompute: number;
  declare readonly nodes: number;
  declare readonly ntasksPerNode: number;
  declare readonly tasks: null;
}

/** Puts the fields a `delay` job has by default (`makeJob`'s), with `overrides`, on `proto` (a `PrototypeJob` class's). */
export function sharedJobFields(proto: PrototypeJob, overrides: Partial<Job> = {}): void {
  Object.assign(proto, {
    reqEnergy: 0,
    type: 'mpi',
    work: 'delay',
    ops: 0,
    mem: 0,
    memVol: 0,
    commVol: 0,
    tCompute: 1,
    nodes: 0,
    ntasksPerNode: 0,
    tasks: null,
    ...overrides,
  });
}

/** A rigid `mpi` job of delay work (`makeDelayJob`): its own fields, the shared ones on the prototype. */
class DelayJob extends PrototypeJob implements Job {
  readonly user: string | undefined;
  readonly partition: string | undefined;
  readonly qos: string | undefined;
  readonly operatorEvents: OperatorEvent[] | undefined;
  readonly epilogPass: boolean | undefined;
  readonly gpus: GpuRequest | undefined;
  readonly slurmRequest: SlurmRequest | undefined;
  readonly completing: number | undefined;
  constructor(
    /** Its id, as given (`makeDelayJob`). */
    private readonly given: string | number,
    readonly subtime: number,
    readonly ntasks: number,
    readonly runtime: number,
    readonly reqTime: number,
    facets: DelayJobFacets,
  ) {
    super();
    this.user = facets.user;
    this.partition = facets.partition;
    this.qos = facets.qos;
    this.operatorEvents = facets.operatorEvents;
    this.epilogPass = facets.epilogPass;
    this.gpus = facets.gpus;
    this.slurmRequest = facets.slurmRequest;
    this.completing = facets.completing;
  }
  /** Its id (a numeric one made a string now). */
  get id(): string {
    const v = this.given;
    return typeof v === 'string' ? v : String(v);
  }
  /** Its id as a number (`numericJobId`): a numeric one as it was given, no string made. */
  get numericId(): number {
    const v = this.given;
    return typeof v === 'number' ? v : Number(v);
  }
  /** Where it comes from: its id. */
  get source(): string {
    return this.id;
  }
}
sharedJobFields(DelayJob.prototype);

/**
 * `Number(job.id)`, without making the string of an id kept as a number (`makeDelayJob`'s): a run that reads
 * every job's numeric id as it leaves (the Slurm preset's calcmets records) made and parsed a string per job.
 */
export function numericJobId(job: Job): number {
  return job instanceof DelayJob ? job.numericId : Number(job.id);
}

/**
 * `job` submitted at `subtime` instead: a copy with its prototype kept (a job whose shared fields live on
 * its prototype, `makeDelayJob`'s, keeps them), `job` itself when the time is the same.
 */
export function withSubtime(job: Job, subtime: number): Job {
  if (job.subtime === subtime) return job;
  const proto = Object.getPrototypeOf(job) as object | null;
  if (proto === Object.prototype || proto === null) return { ...job, subtime };
  const copy = Object.assign(Object.create(proto) as Job, job);
  (copy as { subtime: number }).subtime = subtime;
  return copy;
}

/** A loaded workload: jobs sorted by submission time (stable), plus what the reader skipped. */
export interface Workload {
  name: string;
  jobs: Job[];
  /** Processors of the machine the trace comes from (SWF `MaxProcs`, Batsim `nb_res`), if known. */
  maxProcs?: number | undefined;
  /** Jobs the reader skipped and why (e.g. SWF run time <= 0). */
  skipped: Record<string, number>;
}

/** Sorts jobs by submission time, keeping the source order among equal times. */
export function sortBySubmission(jobs: Job[]): Job[] {
  return jobs
    .map((j, i) => ({ j, i }))
    .sort((a, b) => a.j.subtime - b.j.subtime || a.i - b.i)
    .map((x) => x.j);
}
