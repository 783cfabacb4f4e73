/**
 * IRMaSim's `EnergyHeuristic` workload manager (`irmasim/workload_manager/EnergyHeuristic.py`), as its
 * code does it.
 *
 * Pending jobs are kept sorted by a job key (ties: arrival order), by `metric` and `job_selection`:
 *
 *     timetasks: req_time * ntasks      energy: req_energy * ntasks      edp: req_energy * req_time * ntasks
 *
 * ascending for `lowest`, descending for `highest`. When jobs arrive, or when at least one job ends,
 * it makes two passes over the pending jobs in that order: first over those that have waited 60 s or
 * more, then over all; in each, every job that finds a node starts there at once (no head blocking).
 * A job's node is, among the nodes in platform order with at least `ntasks_per_node` idle cores, the
 * one with the strictly lowest estimate (the first of equals): `node_energy` for metrics `energy` and
 * `timetasks`, `node_edp` for `edp` (see `nodes.ts`), negated for `resource_selection: highest`.
 *
 * All the job's tasks go to the chosen node's first idle cores. IRMaSim's code does this for every
 * job; for a job that asks for several nodes it then starts only the tasks that fit and the job never
 * ends. clustergym runs every job on one node (a job the node cannot hold whole does not start
 * there), which is what the code does for one-node jobs and evidently means for the others.
 */
import type { ClusterSimulator } from '../../execution/simulator.js';
import type { Job } from '../../workload/job.js';
import type { Scheduler } from '../scheduler.js';
import { SortedList } from '../sortedList.js';
import { AssignedJobs, firstIdleCores, NodeEnergyEstimate } from './nodes.js';

/** `EnergyHeuristic`'s metrics. */
export const ENERGY_METRICS = ['energy', 'edp', 'timetasks'] as const;
/** `lowest` or `highest` first. */
export const ENERGY_DIRECTIONS = ['lowest', 'highest'] as const;
export type EnergyMetric = (typeof ENERGY_METRICS)[number];
export type EnergyDirection = (typeof ENERGY_DIRECTIONS)[number];

/** The job key of a metric (before the direction's sign). */
export function energyJobKey(metric: EnergyMetric, job: Job): number {
  switch (metric) {
    case 'timetasks':
      return job.reqTime * job.ntasks;
    case 'energy':
      return job.reqEnergy * job.ntasks;
    case 'edp':
      return job.reqEnergy * job.reqTime * job.ntasks;
  }
}

/** Jobs waiting at least this long (s) are tried first. */
export const AGED_WAIT = 60;

interface Entry {
  key: number;
  seq: number;
  job: Job;
}

/** IRMaSim's `EnergyHeuristic` (see the module comment). */
export class EnergyHeuristic implements Scheduler {
  readonly name: string;
  private sim: ClusterSimulator | null = null;
  private pending = new SortedList<Entry>((a, b) => a.key - b.key || a.seq - b.seq);
  private readonly entries = new Map<Job, Entry>();
  private seq = 0;
  private assigned!: AssignedJobs;
  private estimate!: NodeEnergyEstimate;
  /** Jobs arrived, started or ended since the last call (IRMaSim schedules on arrivals and ends). */
  private triggered = false;

  constructor(
    readonly metric: EnergyMetric = 'energy',
    readonly jobSelection: EnergyDirection = 'lowest',
    readonly resourceSelection: EnergyDirection = 'lowest',
  ) {
    this.name = `EnergyHeuristic(${metric}, ${jobSelection}, ${resourceSelection})`;
  }

  /** All tasks of a job on one node: the job the engine sees. */
  static shape(job: Job): Job {
    return { ...job, type: 'seq', nodes: 1, ntasksPerNode: 0 };
  }

  private enqueue(job: Job): void {
    const e = { key: (this.jobSelection === 'lowest' ? 1 : -1) * energyJobKey(this.metric, job), seq: this.seq++, job };
    this.entries.set(job, e);
    this.pending.insert(e);
    this.triggered = true;
  }

  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    this.sim = sim;
    this.pending = new SortedList<Entry>((a, b) => a.key - b.key || a.seq - b.seq);
    this.entries.clear();
    this.assigned = new AssignedJobs(sim.platform);
    this.estimate = new NodeEnergyEstimate(sim.platform);
    for (const j of sim.waiting) this.enqueue(j);
    sim.addListener({
      onSubmit: (_s, job) => {
        if (this.sim === sim) this.enqueue(job);
      },
      onStart: (s, rj) => {
        if (this.sim !== sim) return;
        this.assigned.add(s.platform.coreNode[rj.cores[0]!]!, 1);
        // asked again after a start (an agent starts one job per step), a pass goes on where it was
        this.triggered = true;
        const e = this.entries.get(rj.job);
        if (e) {
          this.pending.delete(e);
          this.entries.delete(rj.job);
        }
      },
      onEnd: (s, rec) => {
        if (this.sim !== sim) return;
        this.assigned.add(s.platform.coreNode[rec.cores[0]!]!, -1);
        this.triggered = true;
      },
    });
  }

  schedule(sim: ClusterSimulator): void {
    this.attach(sim);
    if (!this.triggered) return;
    this.triggered = false;
    this.pass(sim, (job) => sim.now - job.subtime >= AGED_WAIT);
    this.pass(sim, () => true);
  }

  /** One pass over the pending jobs in order: each job `which` selects starts on its node if it has one. */
  private pass(sim: ClusterSimulator, which: (job: Job) => boolean): void {
    for (const e of this.pending.toArray()) {
      if (!this.entries.has(e.job) || !which(e.job)) continue;
      const node = this.selectNode(sim, e.job);
      if (node >= 0) sim.startJob(e.job, firstIdleCores(sim, node, e.job.ntasks)!);
    }
  }

  /** The node with the strictly lowest estimate among those with room, or -1. */
  private selectNode(sim: ClusterSimulator, job: Job): number {
    const sign = this.resourceSelection === 'lowest' ? 1 : -1;
    let best = Infinity;
    let node = -1;
    for (let n = 0; n < sim.platform.nodeCount; n++) {
      if (sim.nodeFree[n]! < job.ntasks) continue;
      const a = this.assigned.get(n);
      const est = sign * (this.metric === 'edp' ? this.estimate.edp(job, n, a) : this.estimate.energy(job, n, a));
      if (est < best) {
        best = est;
        node = n;
      }
    }
    return node;
  }
}
