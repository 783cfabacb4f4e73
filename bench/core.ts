/**
 * Benchmark of the simulation core (issue "Simulation core"): generated jobs on the embedded
 * heterogeneous platform `hetero-20` (20 nodes, 496 cores of 4 to 64 per node, 2.0 to 3.5 GHz) with
 * IRMaSim modelV1 memory contention, shared-link communication contention and energy, FCFS + first.
 *
 * Jobs are drawn on the fly (a generator, nothing retained): Poisson arrivals (mean 28 s apart, a
 * utilisation of about 0.85-0.9 under FCFS, so the queue stays bounded), 70 % `seq` jobs of 1 to 16 tasks and 30 % `mpi` jobs of 8 to 64 tasks with
 * communication, lognormal work, memory traffic on every task (so contention is computed).
 * Reports jobs/s at 10,000 and 100,000 jobs, the ratio of the cost per job, and peak RSS.
 */
import { resolve } from 'node:path';
import { derive } from '../src/core/rng.js';
import { loadPlatform } from '../src/platform/loader.js';
import { runSimulation } from '../src/scheduling/run.js';
import { ListScheduler } from '../src/scheduling/scheduler.js';
import type { Job } from '../src/workload/job.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';

/** Jobs for hetero-20, streamed. */
export function* heteroJobs(n: number, seed = 1): Generator<Job> {
  const rng = derive(seed, 'bench-core');
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += rng.exponential(1 / 28);
    const mpi = rng.next() < 0.3;
    const ntasks = mpi ? 8 + rng.int(57) : 1 + rng.int(16);
    const seconds = Math.min(20000, rng.lognormal(Math.log(300), 1.0));
    const ops = Math.ceil(seconds * 12e9);
    yield {
      id: String(i),
      subtime: t,
      ntasks,
      reqTime: Math.ceil(seconds * 3),
      reqEnergy: 0,
      type: mpi ? 'mpi' : 'seq',
      work: 'ops',
      ops,
      runtime: 0,
      mem: 100 + rng.int(900),
      memVol: seconds * (200 + rng.int(2800)),
      commVol: mpi ? Math.exp(rng.uniform(Math.log(1e6), Math.log(1e9))) : 0,
      tCompute: mpi ? rng.uniform(0.7, 0.95) : 1,
      nodes: mpi ? 0 : 1,
      ntasksPerNode: 0,
      tasks: null,
      source: `job ${i}`,
    };
  }
}

/** Figures of one run. */
export interface CoreRun {
  jobs: number;
  seconds: number;
  jobs_per_s: number;
  events_per_s: number;
  makespan: number;
  utilisation: number;
  energy: number;
}

/** Simulates `n` generated jobs; returns the figures. */
export function runCore(n: number): CoreRun {
  const platform = loadPlatform(resolve(PACKAGE_ROOT, 'data/platforms/hetero-20.json'));
  let events = 0;
  const t0 = performance.now();
  const { summary } = runSimulation(platform, heteroJobs(n), new ListScheduler(), {
    listeners: [{ onAdvance: () => void events++ }],
  });
  const seconds = (performance.now() - t0) / 1000;
  if (summary.jobs_finished !== n) throw new Error(`expected ${n} finished jobs, got ${summary.jobs_finished}`);
  return {
    jobs: n,
    seconds,
    jobs_per_s: n / seconds,
    events_per_s: events / seconds,
    makespan: summary.makespan,
    utilisation: summary.utilisation,
    energy: summary.energy,
  };
}

/** The figures: jobs/s at 10k and 100k jobs, cost-per-job ratio. */
export function benchCore(): Record<string, unknown> {
  runCore(2000); // warm-up (JIT)
  const small = runCore(10_000);
  const large = runCore(100_000);
  const costSmall = small.seconds / small.jobs;
  const costLarge = large.seconds / large.jobs;
  return { small, large, cost_ratio_100k_vs_10k: costLarge / costSmall };
}
