/**
 * The DMR scheduling passes (seed 002, DESIGN §10.1) on the one engine: the batch scheduler under the
 * malleable jobs (FCFS with EASY backfilling, Slurm's backfill, §7.2) and the resize decisions at their
 * reconfiguration points (`resizePolicy.ts`: `dmr`, `never`). With `dmrPreset` options (64 single-core
 * nodes, malleable progress, the event pass clock) they give the DMR engine's runs exactly.
 *
 * **Nodes are allocated whole**: a job of size `n` holds `n` whole nodes (its tasks on each); the free
 * count is the nodes no job holds. The platform's nodes must be alike (the DMR model's interchangeable
 * nodes).
 *
 * **Order**: FCFS, except that a job promoted by a §4.3 shrink (`promote`) goes to the head.
 *
 * **EASY** on node counts with the progress model's own estimates (perfect: a running job's expected
 * end is its malleable progress's `estEnd`; a job not started yet is estimated at `steps x d(size)`):
 * jobs start from the head while they fit; the head that does not fit gets a reservation at the shadow
 * time, the earliest time the nodes freed by running jobs (at their current sizes and speeds) and by
 * ongoing shrinks cover it (every release at the shadow time counts towards the extra nodes, whatever
 * their order); a later job starts now if it fits and either ends before the shadow time or uses no
 * more than the nodes left over at the shadow time. A backfilled malleable job that is shrunk later
 * runs longer than estimated, as in Slurm.
 */
import { objectList } from '../core/arrays.js';
import {
  type ClusterSimulator,
  type DecisionMaker,
  InvalidResizeError,
  type JobRecord,
  type ResizeDecider,
  type RunningJob,
  type SimulationListener,
} from '../execution/simulator.js';
import type { Job } from '../workload/job.js';
import { nominalRuntime, stepTime } from '../workload/malleability.js';
import { type Decision, dmrPolicy, type PointContext, type ResizePolicy } from './resizePolicy.js';

/** Nodes a job asks for: its node count (a malleable job's size at submission). */
function sizeOf(job: Job): number {
  return job.nodes > 0 ? job.nodes : job.ntasks;
}

/** Run time of a waiting job at its size: the estimate EASY uses (its steps at that size, else its `runtime`). */
function estimateOf(job: Job): number {
  const m = job.malleable;
  return m ? m.steps * stepTime(m.speedup, sizeOf(job)) : job.runtime;
}

/**
 * The batch scheduler of the DMR model (module comment). A pass is O(running jobs) when no waiting job
 * fits the free nodes (the smallest waiting size is known), else O(queue) with no allocation.
 */
export class DmrScheduler implements DecisionMaker, SimulationListener {
  readonly name = 'dmr-fcfs+easy';
  /** Waiting jobs in priority order, their sizes and their run-time estimates (parallel arrays). */
  private order: Job[] = [];
  private need: number[] = [];
  private est: number[] = [];
  /** Running jobs in start order. */
  private readonly active: RunningJob[] = objectList();
  /** `queuedSizes` cached until the order changes. */
  private sizes: number[] | null = null;
  /** Nodes the waiting jobs ask for, summed. */
  private needed = 0;
  /** Waiting jobs per size, and a size no waiting job is below (raised lazily). */
  private bySize = new Int32Array(65);
  private minNeed = Number.POSITIVE_INFINITY;
  /** Scratch of the reservation: release times and node counts. */
  private relTime = new Float64Array(64);
  private relNodes = new Int32Array(64);
  private sim: ClusterSimulator | null = null;

  /** Attaches to `sim` (once): follows its arrivals, starts and ends. */
  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    if (this.sim !== null) throw new Error('a DmrScheduler serves one engine');
    this.sim = sim;
    for (const j of sim.waiting) this.enqueue(j);
    // the scheduler is its engine's listener (methods, not closures made per engine: the engine's call
    // sites keep one target from engine to engine)
    sim.addListener(this);
  }

  /** A job arrives: it waits at the end of the order. */
  onSubmit(_sim: ClusterSimulator, job: Job): void {
    this.enqueue(job);
  }

  /** A job ends: it leaves the running jobs. */
  onEnd(_sim: ClusterSimulator, _rec: JobRecord, rj: RunningJob | null): void {
    const at = rj ? this.active.indexOf(rj) : -1;
    if (at >= 0) this.active.splice(at, 1);
  }

  /** A waiting job is rejected: it leaves the order. */
  onReject(_sim: ClusterSimulator, rec: JobRecord): void {
    const at = this.order.indexOf(rec.job);
    if (at >= 0) this.dequeue(at);
  }

  private enqueue(job: Job): void {
    const n = sizeOf(job);
    this.order.push(job);
    this.need.push(n);
    this.est.push(estimateOf(job));
    this.needed += n;
    if (n >= this.bySize.length) {
      const grown = new Int32Array(n * 2);
      grown.set(this.bySize);
      this.bySize = grown;
    }
    this.bySize[n]!++;
    if (n < this.minNeed) this.minNeed = n;
    this.sizes = null;
  }

  private dequeue(at: number): void {
    this.left(this.need[at]!);
    this.order.splice(at, 1);
    this.need.splice(at, 1);
    this.est.splice(at, 1);
    this.sizes = null;
  }

  /** A waiting job of `n` nodes left the queue (started or rejected). */
  private left(n: number): void {
    this.needed -= n;
    this.bySize[n]!--;
  }

  /** Whether some waiting job asks for at most `free` nodes. */
  private someFits(free: number): boolean {
    const by = this.bySize;
    let m = this.minNeed;
    while (m < by.length && by[m] === 0) m++;
    this.minNeed = m;
    return m <= free;
  }

  /** Nodes no job holds (jobs hold whole nodes: the idle ones). */
  freeNodes(sim: ClusterSimulator): number {
    return sim.allocation.idleNodes;
  }

  /** Sizes (nodes) of the waiting jobs in priority order. */
  queuedSizes(): readonly number[] {
    if (this.sizes === null) this.sizes = this.need.slice();
    return this.sizes;
  }

  /** Nodes the waiting jobs ask for, summed. */
  get queuedNodes(): number {
    return this.needed;
  }

  /** Jobs waiting. */
  get waitingCount(): number {
    return this.order.length;
  }

  /** Nodes the waiting job at position `i` (within the queue) of the priority order asks for. */
  queuedSize(i: number): number {
    return this.need[i]!;
  }

  /** The waiting job at position `i` of the priority order. */
  queued(i: number): Job | undefined {
    return this.order[i];
  }

  /** The running jobs, in start order (do not modify). */
  get running(): readonly RunningJob[] {
    return this.active;
  }

  promote(_sim: ClusterSimulator, job: Job): void {
    const at = this.order.indexOf(job);
    if (at > 0) {
      const n = this.need[at]!;
      const e = this.est[at]!;
      this.order.splice(at, 1);
      this.need.splice(at, 1);
      this.est.splice(at, 1);
      this.order.unshift(job);
      this.need.unshift(n);
      this.est.unshift(e);
      this.sizes = null;
    }
  }

  schedule(sim: ClusterSimulator): void {
    this.attach(sim);
    const q = this.order;
    const need = this.need;
    const est = this.est;
    let len = q.length;
    if (len === 0) return;
    let free = this.freeNodes(sim);
    let h = 0;
    while (h < len && need[h]! <= free) {
      free -= need[h]!;
      this.start(sim, q[h]!, need[h]!);
      h++;
    }
    if (h > 0) {
      q.splice(0, h);
      need.splice(0, h);
      est.splice(0, h);
      len -= h;
      this.sizes = null;
    }
    if (len <= 1 || free === 0 || !this.someFits(free)) return;
    const shadow = this.reservation(free, need[0]!);
    let extra = shadow.extra;
    // backfilling: later jobs that fit start now if they end by the shadow time or use only extra nodes
    const now = sim.now;
    let w = 1;
    let k = 1;
    for (; k < len && free > 0; k++) {
      const n = need[k]!;
      if (n <= free) {
        if (now + est[k]! <= shadow.time) {
          free -= n;
          this.start(sim, q[k]!, n);
          continue;
        }
        if (n <= extra) {
          extra -= n;
          free -= n;
          this.start(sim, q[k]!, n);
          continue;
        }
      }
      if (w !== k) {
        q[w] = q[k]!;
        need[w] = n;
        est[w] = est[k]!;
      }
      w++;
    }
    if (w === k) return;
    // no node left: the rest keep their places
    for (; k < len; k++, w++) {
      q[w] = q[k]!;
      need[w] = need[k]!;
      est[w] = est[k]!;
    }
    q.length = w;
    need.length = w;
    est.length = w;
    this.sizes = null;
  }

  /**
   * The head's reservation: the shadow time, the earliest release (of running jobs at their current
   * sizes and speeds, and of ongoing shrinks) at which the free nodes and those released by then cover
   * `need`, and the extra nodes, what is left over then (every release at the shadow time counts,
   * whatever their order).
   */
  private reservation(free: number, need: number): { time: number; extra: number } {
    let k = 0;
    for (const rj of this.active) {
      const s = rj.malleable;
      if (s === null) k = this.release(k, rj.start + rj.job.runtime, rj.nodes.length);
      else if (!s.resizing) k = this.release(k, s.estEnd, s.size);
      else {
        k = this.release(k, s.estEnd, s.target);
        if (s.target < s.size) k = this.release(k, s.resizeEnd, s.size - s.target);
      }
    }
    // a handful of releases: insertion sort by time
    const t = this.relTime;
    const c = this.relNodes;
    for (let i = 1; i < k; i++) {
      const ti = t[i]!;
      const ci = c[i]!;
      let j = i - 1;
      while (j >= 0 && t[j]! > ti) {
        t[j + 1] = t[j]!;
        c[j + 1] = c[j]!;
        j--;
      }
      t[j + 1] = ti;
      c[j + 1] = ci;
    }
    let avail = free;
    let shadow = Number.POSITIVE_INFINITY;
    for (let i = 0; i < k; i++) {
      if (avail >= need && t[i]! > shadow) break;
      avail += c[i]!;
      if (avail >= need && shadow === Number.POSITIVE_INFINITY) shadow = t[i]!;
    }
    return { time: shadow, extra: avail - need };
  }

  /** Adds a release of `nodes` at `time` to the scratch (entry `k`); returns the next entry. */
  private release(k: number, time: number, nodes: number): number {
    if (k === this.relTime.length) {
      const t = new Float64Array(k * 2);
      t.set(this.relTime);
      this.relTime = t;
      const c = new Int32Array(k * 2);
      c.set(this.relNodes);
      this.relNodes = c;
    }
    this.relTime[k] = time;
    this.relNodes[k] = nodes;
    return k + 1;
  }

  /** Starts `job` (`n` nodes) on the first whole free nodes, its tasks dealt over them (task `t` on the `t mod n`-th). */
  private start(sim: ClusterSimulator, job: Job, n: number): void {
    this.left(n);
    const per = Math.ceil(job.ntasks / n);
    const cores = sim.allocation.arena.alloc(job.ntasks);
    const p = sim.platform;
    // the nodes are alike: a whole free node has all the cores of the largest
    const whole = p.maxNodeCores;
    const N = p.nodeCount;
    let found = 0;
    for (let node = sim.freeTree.findFirst(0, whole); node >= 0 && found < n; ) {
      for (let t = found, k = 0; t < job.ntasks; t += n, k++) cores[t] = p.nodeFirstCore[node]! + k;
      found++;
      // free nodes come in runs: look at the next one before searching the tree
      node = node + 1 < N && sim.nodeFree[node + 1] === whole ? node + 1 : sim.freeTree.findFirst(node + 1, whole);
    }
    if (found < n || per > p.maxNodeCores) throw new Error(`dmr: job ${job.id} needs ${n} whole nodes, ${found} are free`);
    const rj = sim.startJob(job, cores, { transfer: true });
    this.active.push(rj);
  }
}

/**
 * A resize decider of the engine from a reconfiguration policy (`dmr`, `never`, or a learned one): it
 * sees the DMR scheduler's view (free nodes, the waiting jobs' sizes in priority order; the time since
 * `t0`, the engine's time of the first submission when it runs in the workload's own time) and promotes
 * the job its decision names (a position past the queue is refused, as an invalid resize).
 */
export function dmrResizeDecider(scheduler: DmrScheduler, policy: ResizePolicy = dmrPolicy, t0 = 0): ResizeDecider {
  return (sim, rj) => {
    const s = rj.malleable!;
    if (s.work.spec === null) return { size: s.size };
    const queue = scheduler.queuedSizes();
    const ctx: PointContext = { time: sim.now - t0, free: scheduler.freeNodes(sim), size: s.size, spec: s.work.spec, queue, kind: 'point' };
    const d: Decision = policy(ctx);
    if (d.promote >= queue.length) throw new InvalidResizeError(`no queued job at position ${d.promote}`);
    return { size: d.size, promote: d.promote >= 0 ? scheduler.queued(d.promote) : undefined };
  };
}

/** The rigid nominal run time of a job of the DMR model at its submitted size (its steps at `max`). */
export function dmrNominalRuntime(job: Job): number {
  return job.malleable ? nominalRuntime(job.malleable, sizeOf(job)) : job.runtime;
}

/**
 * A resize decider from a reconfiguration policy for any scheduler (not only the DMR passes): the free
 * nodes are those the job could expand onto now (`expansionNodes`: its partition's nodes with room for
 * its tasks per node), the queue is the waiting jobs in arrival order, each counted in nodes (its exact
 * node count, else `ceil(tasks / largest node's cores)`); a promotion goes to the scheduler's `promote`
 * (a priority-ordered scheduler without one ignores it). docs/model.md states these rules.
 */
export function queueResizeDecider(policy: ResizePolicy = dmrPolicy): ResizeDecider {
  return (sim, rj) => {
    const s = rj.malleable!;
    if (s.work.spec === null) return { size: s.size };
    const waiting = sim.waiting;
    const biggest = sim.platform.maxNodeCores;
    const queue = waiting.map((j) => (j.nodes > 0 ? j.nodes : Math.ceil(j.ntasks / biggest)));
    const ctx: PointContext = { time: sim.now, free: sim.expansionCount(rj), size: s.size, spec: s.work.spec, queue, kind: 'point' };
    const d = policy(ctx);
    return { size: d.size, promote: d.promote >= 0 ? waiting[d.promote] : undefined };
  };
}
