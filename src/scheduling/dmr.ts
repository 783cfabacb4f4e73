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
import type { ClusterSimulator, DecisionMaker, ResizeDecider, RunningJob } from '../execution/simulator.js';
import type { Job } from '../workload/job.js';
import { nominalRuntime, stepTime } from '../workload/malleability.js';
import { type Decision, dmrPolicy, type PointContext, type ResizePolicy } from './resizePolicy.js';

/** Nodes a job asks for: its node count (a malleable job's size at submission). */
function sizeOf(job: Job): number {
  return job.nodes > 0 ? job.nodes : job.ntasks;
}

/** The batch scheduler of the DMR model (module comment). */
export class DmrScheduler implements DecisionMaker {
  readonly name = 'dmr-fcfs+easy';
  /** Waiting jobs in priority order. */
  private order: Job[] = [];
  /** Running jobs in start order. */
  private readonly active: RunningJob[] = [];
  /** `queuedSizes` cached until the order changes. */
  private sizes: number[] | null = null;
  private sim: ClusterSimulator | null = null;

  /** Attaches to `sim` (once): follows its arrivals, starts and ends. */
  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    if (this.sim !== null) throw new Error('a DmrScheduler serves one engine');
    this.sim = sim;
    for (const j of sim.waiting) this.order.push(j);
    sim.addListener({
      onSubmit: (_s, job) => {
        this.order.push(job);
        this.sizes = null;
      },
      onEnd: (_s, _rec, rj) => {
        const at = rj ? this.active.indexOf(rj) : -1;
        if (at >= 0) this.active.splice(at, 1);
      },
      onReject: (_s, rec) => {
        const at = this.order.indexOf(rec.job);
        if (at >= 0) this.order.splice(at, 1);
        this.sizes = null;
      },
    });
  }

  /** Nodes no job holds (jobs hold whole nodes: the idle ones). */
  freeNodes(sim: ClusterSimulator): number {
    return sim.allocation.idleNodes;
  }

  /** Sizes (nodes) of the waiting jobs in priority order. */
  queuedSizes(): readonly number[] {
    if (this.sizes === null) this.sizes = this.order.map(sizeOf);
    return this.sizes;
  }

  /** The waiting job at position `i` of the priority order. */
  queued(i: number): Job | undefined {
    return this.order[i];
  }

  promote(_sim: ClusterSimulator, job: Job): void {
    const at = this.order.indexOf(job);
    if (at > 0) {
      this.order.splice(at, 1);
      this.order.unshift(job);
      this.sizes = null;
    }
  }

  schedule(sim: ClusterSimulator): void {
    this.attach(sim);
    const q = this.order;
    this.sizes = null;
    let free = this.freeNodes(sim);
    let h = 0;
    while (h < q.length && sizeOf(q[h]!) <= free) {
      free -= sizeOf(q[h]!);
      this.start(sim, q[h++]!);
    }
    if (h > 0) q.splice(0, h);
    if (q.length <= 1 || free === 0) return;
    // the head's reservation
    const need = sizeOf(q[0]!);
    const releases: [number, number][] = [];
    for (const rj of this.active) {
      const s = rj.malleable;
      if (s === null) releases.push([rj.start + rj.job.runtime, rj.nodes.length]);
      else if (!s.resizing) releases.push([s.estEnd, s.size]);
      else {
        releases.push([s.estEnd, s.target]);
        if (s.target < s.size) releases.push([s.resizeEnd, s.size - s.target]);
      }
    }
    releases.sort((a, b) => a[0] - b[0]);
    let avail = free;
    let shadow = Number.POSITIVE_INFINITY;
    for (const [t, n] of releases) {
      if (avail >= need && t > shadow) break;
      avail += n;
      if (avail >= need && shadow === Number.POSITIVE_INFINITY) shadow = t;
    }
    let extra = avail - need;
    const keep: Job[] = [q[0]!];
    for (let k = 1; k < q.length; k++) {
      const j = q[k]!;
      const n = sizeOf(j);
      if (n <= free) {
        const end = sim.now + (j.malleable ? j.malleable.steps * stepTime(j.malleable.speedup, n) : j.runtime);
        if (end <= shadow) {
          free -= n;
          this.start(sim, j);
          continue;
        }
        if (n <= extra) {
          extra -= n;
          free -= n;
          this.start(sim, j);
          continue;
        }
      }
      keep.push(j);
    }
    this.order = keep;
  }

  /** Starts `job` on the first whole free nodes, its tasks dealt over them (task `t` on the `t mod n`-th). */
  private start(sim: ClusterSimulator, job: Job): void {
    const n = sizeOf(job);
    const per = Math.ceil(job.ntasks / n);
    const cores = new Int32Array(job.ntasks);
    const p = sim.platform;
    let found = 0;
    for (let node = sim.freeTree.findFirst(0, 1); node >= 0 && found < n; node = sim.freeTree.findFirst(node + 1, 1)) {
      if (sim.nodeFree[node] !== p.nodeCoreCount[node]) continue;
      for (let t = found, k = 0; t < job.ntasks; t += n, k++) cores[t] = p.nodeFirstCore[node]! + k;
      found++;
    }
    if (found < n || per > p.maxNodeCores) throw new Error(`dmr: job ${job.id} needs ${n} whole nodes, ${found} are free`);
    const rj = sim.startJob(job, cores, { transfer: true });
    this.active.push(rj);
  }
}

/**
 * A resize decider of the engine from a reconfiguration policy (`dmr`, `never`, or a learned one): it
 * sees the DMR scheduler's view (free nodes, the waiting jobs' sizes in priority order) and promotes the
 * job its decision names.
 */
export function dmrResizeDecider(scheduler: DmrScheduler, policy: ResizePolicy = dmrPolicy): ResizeDecider {
  return (sim, rj) => {
    const s = rj.malleable!;
    if (s.work.spec === null) return { size: s.size };
    const ctx: PointContext = { time: sim.now, free: scheduler.freeNodes(sim), size: s.size, spec: s.work.spec, queue: scheduler.queuedSizes(), kind: 'point' };
    const d: Decision = policy(ctx);
    return { size: d.size, promote: d.promote >= 0 ? scheduler.queued(d.promote) : undefined };
  };
}

/** The rigid nominal run time of a job of the DMR model at its submitted size (its steps at `max`). */
export function dmrNominalRuntime(job: Job): number {
  return job.malleable ? nominalRuntime(job.malleable, sizeOf(job)) : job.runtime;
}
