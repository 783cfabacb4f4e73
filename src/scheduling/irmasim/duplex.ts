/**
 * IRMaSim's `Duplex` workload manager (`irmasim/workload_manager/Duplex.py`): list scheduling of each
 * batch of arriving jobs onto per-node queues by estimated completion time, with the Min-Min or
 * Max-Min order, or whichever of the two finishes the batch earlier (`duplex`).
 *
 * A node's speed-up is its first processor's `mops` over the slowest node's. For a batch (the jobs
 * submitted at one instant), jobs are taken in ascending `req_time` (Min-Min) or descending (Max-Min),
 * ties in arrival order, and each goes to the node where it would complete first (the first of
 * equals), its completion estimated as the completion of the last job given to that node in this
 * batch, else of the last job in that node's queue, else now, plus `req_time / speed-up`; nodes with
 * fewer cores than the job's `ntasks_per_node` are skipped. `duplex` computes both schedules and
 * keeps Min-Min when its latest completion is strictly earlier, else Max-Min — and, as IRMaSim's code
 * does, keeps that choice for every later batch.
 *
 * At every decision point each node's queue is walked in order and every entry not yet started whose
 * job fits the node's idle cores starts there (later entries may overtake one that does not fit); an
 * entry leaves its queue when its job ends. All of a job's tasks go to its node's first idle cores;
 * as in `EnergyHeuristic`, clustergym runs every job wholly on its node (IRMaSim's code starts only
 * the tasks that fit and never ends a job that asks for more than its node's idle cores). A job no
 * node can hold whole is never planned (IRMaSim's code fails on it; `simulate --irmasim` refuses
 * such a workload before it runs).
 */
import type { ClusterSimulator } from '../../execution/simulator.js';
import type { Job } from '../../workload/job.js';
import type { Scheduler } from '../scheduler.js';
import { firstIdleCores } from './nodes.js';

/** `Duplex`'s scheduling options. */
export const DUPLEX_OPTIONS = ['duplex', 'min_min', 'max_min'] as const;
export type DuplexOption = (typeof DUPLEX_OPTIONS)[number];

interface Entry {
  node: number;
  job: Job;
  completion: number;
  running: boolean;
}

/** IRMaSim's `Duplex` (see the module comment). */
export class Duplex implements Scheduler {
  readonly name: string;
  private sim: ClusterSimulator | null = null;
  private queues: Entry[][] = [];
  private speedup = new Float64Array(0);
  private batch: Job[] = [];
  private option: DuplexOption;

  constructor(option: DuplexOption = 'duplex') {
    this.option = option;
    this.name = `Duplex(${option})`;
  }

  /** All tasks of a job on one node: the job the engine sees. */
  static shape(job: Job): Job {
    return { ...job, type: 'seq', nodes: 1, ntasksPerNode: 0 };
  }

  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    this.sim = sim;
    const p = sim.platform;
    this.queues = Array.from({ length: p.nodeCount }, () => []);
    let lowest = Infinity;
    for (let n = 0; n < p.nodeCount; n++) lowest = Math.min(lowest, p.procMops[p.nodeFirstProc[n]!]!);
    this.speedup = Float64Array.from({ length: p.nodeCount }, (_, n) => p.procMops[p.nodeFirstProc[n]!]! / lowest);
    this.batch = sim.waiting.slice();
    sim.addListener({
      onSubmit: (_s, job) => {
        if (this.sim === sim) this.batch.push(job);
      },
      onStart: (_s, rj) => {
        if (this.sim !== sim) return;
        for (const q of this.queues) for (const e of q) if (e.job === rj.job) e.running = true;
      },
      onEnd: (_s, rec) => this.forget(sim, rec.job),
      onReject: (_s, rec) => this.forget(sim, rec.job),
    });
  }

  /** A job left the system (ended or rejected): its queue entry goes. */
  private forget(sim: ClusterSimulator, job: Job): void {
    if (this.sim !== sim) return;
    for (const q of this.queues) {
      const i = q.findIndex((e) => e.job === job);
      if (i >= 0) q.splice(i, 1);
    }
  }

  schedule(sim: ClusterSimulator): void {
    this.attach(sim);
    if (this.batch.length > 0) {
      this.plan(sim, this.batch);
      this.batch = [];
    }
    const p = sim.platform;
    for (let n = 0; n < p.nodeCount; n++)
      for (const e of this.queues[n]!) {
        if (e.running || e.job.ntasks > sim.nodeFree[n]!) continue;
        sim.startJob(e.job, firstIdleCores(sim, n, e.job.ntasks)!);
      }
  }

  /** IRMaSim's `on_job_submission` planning of a batch. */
  private plan(sim: ClusterSimulator, jobs: Job[]): void {
    const byTime = (sign: number) =>
      jobs
        .map((j, i) => ({ j, i }))
        .sort((a, b) => sign * a.j.reqTime - sign * b.j.reqTime || a.i - b.i)
        .map((x) => x.j);
    let chosen: Entry[];
    if (this.option === 'duplex') {
      const minMin = this.schedule1(sim, byTime(1));
      const maxMin = this.schedule1(sim, byTime(-1));
      const last = (s: Entry[]) => Math.max(...s.map((e) => e.completion));
      this.option = last(minMin) < last(maxMin) ? 'min_min' : 'max_min';
      chosen = this.option === 'min_min' ? minMin : maxMin;
    } else chosen = this.schedule1(sim, byTime(this.option === 'min_min' ? 1 : -1));
    for (const e of chosen) this.queues[e.node]!.push(e);
  }

  /** IRMaSim's `create_schedule`. */
  private schedule1(sim: ClusterSimulator, jobs: Job[]): Entry[] {
    const p = sim.platform;
    const out: Entry[] = [];
    const lastHere = new Map<number, number>();
    for (const job of jobs) {
      let best = -1;
      let node = -1;
      for (let n = 0; n < p.nodeCount; n++) {
        if (job.ntasks > p.nodeCoreCount[n]!) continue;
        const q = this.queues[n]!;
        const base = lastHere.get(n) ?? (q.length > 0 ? q[q.length - 1]!.completion : sim.now);
        const completion = base + job.reqTime / this.speedup[n]!;
        if (completion > 0 && (best === -1 || completion < best)) {
          best = completion;
          node = n;
        }
      }
      if (node < 0) continue; // no node holds it whole (IRMaSim's code fails there): never planned
      out.push({ node, job, completion: best, running: false });
      lastHere.set(node, best);
    }
    return out;
  }
}
