/**
 * The fairness preset of the one engine (seed 001; DESIGN §15): `ClusterSimulator` with the capacity of
 * CPU and memory vectors per host (`capacity: 'vectors'`), fixed durations (the engine's delay path),
 * the multi-resource scheduling passes (`MultiResourcePasses`: per-user queues, the `UserLedger`, DRF,
 * Tetris(f), first-fit, best-fit) and, when asked, the interval monitor (`monitor.ts`) as a listener.
 *
 * **Hosts** (§4.2.1, the `Compute` module with fixed allocations): groups of identical hosts (Figure
 * 4.10: `count`, `cpus`, `memory`, `name_prefix`), a platform built by `platformFromHostGroups` (whole
 * cores per host; memory in the hosts' units, read as MB). **Tasks** (§4.3.1, §4.5.1 "все задачи
 * потребляют все выделенные ресурсы на протяжении всего времени выполнения"): `{submit, cpu, memory,
 * duration, user}`, each a job of one task holding `cpu` cores (`cpusPerTask`, possibly fractional)
 * and `memory` of one host for `duration` once started.
 *
 * **Streaming** (§4.5.1, §5.1): the tasks are an iterator in submission order, converted to jobs one at
 * a time; the engine holds one look-ahead job and pulls the next only when its clock reaches the current
 * one's submission time ("инкрементальное чтение задач из трейса происходит согласно внутреннему времени
 * симуляции"). Memory is the waiting and running tasks, never the trace. A task that arrives earlier
 * than its predecessor is an input error (sort the trace first: `clustergym convert --sort`, the
 * thesis's "сортировка большого CSV файла во внешней памяти"). Time is the trace's own (no rebasing).
 *
 * **Events** (the engine's instant clock): at each time `t`, the tasks ending at `t` give back their
 * resources (in start order), the tasks submitted at `t` join the queues, then the policy places tasks
 * until it answers null; a run is a pure function of the trace, the hosts and the policy (§5.3). A task
 * that fits no host even when empty is rejected at arrival (counted in `rejected`): it could only block
 * a FIFO policy forever.
 */
import { InputError } from '../core/errors.js';
import { ClusterSimulator, type SimulationListener } from '../execution/simulator.js';
import { Platform } from '../platform/platform.js';
import { type HostGroup, platformFromHostGroups } from '../platform/views.js';
import { type FairScheduler, MultiResourcePasses, type TaskStats } from '../scheduling/multiResource.js';
import { type Job, PrototypeJob, sharedJobFields } from '../workload/job.js';
import type { Monitor } from './monitor.js';

/** A task as trace readers produce it (the user by name). */
export interface TraceTask {
  submit: number;
  cpu: number;
  memory: number;
  duration: number;
  user: string;
}

/**
 * The job of one task: `id` its number in the trace, `subtime` its submission, `runtime` (= `reqTime`)
 * its duration, `cpusPerTask` its cores, `mem` its memory, its user; the fields every task shares (one
 * seq task of delay work on one host, no communication) live on the prototype, so a job is six fields
 * (a trace of hundreds of millions of tasks allocates a small object per task, not a full `Job`
 * literal). A `PrototypeJob`: spreading it (`{...job}`) would drop the shared fields (the engine copies one with `withSubtime`).
 */
class TaskJob extends PrototypeJob implements Job {
  declare readonly ntasks: number;
  constructor(
    /** The trace's task number (its `id` as a string, made when asked: most tasks are never named). */
    readonly index: number,
    readonly subtime: number,
    readonly runtime: number,
    override readonly mem: number,
    readonly cpusPerTask: number,
    readonly user: string,
  ) {
    super();
  }
  /** The trace's task number, as the job's id. */
  get id(): string {
    return String(this.index);
  }
  /** The trace's task number. */
  get source(): string {
    return String(this.index);
  }
  /** Its duration (the user's estimate is exact). */
  get reqTime(): number {
    return this.runtime;
  }
}
sharedJobFields(TaskJob.prototype, { ntasks: 1, type: 'seq', nodes: 1 });

/**
 * The jobs of a task trace, in its order: task `i` is job `"i"` (a `TaskJob`: one task, delay work of
 * `duration`, `cpusPerTask` its cores, `mem` its memory, its user). Refuses, with the task's number, a
 * trace that is not sorted by submission time and a task with `cpu <= 0`, `memory < 0`, `duration < 0`
 * or a submission time that is not finite. An iterator of its own rather than a generator: it hands
 * out one result object (the engine reads each job as it pulls it), which saves a generator frame and
 * an allocation per task on traces of hundreds of millions of tasks.
 */
export function taskJobs(tasks: Iterable<TraceTask>): IterableIterator<Job> {
  return new TaskJobs(tasks[Symbol.iterator]());
}

class TaskJobs implements IterableIterator<Job> {
  private last = Number.NEGATIVE_INFINITY;
  private i = 0;
  private readonly result: { done: false; value: Job } = { done: false, value: undefined as unknown as Job };

  constructor(private readonly source: Iterator<TraceTask>) {}

  [Symbol.iterator](): IterableIterator<Job> {
    return this;
  }

  next(): IteratorResult<Job> {
    const r = this.source.next();
    if (r.done) return { done: true, value: undefined };
    const t = r.value;
    if (!(t.submit >= this.last))
      throw new InputError(
        `the trace is not sorted by submission time: task ${this.i} is submitted at ${t.submit}, after a task submitted at ${this.last}; sort it first (clustergym convert --sort)`,
      );
    if (!(t.cpu > 0 && t.memory >= 0 && t.duration >= 0 && Number.isFinite(t.submit)))
      throw new InputError(
        `task submitted at ${t.submit}: expected cpu > 0, memory >= 0, duration >= 0, found cpu ${t.cpu}, memory ${t.memory}, duration ${t.duration}`,
      );
    this.last = t.submit;
    this.result.value = new TaskJob(this.i++, t.submit, t.duration, t.memory, t.cpu, t.user);
    return this.result;
  }
}

/** Options of the preset. */
export interface FairPresetOptions {
  /** Users' quotas by name (default 1). */
  weights?: Readonly<Record<string, number>> | undefined;
  /** Users known before the trace names them, in this order (their indices come first). */
  users?: readonly string[] | undefined;
  /** The interval monitor, attached as a listener. */
  monitor?: Monitor | null | undefined;
  /** Listeners of the engine (after the passes' and the monitor's). */
  listeners?: readonly SimulationListener[] | undefined;
}

/**
 * The engine of the preset on `hosts` (host groups, or the platform `platformFromHostGroups` compiled
 * from them: an env compiles it once for all its episodes) and `tasks`, with its passes (`policy` null:
 * an agent decides).
 * `passes.sim` is the engine: `runFairPreset` runs it to the end; an agent steps it with `advanceUntil`.
 */
export function fairPreset(
  hosts: readonly HostGroup[] | Platform,
  tasks: Iterable<TraceTask>,
  policy: FairScheduler | null,
  options: FairPresetOptions = {},
): MultiResourcePasses {
  const platform = hosts instanceof Platform ? hosts : platformFromHostGroups(hosts);
  const sim = new ClusterSimulator(platform, taskJobs(tasks), {
    capacity: 'vectors',
    unfit: 'reject',
    timeOrigin: 0,
    workloadName: 'tasks',
  });
  const passes = new MultiResourcePasses(sim, policy, options.weights);
  for (const u of options.users ?? []) passes.users.id(u);
  options.monitor?.attach(passes);
  for (const l of options.listeners ?? []) sim.addListener(l);
  return passes;
}

/** Runs the preset to the end (its policy deciding) and closes the monitor's last interval; the run's totals. */
export function runFairPreset(passes: MultiResourcePasses, monitor: Monitor | null = null): TaskStats {
  if (passes.policy === null) throw new Error('runFairPreset needs a policy');
  passes.sim.runUntil(Number.POSITIVE_INFINITY);
  monitor?.finish(passes.sim.now);
  return passes.stats;
}
