/**
 * The fairness engine (seed 001): a discrete-event simulation of multi-resource hosts shared by
 * users, on the event queue and the task stream alone (no per-core state: a host is two numbers,
 * see `model.ts`).
 *
 * **Streaming** (§4.5.1, §5.1): the workload is an iterator of tasks in submission order; the
 * engine holds one look-ahead task and pulls the next only when the simulated clock reaches the
 * current one's submission time ("инкрементальное чтение задач из трейса происходит согласно
 * внутреннему времени симуляции"). Memory is the waiting and running tasks, never the trace. A
 * task that arrives earlier than its predecessor is an input error (sort the trace first:
 * `clustergym convert --sort`, the thesis's "сортировка большого CSV файла во внешней памяти").
 *
 * **Events**: at each time `t`, in this order: the tasks ending at `t` give back their resources,
 * the tasks submitted at `t` join the queue, then the scheduler is asked for placements until it
 * answers null. Task ends at equal times come out in start order (`EventQueue`'s sequence numbers),
 * so a run is a pure function of the trace, the hosts and the scheduler (§5.3).
 *
 * A task that fits no host even when empty is rejected at arrival (counted in `rejected`): it
 * could only block a FIFO scheduler forever.
 */
import type { DiscreteEventEngine, EngineListener } from '../core/engine.js';
import { EventLoop } from '../core/eventLoop.js';
import { InputError } from '../core/errors.js';
import type { FairTask, HostTable, UserTable } from './model.js';
import type { Monitor } from './monitor.js';
import type { FairScheduler, Placement, SchedulerView } from './schedulers.js';
import { WaitingTasks } from './waiting.js';

/** A task as readers produce it (the user by name). */
export interface TraceTask {
  submit: number;
  cpu: number;
  memory: number;
  duration: number;
  user: string;
}

/** Observers of task arrivals, starts, ends and refusals: the engine listener of `core/engine.ts` with tasks as handles (the engine's `now` is the time). */
export type FairListener = EngineListener<FairEngine, FairTask>;

/** Totals of a run. */
export interface EngineStats {
  submitted: number;
  started: number;
  finished: number;
  rejected: number;
  /** Sum of waiting times of started tasks. */
  totalWait: number;
  /** Time of the last event. */
  end: number;
}

/** The fairness engine. */
export class FairEngine implements SchedulerView, DiscreteEventEngine {
  /** Current simulated time. */
  now = 0;
  readonly waiting = new WaitingTasks();
  readonly stats: EngineStats = { submitted: 0, started: 0, finished: 0, rejected: 0, totalWait: 0, end: 0 };
  /** Task ends (one kind of event; equal times in start order). */
  private readonly ends = new EventLoop<FairTask>();
  private readonly source: Iterator<TraceTask>;
  private pending: TraceTask | undefined;
  private lastSubmit = -Infinity;
  private readonly listeners: FairListener[] = [];
  private fitAny: ((cpu: number, memory: number) => boolean) | null = null;
  /** The first scheduling pass (before any event) was made. */
  private started = false;

  /**
   * @param scheduler asked for placements at each decision point; null for an external decision
   *   maker (the env), which calls `start` itself between `step`s.
   */
  constructor(
    readonly hosts: HostTable,
    readonly users: UserTable,
    readonly scheduler: FairScheduler | null,
    source: Iterable<TraceTask>,
    readonly monitor: Monitor | null = null,
  ) {
    this.source = source[Symbol.iterator]();
    if (monitor !== null) {
      // every host and every user known so far has a signal (0) from the start: rows have a column for each
      for (let u = 0; u < users.count; u++) monitor.share(u, 0, 0);
      for (let h = 0; h < hosts.count; h++) monitor.host(h, 0, 0, 0);
    }
    this.pending = this.pull();
    const sameShape = new Set<string>();
    for (let h = 0; h < hosts.count; h++) sameShape.add(`${hosts.cpuCap[h]}/${hosts.memCap[h]}`);
    // a task fits an empty host iff one of the host shapes holds it
    const shapes = [...sameShape].map((s) => s.split('/').map(Number) as [number, number]);
    this.fitAny = (cpu, memory) => shapes.some(([c, m]) => cpu <= c + 1e-9 && memory <= m + 1e-9);
  }

  /** Adds a listener. */
  addListener(l: FairListener): void {
    this.listeners.push(l);
  }

  /** Running tasks (ends not yet processed). */
  get running(): number {
    return this.ends.size;
  }

  /** Whether nothing is left: no task to come, waiting or running. */
  get done(): boolean {
    return this.pending === undefined && this.ends.size === 0 && this.waiting.size === 0;
  }

  /** Time of the next event (an end or an arrival), Infinity when none. */
  nextEventTime(): number {
    return Math.min(this.ends.peekTime(), this.pending?.submit ?? Infinity);
  }

  /** Runs to the end with the scheduler. */
  run(): EngineStats {
    if (this.scheduler === null) throw new Error('FairEngine.run needs a scheduler');
    this.runUntil(Number.POSITIVE_INFINITY);
    this.monitor?.finish(this.now);
    return this.stats;
  }

  /**
   * The engine contract's `runUntil` (`core/engine.ts`): processes every event time up to and including
   * `t` (ends, then arrivals), the scheduler placing tasks after each (and once before the first); the
   * clock then moves to `t` when finite. Without a scheduler (an agent decides), it stops after the first
   * event time that leaves tasks waiting. Returns `now`.
   */
  runUntil(t: number): number {
    if (this.scheduler !== null && !this.started) this.schedule();
    this.started = true;
    for (;;) {
      const next = this.nextEventTime();
      if (next === Number.POSITIVE_INFINITY || next > t) break;
      this.step();
      if (this.scheduler !== null) this.schedule();
      else if (this.waiting.size > 0) return this.now;
    }
    if (t < Number.POSITIVE_INFINITY && t > this.now && !this.done) {
      this.monitor?.advance(t);
      this.now = t;
    }
    return this.now;
  }

  /**
   * Processes the next event time (ends, then arrivals) without scheduling; false when there is no
   * next event. Callers schedule (or let an agent act) after it.
   */
  step(): boolean {
    const t = this.nextEventTime();
    if (t === Infinity) return false;
    this.monitor?.advance(t);
    this.now = t;
    this.stats.end = t;
    const ends = this.ends;
    while (ends.peekTime() === t && ends.next()) this.finishTask(ends.payload!);
    while (this.pending !== undefined && this.pending.submit <= t) {
      this.arrive(this.pending);
      this.pending = this.pull();
    }
    this.observeCluster();
    return true;
  }

  /** Starts placements from the scheduler until it answers null. */
  schedule(): void {
    const s = this.scheduler!;
    for (let p = s.next(this); p !== null; p = s.next(this)) this.start(p);
  }

  /** Starts `task` on `host` now (throws when it does not fit or is not waiting). */
  start({ task, host }: Placement): void {
    if (task.host >= 0) throw new Error(`task ${task.id} is already running`);
    this.hosts.allocate(host, task.cpu, task.memory);
    task.host = host;
    task.start = this.now;
    this.waiting.remove(task);
    this.users.take(task.user, task.cpu, task.memory);
    this.ends.schedule(this.now + task.duration, 0, task);
    this.stats.started++;
    this.stats.totalWait += this.now - task.submit;
    this.observe(task);
    for (const l of this.listeners) l.onStart?.(this, task);
  }

  /** Closes the monitor's last interval at `now` (for callers that drive `step` themselves). */
  finishMonitor(): void {
    this.monitor?.finish(this.now);
  }

  private finishTask(task: FairTask): void {
    this.hosts.release(task.host, task.cpu, task.memory);
    this.users.give(task.user, task.cpu, task.memory);
    this.stats.finished++;
    this.observe(task);
    for (const l of this.listeners) l.onEnd?.(this, task, task);
  }

  private arrive(tt: TraceTask): void {
    const known = this.users.count;
    const user = this.users.id(tt.user);
    // a user first named here gets its share signal (0) in the monitor's rows from now on
    if (this.monitor !== null) for (let u = known; u < this.users.count; u++) this.monitor.share(u, this.now, 0);
    const task: FairTask = {
      id: this.stats.submitted++,
      submit: tt.submit,
      cpu: tt.cpu,
      memory: tt.memory,
      duration: tt.duration,
      user,
      start: Number.NaN,
      host: -1,
    };
    if (!this.fitAny!(task.cpu, task.memory)) {
      this.stats.rejected++;
      for (const l of this.listeners) l.onReject?.(this, task);
      return;
    }
    this.waiting.add(task);
    for (const l of this.listeners) l.onSubmit?.(this, task);
  }

  private pull(): TraceTask | undefined {
    const r = this.source.next();
    if (r.done) return undefined;
    const t = r.value;
    if (!(t.submit >= this.lastSubmit)) {
      throw new InputError(
        `the trace is not sorted by submission time: task ${this.stats.submitted + (this.pending ? 1 : 0)} is submitted at ${t.submit}, after a task submitted at ${this.lastSubmit}; sort it first (clustergym convert --sort)`,
      );
    }
    if (!(t.cpu > 0 && t.memory >= 0 && t.duration >= 0 && Number.isFinite(t.submit))) {
      throw new InputError(
        `task submitted at ${t.submit}: expected cpu > 0, memory >= 0, duration >= 0, found cpu ${t.cpu}, memory ${t.memory}, duration ${t.duration}`,
      );
    }
    this.lastSubmit = t.submit;
    return t;
  }

  private observe(task: FairTask): void {
    const m = this.monitor;
    if (m === null) return;
    const h = task.host;
    m.host(h, this.now, 1 - this.hosts.freeCpu[h]! / this.hosts.cpuCap[h]!, 1 - this.hosts.freeMem[h]! / this.hosts.memCap[h]!);
    m.share(task.user, this.now, this.users.dominantShare(task.user));
    this.observeCluster();
  }

  private observeCluster(): void {
    this.monitor?.cluster3(this.now, this.hosts.usedCpu / this.hosts.totalCpu, this.hosts.usedMem / this.hosts.totalMem, this.waiting.size);
  }
}
