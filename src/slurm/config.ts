/**
 * Slurm's inputs and settings: a submitted job (`SlurmJobInput`) and the scheduler's configuration
 * (`SlurmConfig`, slurm.conf's names in the comments; defaults `DEFAULT_SLURM`). What each setting does is
 * documented at its field; the Slurm preset of the one engine (`preset.ts`) runs them.
 */
import type { NodeShape } from '../scheduling/nodeSelection.js';
import { DEFAULT_PRIORITY, type PriorityConfig } from './priority.js';

/**
 * A number in [0, 1) from a job id and a seed, the same on every run (murmur3's 32-bit finaliser over
 * the id's low 32 bits mixed with the seed).
 */
export function hashUnit(id: number, seed: number): number {
  let h = (Math.trunc(id) ^ Math.imul(seed | 0, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/**
 * Why the Slurm configuration `c` is no model of Slurm on node groups of `coresPerNode` cores per node (by
 * group), or null: with `nodeSelect` and `sched/backfill`, the backfill pass without `bfWillRun` is the
 * node-profile planner (src/scheduling/nodeProfileBackfill.ts), which takes a job's units for whole nodes and
 * sees a node as held only by a job holding it whole; on nodes of several cores jobs share nodes (a job holds
 * CPUs on each), which it would take for free and give whole to another job. Slurm's backfill has no such pass:
 * `_attempt_backfill` tests each job with the select plugin's will-run test (`select_g_job_test(...,
 * SELECT_MODE_WILL_RUN)`: `bfWillRun`). The preset refuses it.
 */
export function slurmConfigRefusal(c: Pick<SlurmConfig, 'nodeSelect' | 'backfill' | 'bfWillRun'>, coresPerNode: ArrayLike<number>): string | null {
  if (!(c.nodeSelect && c.backfill && !c.bfWillRun) || Array.prototype.every.call(coresPerNode, (n: number) => n === 1)) return null;
  return (
    'nodeSelect with sched/backfill on nodes of several cores needs bfWillRun: without it the backfill pass is the ' +
    'node-profile planner, which holds whole one-core nodes and would take nodes shared by jobs for free (Slurm tests ' +
    "each job with the select plugin's will-run test); set bfWillRun, or backfill: false"
  );
}

/** A job as submitted. */
export interface SlurmJobInput {
  /** Job id (any number; outputs carry it). */
  id: number;
  /** Submission time (s); nondecreasing along a stream. */
  submit: number;
  cores: number;
  /** Requested time (time limit, s). */
  timeLimit: number;
  /** Actual run time (s). */
  runTime: number;
  user: number;
  /** Partition index (default 0). */
  partition?: number;
  /** QOS index into `SlurmConfig.qosPriorities` (default 0). */
  qos?: number;
  /** Operator suspension: after this many seconds of run, for `opFor` seconds. */
  opAfter?: number;
  opFor?: number;
  /**
   * GPUs (`--gres=gpu[:TYPE]:N`): on each node the job runs on (with `nodeSelect`), else on its group (jobs
   * counted per group); `gpuType` one of the platform's GPU types, absent: any (issue 45).
   */
  gpus?: number;
  gpuType?: string;
  /**
   * With `nodeSelect`: how the job asks for nodes (`cores` is then its units in all). Absent: whole nodes
   * (`cores` of them) when its partition's nodes are one unit each (a whole-node platform), else `cores`
   * units on any nodes.
   */
  shape?: JobShape;
  /**
   * Seconds after its end during which the job's nodes stay `COMPLETING` (a live record's, from slurmctld's
   * log: slurmd's answer to the terminate request, or its epilog message): the main scheduler does not place
   * jobs on them (node_scheduler.c: `idle_node_bitmap`, `cg_node_bitmap`), a backfill start on them waits a
   * second (backfill.c: "Need to wait for in-progress completion/epilog"), and the main pass the release asks
   * for is queued then, not at the end (agent.c). With `nodeSelect` and `bfWillRun`; absent or 0: the nodes are
   * free at the end (a site trace).
   */
  completing?: number;
  /**
   * The release is reported by slurmd's `MESSAGE_EPILOG_COMPLETE` (a live record's log shows
   * `_slurm_rpc_epilog_complete`): its handler runs the main scheduler at once (proc_req.c
   * `_slurm_rpc_epilog_complete`: `schedule(false)`), outside the background thread's queue and timer.
   * Absent: the "already complete" answer, which only queues a pass (agent.c `queue_job_scheduler`).
   */
  epilogPass?: boolean;
}

/** How a job asks for nodes (`sbatch` options; src/scheduling/nodeSelection.ts). */
export type JobShape = NodeShape;

/** Scheduler configuration (slurm.conf names in the comments). */
export interface SlurmConfig {
  priority: PriorityConfig;
  /** `SchedulerType=sched/backfill` (false: `sched/builtin`). */
  backfill: boolean;
  /** bf_interval (s). */
  bfInterval: number;
  /** bf_window (s). */
  bfWindow: number;
  /** bf_resolution (s). */
  bfResolution: number;
  /** bf_max_job_test. */
  bfMaxJobTest: number;
  /** default_queue_depth. */
  queueDepth: number;
  /** Priority of each QOS (index = QOS id). */
  qosPriorities: number[];
  /** Number of users (ids 0..users-1). */
  users: number;
  /**
   * `sched_min_interval` (s): the main scheduler runs at most once per this interval (Slurm gives it
   * in µs, default 2 µs); an instant with events inside the interval is scheduled at its end. 0: every instant.
   */
  schedMinInterval: number;
  /**
   * Whether a submission runs the main scheduler at once (the engine's historical behaviour, kept for
   * seed 004). Slurm 22.05 does not start a batch job at submission: it waits for the next backfill
   * pass, the next job end, or the periodic `sched_interval` pass (measured: docs/slurm.md).
   */
  schedOnSubmit: boolean;
  /**
   * Delay (s) of the main scheduler after the event that asks for it (a job end): slurmctld's
   * scheduling thread runs the pass a fraction of a second later (measured: docs/slurm.md). 0: at once.
   */
  schedDelay: number;
  /**
   * `sched_interval` (s): a main-scheduler pass over the queue this often while jobs pend (0: none). With
   * `batchSchedDelay` it is the background thread's: on its tick (`k x interval + bgTickPhase`), whatever
   * `batch_sched_delay` says, and like any background pass it serves the passes queued until then.
   */
  schedInterval: number;
  /**
   * `batch_sched_delay` (s; 0: off). Slurm 22.05 runs the main scheduler for a submission and, without an
   * `Epilog`, for most job ends (the nodes of a job whose processes are gone by the time slurmctld asks
   * them to terminate answer "already complete", and that reply only queues a pass) from its background
   * thread: a tick every second (at `k + bgTickPhase` s), which runs a
   * queued pass once at least this long has passed since the last one it ran, in whole seconds (`time_t`), the last
   * being any the thread ran: a queued one, a periodic `sched_interval` one (also on an empty queue), or its start
   * (slurmctld's, `timerOrigin`) (controller.c `_slurmctld_background`). When on, every pass
   * the engine would run after a submission or a job end waits for that tick, and `schedDelay` is not
   * used. (The end of a job whose batch step is still exiting is reported by an epilog message that
   * runs the main scheduler at once: `endSchedShare`.)
   */
  batchSchedDelay: number;
  /**
   * With `batchSchedDelay`: the share of job ends (0-1) after which the main scheduler runs at once
   * instead of on the background thread's tick. In Slurm 22.05 without an `Epilog` this happens when the
   * batch host's slurmstepd has not yet exited as slurmd handles slurmctld's terminate request (a race of
   * a few ms: slurmd then reports the end by an epilog message, whose handler runs the main scheduler).
   * Nothing the engine knows decides that race, so the ends are drawn: job `id` takes this path when
   * `hashUnit(id, endSchedSeed) < endSchedShare`, the same for every run of the engine. Measured: 20 of
   * 144 ends (docs/slurm.md). 0: never (the default).
   */
  endSchedShare: number;
  /** The seed of `endSchedShare`'s draw. */
  endSchedSeed: number;
  /**
   * With `batchSchedDelay`: the background thread's ticks fall at `k + bgTickPhase` s (0 <= phase < 1).
   * In Slurm the thread's one-second loop drifts against the backfill timer, so main passes fall at any
   * fraction of a second (measured over 24 live runs: docs/slurm.md); the default 0.5 is half way between
   * backfill ticks.
   */
  bgTickPhase: number;
  /**
   * The engine time at which slurmctld started (a live run's, from its log), or undefined. Slurm's periodic
   * threads keep their phase from there: with `bfGrid` and a `bf_interval` above 1 s the backfill thread
   * passes at `timerOrigin + k x bf_interval` (it sleeps `bf_interval` after each pass from its start, and a
   * pass takes milliseconds), and the background thread's `sched_interval` passes fall every `interval`
   * whole seconds from its start (controller.c `last_full_sched_time`). The background thread's sub-second
   * tick phase is not anchored (it drifts 4-13 ms a second with the load: `bgTickPhase`), nor is a 1 s
   * backfill grid (docs/slurm.md).
   */
  timerOrigin?: number;
  /**
   * slurmctld's own timer ticks as a live run's log shows them (engine time, ascending; `LiveRun`): the
   * background thread's (a sparse sample: its ticks in between are every `(b - a) / round(b - a)` s between
   * two samples `a`, `b`, which gives their sub-second phase, drifting with the load) replaces `bgTickPhase`;
   * the backfill passes' replace the backfill grid. Undefined: the nominal timers.
   */
  bgTickTimes?: readonly number[];
  bfTickTimes?: readonly number[];
  /**
   * Backfill passes on a fixed grid (multiples of `bfInterval` from time 0, as slurmctld's backfill
   * thread keeps its own timer) instead of `bfInterval` after the instant a job arrived to an idle queue.
   */
  bfGrid: boolean;
  /**
   * Which cores a backfill reservation holds. Slurm reserves *specific* nodes for a pending job (those
   * its select plugin picks among the nodes free at the reserved start), so a node idle now but
   * reserved serves only jobs that end before the reservation starts. `none`: reservations are counts
   * of cores over time and any idle core serves (the engine's historical behaviour, kept for seed 004);
   * `first`: a reservation takes idle cores first (pessimistic); `proportional`: it takes idle cores in
   * the proportion they have among the cores free at its start (the select plugin's choice by node
   * index is blind to which nodes are idle now). Measured against Slurm 22.05: docs/slurm.md.
   */
  bfReserveIdle: 'none' | 'first' | 'proportional';
  /**
   * Slurm 22.05's time rounding in backfill: the map of free cores is on the absolute grid of
   * `bfResolution` (from `floor(now / res) x res`), running jobs' expected ends and a reservation's
   * start and end are rounded down to it, and a job that would start now must not overlap any
   * reserved slot it touches (its end rounded up). Off: buckets of `bfResolution` from now, ends
   * rounded up (the engine's historical behaviour).
   */
  bfSlurmRounding: boolean;
  /**
   * Whole-node allocation on specific nodes (`select/linear`, or `OverSubscribe=EXCLUSIVE` everywhere):
   * every unit of a group is one node, in slurm.conf order. A job starts on the nodes Slurm's select
   * plugin picks: among the available nodes, the shortest run of consecutive nodes that holds the job
   * (first such run on ties), its first nodes; with no such run, the longest runs first. A backfill
   * reservation takes specific nodes the same way, among the nodes free (jobs ended, other reservations
   * not overlapping) at its start; a node reserved serves only jobs that end before the reservation.
   * Replaces `bfReserveIdle`. Off: units are counted per group (the engine's historical behaviour, seed 004).
   */
  nodeSelect: boolean;
  /**
   * With `nodeSelect`: the backfill pass as Slurm 22.05's sched/backfill and select plugin do it
   * (`_attempt_backfill`, cons_common `_will_run_test`), instead of a free-node profile of running jobs'
   * expected ends. Running jobs are not in the backfill map (no `bf_running_job_reserve`): the map holds
   * only this pass's reservations and starts, on the `bfResolution` grid. A job's earliest start is found
   * by the will-run test: on the nodes no reservation of the map touches from the tested start to its end
   * (inclusive), idle nodes first; else running jobs on those nodes are removed in order of expected end
   * (start + time limit; equal ends in submission order, as slurmctld's job list holds them) in batches,
   * the first batch all jobs ending up to 30 s after the first end rounded up to 30 s (absolute), each further window twice as long (a batch closes when the next running
   * job in the list, usable or not, ends after its window: cons_common peeks at the next job of the whole
   * list, so a job on none of the usable nodes can extend a batch), and the start is the expected end of
   * the last job of the first batch after which the job fits, on the nodes `pickNodes` chooses among those
   * free then. A start after the next map boundary where other nodes become free, or a reservation that
   * would overlap another, is tried again from that boundary (`later_start`). The reservation is
   * `[floor(start), floor(start + limit))` on the grid; a job started now holds its nodes until
   * `floor(now + limit)`. Measured: docs/slurm.md. Off, with `sched/backfill`: the node-profile pass, on
   * one-core nodes only (elsewhere an input error: `slurmConfigRefusal`).
   */
  bfWillRun: boolean;
}

/** Slurm's defaults (16.05, the seed's version) with `DEFAULT_PRIORITY`. */
export const DEFAULT_SLURM: SlurmConfig = {
  priority: DEFAULT_PRIORITY,
  backfill: true,
  bfInterval: 30,
  bfWindow: 1440 * 60,
  bfResolution: 60,
  bfMaxJobTest: 100,
  queueDepth: 100,
  qosPriorities: [0],
  users: 1,
  schedMinInterval: 0,
  schedOnSubmit: true,
  schedDelay: 0,
  schedInterval: 0,
  batchSchedDelay: 0,
  endSchedShare: 0,
  endSchedSeed: 0,
  bgTickPhase: 0.5,
  bfGrid: false,
  bfReserveIdle: 'none',
  bfSlurmRounding: false,
  nodeSelect: false,
  bfWillRun: false,
};

/**
 * A change of the scheduler's settings during a run (an operator's `scontrol reconfigure`): the preset's stepped
 * run (`SlurmPresetRun`) takes the priority's weights and flags, `backfill` and `bfWindow`, and refuses any other
 * by name.
 */
export type SlurmSchedulingChange = Partial<Omit<SlurmConfig, 'priority' | 'users' | 'qosPriorities'>> & { priority?: Partial<PriorityConfig> };
