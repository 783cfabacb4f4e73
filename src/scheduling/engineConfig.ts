/**
 * The engine configuration: the dimensions of the one engine chosen by name (DESIGN §15), one JSON
 * object that `simulate --engine`, `compare --engine`, the cluster environments (`engine` in their
 * config) and the leaderboard's settings share. Every field has a default, and the defaults are the
 * documented model (IRMaSim's): `{}` changes nothing.
 *
 * ```json
 * { "malleable": "steps", "resize": "dmr", "pass_clock": "instant",
 *   "multifactor": { "weights": { "age": 1000, "fairshare": 10000, "job_size": 1000, "partition": 1000 },
 *                    "shares": { "alice": 2, "bob": 1 }, "calc_period": 300, "decay_half_life": 604800 } }
 * ```
 *
 * - `capacity`: `cores` on the platform's nodes (the default), or `counted` per node group (the Slurm
 *   preset's: src/execution/countedCores.ts).
 * - `malleable` (progress of jobs with a `malleable` facet): `rigid` runs them at their submitted size
 *   for their nominal run time; `steps` runs their iterations and resizes them at their reconfiguration
 *   points (src/execution/malleableProgress.ts).
 * - `resize` (the resize policy at those points): `dmr` (seed 002's) or `never`; `resize_cost` (s).
 * - `pass_clock`: the scheduler is asked after every `instant` with a change, or after every `event`.
 * - `multifactor`: the parameters of the job selection `multifactor` (Slurm's multifactor priority with
 *   classic fair share, src/scheduling/multifactor.ts): weights, `PriorityMaxAge` and the other
 *   parameters (Slurm's names in snake case), shares by user, QOS priorities by name.
 *
 * Partitions need no switch: a job's `partition` (else the platform's default) restricts where it runs,
 * and the partition's limits refuse it at submission (src/platform/partitions.ts).
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import type { ClusterSimulator, SimulatorOptions } from '../execution/simulator.js';
import { queueResizeDecider } from './dmr.js';
import { DEFAULT_PRIORITY, type MultifactorOptions, type PriorityConfig } from './multifactor.js';
import { PartitionPreemption } from './preemption.js';
import { PolicyScheduler, type Scheduler } from './scheduler.js';
import { SlurmMainPass } from './slurmMainPass.js';
import { SlurmPassClock } from './slurmPassClock.js';
import { isJobOrderSource, SlurmBackfill } from './slurmBackfill.js';
import { dmrPolicy, neverPolicy } from './resizePolicy.js';

const nonNeg = z.number().finite().nonnegative();
const positive = z.number().finite().positive();

/** The engine configuration as zod sees it. */
export const EngineConfigSchema = z
  .object({
    /**
     * What the platform offers (src/execution/capacity.ts): `cores` on nodes (cores, memory, power; the
     * documented model), or `counted`, free cores counted per node group (src/execution/countedCores.ts:
     * Slurm's counted model, no power, memory or node shapes).
     */
    capacity: z.enum(['cores', 'counted']).default('cores'),
    malleable: z.enum(['rigid', 'steps']).default('rigid'),
    resize: z.enum(['dmr', 'never']).default('dmr'),
    resize_cost: z.object({ expand: nonNeg, shrink: nonNeg }).strict().optional(),
    /**
     * When the scheduler runs: every instant with a change, every event, or Slurm's main-scheduler clock
     * (`{ slurm: { ... } }`, src/scheduling/slurmPassClock.ts: seconds; `priority_ticks` a pass after every
     * multifactor `calc_period` recalculation, the Slurm preset's rule: the retired Slurm engine's schedules,
     * test/golden/slurmEngine.ts).
     */
    pass_clock: z
      .union([
        z.enum(['instant', 'event']),
        z
          .object({
            slurm: z
              .object({
                sched_on_submit: z.boolean().default(false),
                sched_delay: nonNeg.default(0),
                sched_min_interval: nonNeg.default(0),
                sched_interval: nonNeg.default(60),
                /** slurmctld's background thread (`batch_sched_delay`, s; 0: off) and its tick phase in [0, 1). */
                batch_sched_delay: nonNeg.default(0),
                bg_tick_phase: z.number().min(0).lt(1).default(0.5),
                /**
                 * The clocks of a live run's log: slurmctld's start (engine time), the background thread's
                 * measured ticks and the backfill passes' measured times (ascending; src/scheduling/slurmPassClock.ts).
                 */
                timer_origin: z.number().finite().optional(),
                bg_tick_times: z.array(z.number().finite()).optional(),
                bf_tick_times: z.array(z.number().finite()).optional(),
                priority_ticks: z.boolean().default(true),
                /**
                 * The main pass: the scheduler's own (`policy`), or Slurm's main scheduler over its queue order
                 * (`slurm`: `queue_depth` jobs, a job left waiting blocks its partition and its partition's node
                 * groups, each job within one node group; src/scheduling/slurmMainPass.ts).
                 */
                main: z.enum(['policy', 'slurm']).default('policy'),
                queue_depth: z.number().int().positive().default(100),
                /**
                 * Slurm's main pass: a job within one node group of its partition (`group`, the Slurm preset's counted
                 * model), anywhere on it (`partition`), or on its nodes as Slurm's select plugin chooses them (`nodes`:
                 * the Slurm preset's whole-node allocation, `SlurmConfig.nodeSelect`; capacity `cores`).
                 */
                within: z.enum(['group', 'partition', 'nodes']).default('partition'),
                /**
                 * `SchedulerType=sched/backfill` (absent: `sched/builtin`): Slurm's backfill scheduler on its
                 * own timer (src/scheduling/slurmBackfill.ts). Seconds (slurm.conf gives `bf_window` in minutes).
                 */
                backfill: z
                  .object({
                    interval: positive.default(30),
                    window: positive.default(86_400),
                    resolution: positive.default(60),
                    max_job_test: z.number().int().nonnegative().default(100),
                    grid: z.boolean().default(false),
                    slurm_rounding: z.boolean().default(false),
                    reserve_idle: z.enum(['none', 'first', 'proportional']).default('none'),
                    /** With `within: "nodes"`: Slurm 22.05's pass with the select plugin's will-run test (the Slurm preset's `SlurmConfig.bfWillRun`) instead of the node-profile pass of one-core nodes. */
                    will_run: z.boolean().default(false),
                  })
                  .strict()
                  .optional(),
              })
              .strict(),
          })
          .strict(),
      ])
      .default('instant'),
    /**
     * Slurm's `PreemptType`: `partition_prio` adds the partition-priority preemption pass (src/scheduling/preemption.ts),
     * or, under Slurm's main pass within one node group or on the nodes of Slurm's select plugin
     * (`pass_clock.slurm.main: "slurm"`, `within: "group"` or `"nodes"`), preempts inside its walk as Slurm does
     * (src/scheduling/slurmMainPass.ts).
     */
    preempt_type: z.enum(['none', 'partition_prio']).default('none'),
    multifactor: z
      .object({
        weights: z.object({ age: nonNeg, fairshare: nonNeg, job_size: nonNeg, partition: nonNeg, qos: nonNeg }).partial().strict().default({}),
        max_age: positive.optional(),
        favor_small: z.boolean().optional(),
        decay_half_life: nonNeg.optional(),
        calc_period: positive.optional(),
        /** Ticks at `calc_phase + k x calc_period` (Slurm's decay thread from slurmctld's start); absent: a period after the first event. */
        calc_phase: nonNeg.optional(),
        /** The job size factor: `cores` (cores over the platform's) or `slurm22` (Slurm 22.05's: nodes and CPUs averaged). */
        job_size: z.enum(['cores', 'slurm22']).optional(),
        /** The CPUs Slurm counts on the platform (threads included) for `slurm22`; absent: its cores. */
        total_cpus: positive.optional(),
        dampening: positive.optional(),
        shares: z.record(z.string(), positive).default({}),
        qos: z.record(z.string(), nonNeg).default({}),
        /** A decision point at every `calc_period` tick while jobs wait (the Slurm preset's main pass after its priority recalculation, `SlurmPassClock`). */
        pass_at_tick: z.boolean().default(false),
      })
      .strict()
      .optional(),
  })
  .strict();

/** An engine configuration as written. */
export type EngineConfigInput = z.input<typeof EngineConfigSchema>;
/** A validated engine configuration, defaults filled in. */
export type EngineConfig = z.output<typeof EngineConfigSchema>;

/** Validates `raw` (an `InputError` naming every bad field with its JSON path in `where`). */
export function parseEngineConfig(raw: unknown, where = 'engine config'): EngineConfig {
  const r = EngineConfigSchema.safeParse(raw ?? {});
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  return r.data;
}

/** The engine's constructor options an engine configuration sets. */
export function simulatorOptionsOf(cfg: EngineConfig): Partial<SimulatorOptions> {
  return {
    capacity: cfg.capacity,
    malleable: cfg.malleable,
    resizeCost: cfg.resize_cost,
    passClock: typeof cfg.pass_clock === 'string' ? cfg.pass_clock : 'requested',
  };
}

/** The `multifactor` job selection's options an engine configuration sets (its defaults otherwise). */
export function multifactorOptionsOf(cfg: EngineConfig): MultifactorOptions | undefined {
  const m = cfg.multifactor;
  if (m === undefined) return undefined;
  const priority: Partial<PriorityConfig> = {};
  if (m.weights.age !== undefined) priority.weightAge = m.weights.age;
  if (m.weights.fairshare !== undefined) priority.weightFairshare = m.weights.fairshare;
  if (m.weights.job_size !== undefined) priority.weightJobSize = m.weights.job_size;
  if (m.weights.partition !== undefined) priority.weightPartition = m.weights.partition;
  if (m.weights.qos !== undefined) priority.weightQos = m.weights.qos;
  if (m.max_age !== undefined) priority.maxAge = m.max_age;
  if (m.favor_small !== undefined) priority.favorSmall = m.favor_small;
  if (m.decay_half_life !== undefined) priority.decayHalfLife = m.decay_half_life;
  if (m.calc_period !== undefined) priority.calcPeriod = m.calc_period;
  if (m.calc_phase !== undefined) priority.calcPhase = m.calc_phase;
  if (m.job_size !== undefined) priority.jobSize = m.job_size;
  if (m.dampening !== undefined) priority.dampening = m.dampening;
  return { priority, shares: m.shares, qos: m.qos, passAtTick: m.pass_at_tick, totalCpus: m.total_cpus };
}

/**
 * The scheduler a run under this configuration uses for `scheduler`: itself, inside Slurm's main-scheduler
 * clock (`pass_clock.slurm`, with Slurm's backfill scheduler over `scheduler`'s queue order when
 * `pass_clock.slurm.backfill`), then followed by the partition-priority preemption pass (`preempt_type`; inside
 * Slurm's main pass within one node group or on the select plugin's nodes instead).
 * Attach it to the engine before the run (`Scheduler.attach`). An `InputError` when Slurm's backfill is
 * asked of a scheduler without a queue order (`where`: the configuration's name).
 */
export function schedulerOf(cfg: EngineConfig, scheduler: Scheduler, where = 'engine config'): Scheduler {
  let s = scheduler;
  const slurm = typeof cfg.pass_clock === 'object' ? cfg.pass_clock.slurm : null;
  if (cfg.capacity === 'counted' && slurm?.main !== 'slurm')
    throw new InputError(
      `capacity: "counted" places jobs by counts of a node group's cores, which Slurm's passes read (pass_clock.slurm.main: "slurm"); ${scheduler.name} places cores on nodes (use capacity "cores")`,
      where,
    );
  // Slurm's main scheduler within one node group or on the select plugin's nodes preempts inside its walk, as Slurm
  // does; otherwise preemption is a pass after it
  const preemptInWalk = cfg.preempt_type === 'partition_prio' && slurm?.main === 'slurm' && slurm.within !== 'partition';
  if (cfg.capacity === 'counted' && cfg.preempt_type !== 'none' && !preemptInWalk)
    throw new InputError(
      'capacity: "counted" preempts only inside Slurm\'s main pass within one node group (pass_clock.slurm.main: "slurm", within: "group"); the preemption pass finds its victims on nodes: use capacity "cores"',
      where,
    );
  if (slurm?.main === 'slurm' && slurm.within === 'nodes' && cfg.capacity !== 'cores')
    throw new InputError(`pass_clock.slurm.within: "nodes" places jobs on nodes' cores (capacity "cores"); found capacity "${cfg.capacity}"`, where);
  if (slurm?.main === 'slurm') {
    if (!(scheduler instanceof PolicyScheduler) || scheduler.backfill !== 'none')
      throw new InputError(
        `pass_clock.slurm.main: Slurm's main scheduler walks a JOB:RESOURCE policy's queue without backfilling (Slurm's backfill is pass_clock.slurm.backfill); found ${scheduler.name}`,
        where,
      );
    s = new SlurmMainPass(scheduler, slurm.queue_depth, slurm.within, preemptInWalk);
  }
  const orderSource = s;
  if (cfg.preempt_type === 'partition_prio' && !preemptInWalk) s = new PartitionPreemption(s);
  if (typeof cfg.pass_clock === 'object') {
    const c = cfg.pass_clock.slurm;
    const period = cfg.multifactor?.calc_period ?? DEFAULT_PRIORITY.calcPeriod;
    let backfill: SlurmBackfill | null = null;
    if (c.backfill !== undefined) {
      if (!isJobOrderSource(orderSource))
        throw new InputError(`pass_clock.slurm.backfill: Slurm's backfill walks a queue order; ${scheduler.name} has none (use a JOB:RESOURCE policy)`, where);
      const b = c.backfill;
      backfill = new SlurmBackfill(orderSource, {
        interval: b.interval,
        window: b.window,
        resolution: b.resolution,
        maxJobTest: b.max_job_test,
        grid: b.grid,
        slurmRounding: b.slurm_rounding,
        reserveIdle: b.reserve_idle,
        willRun: b.will_run,
      });
    }
    s = new SlurmPassClock(
      s,
      {
        schedOnSubmit: c.sched_on_submit,
        schedDelay: c.sched_delay,
        schedMinInterval: c.sched_min_interval,
        schedInterval: c.sched_interval,
        batchSchedDelay: c.batch_sched_delay,
        bgTickPhase: c.bg_tick_phase,
        timerOrigin: c.timer_origin,
        bgTickTimes: c.bg_tick_times,
        bfTickTimes: c.bf_tick_times,
        priorityTicks: c.priority_ticks ? { period, phase: cfg.multifactor?.calc_phase } : undefined,
      },
      backfill,
    );
  }
  return s;
}

/** Sets on a built engine what its configuration asks for beyond the constructor's options: the resize policy. */
export function attachEngineConfig(sim: ClusterSimulator, cfg: EngineConfig): void {
  if (cfg.malleable === 'steps') sim.setResizePolicy(queueResizeDecider(cfg.resize === 'dmr' ? dmrPolicy : neverPolicy));
}
