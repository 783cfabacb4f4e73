/**
 * Backfilling (DESIGN §4): letting later jobs start ahead of a job that does not fit, without
 * delaying it. Both algorithms reason on EXPECTED ends: a running job is assumed to end at
 * `start + req_time` (its walltime), or now if that time has passed; a job started now is assumed to
 * run `req_time`. Since real jobs end no later than requested (or are killed there with
 * `walltimeKill`), a reservation computed on expected ends can only move earlier.
 *
 * EASY (Lifka 1995; Mu'alem & Feitelson 2001). The head job (the first that does not fit) gets a
 * reservation at its SHADOW TIME `T`: the earliest expected end after which it fits, found by
 * releasing the running jobs in order of expected end over a projection of the free resources. A
 * later job `B` may start now when it fits now and either ends by `T` (`now + req_time(B) <= T`) or
 * leaves the head's needs at `T` intact. The head's needs follow its placement constraint:
 * - COUNT-BASED (an `mpi` job without `nodes` and without memory to place): it needs `ntasks` cores
 *   anywhere. `extra = free cores at T - ntasks`; a long `B` may start when `ntasks(B) <= extra`, and
 *   then `extra -= ntasks(B)`. O(1) per candidate.
 * - NODE-BASED (`seq`: one node with `ntasks` free cores and memory; `mpi` with `nodes`: that many nodes
 *   with `ntasks_per_node` each; `mpi` with memory: the sum over nodes of the tasks each can hold). The
 *   projection is per node (only nodes with free cores now or released by then are touched). At `T`
 *   a set `R` of nodes that fits the head is chosen (the first that qualified); a long `B` is placed
 *   with a LIMIT that keeps on each node of `R` what the head needs there at `T`
 *   (`cores <= projected free at T - head's share`, likewise memory); other nodes are free to use.
 * In both cases the head still fits at `T` after any backfill, so its reservation never moves later.
 *
 * Conservative (Mu'alem & Feitelson 2001). Every queued job examined, in queue order, gets a
 * reservation at the earliest time it fits for its whole `req_time` in an availability PROFILE that
 * holds the running jobs' expected ends and the reservations of the jobs before it; a job starts now
 * only when its earliest time is now, inside the room the profile leaves (placement limit over
 * `[now, now+req)`), so it delays no reservation — the first job in the queue included. Two regimes,
 * following the scheduler's head mode:
 * - re-ordering (Slurm's backfill pass): the reservations are made again from scratch in the current
 *   priority order at every decision point; a job that arrives with a better priority goes before
 *   the reserved ones, and a reservation may move later when an earlier job moves earlier;
 * - commit-head: reservations are COMMITMENTS kept from one decision point to the next; each job
 *   examined gives its reservation back and takes the earliest slot again around everybody else's
 *   (compression), which is never later than the one it had (running jobs end no later than expected
 *   and the others only move into free room). So no job starts later than the first reservation it
 *   was given, whatever the priority; a job that arrives with a better priority fits around the
 *   reservations already made.
 * Profiles:
 * - COUNT profile (while every job examined is count-based): a step function of free cores over time;
 *   `O(P)` per job for `P` steps.
 * - NODE profile (when a job examined has a placement constraint; with commitments, from then on, the
 *   earlier reservations getting nodes at their time): a step function of free cores and memory PER
 *   NODE for the nodes that change, with every reservation placed on concrete nodes (platform order
 *   among those with room). Finding a job's time is one sweep of the `C` candidate times with a
 *   sliding-window minimum per node (`NodeProfile.earliest`), `O(C x N + S)` for `N` nodes and `S`
 *   steps: meant for platforms of up to a few hundred nodes.
 *
 * Bound. A scheduler examines at most `maxJobTest` queued jobs after the head per decision point
 * (Slurm's `bf_max_job_test`, whose default is 500), so that a long queue does not make every
 * decision point cost `O(queue)`.
 */
import type { ClusterSimulator, RunningJob, SimulationListener } from '../execution/simulator.js';
import { JobPhase } from '../core/engine.js';
import { maxTaskMem, taskMem, type Job } from '../workload/job.js';
import type { PlacementLimit } from './placement.js';
import { perNodeCores } from '../workload/job.js';
import { IndexedHeap, type HeapItem, type InOrderCursor } from './indexedHeap.js';

/** Backfilling algorithms. */
export const BACKFILL_NAMES = ['none', 'easy', 'conservative'] as const;
/** A backfilling algorithm. */
export type BackfillName = (typeof BACKFILL_NAMES)[number];
/** Default bound on the queued jobs examined after the head per decision point (Slurm's default). */
export const DEFAULT_MAX_JOB_TEST = 500;

/** A running job in the expected-end index. */
export interface EndEntry extends HeapItem {
  /** Expected end `start + req_time` (plus the time it was suspended, from its resumption on). */
  end: number;
  seq: number;
  rj: RunningJob;
}

/**
 * The running jobs of a simulator ordered by expected end (ties: start order), kept up to date as a
 * listener: an indexed binary heap, O(log R) per start and end, and `forEachInOrder` visits the
 * first ones in order without a sort per decision.
 */
export class RunningByEnd implements SimulationListener {
  private readonly heap = new IndexedHeap<EndEntry>((a, b) => a.end < b.end || (a.end === b.end && a.seq < b.seq));
  /** Entries by the running job's slot (unique among running jobs). */
  private readonly bySlot: (EndEntry | null)[] = [];
  private seq = 0;

  constructor(sim: ClusterSimulator) {
    // (a job suspended without its cores holds none: not indexed until it resumes)
    for (const rj of sim.running()) if (rj.holding) this.add(rj);
  }

  private add(rj: RunningJob): void {
    const e: EndEntry = { end: rj.expectedEnd, seq: this.seq++, rj, heapPos: -1 };
    this.bySlot[rj.slot] = e;
    this.heap.push(e);
  }

  onStart(_sim: ClusterSimulator, rj: RunningJob): void {
    this.add(rj);
  }

  onEnd(_sim: ClusterSimulator, _rec: unknown, rj: RunningJob | null): void {
    if (rj) this.remove(rj);
  }

  /**
   * A suspended job that gave its cores up holds none until it resumes: it leaves the index; one that
   * keeps them stays at its estimate until it resumes (its suspension's length is the operator's).
   */
  onSuspend(_sim: ClusterSimulator, rj: RunningJob, phase: JobPhase.Suspended | JobPhase.Preempted): void {
    if (phase === JobPhase.Preempted) this.remove(rj);
  }

  /** A resumed job's expected end moves by the time it was suspended. */
  onResume(_sim: ClusterSimulator, rj: RunningJob): void {
    this.remove(rj);
    this.add(rj);
  }

  private remove(rj: RunningJob): void {
    const e = this.bySlot[rj.slot];
    if (e && e.rj === rj) {
      this.bySlot[rj.slot] = null;
      this.heap.delete(e);
    }
  }

  /** Visits running jobs by ascending expected end until `fn` returns false. */
  forEachWhile(fn: (e: EndEntry) => boolean): void {
    this.heap.forEachInOrder(fn);
  }

  /** A cursor over the running jobs by ascending expected end (one at a time; see `IndexedHeap.inOrder`). */
  inOrder(): InOrderCursor<EndEntry> {
    return this.heap.inOrder();
  }

  /** Number of running jobs indexed. */
  get length(): number {
    return this.heap.size;
  }
}

/** Cores a running job still holds (an `mpi` job holds all until its end; a `seq` job frees task by task). */
export function heldCores(rj: RunningJob): number {
  return rj.job.type === 'mpi' ? rj.cores.length : rj.tasksLeft;
}

/** Calls `fn(node, cores, memMb)` for what `rj` still holds on each of its nodes. */
export function forEachHeld(sim: ClusterSimulator, rj: RunningJob, fn: (node: number, cores: number, mem: number) => void): void {
  const job = rj.job;
  if (!job.tasks) {
    if (job.type === 'seq') fn(rj.nodes[0]!, rj.tasksLeft, rj.tasksLeft * job.mem);
    else for (let k = 0; k < rj.nodes.length; k++) fn(rj.nodes[k]!, rj.perNode[k]!, rj.perNode[k]! * job.mem);
    return;
  }
  const cores = new Map<number, number>();
  const mem = new Map<number, number>();
  for (let t = 0; t < rj.cores.length; t++) {
    if (job.type === 'seq' && rj.tasks && rj.tasks[t]!.done) continue;
    const n = sim.platform.coreNode[rj.cores[t]!]!;
    cores.set(n, (cores.get(n) ?? 0) + 1);
    mem.set(n, (mem.get(n) ?? 0) + taskMem(job, t));
  }
  for (const [n, c] of cores) fn(n, c, mem.get(n)!);
}

/** Whether a job only needs a number of cores (mpi, any nodes, no memory to place). */
export function isCountBased(sim: ClusterSimulator, job: Job): boolean {
  return job.type === 'mpi' && job.nodes === 0 && (!sim.enforceMemory || maxTaskMem(job) === 0) && sim.allocation.partitionMask(job) === null;
}

/** Tasks of `job` a node with `free` cores and `mem` MB can hold (memory per task: the largest task's). */
function capacity(free: number, mem: number, memPerTask: number): number {
  if (memPerTask <= 0) return free;
  const m = Math.floor((mem + 1e-9) / memPerTask);
  return m < free ? m : free;
}

/** How a job must be spread, for reservations: `one`/`nodes` (count qualifying nodes) or `sum`. */
interface Shape {
  kind: 'nodes' | 'sum';
  /** Tasks a node needs to qualify (`nodes`). */
  need: number;
  /** Qualifying nodes needed (`nodes`), or tasks in total (`sum`). */
  required: number;
  memPerTask: number;
  /** Tasks placed on each node of a `nodes` reservation. */
  share: number;
}

function shapeOf(sim: ClusterSimulator, job: Job): Shape {
  const memPerTask = sim.enforceMemory ? maxTaskMem(job) : 0;
  if (job.type === 'seq') return { kind: 'nodes', need: job.ntasks, required: 1, memPerTask, share: job.ntasks };
  if (job.nodes > 0) {
    // every node of the head needs `ntasks_per_node` free cores to qualify, so that many are kept for it
    const per = perNodeCores(job);
    return { kind: 'nodes', need: per, required: job.nodes, memPerTask, share: per };
  }
  return { kind: 'sum', need: 1, required: job.ntasks, memPerTask, share: 0 };
}

/** An EASY reservation for a head job, and the room it leaves to jobs that run past it. */
export class EasyReservation {
  /** Shadow time (Infinity: none could be computed; then nothing may backfill). */
  time = Infinity;
  /** Count-based: cores free at `time` beyond the head's need. */
  extra = 0;
  /** Node-based: per node of `R`, cores and memory a long backfill job may still take (null when count-based). */
  private readonly spareCores: Map<number, number> | null;
  private readonly spareMem: Map<number, number> | null;
  /** Limit for placing a job that runs past `time` (node-based), null when count-based. */
  readonly limit: PlacementLimit | null;

  constructor(
    readonly head: Job,
    readonly countBased: boolean,
  ) {
    if (countBased) {
      this.spareCores = this.spareMem = null;
      this.limit = null;
    } else {
      const cores = new Map<number, number>();
      const mem = new Map<number, number>();
      this.spareCores = cores;
      this.spareMem = mem;
      this.limit = { cores: (n) => cores.get(n) ?? Infinity, mem: (n) => mem.get(n) ?? Infinity };
    }
  }

  /** Nodes reserved for the head at `time` (node-based). */
  get reservedNodes(): number[] {
    return this.spareCores ? [...this.spareCores.keys()] : [];
  }

  /** Records that a job running past `time` took `cores` (count-based: less extra; node-based: less spare room). */
  consume(sim: ClusterSimulator, job: Job, cores: ArrayLike<number>): void {
    const sc = this.spareCores;
    const sm = this.spareMem;
    if (!sc || !sm) {
      this.extra -= cores.length;
      return;
    }
    for (let t = 0; t < cores.length; t++) {
      const n = sim.platform.coreNode[cores[t]!]!;
      const c = sc.get(n);
      if (c === undefined) continue;
      sc.set(n, c - 1);
      sm.set(n, sm.get(n)! - taskMem(job, t));
    }
  }

  /** Sets the node-based room: node `n` keeps `share` tasks of the head, from `free` cores and `mem` MB projected at `time`. */
  reserveNode(n: number, free: number, mem: number, share: number, memPerTask: number): void {
    this.spareCores!.set(n, free - share);
    this.spareMem!.set(n, memPerTask > 0 ? mem - share * memPerTask : Infinity);
  }
}

/**
 * The EASY reservation of `head` (which does not fit now) from the running jobs in `index`, at
 * time `sim.now`. See the module comment.
 */
export function easyReservation(sim: ClusterSimulator, head: Job, index: RunningByEnd): EasyReservation {
  const now = sim.now;
  const countBased = isCountBased(sim, head);
  const res = new EasyReservation(head, countBased);
  if (countBased) {
    const n = head.ntasks;
    let free = sim.freeCores;
    if (free >= n) {
      res.time = now;
      res.extra = free - n;
      return res;
    }
    let t = Infinity;
    const it = index.inOrder();
    for (let e = it.next(); e; e = it.next()) {
      const end = e.end > now ? e.end : now;
      if (end > t) break;
      free += heldCores(e.rj);
      if (free >= n && t === Infinity) t = end;
    }
    res.time = t;
    res.extra = t === Infinity ? 0 : free - n;
    return res;
  }
  // node-based projection
  const shape = shapeOf(sim, head);
  const pFree = new Map<number, number>();
  const pMem = new Map<number, number>();
  const freeOf = (n: number) => pFree.get(n) ?? sim.nodeFree[n]!;
  const memOf = (n: number) => pMem.get(n) ?? sim.nodeFreeMem[n]!;
  const capOf = (n: number) => capacity(freeOf(n), memOf(n), shape.memPerTask);
  const qualifying: number[] = [];
  // 'sum': tasks placeable over all nodes; 'nodes': nodes that qualify
  let total = 0;
  const qualifies = (cap: number) => (shape.kind === 'sum' ? cap > 0 : cap >= shape.need);
  const tree = sim.freeTree;
  // the head's partition: only its nodes count
  const mask = sim.allocation.partitionMask(head);
  for (let n = tree.findFirst(0, shape.need); n >= 0; n = tree.findFirst(n + 1, shape.need)) {
    if (mask !== null && !mask[n]) continue;
    const c = capOf(n);
    if (!qualifies(c)) continue;
    total += shape.kind === 'sum' ? c : 1;
    qualifying.push(n);
  }
  let t = total >= shape.required ? now : Infinity;
  if (t === Infinity)
    index.forEachWhile((e) => {
      const end = e.end > now ? e.end : now;
      if (end > t) return false;
      forEachHeld(sim, e.rj, (n, cores, mem) => {
        if (mask !== null && !mask[n]) return;
        const before = capOf(n);
        pFree.set(n, freeOf(n) + cores);
        pMem.set(n, memOf(n) + mem);
        const after = capOf(n);
        if (shape.kind === 'sum') total += after - before;
        else if (!qualifies(before) && qualifies(after)) total++;
        if (!qualifies(before) && qualifies(after)) qualifying.push(n);
      });
      if (total >= shape.required && t === Infinity) t = end;
      return true;
    });
  res.time = t;
  if (t === Infinity) return res;
  // R: the first qualifying nodes, with the head's share on each
  if (shape.kind === 'nodes') {
    for (let i = 0; i < shape.required; i++) {
      const n = qualifying[i]!;
      res.reserveNode(n, freeOf(n), memOf(n), shape.share, shape.memPerTask);
    }
  } else {
    let left = shape.required;
    const nodes = qualifying.slice().sort((a, b) => a - b);
    for (const n of nodes) {
      if (left <= 0) break;
      const k = Math.min(capOf(n), left);
      if (k <= 0) continue;
      res.reserveNode(n, freeOf(n), memOf(n), k, shape.memPerTask);
      left -= k;
    }
  }
  return res;
}
