/**
 * Slurm's model as a preset of the one engine (issue 42, DESIGN §15): a Slurm platform, a Slurm configuration
 * and Slurm jobs (`SlurmJobInput`) become the one engine's platform (`slurmPresetPlatform`), engine
 * configuration and jobs, so that `ClusterSimulator` runs Slurm's model (docs/slurm.md), the only engine that does
 * since the Slurm engine was retired once the preset gave its schedules to the bit (test/golden/slurmEngine.ts;
 * "the retired engine" below):
 *
 * - **capacity**: `counted`, free cores counted per node group (`src/execution/countedCores.ts`), as the Slurm
 *   model counts them: a start is a group and a count, with no core or node of its own;
 * - **priority**: the job selection `multifactor` with the configuration's weights and parameters, every
 *   user `0 .. users - 1` known from the start with an equal share (`SlurmConfig.users`; a job of
 *   another is an input error: a new user would take a share), QOS `q<i>`
 *   at `qosPriorities[i]`, a main pass after every `PriorityCalcPeriod` recalculation;
 * - **the pass clock**: Slurm's main-scheduler timers (`sched_on_submit`, the scheduling delay,
 *   `sched_min_interval`, `sched_interval`, `batch_sched_delay`'s background thread and its tick phase) and, with `sched/backfill`, the backfill scheduler on its timer
 *   with the counted planner (`bf_interval`, `bf_window`, `bf_resolution`, `bf_max_job_test`, the grid,
 *   Slurm 22.05's rounding, idle units held);
 * - **the main pass**: Slurm's (`queue_depth`, a job left waiting blocks its partition and its groups, each
 *   job within one node group of its partition, `within: "group"`, and a job no group can hold refused at
 *   submission: `src/scheduling/slurmMainPass.ts`);
 * - **jobs**: an `mpi` job of `cores` tasks, `reqTime` its time limit (walltime kills: `Timeout`), its
 *   runtime, its user as `"<id>"` (a partition's `allow_users` names them so), its partition by name, its
 *   QOS, its timed operator suspension, its GPUs (a count, of a type or any: counted per group beside its
 *   cores; with whole-node allocation on each of its nodes, below), and whether its end runs a pass at once (an epilog message, or `endSchedShare`'s draw:
 *   `Job.epilogPass`).
 *
 * Run step by step, with `setScheduling` (an operator's `scontrol reconfigure`) between the steps (the priority's weights, backfill on
 * or off, `bf_window`): `SlurmPresetRun` (presetRun.ts), which Slurm-v0 runs on.
 *
 * `test/slurm/oneEngine.test.ts` and `presetLifecycle.test.ts` prove the schedules identical to the retired engine's
 * (start, end, state, suspension periods of every job) on random workloads, against its results recorded before it
 * went (test/golden/schedules/slurm-engine.txt, the full schedules test/golden/schedules/slurm-*.csv).
 * - **preemption** (`PreemptType=preempt/partition_prio`, when a partition may be preempted): inside the main
 *   pass's walk (`slurmMainPass.ts`): within one group on the counted capacity;
 *   with whole-node allocation, of the jobs on its partition's nodes, none unless the select plugin would place
 *   the job with all of them gone; its victims suspended until a main pass resumes them (in their group; with
 *   whole-node allocation where the select plugin places them then), requeued or cancelled by their
 *   partition's `preempt_mode`.
 *
 * - **whole-node allocation** (`nodeSelect`): the core capacity, each job placed by Slurm's select plugin
 *   (`within: "nodes"`) and holding its tasks' CPUs on the nodes it chooses (`-N MIN-MAX`, `-c`, `--exclusive`:
 *   the job facet `slurmRequest`, `slurmPresetRequest`, src/scheduling/slurmSelect.ts), whatever its cores, as
 *   slurmctld's job holds them (`holdsItsPlacement`: its cores are the CPUs it asks for, which the
 *   priority and the admission read; a job requeued after a run counts the CPUs that run held,
 *   `ClusterSimulator.cpusOf`, Slurm's `total_cpus`), its memory held on the nodes (the groups' `memory_mb`; a
 *   group without it has unlimited memory, `slurmPresetPlatform`) as the select plugin holds it (`nodeMemOf`):
 *   `--mem` on each of its nodes (`slurmRequest.memPerNode`), `--mem-per-cpu` per CPU (`Job.mem`; with `--mem`
 *   too, both limit the CPUs it may use on a node and the `--mem` is held), an exclusive job's nodes whole
 *   (`test/slurm/presetNodes.test.ts`); its GPUs (`--gres=gpu[:TYPE]:N`: a count on each node, of a type or
 *   any, the job facet `gpus` with `perNode`) held on each node the select plugin chooses, which it uses only
 *   where that many GPUs of its type are free, as the select plugin holds them (`SlurmGroups.gpusFor`)
 *   (`test/slurm/presetGpuNodes.test.ts`).
 *
 * - **nodes COMPLETING after a job** (`SlurmJobInput.completing`, with whole-node allocation and Slurm 22.05's
 *   backfill, `bfWillRun`): the job's `completing` facet, a lifecycle rule of the one engine: its CPUs free at
 *   its end, its nodes `COMPLETING` until the release (no main pass places a job there, a will-run backfill
 *   start there waits a second), the release asking for the pass (run at once when an epilog message
 *   releases them: `epilogPass`), as slurmctld releases a node when slurmd reports its epilog done.
 *
 * What the preset does not cover of a job's request is refused with the setting's name (`slurmPresetRequest`) when
 * there is any. Of the configurations, the node-profile backfill on nodes of several
 * cores (without `bfWillRun`) is no model of Slurm, an input error (`slurmConfigRefusal`). With whole-node
 * allocation a GPU request no node of its partition has the GPUs for is an error, as it was on the retired engine
 * (on the counted capacity, a job no group of its partition can hold is refused at submission); a GPU count not
 * whole is an input error; a shaped request no node can hold (memory included) is refused at submission; a
 * request without a shape that no nodes of its partition can hold (GPUs on each node that too few nodes have)
 * waits for ever (`SlurmRequest.defaults`: not tested at submission; its partition blocked in every main pass,
 * the backfill pass giving it no start), and the run with it, whose priority ticks go on while it waits, stops
 * only at `runSlurmPreset`'s `until`, as the retired engine's run did.
 */
import { JobPhase } from '../core/engine.js';
import { BoundedMemo } from '../core/boundedMemo.js';
import { InputError } from '../core/errors.js';
import { mapped } from '../core/mapped.js';
import { type Job, makeDelayJob, makeJob, type SlurmRequest } from '../workload/job.js';
import type { JobRecord, SimulationListener } from '../execution/simulator.js';
import type { Platform } from '../platform/platform.js';
import { platformFromNodeGroups } from '../platform/views.js';
import { type EngineConfigInput, multifactorOptionsOf, parseEngineConfig, type EngineConfig } from '../scheduling/engineConfig.js';
import { makeScheduler } from '../scheduling/policyName.js';
import { PolicyScheduler } from '../scheduling/scheduler.js';
import { type RunResult, runSimulation } from '../scheduling/run.js';
import { inBackfillPass } from '../scheduling/slurmBackfill.js';
import type { SlurmConfig, SlurmJobInput } from './config.js';
import { DEFAULT_SLURM, hashUnit, slurmConfigRefusal } from './config.js';
import type { SlurmPlatformSpec } from './platform.js';
import type { NodeShape } from '../scheduling/nodeSelection.js';

/** Whether some partition of `platform` may be preempted: its `preempt_mode` is not `off` and a partition of a higher tier shares one of its groups (Slurm's `preempt/partition_prio`: docs/slurm.md, "Job lifecycle"). */
function preempts(platform: SlurmPlatformSpec): boolean {
  const parts = platform.partitions ?? [];
  return parts.some(
    (p) =>
      (p.preempt_mode ?? 'off') !== 'off' &&
      parts.some((q) => (q.priority_tier ?? 1) > (p.priority_tier ?? 1) && (q.groups ?? []).some((g) => (p.groups ?? []).includes(g))),
  );
}

/** The one engine's configuration for the Slurm configuration `config` (see the module comment). */
export function slurmPresetConfig(platform: SlurmPlatformSpec, config: Partial<SlurmConfig>, where = 'slurm config'): EngineConfig {
  const c = { ...DEFAULT_SLURM, ...config };
  // (a configuration that is no model of Slurm: an input error)
  const wrong = slurmConfigRefusal(
    c,
    platform.groups.map((g) => g.cores),
  );
  if (wrong !== null) throw new InputError(wrong, where);
  const p = c.priority;
  const shares: Record<string, number> = {};
  for (let u = 0; u < c.users; u++) shares[String(u)] = 1;
  const qos: Record<string, number> = {};
  c.qosPriorities.forEach((x, i) => {
    qos[`q${i}`] = x;
  });
  const raw: EngineConfigInput = {
    // whole-node allocation places jobs on nodes' cores; the counted model counts cores per group
    capacity: c.nodeSelect ? 'cores' : 'counted',
    // PreemptType=preempt/partition_prio, within the main pass's walk, when a partition may be preempted by another
    ...(preempts(platform) ? { preempt_type: 'partition_prio' as const } : {}),
    pass_clock: {
      slurm: {
        sched_on_submit: c.schedOnSubmit,
        sched_delay: c.schedDelay,
        sched_min_interval: c.schedMinInterval,
        sched_interval: c.schedInterval,
        batch_sched_delay: c.batchSchedDelay,
        bg_tick_phase: c.bgTickPhase,
        ...(c.timerOrigin !== undefined ? { timer_origin: c.timerOrigin } : {}),
        ...(c.bgTickTimes !== undefined ? { bg_tick_times: [...c.bgTickTimes] } : {}),
        ...(c.bfTickTimes !== undefined ? { bf_tick_times: [...c.bfTickTimes] } : {}),
        priority_ticks: true,
        main: 'slurm',
        queue_depth: c.queueDepth,
        within: c.nodeSelect ? 'nodes' : 'group',
        ...(c.backfill
          ? {
              backfill: {
                interval: c.bfInterval,
                window: c.bfWindow,
                resolution: c.bfResolution,
                max_job_test: c.bfMaxJobTest,
                grid: c.bfGrid,
                slurm_rounding: c.bfSlurmRounding,
                reserve_idle: c.bfReserveIdle,
                will_run: c.nodeSelect && c.bfWillRun,
              },
            }
          : {}),
      },
    },
    multifactor: {
      weights: { age: p.weightAge, fairshare: p.weightFairshare, job_size: p.weightJobSize, partition: p.weightPartition, qos: p.weightQos },
      max_age: p.maxAge,
      favor_small: p.favorSmall,
      decay_half_life: p.decayHalfLife,
      calc_period: p.calcPeriod,
      ...(p.calcPhase !== undefined ? { calc_phase: p.calcPhase } : {}),
      ...(p.jobSize !== undefined ? { job_size: p.jobSize } : {}),
      // (a group's cpus, threads included, count in Slurm 22.05's size factor; its memory_mb only with nodeSelect)
      total_cpus: platform.groups.reduce((a, g) => a + g.count * (g.cpus ?? g.cores), 0),
      dampening: p.dampening,
      shares,
      qos,
    },
  };
  // (the same configuration parsed once: a run of short episodes, Slurm-v0's, builds the preset at every reset)
  return presetConfigs.get(memoKey(raw), () => deepFreeze(parseEngineConfig(raw, where)));
}

/** Conversions kept (`slurmPresetConfig`'s, `slurmPresetPlatform`'s), by their input's `memoKey`. */
const presetConfigs = new BoundedMemo<string, EngineConfig>(32);
const presetPlatforms = new BoundedMemo<string, Platform>(32);

/** A value's JSON with its non-finite numbers and undefined fields kept apart (JSON writes `null` for each): equal keys, equal inputs. */
function memoKey(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x === undefined ? '\u0000undefined' : typeof x === 'number' && !Number.isFinite(x) ? `\u0000${x}` : x));
}

/** `v` frozen throughout (a kept configuration is shared by the runs built from it: none may change it). */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * The one engine's platform for a Slurm platform: its groups (with their `memory_mb`: what whole-node
 * allocation holds jobs' memory against; a group without it has unlimited memory, Infinity MB, where no job's
 * memory ever binds, as the select plugin holds it, `nodeMemOf`: memory not consumable there) and partitions
 * (a group's `cpus` left out: only the priority's size factor reads it, `slurmPresetConfig`).
 */
export function slurmPresetPlatform(platform: SlurmPlatformSpec): Platform {
  // (a platform is never changed by a run: the runs of one spec share it, converted once)
  return presetPlatforms.get(memoKey(platform), () => presetPlatformOf(platform));
}

/** `slurmPresetPlatform`'s conversion. */
function presetPlatformOf(platform: SlurmPlatformSpec): Platform {
  const groups = platform.groups.map((g) => ({
    name: g.name,
    count: g.count,
    cores: g.cores,
    ...(g.memory_mb !== undefined ? { memory_mb: g.memory_mb } : {}),
    ...(g.gpus !== undefined ? { gpus: g.gpus } : {}),
  }));
  return platformFromNodeGroups({ groups, partitions: platform.partitions }, 'platform', 'unlimited');
}

/**
 * The one engine's job for Slurm job `j` (see the module comment; `partitions`: the platform's partition
 * names) under the Slurm configuration `config`: its end runs a pass at once (`Job.epilogPass`) when an
 * epilog message reports it (`j.epilogPass`) or when `endSchedShare` draws it (`hashUnit` of the seed and the job).
 * Its node request (`j.shape`, with whole-node allocation) is `request` (`slurmPresetRequest`); its cores
 * are `j.cores` whatever the request (the CPUs it holds are its placement's, `holdsItsPlacement`). Its nodes' `completing` time (with whole-node allocation and
 * Slurm 22.05's backfill only, as the Slurm model counts it) is the job's `completing` facet; its release,
 * not its end, then asks for the pass (an epilog message's at once when `j.epilogPass`; `endSchedShare` draws
 * nothing for it).
 */
export function slurmPresetJob(j: SlurmJobInput, partitions: readonly string[], config: Partial<SlurmConfig> = {}, request: PresetRequest | null = null): Job {
  return slurmPresetJobs(partitions, config)(j, request);
}

/**
 * `slurmPresetJob` for a stream of jobs: one conversion for every job, which names each user and QOS with
 * one string (made at its first job) rather than a string per job.
 */
export function slurmPresetJobs(partitions: readonly string[], config: Partial<SlurmConfig> = {}): (j: SlurmJobInput, request?: PresetRequest | null) => Job {
  const share = config.endSchedShare ?? DEFAULT_SLURM.endSchedShare;
  const seed = config.endSchedSeed ?? DEFAULT_SLURM.endSchedSeed;
  // GPUs on each node with whole-node allocation (`--gres=gpu:N`), else in total in a group
  const perNode = config.nodeSelect ?? DEFAULT_SLURM.nodeSelect;
  // (a job's nodes stay COMPLETING only with whole-node allocation and Slurm 22.05's backfill, as the Slurm model counts them)
  const completes = (config.nodeSelect ?? DEFAULT_SLURM.nodeSelect) && (config.bfWillRun ?? DEFAULT_SLURM.bfWillRun);
  const users: string[] = [];
  const qoses: string[] = [];
  const named = (names: string[], i: number, make: (i: number) => string): string => {
    let n = names[i];
    if (n === undefined) {
      n = make(i);
      names[i] = n;
    }
    return n;
  };
  return (j, request = null) => {
    const gpus = j.gpus ?? 0;
    if (!(Number.isInteger(gpus) && gpus >= 0)) throw new InputError(`job ${j.id}: ${gpus} GPUs: expected a whole number of GPUs >= 0`);
    const completing = completes && j.completing !== undefined && j.completing > 0 ? j.completing : undefined;
    // (the release of nodes left COMPLETING is slurmd's answer or an epilog message: no draw of endSchedShare then)
    const epilog = j.epilogPass === true || (completing === undefined && share > 0 && hashUnit(j.id, seed) < share);
    const facets = {
      user: named(users, j.user, String),
      partition: partitions[j.partition ?? 0]!,
      qos: j.qos !== undefined ? named(qoses, j.qos, (q) => `q${q}`) : undefined,
      operatorEvents: j.opAfter !== undefined && j.opFor !== undefined ? [{ after: j.opAfter, duration: j.opFor }] : undefined,
      epilogPass: epilog ? true : undefined,
      // GPUs of its type (any when it names none): in total, counted per group beside its cores, or with
      // whole-node allocation on each of its nodes, held there (the select plugin, `slurmSelect.ts`)
      gpus: gpus > 0 ? { count: gpus, perNode, type: j.gpuType, weight: 1 } : undefined,
      slurmRequest: request?.slurmRequest,
      completing,
    };
    // (its cores the CPUs it asks for, as Slurm's priority and admission read them; with a node
    // request it holds the CPUs the select plugin gives it: `holdsItsPlacement`)
    if (request === null || request.memPerCpu <= 0) return makeDelayJob(j.id, j.submit, j.cores, j.runTime, j.timeLimit, facets);
    // --mem-per-cpu: the memory of each CPU it holds (a task one core), which the core capacity holds
    return makeJob({ id: String(j.id), subtime: j.submit, ntasks: j.cores, runtime: j.runTime, reqTime: j.timeLimit, mem: request.memPerCpu, ...facets });
  };
}

/** A Slurm job's node request on the one engine: the facet (with `--mem`), and its `--mem-per-cpu` (MB; 0: none), the memory of each CPU it holds. */
export interface PresetRequest {
  slurmRequest: SlurmRequest | undefined;
  memPerCpu: number;
}

/**
 * The node request of Slurm job `j` (its `shape`) on `platform` with whole-node allocation, or null when it
 * gives none: `--exclusive`, `-N MIN[-MAX]` and `-c` as they are, the one engine's job holding the CPUs the
 * select plugin gives it (`holdsItsPlacement`: its tasks' CPUs, `distTasks`, whatever its cores, as
 * slurmctld's job holds them: more nodes than tasks, cores that are not whole tasks of `-c`, a relief
 * valve that oversubscribes, an exclusive job's whole nodes of a range or of unequal nodes), its cores the
 * CPUs it asks for (what the priority and the admission read). An exclusive request (`--exclusive`, or
 * any shape on a partition of one-core nodes that does not say otherwise) asks for `-N` whole nodes
 * (default: its cores), as the select plugin's `nodeRequestOf` (src/scheduling/nodeSelection.ts) reads it. Its memory (`--mem`: the facet's
 * `memPerNode`; `--mem-per-cpu`: its CPUs' `mem`; both: the CPUs it may use on a node as many as both allow,
 * `--mem` held there) is held as the select plugin holds it (`nodeMemOf`), on the nodes of groups that give
 * `memory_mb` (elsewhere memory is not consumable: the preset's platform gives those nodes unlimited memory,
 * `slurmPresetPlatform`; on a partition of such groups only the request is dropped, as it binds nowhere; an
 * exclusive request holds its nodes whole and ignores it too). A GPU request no node of the partition has
 * the GPUs for is an `InputError` at submission (`presetGpus`), as it was on the retired engine. A shaped request (memory
 * included) that the select plugin cannot place even on its idle partition is refused at submission,
 * as slurmctld refuses it; a request without a shape (`SlurmRequest.defaults`) is not tested, and one
 * the plugin can never place (GPUs on each node that too few nodes have) waits for ever on both. Its GPUs
 * themselves are the job's facet (`slurmPresetJobs`), not its request.
 */
export function slurmPresetRequest(j: SlurmJobInput, platform: SlurmPlatformSpec): PresetRequest | null {
  const part = platform.partitions[j.partition ?? 0];
  if (part === undefined) return null; // (refused at submission: no such partition)
  const oneCore = part.groups.every((name) => platform.groups.find((g) => g.name === name)?.cores === 1);
  const shape = j.shape;
  if ((j.gpus ?? 0) > 0) presetGpus(j, platform, part);
  // no shape: Slurm's defaults (whole nodes on one-core nodes, which the one engine's selection gives the job
  // too; else its CPUs anywhere, at least one node: Slurm 22.05's size factor reads that, `slurmRequest`),
  // not tested at submission (`defaults`: the Slurm model tests a shape only)
  if (shape === undefined) return oneCore ? null : { slurmRequest: { defaults: true }, memPerCpu: 0 };
  const cpusPerTask = shape.cpusPerTask;
  // whole nodes: `-N` of them (default its cores: `nodeRequestOf`, which the priority's size factor reads too)
  if (shape.whole ?? oneCore)
    return { slurmRequest: { exclusive: true, minNodes: Math.max(1, shape.minNodes ?? j.cores), maxNodes: shape.maxNodes, cpusPerTask }, memPerCpu: 0 };
  const mem = presetMemory(shape, platform, part.groups);
  // (on one-core nodes a request that is not exclusive says so: the select plugin's default there is whole nodes)
  const slurmRequest: SlurmRequest = { minNodes: shape.minNodes, maxNodes: shape.maxNodes, cpusPerTask, ...(oneCore ? { exclusive: false } : {}) };
  if (mem.perNode > 0) slurmRequest.memPerNode = mem.perNode;
  return { slurmRequest, memPerCpu: mem.perCpu };
}

/**
 * The check of a job's GPUs on each node (`--gres=gpu[:TYPE]:N`; `slurmPresetRequest`, partition `part`): some
 * node of its partition has that many GPUs of its type (else an `InputError` at submission, as the retired engine
 * refused it). A request that the select plugin cannot place even on its idle partition is refused at
 * submission when it has a shape, and waits for ever when it has none (its CPUs on
 * too few nodes with the GPUs: `SlurmRequest.defaults`).
 */
function presetGpus(j: SlurmJobInput, platform: SlurmPlatformSpec, part: SlurmPlatformSpec['partitions'][number]): void {
  const n = j.gpus!;
  const type = j.gpuType;
  const gs = platform.groups.filter((g) => part.groups.includes(g.name));
  if (!gs.some((g) => g.gpus !== undefined && (type === undefined || g.gpus.type === type) && g.gpus.count >= n))
    throw new InputError(
      `job ${j.id}: ${n} GPUs${type !== undefined ? ` of type ${type}` : ''}: no node of partition ${part.name} has that many GPUs${type !== undefined ? ' of that type' : ''}`,
    );
}

/**
 * The memory a job that is not exclusive holds on the one engine (`slurmPresetRequest`): MB on each node
 * (`--mem`) and per task (`--mem-per-cpu`; both: the select plugin tests both on a node and holds
 * the `--mem`, as the one engine's core capacity holds it, `nodeMemOf`), 0 when none or when no group of its
 * partition gives memory (not consumable anywhere there: it binds nowhere, `slurmPresetPlatform`).
 */
function presetMemory(shape: NodeShape, platform: SlurmPlatformSpec, groups: readonly string[]): { perNode: number; perCpu: number } {
  const perNode = shape.memPerNode ?? 0;
  const perCpu = shape.memPerCpu ?? 0;
  if (perNode <= 0 && perCpu <= 0) return { perNode: 0, perCpu: 0 };
  // not consumable on any node of the partition: none is held and it binds nowhere (groups
  // with and without memory_mb: the nodes without have unlimited memory on the preset's platform, where the
  // request binds as little as on the Slurm model's nodes of memory Infinity, `SlurmPlatform.memoryPerNode`)
  if (!platform.groups.some((g) => g.memory_mb !== undefined && groups.includes(g.name))) return { perNode: 0, perCpu: 0 };
  // (a request the select plugin cannot place even on the idle partition is refused at submission,
  // as slurmctld refuses it: the select plugin's `neverPlaced`, `SlurmNodeSelection.refusal`)
  return { perNode, perCpu };
}

/**
 * Runs Slurm jobs on the one engine under the preset of `platform` and `config` (the jobs converted as they
 * are submitted; a refused job is rejected, not an error); `listeners` observe the run, until every job has
 * left or, with `until`, after the instants at or before it (a run where a job waits for ever goes on for
 * ever, as the retired engine's did: its priority ticks go on while a job waits). `capacity`: the
 * preset's `counted` (cores counted per node group, as the Slurm model counts them; records list groups),
 * or `cores` (the same schedule on the core capacity, each job on specific nodes' cores; slower; not with partitions
 * that preempt: refused, since a job Slurm's counted model preempts resumes anywhere in its group). With
 * whole-node allocation the capacity is `cores` only, partitions that preempt or not. `startedByBackfill`
 * hears of each start a backfill pass makes. (A run step by step, its settings changed on the way:
 * `SlurmPresetRun`, presetRun.ts.)
 */
export function runSlurmPreset(
  platform: SlurmPlatformSpec,
  jobs: Iterable<SlurmJobInput>,
  config: Partial<SlurmConfig>,
  listeners: SimulationListener[] = [],
  capacity?: EngineConfig['capacity'],
  startedByBackfill?: (job: Job) => void,
  until = Number.POSITIVE_INFINITY,
): RunResult {
  const run = slurmPresetParts(platform, jobs, config, capacity);
  const all =
    startedByBackfill === undefined
      ? listeners
      : [...listeners, { onStart: (sim, rj) => void (inBackfillPass(sim) && startedByBackfill(rj.job)) } satisfies SimulationListener];
  return runSimulation(run.platform, run.jobs, run.policy, { ...run.options, listeners: all, until });
}

/**
 * What a run of the preset is made of (`runSlurmPreset`, `SlurmPresetRun`): the one engine's platform, the
 * jobs converted as they are submitted, the multifactor policy (`multifactor:first`, which the engine
 * configuration wraps in Slurm's pass clock) and the run's options (the engine configuration with `capacity`
 * when given, walltime kills, time from 0, a refused job rejected).
 */
export function slurmPresetParts(
  platform: SlurmPlatformSpec,
  jobs: Iterable<SlurmJobInput>,
  config: Partial<SlurmConfig>,
  capacity?: EngineConfig['capacity'],
): { platform: Platform; jobs: Iterable<Job>; policy: PolicyScheduler; options: { engine: EngineConfig; walltimeKill: true; timeOrigin: 0; unfit: 'reject' } } {
  const preset = slurmPresetConfig(platform, config);
  if (preset.capacity === 'cores' && capacity === 'counted')
    throw new InputError('the Slurm preset places whole-node allocation (nodeSelect) on nodes\' cores: capacity "cores" only');
  const engine = { ...preset, capacity: capacity ?? preset.capacity };
  // a preempted job resumes anywhere in its group under Slurm's counted model; on the core capacity it takes
  // its own cores back, which may be taken: not the retired engine's schedule (test/golden/slurmEngine.ts;
  // with whole-node allocation the select plugin places it again, as the model's rule has it)
  if (capacity === 'cores' && preset.capacity === 'counted' && engine.preempt_type !== 'none')
    throw new InputError(
      'the Slurm preset preempts on the counted capacity only (a preempted job resumes anywhere in its node group, as the counted Slurm model has it)',
    );
  const names = platform.partitions.map((q) => q.name);
  const nodeSelect = config.nodeSelect ?? DEFAULT_SLURM.nodeSelect;
  const convert = slurmPresetJobs(names, config);
  const users = config.users ?? DEFAULT_SLURM.users;
  // (Slurm breaks a tie of tier and priority by submission, then id; the one engine's queue order keeps
  // arrival order, which is the same when the jobs of one instant come in ascending id: others are refused)
  let last: SlurmJobInput | null = null;
  const oneJobs = mapped(jobs, (j: SlurmJobInput) => {
    if (last !== null && j.submit === last.submit && j.id < last.id)
      throw new InputError(
        `job ${j.id}: submitted at ${j.submit} after job ${last.id} of the same instant; the Slurm preset takes the jobs of one instant in ascending id (sort them by submission time, then id)`,
      );
    last = j;
    // (the configuration's users only, refused at submission as the retired engine refused them: a new user would take a share)
    if (!(j.user >= 0 && j.user < users && Number.isInteger(j.user)))
      throw new InputError(`job ${j.id}: user ${j.user} is not one of the ${users} users (0..${users - 1})`);
    return convert(j, nodeSelect ? slurmPresetRequest(j, platform) : null);
  });
  const policy = makeScheduler('multifactor:first', { multifactor: multifactorOptionsOf(engine) });
  if (!(policy instanceof PolicyScheduler)) throw new Error('the Slurm preset: multifactor:first is a policy scheduler');
  return { platform: slurmPresetPlatform(platform), jobs: oneJobs, policy, options: { engine, walltimeKill: true, timeOrigin: 0, unfit: 'reject' } };
}

/**
 * The Slurm state of a job that ran (a `JobPhase`), from its record on the one engine through the preset (which
 * records `killed` for both a walltime kill and a caller's): `Completed` when it finished, `Cancelled` when the
 * preset killed it (`JobRecord.cancelled`: a preemption with `PreemptMode=CANCEL`), else `TimedOut`.
 */
export function presetEndPhase(r: JobRecord): JobPhase.Completed | JobPhase.TimedOut | JobPhase.Cancelled {
  if (r.state === 'finished') return JobPhase.Completed;
  return r.cancelled === true ? JobPhase.Cancelled : JobPhase.TimedOut;
}
