/**
 * Multi-resource, multi-user scheduling passes (seed 001, §5.2 "Справедливость") on the one engine with
 * the vector capacity (`capacity: 'vectors'`, src/execution/hostVectors.ts): tasks (jobs of one task)
 * hold CPU and memory of one host; users have quotas. `MultiResourcePasses` follows the engine's
 * arrivals and ends into per-user queues (`userQueues.ts`), the `UserLedger` (holdings, dominant shares)
 * and the run's totals, and, as the engine's `DecisionMaker`, asks its policy for (task, host) pairs at
 * each decision point until it answers `null`; each pair starts at once, so the next answer sees the new
 * free resources and shares. Without a policy an agent decides (`start` between the engine's steps).
 *
 * **Dominant share** (DRF, Ghodsi et al. [13]): `ds_u = max(cpu_u / C, mem_u / M)` over what user `u`'s
 * running tasks hold and the cluster's totals; DRF orders users by `ds_u / w_u` (`UserLedger`).
 *
 * **Packing score** (Tetris [14]): the cosine of the angle between the task's demand vector and the
 * host's free-resource vector, each resource first expressed as a fraction of that host's capacity (the
 * Tetris paper normalises by machine capacity; without it the score would depend on the unit of memory):
 *
 *     score(t, h) = (d · r) / (|d| |r|),  d = (cpu_t / cpuCap_h, mem_t / memCap_h),
 *                                         r = (freeCpu_h / cpuCap_h, freeMem_h / memCap_h)
 *
 * Policies:
 * - **`drf`**: "из всех задач, которые готовы к исполнению планировщик в каждый момент времени выбирает
 *   самого обделенного пользователя и запускает его задачу": the user with the smallest `ds_u / w_u`
 *   (ties to the lower user index) starts its next task (FIFO within the user) on the host with the best
 *   packing score among those where it fits (the same host rule as Tetris, so that `tetris(1)` is
 *   exactly `drf`). When that task fits no host, nothing starts until the next event: f = 1 "может взять
 *   только первую задачу из очереди".
 * - **`tetris(f)`**: the queue is the users with waiting tasks, one entry each (its next task), sorted by
 *   DRF; "выбирает наилучшую задачу с точки зрения упаковки среди (1-f) доли очереди": the best packing
 *   score over (candidate, host) pairs among the first `k = max(1, floor((1 - f) U + 1e-9))` candidates
 *   of the U users in the queue. The thesis explains the jump at f = 0.8 by "ровно при этом значении
 *   параметра алгоритм Tetris получает возможность выбирать из двух задач (т.к. всего пользователей
 *   10)": exactly at 0.8, not before, which is the floor (ceil would give two candidates from f < 0.9
 *   on, DESIGN §10.3's round from f <= 0.85). The 1e-9 absorbs the binary error of
 *   `(1 - 0.8) * 10 = 1.9999999999999996`. `f = 1` is DRF, `f = 0` pure packing over every user's next
 *   task. Ties: the earlier candidate in DRF order, then the lower host.
 * - **`first-fit`** and **`best-fit`**: greedy packers in submission order over all users: the oldest
 *   waiting task on the first host where it fits (first-fit), or on the host where it leaves the least
 *   free capacity, `Σ_r free_r/cap_r` after placement (best-fit). Both wait when the oldest task fits
 *   nowhere (no backfilling). First-fit is the "простейший алгоритм планирования, время работы которого
 *   не зависит от количества задач в очереди" of §5.1.
 */
import { InputError } from '../core/errors.js';
import type { HostVectors } from '../execution/hostVectors.js';
import type { ClusterSimulator, DecisionMaker, RunningJob } from '../execution/simulator.js';
import { taskCpus } from '../workload/job.js';
import { UserLedger } from './userLedger.js';
import { FairTask, WaitingTasks } from './userQueues.js';

export { FairTask, TaskFifo, WaitingTasks } from './userQueues.js';

/** What a policy sees. */
export interface SchedulerView {
  readonly hosts: HostVectors;
  readonly users: UserLedger;
  readonly waiting: WaitingTasks;
  readonly now: number;
}

/** A decision: start `task` on `host`. */
export interface Placement {
  task: FairTask;
  host: number;
}

/** A policy of the passes. */
export interface FairScheduler {
  /** Display name (`drf`, `tetris(0.8)`, `first-fit`, `best-fit`). */
  readonly name: string;
  /** The next task to start and where, or null to wait for the next event. */
  next(view: SchedulerView): Placement | null;
}

/** Tetris's packing score of a task of (`cpu`, `memory`) on host `h` (see the module comment); 0 for a zero vector. */
export function alignmentScore(hosts: HostVectors, h: number, cpu: number, memory: number): number {
  const cc = hosts.cpuCap[h]!;
  const mc = hosts.memCap[h]!;
  const d0 = cpu / cc;
  const d1 = memory / mc;
  const r0 = hosts.freeCpu[h]! / cc;
  const r1 = hosts.freeMem[h]! / mc;
  const nd = Math.hypot(d0, d1);
  const nr = Math.hypot(r0, r1);
  if (nd === 0 || nr === 0) return 0;
  return (d0 * r0 + d1 * r1) / (nd * nr);
}

/** The host with the best packing score where (cpu, memory) fits, and the score; host -1 if none. */
export function bestAlignedHost(hosts: HostVectors, cpu: number, memory: number): { host: number; score: number } {
  let best = -1;
  let bestScore = -1;
  for (let h = 0; h < hosts.count; h++) {
    if (!hosts.fits(h, cpu, memory)) continue;
    const s = alignmentScore(hosts, h, cpu, memory);
    if (s > bestScore) {
      bestScore = s;
      best = h;
    }
  }
  return { host: best, score: bestScore };
}

/** The number of Tetris candidates for fairness knob `f` and `users` users in the queue. */
export function tetrisCandidates(f: number, users: number): number {
  if (users <= 0) return 0;
  return Math.min(users, Math.max(1, Math.floor((1 - f) * users + 1e-9)));
}

/** The users with waiting tasks in DRF order (`ds_u / w_u` ascending, then index); the first `k` only. */
export function drfOrder(users: UserLedger, active: readonly number[], k = active.length): number[] {
  const n = active.length;
  const m = Math.min(k, n);
  if (m > 32) {
    // many kept: a sort of the users by their shares
    const share = new Map<number, number>();
    for (const u of active) share.set(u, users.weightedShare(u));
    return [...active].sort((a, b) => share.get(a)! - share.get(b)! || a - b).slice(0, m);
  }
  // the first m of (share, index) ascending, by insertion into a sorted prefix: one share per user and
  // no object per user (this runs at every decision of Fair-v0 and of the DRF passes)
  const out: number[] = new Array(m);
  if (drfScratch.length < m) drfScratch = new Float64Array(2 * m);
  const keys = drfScratch;
  let len = 0;
  for (let i = 0; i < n; i++) {
    const u = active[i]!;
    const s = users.weightedShare(u);
    if (len === m && !(s < keys[m - 1]! || (s === keys[m - 1]! && u < out[m - 1]!))) continue;
    let j = len < m ? len++ : m - 1;
    while (j > 0 && (s < keys[j - 1]! || (s === keys[j - 1]! && u < out[j - 1]!))) {
      keys[j] = keys[j - 1]!;
      out[j] = out[j - 1]!;
      j--;
    }
    keys[j] = s;
    out[j] = u;
  }
  return out;
}

/** `drfOrder`'s shares of the users it has kept (grown as needed). */
let drfScratch = new Float64Array(64);

/** Tetris with fairness knob `f` in [0, 1] (DRF as the fairness order). */
export function tetris(f: number): FairScheduler {
  if (!(f >= 0 && f <= 1)) throw new InputError(`tetris: f must be in [0, 1], found ${f}`);
  return {
    name: `tetris(${f})`,
    next(view) {
      const active = view.waiting.activeUsers();
      const k = tetrisCandidates(f, active.length);
      if (k === 0) return null;
      const order = drfOrder(view.users, active, k);
      let best: Placement | null = null;
      let bestScore = -1;
      for (const u of order) {
        const task = view.waiting.headOf(u)!;
        const { host, score } = bestAlignedHost(view.hosts, task.cpu, task.memory);
        if (host >= 0 && score > bestScore) {
          bestScore = score;
          best = { task, host };
        }
      }
      return best;
    },
  };
}

/** DRF: the most deprived user's next task (see the module comment). Same decisions as `tetris(1)`. */
export function drf(): FairScheduler {
  const t = tetris(1);
  return { name: 'drf', next: t.next };
}

/** First fit over all waiting tasks in submission order (waits when the oldest fits nowhere). */
export function firstFit(): FairScheduler {
  return {
    name: 'first-fit',
    next({ hosts, waiting }) {
      const task = waiting.oldest();
      if (task === undefined) return null;
      const h = hosts.firstFit(task.cpu, task.memory);
      return h < 0 ? null : { task, host: h };
    },
  };
}

/** Best fit over all waiting tasks in submission order: the host left with the least normalised free capacity. */
export function bestFit(): FairScheduler {
  return {
    name: 'best-fit',
    next({ hosts, waiting }) {
      const task = waiting.oldest();
      if (task === undefined) return null;
      const cpu = task.cpu;
      const memory = task.memory;
      let best = -1;
      let bestLeft = Infinity;
      for (let h = 0; h < hosts.count; h++) {
        if (!hosts.fits(h, cpu, memory)) continue;
        const left = (hosts.freeCpu[h]! - cpu) / hosts.cpuCap[h]! + (hosts.freeMem[h]! - memory) / hosts.memCap[h]!;
        if (left < bestLeft) {
          bestLeft = left;
          best = h;
        }
      }
      return best < 0 ? null : { task, host: best };
    },
  };
}

/** Policy names accepted by `schedulerByName`. */
export const SCHEDULER_NAMES = ['drf', 'tetris', 'first-fit', 'best-fit'] as const;

/** A policy from its name (`tetris` takes `f`). */
export function schedulerByName(name: string, f = 0.5): FairScheduler {
  switch (name) {
    case 'drf':
      return drf();
    case 'tetris':
      return tetris(f);
    case 'first-fit':
      return firstFit();
    case 'best-fit':
      return bestFit();
    default:
      throw new InputError(`unknown fairness scheduler ${JSON.stringify(name)}; expected one of ${SCHEDULER_NAMES.join(', ')}`);
  }
}

/** Totals of a run of tasks. */
export interface TaskStats {
  /** Tasks that arrived (rejected ones included): the next task's id. */
  submitted: number;
  started: number;
  finished: number;
  /** Tasks no host could ever hold (refused at arrival). */
  rejected: number;
  /** Sum of waiting times of started tasks. */
  totalWait: number;
  /** Time of the last arrival or end. */
  end: number;
}

/**
 * The passes on one engine (see the module comment). Build it right after the engine, before any other
 * listener: its listener keeps the queues, the ledger and the totals, which the listeners after it read.
 */
export class MultiResourcePasses implements DecisionMaker, SchedulerView {
  readonly hosts: HostVectors;
  readonly users: UserLedger;
  readonly waiting = new WaitingTasks();
  readonly stats: TaskStats = { submitted: 0, started: 0, finished: 0, rejected: 0, totalWait: 0, end: 0 };
  /** The user of each running job's slot (kept after its end until the slot is reused). */
  private readonly userBySlot: number[] = [];
  /** The task `start` is starting (its job's `onStart` takes its user). */
  private starting: FairTask | null = null;
  /** The queue's generation the tasks' positions were taken in. */
  private generation: number;
  /** The options of `startJob` (one object, its position set per start). */
  private readonly startOptions = { transfer: true, queuePosition: -1 };

  /**
   * @param policy asked at each decision point; null for an external decision maker (an agent), which
   *   calls `start` itself between the engine's steps.
   * @param weights the users' quotas by name (default 1)
   */
  constructor(
    readonly sim: ClusterSimulator,
    readonly policy: FairScheduler | null,
    weights: Readonly<Record<string, number>> = {},
  ) {
    const hosts = sim.hostVectors;
    if (hosts === null) throw new Error('the multi-resource passes run on the vector capacity (`capacity: "vectors"`)');
    this.hosts = hosts;
    this.users = new UserLedger(hosts.totalCpu, hosts.totalMem, weights);
    this.generation = sim.queue.generation;
    sim.addListener({
      onSubmit: (s, job) => {
        this.stats.end = s.now;
        this.waiting.add(new FairTask(this.stats.submitted++, this.users.id(job.user ?? ''), job, s.queue.end - 1));
      },
      onReject: (s, rec) => {
        this.users.id(rec.job.user ?? '');
        this.stats.submitted++;
        this.stats.rejected++;
        this.stats.end = s.now;
      },
      onStart: (_s, rj) => {
        const task = this.starting;
        if (task === null || task.job !== rj.job)
          throw new Error(`job ${rj.job.id} was started outside the multi-resource passes (start tasks with their \`start\`)`);
        this.starting = null;
        this.userBySlot[rj.slot] = task.user;
      },
      onEnd: (s, _rec, rj) => {
        const job = rj!.job;
        this.users.give(this.userBySlot[rj!.slot]!, taskCpus(job), job.mem);
        this.stats.finished++;
        this.stats.end = s.now;
      },
    });
    if (policy !== null) sim.setScheduler(this);
  }

  /** The engine's clock. */
  get now(): number {
    return this.sim.now;
  }

  /** Running tasks. */
  get running(): number {
    return this.sim.runningCount;
  }

  /** Whether nothing is left: no task to come, waiting or running. */
  get done(): boolean {
    const s = this.sim;
    return s.nextSubmitTime === Number.POSITIVE_INFINITY && s.runningCount === 0 && s.queue.length === 0;
  }

  /** The user index of a running job (valid from its start through its end's listeners). */
  userOf(rj: RunningJob): number {
    return this.userBySlot[rj.slot]!;
  }

  /** The decision point: starts the policy's placements until it answers null. */
  schedule(): void {
    const p = this.policy!;
    for (let d = p.next(this); d !== null; d = p.next(this)) this.start(d);
  }

  /** Starts `task` on `host` now (throws, changing nothing, when it is not waiting or does not fit). */
  start({ task, host }: Placement): void {
    if (task.host >= 0) throw new Error(`task ${task.id} is already running`);
    const hosts = this.hosts;
    if (!(host >= 0 && host < hosts.count)) throw new RangeError(`no host ${host} (the cluster has ${hosts.count})`);
    if (!hosts.fits(host, task.cpu, task.memory))
      throw new RangeError(
        `host ${hosts.names[host]} has ${hosts.freeCpu[host]} cores and ${hosts.freeMem[host]} memory free; a task of ${task.cpu} cores and ${task.memory} memory does not fit`,
      );
    const sim = this.sim;
    if (sim.queue.generation !== this.generation) this.refreshPositions();
    task.host = host;
    this.waiting.remove(task);
    this.users.take(task.user, task.cpu, task.memory);
    this.stats.started++;
    this.stats.totalWait += sim.now - task.submit;
    this.starting = task;
    const o = this.startOptions;
    o.queuePosition = task.pos;
    sim.startJob(task.job, hosts.unit(host), o);
  }

  /** The engine's queue compacted: the waiting tasks' positions, in the same order as its jobs. */
  private refreshPositions(): void {
    const q = this.sim.queue;
    let i = q.start;
    for (const t of this.waiting.tasks()) {
      t.pos = q.at(i) === t.job ? i : -1;
      i = q.nextAt(i + 1);
    }
    this.generation = q.generation;
  }
}
