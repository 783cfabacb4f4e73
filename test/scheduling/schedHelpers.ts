/**
 * Helpers of the scheduling suites: small platforms, delay jobs, and a run that returns each job's
 * record by id.
 */
import type { JobRecord } from '../../src/execution/simulator.js';
import { parsePlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { makeScheduler, type MakeSchedulerOptions } from '../../src/scheduling/policyName.js';
import { runSimulation, type RunOptions } from '../../src/scheduling/run.js';
import type { Scheduler } from '../../src/scheduling/scheduler.js';
import { makeJob, type Job } from '../../src/workload/job.js';

/** `nodes` nodes of one processor of `cores` cores, `memGb` GB each, no contention, no power. */
export function homogeneous(nodes: number, cores: number, memGb = 64): Platform {
  return parsePlatform(
    {
      name: `${nodes}x${cores}`,
      models: { memory: 'none', comm: 'shared' },
      clusters: [{ nodes: [{ count: nodes, memory_gb: memGb, processors: [{ cores, clock_rate: 1, dpflops_per_cycle: 1 }] }] }],
    },
    'test platform',
  );
}

/** A `delay` MPI job on any cores (count-based), `req_time` = run time unless given. */
export function mpi(id: string, subtime: number, ntasks: number, runtime: number, fields: Partial<Job> = {}): Job {
  return makeJob({ id, subtime, ntasks, runtime, ...fields });
}

/** A `delay` seq job (all tasks on one node). */
export function seq(id: string, subtime: number, ntasks: number, runtime: number, fields: Partial<Job> = {}): Job {
  return makeJob({ id, subtime, ntasks, runtime, type: 'seq', nodes: 1, ...fields });
}

/** Result of `runPolicy`. */
export interface PolicyRun {
  byId: Map<string, JobRecord>;
  /** `id -> start` */
  starts: Record<string, number>;
  /** `id -> distinct node ids` */
  nodes: Record<string, number[]>;
  records: JobRecord[];
}

/** Runs `jobs` on `platform` under a policy name (or scheduler) and collects the job records. */
export function runPolicy(platform: Platform, jobs: Job[], policy: string | Scheduler, options: MakeSchedulerOptions = {}, run: RunOptions = {}): PolicyRun {
  const records: JobRecord[] = [];
  const scheduler = typeof policy === 'string' ? makeScheduler(policy, options) : policy;
  runSimulation(platform, jobs, scheduler, { ...run, listeners: [...(run.listeners ?? []), { onEnd: (_s, r) => records.push(r) }] });
  const byId = new Map(records.map((r) => [r.job.id, r]));
  const starts: Record<string, number> = {};
  const nodes: Record<string, number[]> = {};
  for (const r of records) {
    starts[r.job.id] = r.start;
    nodes[r.job.id] = Array.from(r.nodes);
  }
  return { byId, starts, nodes, records };
}
