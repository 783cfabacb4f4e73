/**
 * Availability profiles for conservative backfilling (see `backfilling.ts`): what will be free, and
 * when, assuming running jobs end at their expected end (`start + req_time`, or now when that has
 * passed) and reserved jobs run exactly their `req_time`.
 *
 * - `CountProfile`: free cores of the whole platform as a step function of time
 *   (`free[i]` over `[times[i], times[i+1])`, the last step lasting forever). A job of `n` cores and
 *   duration `d` fits at `s` when every step overlapping `[s, s+d)` has `free >= n`. The earliest such `s`
 *   is one of the step starts; a failing step `j` rules out every start up to `times[j]`, so the search
 *   is one pass, O(P).
 * - `NodeProfile`: the same per node, for cores and memory, kept only for nodes whose availability
 *   changes (the others stay as they are now). A reservation is placed on concrete nodes: platform
 *   order among the nodes whose minimum availability over the window fits (for `seq`, the first such
 *   node; for `mpi` with `nodes`, the first `nodes`; otherwise as many tasks per node as fit). Candidate
 *   start times are now and every time availability grows; `earliest` sweeps them in order with a
 *   sliding-window minimum per node, re-evaluating only the nodes whose window changes.
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import { maxTaskMem, taskMem, type Job } from '../workload/job.js';
import { forEachHeld, heldCores, type RunningByEnd } from './backfilling.js';
import type { PlacementLimit } from './placement.js';
import { perNodeCores } from '../workload/job.js';

/** Index of the last `times[i] <= t` (times ascending, `times[0] <= t`). */
function stepAt(times: number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Inserts `t` into ascending `list` if absent. */
function insertSorted(list: number[], t: number): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== t) list.splice(lo, 0, t);
}

/** Free cores of the platform over time. */
export class CountProfile {
  readonly times: number[];
  readonly free: number[];

  /** The profile at `sim.now` from the running jobs in `index`. */
  constructor(sim: ClusterSimulator, index: RunningByEnd) {
    const now = sim.now;
    this.times = [now];
    this.free = [sim.freeCores];
    index.forEachWhile((e) => {
      const end = e.end > now ? e.end : now;
      const last = this.times.length - 1;
      const f = this.free[last]! + heldCores(e.rj);
      if (this.times[last] === end) this.free[last] = f;
      else {
        this.times.push(end);
        this.free.push(f);
      }
      return true;
    });
  }

  /** Earliest start `>= now` at which `n` cores are free for `d` seconds, or Infinity. */
  earliest(n: number, d: number): number {
    const { times, free } = this;
    const len = times.length;
    let i = 0;
    while (i < len) {
      const end = times[i]! + d;
      let j = i;
      let ok = true;
      do {
        if (free[j]! < n) {
          ok = false;
          break;
        }
        j++;
      } while (j < len && times[j]! < end);
      if (ok) return times[i]!;
      i = j + 1;
    }
    return Infinity;
  }

  /** Step index starting at `t`, splitting a step if needed. */
  private split(t: number): number {
    const i = stepAt(this.times, t);
    if (this.times[i] === t) return i;
    this.times.splice(i + 1, 0, t);
    this.free.splice(i + 1, 0, this.free[i]!);
    return i + 1;
  }

  /** Takes `n` cores over `[s, s+d)` (negative `n`: gives them back); the part before now is ignored. */
  reserve(s: number, d: number, n: number): void {
    const from = Math.max(s, this.times[0]!);
    const to = s + d;
    if (!(to > from) || s === Infinity) return;
    const a = this.split(from);
    const b = this.split(to);
    for (let i = a; i < b; i++) this.free[i]! -= n;
  }
}

/** Steps of one node: free cores and memory over `[times[i], times[i+1])`. */
interface NodeSteps {
  times: number[];
  free: number[];
  mem: number[];
}

/**
 * Minimum capacity of one node's steps over windows `[t, end)` whose `t` and `end` never decrease
 * (the step holding `t` always counts): a monotone deque of step indices with increasing capacities.
 */
class SlidingMin {
  private readonly idx: number[] = [];
  private readonly val: number[] = [];
  private head = 0;
  /** Step holding the current `t`. */
  private lo = 0;
  /** Last step pushed. */
  private hi = -1;
  /** Start of the step after `lo` (the window loses a step once `t` reaches it; -Infinity before the first `min`). */
  nextLo = -Infinity;
  /** Start of the step after `hi` (the window gains it once `end` passes it). */
  nextHi = Infinity;
  /** The caller's share of this node for the current window. */
  gain = 0;

  constructor(
    private readonly s: NodeSteps,
    private readonly capOf: (free: number, mem: number) => number,
  ) {}

  private push(i: number): void {
    const v = this.capOf(this.s.free[i]!, this.s.mem[i]!);
    while (this.idx.length > this.head && this.val[this.val.length - 1]! >= v) {
      this.idx.pop();
      this.val.pop();
    }
    this.idx.push(i);
    this.val.push(v);
    this.hi = i;
  }

  min(t: number, end: number): number {
    const times = this.s.times;
    const len = times.length;
    while (this.lo + 1 < len && times[this.lo + 1]! <= t) this.lo++;
    while (this.hi < this.lo) this.push(this.hi + 1);
    while (this.hi + 1 < len && times[this.hi + 1]! < end) this.push(this.hi + 1);
    while (this.idx[this.head]! < this.lo) this.head++;
    this.nextLo = this.lo + 1 < len ? times[this.lo + 1]! : Infinity;
    this.nextHi = this.hi + 1 < len ? times[this.hi + 1]! : Infinity;
    return this.val[this.head]!;
  }
}

/** A reservation's placement: tasks per node. */
export type NodePlan = [node: number, tasks: number][];

/** Free cores and memory per node over time. */
export class NodeProfile {
  private readonly steps = new Map<number, NodeSteps>();
  /** Times at which availability grows (now first), ascending. */
  readonly candidates: number[];
  private readonly now: number;

  /** The profile at `sim.now` from the running jobs in `index`. */
  constructor(
    private readonly sim: ClusterSimulator,
    index: RunningByEnd,
  ) {
    const now = sim.now;
    this.now = now;
    this.candidates = [now];
    index.forEachWhile((e) => {
      const end = e.end > now ? e.end : now;
      if (this.candidates[this.candidates.length - 1] !== end) this.candidates.push(end);
      forEachHeld(sim, e.rj, (n, cores, mem) => this.add(n, end, Infinity, cores, mem));
      return true;
    });
  }

  private stepsOf(n: number): NodeSteps {
    let s = this.steps.get(n);
    if (!s) {
      s = { times: [this.now], free: [this.sim.nodeFree[n]!], mem: [this.sim.nodeFreeMem[n]!] };
      this.steps.set(n, s);
    }
    return s;
  }

  private split(s: NodeSteps, t: number): number {
    if (t === Infinity) return s.times.length;
    const i = stepAt(s.times, t);
    if (s.times[i] === t) return i;
    s.times.splice(i + 1, 0, t);
    s.free.splice(i + 1, 0, s.free[i]!);
    s.mem.splice(i + 1, 0, s.mem[i]!);
    return i + 1;
  }

  /** Adds `cores` and `mem` (negative: takes) on node `n` over `[from, to)`. */
  private add(n: number, from: number, to: number, cores: number, mem: number): void {
    const s = this.stepsOf(n);
    const a = this.split(s, from);
    const b = this.split(s, to);
    for (let i = a; i < b; i++) {
      s.free[i]! += cores;
      s.mem[i]! += mem;
    }
  }

  /** Minimum free cores and memory of node `n` over `[t, t+d)` (the step holding `t` at least). */
  windowMin(n: number, t: number, d: number): [number, number] {
    const s = this.steps.get(n);
    if (!s) return [this.sim.nodeFree[n]!, this.sim.nodeFreeMem[n]!];
    let i = stepAt(s.times, t);
    let f = s.free[i]!;
    let m = s.mem[i]!;
    const end = t + d;
    for (i++; i < s.times.length && s.times[i]! < end; i++) {
      if (s.free[i]! < f) f = s.free[i]!;
      if (s.mem[i]! < m) m = s.mem[i]!;
    }
    return [f, m];
  }

  /** Room a job started now for `d` seconds may use on each node without taking reserved resources. */
  limit(d: number): PlacementLimit {
    return {
      cores: (n) => this.windowMin(n, this.now, d)[0],
      mem: (n) => this.windowMin(n, this.now, d)[1],
    };
  }

  /** Where `job` fits for `d` seconds from `t` (platform order among the nodes with room), or null. */
  planAt(job: Job, t: number, d: number): NodePlan | null {
    const sim = this.sim;
    const N = sim.platform.nodeCount;
    const memPerTask = sim.enforceMemory ? maxTaskMem(job) : 0;
    // the job's partition: other nodes have no room for it
    const mask = sim.allocation.partitionMask(job);
    const cap = (n: number) => {
      if (mask !== null && !mask[n]) return 0;
      const [f, m] = this.windowMin(n, t, d);
      if (memPerTask <= 0) return f;
      return Math.min(f, Math.floor((m + 1e-9) / memPerTask));
    };
    const plan: NodePlan = [];
    if (job.type === 'seq' || job.nodes > 0) {
      // each node must offer `per` cores (the head's viability), so a plan keeps `per` on each
      const per = job.type === 'seq' ? job.ntasks : perNodeCores(job);
      const required = job.type === 'seq' ? 1 : job.nodes;
      for (let n = 0; n < N && plan.length < required; n++) if (cap(n) >= per) plan.push([n, per]);
      return plan.length < required ? null : plan;
    }
    let left = job.ntasks;
    for (let n = 0; n < N && left > 0; n++) {
      const k = Math.min(cap(n), left);
      if (k > 0) {
        plan.push([n, k]);
        left -= k;
      }
    }
    return left === 0 ? plan : null;
  }

  /**
   * Earliest start of `job` for `d` seconds and where, or `{ time: Infinity }`: the first candidate
   * time at which `planAt` finds a plan. Whether a plan exists at `t` depends only on each node's
   * capacity over `[t, t+d)` (a `sum` job: the positive capacities add up to `ntasks`; otherwise:
   * `required` nodes hold `per` tasks), and the capacity of the window minimum equals the minimum of
   * the steps' capacities. As the candidates ascend, both ends of each node's window move forward,
   * so every node keeps a monotone deque of its steps (sliding-window minimum): a sweep costs
   * `O(C x N + S)` for `S` steps instead of a search and a scan per node and candidate. `planAt`
   * then builds the plan at the time found.
   */
  earliest(job: Job, d: number): { time: number; plan: NodePlan } {
    const sim = this.sim;
    const N = sim.platform.nodeCount;
    const memPerTask = sim.enforceMemory ? maxTaskMem(job) : 0;
    const byNodes = job.type === 'seq' || job.nodes > 0;
    const per = job.type === 'seq' ? job.ntasks : byNodes ? perNodeCores(job) : 0;
    const required = job.type === 'seq' ? 1 : byNodes ? job.nodes : job.ntasks;
    const capOf = (f: number, m: number) => (memPerTask <= 0 ? f : Math.min(f, Math.floor((m + 1e-9) / memPerTask)));
    const gain = (cap: number) => (byNodes ? (cap >= per ? 1 : 0) : cap > 0 ? cap : 0);
    const mask = sim.allocation.partitionMask(job);
    // nodes without steps keep their current capacity
    let fixed = 0;
    const windows: SlidingMin[] = [];
    for (let n = 0; n < N; n++) {
      if (mask !== null && !mask[n]) continue;
      const s = this.steps.get(n);
      if (s) windows.push(new SlidingMin(s, capOf));
      else fixed += gain(capOf(sim.nodeFree[n]!, sim.nodeFreeMem[n]!));
    }
    let total = fixed;
    for (const t of this.candidates) {
      const end = t + d;
      for (const w of windows) {
        // only a node whose window gains or loses a step changes its share
        if (t >= w.nextLo || end > w.nextHi) {
          const g = gain(w.min(t, end));
          total += g - w.gain;
          w.gain = g;
        }
      }
      if (total >= required) {
        const plan = this.planAt(job, t, d);
        if (plan) return { time: t, plan };
      }
    }
    return { time: Infinity, plan: [] };
  }

  /**
   * Reserves `plan` of `job` over `[s, s+d)` (`sign` -1: gives the reservation back); the part before
   * now is ignored.
   */
  reserve(job: Job, plan: NodePlan, s: number, d: number, sign: 1 | -1 = 1): void {
    const from = Math.max(s, this.now);
    const to = s + d;
    if (!(to > from) || s === Infinity) return;
    const memPerTask = this.sim.enforceMemory ? maxTaskMem(job) : 0;
    for (const [n, k] of plan) this.add(n, from, to, -sign * k, -sign * k * memPerTask);
    if (sign > 0) insertSorted(this.candidates, to);
    else insertSorted(this.candidates, from);
  }

  /** Records `job` started now on `cores` for `d` seconds. */
  commit(job: Job, cores: ArrayLike<number>, d: number): void {
    if (!(d > 0)) return;
    const perNode = new Map<number, [number, number]>();
    for (let t = 0; t < cores.length; t++) {
      const n = this.sim.platform.coreNode[cores[t]!]!;
      const v = perNode.get(n) ?? [0, 0];
      v[0]++;
      v[1] += this.sim.enforceMemory ? taskMem(job, t) : 0;
      perNode.set(n, v);
    }
    for (const [n, [k, m]] of perNode) {
      // the engine already took the cores: a node without steps starts from its state before the start
      if (!this.steps.has(n)) this.steps.set(n, { times: [this.now], free: [this.sim.nodeFree[n]! + k], mem: [this.sim.nodeFreeMem[n]! + m] });
      this.add(n, this.now, this.now + d, -k, -m);
    }
    insertSorted(this.candidates, this.now + d);
  }
}
