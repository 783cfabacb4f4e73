/**
 * IRMaSim's `Backfill` workload manager (`irmasim/workload_manager/Backfill.py`), as its code does it.
 *
 * Every job runs on ONE node, all its tasks on that node's first idle cores. The manager keeps a list
 * of the nodes with an idle core (`idle_nodes`, platform order at first; a node that fills up leaves
 * it and comes back at the END when a job on it ends) and, at every decision point, repeats:
 *
 * 1. sort `idle_nodes` in place by the resource order (stable, so earlier orders break ties), or
 *    shuffle it for `random`; the `energy_*`/`edp_*` orders sort it once per pending job, in queue
 *    order, each time by that job's estimate, so the last pending job's estimate decides, the others
 *    break its ties;
 * 2. the first pending job (FIFO) goes to the first node in that list with enough idle cores; if it
 *    went, repeat from 1;
 * 3. else every later pending job, in queue order, goes to the first node (list order at that moment)
 *    that has as many cores in all, and is empty, or passes the backfill check; then stop.
 *
 * Backfill check of job J on node n, with H the first pending job: n's running jobs sorted by
 * expected end (`start + req_time`, stable); the shadow time is the expected end of the first of them
 * after which n's idle cores plus the cores they release reach H's tasks (the last one's when never);
 * `extra` = n's cores - H's tasks - the tasks of the jobs after that one. J passes when it fits n's idle
 * cores and either J's tasks <= extra or `now + J.req_time <= shadow`.
 *
 * Resource orders (ascending; ties keep the list's order): `first` (node id as a string), `random`,
 * `high_gflops` (`-mops` of the first processor: IRMaSim's code reads an attribute that does not exist
 * here and crashes; this is what the name evidently means, as in `Heuristic`), `high_cores` (`-cores`
 * of the node, busy or not), `high_mem` (`-memory in use`), `high_mem_bw` (bandwidth requested on the
 * first processor), `low_power` (`(static/cores + dynamic) * cores` of the first core),
 * `energy_lowest`/`energy_highest`/`edp_lowest`/`edp_highest` (the estimates of `nodes.ts`, `-` for
 * highest).
 */
import type { Rng } from '../../core/rng.js';
import type { ClusterSimulator, JobRecord } from '../../execution/simulator.js';
import type { Job } from '../../workload/job.js';
import type { Scheduler } from '../scheduler.js';
import { AssignedJobs, firstIdleCores, NodeEnergyEstimate, runningJobsOn } from './nodes.js';
import { nodeMemoryInUse } from '../resourceSelection.js';

/** IRMaSim's `Backfill` resource orders. */
export const BACKFILL_RESOURCE_SELECTIONS = [
  'first',
  'random',
  'high_gflops',
  'high_cores',
  'high_mem',
  'high_mem_bw',
  'low_power',
  'energy_lowest',
  'energy_highest',
  'edp_lowest',
  'edp_highest',
] as const;
/** A `Backfill` resource order. */
export type BackfillResourceSelection = (typeof BACKFILL_RESOURCE_SELECTIONS)[number];

/** Stable in-place sort of `nodes` by `key` (a string key compares as a string). */
function sortNodes(nodes: number[], key: (n: number) => number | string): void {
  const keys = new Map<number, number | string>();
  for (const n of nodes) keys.set(n, key(n));
  const pos = new Map<number, number>();
  nodes.forEach((n, i) => {
    pos.set(n, i);
  });
  nodes.sort((a, b) => {
    const ka = keys.get(a)!;
    const kb = keys.get(b)!;
    if (ka < kb) return -1;
    if (ka > kb) return 1;
    return pos.get(a)! - pos.get(b)!;
  });
}

/** IRMaSim's `Backfill` (see the module comment). */
export class IrmasimBackfill implements Scheduler {
  readonly name: string;
  private sim: ClusterSimulator | null = null;
  private idle: number[] = [];
  private readonly busy = new Set<number>();
  private assigned!: AssignedJobs;
  private energy!: NodeEnergyEstimate;

  constructor(
    readonly resource: BackfillResourceSelection,
    private readonly rng: Rng,
  ) {
    this.name = `Backfill(${resource})`;
  }

  /** All tasks of a job on one node: the job the engine sees. */
  static shape(job: Job): Job {
    return { ...job, type: 'seq', nodes: 1, ntasksPerNode: 0 };
  }

  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    this.sim = sim;
    this.idle = Array.from({ length: sim.platform.nodeCount }, (_, n) => n);
    this.busy.clear();
    this.assigned = new AssignedJobs(sim.platform);
    this.energy = new NodeEnergyEstimate(sim.platform);
    sim.addListener({
      onStart: (s, rj) => this.sim === sim && this.jobStarted(s, s.platform.coreNode[rj.cores[0]!]!),
      onEnd: (s, rec) => this.sim === sim && this.jobEnded(s, rec),
    });
  }

  /** IRMaSim's `allocate` bookkeeping (kept from the engine's events, so it holds whoever starts the job). */
  private jobStarted(sim: ClusterSimulator, node: number): void {
    if (sim.nodeFree[node] === 0) {
      const i = this.idle.indexOf(node);
      if (i >= 0) this.idle.splice(i, 1);
      this.busy.add(node);
    }
    this.assigned.add(node, 1);
  }

  /** IRMaSim's `on_job_completion` bookkeeping: a node that was full is idle again, at the end of the list. */
  private jobEnded(sim: ClusterSimulator, rec: JobRecord): void {
    if (rec.state === 'rejected') return;
    const node = sim.platform.coreNode[rec.cores[0]!]!;
    if (this.busy.delete(node)) this.idle.push(node);
    this.assigned.add(node, -1);
  }

  schedule(sim: ClusterSimulator): void {
    this.attach(sim);
    while (this.scheduleNext(sim));
  }

  /** IRMaSim's `schedule_next_job`: true when the first pending job started (then it is called again). */
  private scheduleNext(sim: ClusterSimulator): boolean {
    const head = sim.queue.first();
    if (!head || this.idle.length === 0) return false;
    this.orderIdleNodes(sim);
    for (const n of this.idle)
      if (sim.nodeFree[n]! >= head.ntasks) {
        this.allocate(sim, n, head);
        return true;
      }
    const later = sim.waiting.slice(1);
    for (const job of later)
      for (const n of this.idle.slice()) {
        const cores = sim.platform.nodeCoreCount[n]!;
        if (job.ntasks > cores) continue;
        if (sim.nodeFree[n] === cores || this.passes(sim, n, job, head)) {
          this.allocate(sim, n, job);
          break;
        }
      }
    return false;
  }

  private orderIdleNodes(sim: ClusterSimulator): void {
    const p = sim.platform;
    const e = this.energy;
    switch (this.resource) {
      case 'random':
        this.rng.shuffle(this.idle);
        return;
      case 'first':
        sortNodes(this.idle, (n) => p.nodeName[n]!);
        return;
      case 'high_gflops':
        sortNodes(this.idle, (n) => -p.procMops[p.nodeFirstProc[n]!]!);
        return;
      case 'high_cores':
        sortNodes(this.idle, (n) => -p.nodeCoreCount[n]!);
        return;
      case 'high_mem':
        sortNodes(this.idle, (n) => -nodeMemoryInUse(sim, n));
        return;
      case 'high_mem_bw':
        sortNodes(this.idle, (n) => sim.procMemLoad[p.nodeFirstProc[n]!]!);
        return;
      case 'low_power':
        sortNodes(this.idle, (n) => {
          const q = p.nodeFirstProc[n]!;
          return (p.procStaticPower[q]! / p.procCoreCount[q]! + p.procDynamicPower[q]!) * p.nodeCoreCount[n]!;
        });
        return;
      default: {
        const sign = this.resource.endsWith('_highest') ? -1 : 1;
        const edp = this.resource.startsWith('edp');
        for (const job of sim.waiting) sortNodes(this.idle, (n) => sign * (edp ? e.edp(job, n, this.assigned.get(n)) : e.energy(job, n, this.assigned.get(n))));
      }
    }
  }

  /** IRMaSim's `check_backfill(node, job)` against the first pending job `head`. */
  private passes(sim: ClusterSimulator, n: number, job: Job, head: Job): boolean {
    const running = runningJobsOn(sim, n);
    const end = (r: (typeof running)[number]) => r.start + r.job.reqTime;
    const order = running.map((r, i) => ({ r, i })).sort((a, b) => end(a.r) - end(b.r) || a.i - b.i);
    let idleAfter = sim.nodeFree[n]!;
    let shadow = end(order[order.length - 1]!.r);
    let i = 0;
    for (; i < order.length; i++) {
      idleAfter += order[i]!.r.job.ntasks;
      if (idleAfter >= head.ntasks) {
        shadow = end(order[i]!.r);
        break;
      }
    }
    if (i === order.length) i = order.length - 1;
    let extra = sim.platform.nodeCoreCount[n]! - head.ntasks;
    for (let k = i + 1; k < order.length; k++) extra -= order[k]!.r.job.ntasks;
    const idle = sim.nodeFree[n]!;
    if (job.ntasks <= extra && job.ntasks <= idle) return true;
    return job.ntasks <= idle && sim.now + job.reqTime <= shadow;
  }

  private allocate(sim: ClusterSimulator, n: number, job: Job): void {
    sim.startJob(job, firstIdleCores(sim, n, job.ntasks)!);
  }
}
