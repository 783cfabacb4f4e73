/**
 * Schedulers of the fairness engine (seed 001, §5.2 "Справедливость"). At every decision point
 * (a task arrived or ended) the engine asks the scheduler for a (task, host) pair until it answers
 * `null`; each pair is started at once, so the next answer sees the new free resources and shares.
 *
 * - **`drf`** (Dominant Resource Fairness, [13]): "из всех задач, которые готовы к исполнению
 *   планировщик в каждый момент времени выбирает самого обделенного пользователя и запускает его
 *   задачу": the user with the smallest dominant share relative to its quota (`ds_u / w_u`, ties
 *   to the lower user index) starts its next task (FIFO within the user). The host is the one
 *   with the best packing score among those where the task fits (the same host rule as Tetris, so
 *   that `tetris(1)` is exactly `drf`). When that task fits no host, nothing starts until the next
 *   event: f = 1 "может взять только первую задачу из очереди".
 * - **`tetris(f)`** ([14]): the queue is the users with waiting tasks, one entry each (its next
 *   task), sorted by DRF; "выбирает наилучшую задачу с точки зрения упаковки среди (1-f) доли
 *   очереди": the best packing score over (candidate, host) pairs among the first
 *
 *       k = max(1, floor((1 - f) U + 1e-9))
 *
 *   candidates of the U users in the queue. The thesis explains the jump at f = 0.8 by "ровно при
 *   этом значении параметра алгоритм Tetris получает возможность выбирать из двух задач (т.к.
 *   всего пользователей 10)": exactly at 0.8, not before, which is the floor (ceil would give two
 *   candidates from f < 0.9 on, DESIGN §10.3's round from f <= 0.85). The 1e-9 absorbs the binary
 *   error of `(1 - 0.8) * 10 = 1.9999999999999996`. `f = 1` is DRF, `f = 0` pure packing over every
 *   user's next task. Ties: the earlier candidate in DRF order, then the lower host.
 * - **`first-fit`** and **`best-fit`**: greedy packers in submission order over all users: the
 *   oldest waiting task on the first host where it fits (first-fit), or on the host where it
 *   leaves the least free capacity, `Σ_r free_r/cap_r` after placement (best-fit). Both wait when
 *   the oldest task fits nowhere (no backfilling). First-fit is the "простейший алгоритм
 *   планирования, время работы которого не зависит от количества задач в очереди" of §5.1.
 */
import { InputError } from '../core/errors.js';
import { alignmentScore, type FairTask, type HostTable, type UserTable } from './model.js';
import type { WaitingTasks } from '../scheduling/userQueues.js';

/** What a scheduler sees. */
export interface SchedulerView {
  readonly hosts: HostTable;
  readonly users: UserTable;
  readonly waiting: WaitingTasks<FairTask>;
  readonly now: number;
}

/** A decision: start `task` on `host`. */
export interface Placement {
  task: FairTask;
  host: number;
}

/** A scheduler of the fairness engine. */
export interface FairScheduler {
  /** Display name (`drf`, `tetris(0.8)`, `first-fit`, `best-fit`). */
  readonly name: string;
  /** The next task to start and where, or null to wait for the next event. */
  next(view: SchedulerView): Placement | null;
}

/** The host with the best packing score where (cpu, memory) fits, and the score; host -1 if none. */
export function bestAlignedHost(hosts: HostTable, cpu: number, memory: number): { host: number; score: number } {
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
export function drfOrder(users: UserTable, active: readonly number[], k = active.length): number[] {
  const keyed = active.map((u) => ({ u, s: users.weightedShare(u) }));
  keyed.sort((a, b) => a.s - b.s || a.u - b.u);
  const out: number[] = [];
  for (let i = 0; i < Math.min(k, keyed.length); i++) out.push(keyed[i]!.u);
  return out;
}

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
      for (let h = 0; h < hosts.count; h++) if (hosts.fits(h, task.cpu, task.memory)) return { task, host: h };
      return null;
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
      let best = -1;
      let bestLeft = Infinity;
      for (let h = 0; h < hosts.count; h++) {
        if (!hosts.fits(h, task.cpu, task.memory)) continue;
        const left = (hosts.freeCpu[h]! - task.cpu) / hosts.cpuCap[h]! + (hosts.freeMem[h]! - task.memory) / hosts.memCap[h]!;
        if (left < bestLeft) {
          bestLeft = left;
          best = h;
        }
      }
      return best < 0 ? null : { task, host: best };
    },
  };
}

/** Scheduler names accepted by `schedulerByName`. */
export const SCHEDULER_NAMES = ['drf', 'tetris', 'first-fit', 'best-fit'] as const;

/** A scheduler from its name (`tetris` takes `f`). */
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
