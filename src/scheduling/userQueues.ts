/**
 * The waiting tasks of the multi-resource scheduling passes (`multiResource.ts`, seed 001): one FIFO per
 * user (DRF and Tetris look at each user's next task, §5.2) and one FIFO over all users in submission
 * order (the greedy packers). A task sits in both; starting a task marks it (`host` set) and the other
 * queue drops it lazily when it reaches the head, so every operation is O(1) amortised and no queue is
 * ever walked. The users with waiting tasks are kept in a dense list with positions (O(1) add and
 * remove).
 */
import { type Job, taskCpus } from '../workload/job.js';

/** What the queues read of a task: its user, and its host (>= 0 once it started). */
export interface QueuedTask {
  readonly user: number;
  readonly host: number;
}

/**
 * A waiting task of the passes: a job of one task on the vector capacity, and what the queues keep of
 * it (its sizes are the job's). The passes let go of it when it starts: a running task is its job.
 */
export class FairTask {
  /** Host it runs on, -1 while waiting (its start time is its running job's). */
  host = -1;
  constructor(
    /** Dense id in submission order (0, 1, ...). */
    readonly id: number,
    /** User index (`UserLedger`). */
    readonly user: number,
    /** The engine's job. */
    readonly job: Job,
    /** Its position in the engine's waiting queue (a hint for `startJob`, refreshed after the queue compacts). */
    public pos: number,
  ) {}
  /** Submission time (s). */
  get submit(): number {
    return this.job.subtime;
  }
  /** Cores held while running (> 0). */
  get cpu(): number {
    return taskCpus(this.job);
  }
  /** Memory held while running (>= 0, the hosts' units). */
  get memory(): number {
    return this.job.mem;
  }
  /** Run time once started (s, >= 0). */
  get duration(): number {
    return this.job.runtime;
  }
}

/** A FIFO of tasks on a growable array with a moving head (compacted when half is dead). */
export class TaskFifo<T extends QueuedTask = FairTask> {
  private items: T[] = [];
  private head = 0;
  /** Started tasks still in the array (behind a waiting head: `noteStarted` counts them). */
  private dead = 0;

  /**
   * A task of this queue started. Started tasks behind a waiting head are dropped in one pass once
   * they are more than half of the queue (amortised O(1)): a task that waits for long (a starving
   * user's, the oldest under DRF) would otherwise keep every task started after it.
   */
  noteStarted(): void {
    this.dead++;
    const len = this.items.length - this.head;
    if (this.dead > 1024 && this.dead * 2 > len) {
      this.items = this.items.slice(this.head).filter((t) => t.host < 0);
      this.head = 0;
      this.dead = 0;
    }
  }

  /** Entries in the array, started ones included (for tests of the compaction). */
  get stored(): number {
    return this.items.length - this.head;
  }

  /** Live length including started tasks not yet dropped (lazy queues call `skipStarted` first). */
  get length(): number {
    return this.items.length - this.head;
  }

  push(t: T): void {
    this.items.push(t);
  }

  /** The first task, or undefined. */
  peek(): T | undefined {
    return this.items[this.head];
  }

  /** Removes the first task. */
  shift(): void {
    if (this.items[this.head] !== undefined && this.items[this.head]!.host >= 0 && this.dead > 0) this.dead--;
    this.items[this.head] = undefined as unknown as T;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  /** Drops started tasks at the head; returns the first waiting task. */
  firstWaiting(): T | undefined {
    let t = this.items[this.head];
    while (t !== undefined && t.host >= 0) {
      this.shift();
      t = this.items[this.head];
    }
    return t;
  }

  /** The waiting tasks in order (for tests and observations; O(length)). */
  *waiting(): Generator<T> {
    for (let i = this.head; i < this.items.length; i++) {
      const t = this.items[i]!;
      if (t.host < 0) yield t;
    }
  }
}

/** The waiting tasks, by user and in submission order. */
export class WaitingTasks<T extends QueuedTask = FairTask> {
  /** Number of waiting tasks. */
  size = 0;
  /** Per-user FIFOs (only waiting tasks: tasks start from the head of their user's queue or by `take`). */
  private readonly perUser: TaskFifo<T>[] = [];
  private readonly waitingOfUser: number[] = [];
  private readonly all = new TaskFifo<T>();
  /** Users with at least one waiting task, in the order they became active. */
  private readonly active: number[] = [];
  private readonly activePos: number[] = [];

  /** Adds a task that arrived. */
  add(t: T): void {
    while (this.perUser.length <= t.user) {
      this.perUser.push(new TaskFifo<T>());
      this.waitingOfUser.push(0);
      this.activePos.push(-1);
    }
    this.perUser[t.user]!.push(t);
    this.all.push(t);
    this.size++;
    if (this.waitingOfUser[t.user]!++ === 0) {
      this.activePos[t.user] = this.active.length;
      this.active.push(t.user);
    }
  }

  /** Marks a waiting task started (the caller sets `t.host` first) and updates the counts. */
  remove(t: T): void {
    this.size--;
    const u = t.user;
    // drop started tasks at the heads now, so that a queue nobody reads (the per-user queues under
    // first fit, the global one under DRF) does not keep every task ever started
    this.perUser[u]!.noteStarted();
    this.all.noteStarted();
    this.perUser[u]!.firstWaiting();
    this.all.firstWaiting();
    if (--this.waitingOfUser[u]! === 0) {
      const p = this.activePos[u]!;
      const last = this.active.pop()!;
      if (last !== u) {
        this.active[p] = last;
        this.activePos[last] = p;
      }
      this.activePos[u] = -1;
    }
  }

  /** User `u`'s next waiting task (FIFO within the user). */
  headOf(u: number): T | undefined {
    return this.perUser[u]?.firstWaiting();
  }

  /** The oldest waiting task over all users. */
  oldest(): T | undefined {
    return this.all.firstWaiting();
  }

  /** Users with waiting tasks (a live view: do not modify). */
  activeUsers(): readonly number[] {
    return this.active;
  }

  /** Waiting tasks of user `u`. */
  waitingOf(u: number): number {
    return this.waitingOfUser[u] ?? 0;
  }

  /** Entries held by the submission-order queue, started ones not yet dropped included (tests). */
  get storedInOrder(): number {
    return this.all.stored;
  }

  /** All waiting tasks in submission order (O(queue)). */
  *tasks(): Generator<T> {
    yield* this.all.waiting();
  }
}
