/**
 * Benchmark of scheduling at scale (issue "Workloads and scheduling", Speed): 1,000,000 generated
 * `delay` jobs on a homogeneous cluster of 10,000 nodes x 16 cores (160,000 cores; memory model
 * `none`) under `fcfs:first+easy`. Target: at least 100,000 jobs/s and a peak RSS under 1.5 GB.
 *
 * Jobs come from the streaming Poisson generator (`poissonJobs`, nothing retained): `mpi` jobs of
 * lognormal size (`exp(N(1.5, 1.5))` tasks, 1 to 4,096), lognormal run time (`exp(N(6, 1.5))` s,
 * at least 1 s), requested time `runtime x U[1, 3)` (users over-estimate, so backfilling has room),
 * arrivals at 9 jobs/s. A job asks on average about 16,900 core-seconds, so the offered load is about
 * 0.95 of the cluster: the queue builds up to a few hundred jobs and about one job in seven is
 * backfilled (at 9.5 jobs/s, a load of 1.0, the queue grows to ~18,000 jobs and half the jobs are
 * backfilled; `runScheduling(n, policy, nodes, rate)` runs such variants). The figures include the
 * EASY activity (decision points, jobs backfilled, longest queue) so that a regression that stops
 * backfilling shows.
 *
 * Run alone: `npm run build && node --expose-gc dist/bench/scheduling.js [jobs]`.
 */
import { pathToFileURL } from 'node:url';
import { parsePlatform } from '../src/platform/loader.js';
import type { Platform } from '../src/platform/platform.js';
import { makeScheduler } from '../src/scheduling/policyName.js';
import { runSimulation } from '../src/scheduling/run.js';
import { poissonJobs, type PoissonConfig } from '../src/workload/generators.js';

/** The 10,000 x 16 cluster (or `nodes` x 16). */
export function bigCluster(nodes = 10_000): Platform {
  return parsePlatform(
    {
      name: `homogeneous-${nodes}x16`,
      models: { memory: 'none', comm: 'shared' },
      clusters: [
        {
          nodes: [
            {
              count: nodes,
              memory_gb: 64,
              processors: [{ count: 1, cores: 16, clock_rate: 2.5, dpflops_per_cycle: 8, static_power: 60, dynamic_power: 8, min_power: 0.1 }],
            },
          ],
        },
      ],
    },
    'bench cluster',
  );
}

/** The generated workload's configuration for `jobs` jobs. */
export function benchWorkload(jobs: number, rate = 9): PoissonConfig {
  return {
    model: 'poisson',
    jobs,
    rate,
    size: { dist: 'lognormal', mu: 1.5, sigma: 1.5 },
    maxSize: 4096,
    runtime: { dist: 'lognormal', mu: 6, sigma: 1.5 },
    minRuntime: 1,
    reqTimeFactor: { min: 1, max: 3 },
    type: 'mpi',
    work: 'delay',
  };
}

/** Figures of one run. */
export interface SchedulingRun {
  policy: string;
  jobs: number;
  nodes: number;
  cores: number;
  seconds: number;
  jobs_per_s: number;
  decision_points: number;
  backfilled: number;
  max_queue: number;
  mean_wait: number;
  mean_bsld: number;
  utilisation: number;
  makespan: number;
  peak_rss_mb: number;
}

/** Simulates `jobs` generated jobs on `nodes` x 16 cores under `policy`, `rate` jobs/s per 10,000 nodes. */
export function runScheduling(jobs: number, policy = 'fcfs:first+easy', nodes = 10_000, rate = 9): SchedulingRun {
  const platform = bigCluster(nodes);
  const scheduler = makeScheduler(policy);
  let decisions = 0;
  let backfilled = 0;
  let maxQueue = 0;
  const counter = {
    name: scheduler.name,
    schedule(sim: Parameters<typeof scheduler.schedule>[0]) {
      decisions++;
      if (sim.queue.length > maxQueue) maxQueue = sim.queue.length;
      scheduler.schedule(sim);
    },
  };
  const t0 = performance.now();
  const { summary } = runSimulation(platform, poissonJobs(benchWorkload(jobs, rate * (nodes / 10_000)), 1), counter, {
    listeners: [
      {
        // under FCFS, a job that starts while an older one still waits was backfilled
        onStart: (sim, rj) => {
          const first = sim.queue.first();
          if (first && first.subtime < rj.job.subtime) backfilled++;
        },
      },
    ],
  });
  const seconds = (performance.now() - t0) / 1000;
  if (summary.jobs_finished !== jobs) throw new Error(`expected ${jobs} finished jobs, got ${summary.jobs_finished}`);
  return {
    policy: scheduler.name,
    jobs,
    nodes,
    cores: platform.coreCount,
    seconds,
    jobs_per_s: jobs / seconds,
    decision_points: decisions,
    backfilled,
    max_queue: maxQueue,
    mean_wait: summary.mean_wait,
    mean_bsld: summary.mean_bsld,
    utilisation: summary.utilisation,
    makespan: summary.makespan,
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

/** The figure: 1,000,000 jobs, 10,000 x 16 cores, `fcfs:first+easy` (after a short warm-up). */
export function benchMillionJobs(jobs = 1_000_000): Record<string, unknown> {
  runScheduling(20_000); // warm-up (JIT)
  const run = runScheduling(jobs);
  return { ...run, target_jobs_per_s: 100_000, target_peak_rss_mb: 1536, ok: run.jobs_per_s >= 100_000 && run.peak_rss_mb < 1536 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = process.argv[2] ? Number(process.argv[2]) : 1_000_000;
  console.log(JSON.stringify(benchMillionJobs(n), null, 2));
}
