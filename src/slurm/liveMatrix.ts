/**
 * The live matrix of issue 43 (docs/slurm.md, "The engine on any sane configuration"): configurations of a
 * Slurm 22.05 cluster of 8 emulated nodes of 4 CPUs and 4,000 MB, and a fresh workload of sleep jobs for
 * every run, on which the engine (`slurm-replay --slurm-conf`) is compared with two live runs.
 *
 * Axes: `bf_interval` {1, 30} x `bf_resolution` {1, 60} x priority {basic, multifactor} x jobs {tasks,
 * exclusive node counts, mixed}; `sched_interval` and `batch_sched_delay` at Slurm's defaults (60 s, 3 s) on
 * half the cells of every job kind and changed (20 s, 1 s) on the other half. The jobs:
 *
 * - `nodes`: `-N 1..4 --exclusive`-like jobs in an `OverSubscribe=EXCLUSIVE` partition (whole nodes);
 * - `tasks`: `-n 1..8` (1, 2, 3, 4, 6 or 8 CPUs) on shared nodes, `CR_CPU`;
 * - `mixed`: `CR_CPU_Memory` with `DefMemPerCPU=500`: a third of the jobs `-N 1..3 --exclusive`, the others
 *   `-n 1..6` with `--mem` of 300-3,000 MB per node (a fifth with the default), a quarter of all in the
 *   partition `short` (n[5-8], `PriorityJobFactor=2`) instead of `main` (n[1-8]).
 *
 * Multifactor: `PriorityWeightJobSize=1000`, `PriorityWeightPartition=1000`, `PriorityWeightAge=100000` (age
 * reorders jobs of one size after a minute or two of waiting), `PriorityCalcPeriod=1` (minute; the decay
 * thread ticks from slurmctld's start, which the live run records). Runs of 5-30 s, time limits of 1-3
 * minutes, Poisson arrivals at an offered load of 1.2. `SlurmctldDebug=debug2`: slurmctld's log then shows
 * its timers, which the comparison follows (`LiveRun.bgTicks`, `bfTicks`).
 */
import { derive } from '../core/rng.js';
import type { TraceJob } from './records.js';

/** The cluster of every cell. */
export const MATRIX_NODES = 8;
export const MATRIX_CPUS = 4;
export const MATRIX_MEMORY = 4000;

export type MatrixJobs = 'tasks' | 'nodes' | 'mixed';

/** One cell of the matrix. */
export interface MatrixCell {
  /** `bfi1-bfr60-basic-tasks-default`. */
  name: string;
  bfInterval: 1 | 30;
  bfResolution: 1 | 60;
  priority: 'basic' | 'multifactor';
  jobs: MatrixJobs;
  /** `default`: sched_interval 60 s, batch_sched_delay 3 s; `changed`: 20 s and 1 s. */
  sched: 'default' | 'changed';
}

/** The 24 cells (the scheduler timing alternates so that each job kind sees both on half its cells). */
export function matrixCells(): MatrixCell[] {
  const out: MatrixCell[] = [];
  for (const jobs of ['nodes', 'tasks', 'mixed'] as const)
    for (const bfInterval of [1, 30] as const)
      for (const bfResolution of [1, 60] as const)
        for (const priority of ['basic', 'multifactor'] as const) {
          const k = (bfInterval === 30 ? 1 : 0) + (bfResolution === 60 ? 1 : 0) + (priority === 'multifactor' ? 1 : 0);
          const sched = k % 2 === 0 ? 'default' : 'changed';
          out.push({ name: `bfi${bfInterval}-bfr${bfResolution}-${priority}-${jobs}-${sched}`, bfInterval, bfResolution, priority, jobs, sched });
        }
  return out;
}

/** The cell named `name` (an error listing the names when there is none). */
export function matrixCell(name: string): MatrixCell {
  const c = matrixCells().find((x) => x.name === name);
  if (!c)
    throw new Error(
      `no matrix cell ${JSON.stringify(name)}; cells: ${matrixCells()
        .map((x) => x.name)
        .join(', ')}`,
    );
  return c;
}

/**
 * The slurm.conf lines of a cell, for `deploy/slurm/local-cluster.sh`'s `SLURM_CONF_EXTRA` (the nodes are
 * the script's: `NODES=8 CPUS=4 MEMORY=4000`).
 */
export function cellConfLines(c: MatrixCell): string {
  const sched = [`bf_interval=${c.bfInterval}`, `bf_resolution=${c.bfResolution}`];
  if (c.sched === 'changed') sched.push('sched_interval=20', 'batch_sched_delay=1');
  // debug2: slurmctld's timers in its log (the background thread's ticks, every backfill pass)
  const lines = ['SchedulerType=sched/backfill', `SchedulerParameters=${sched.join(',')}`, 'MinJobAge=3600', 'SlurmctldDebug=debug2'];
  if (c.priority === 'basic') lines.push('PriorityType=priority/basic');
  else
    lines.push(
      'PriorityType=priority/multifactor',
      'PriorityWeightJobSize=1000',
      'PriorityWeightPartition=1000',
      'PriorityWeightAge=100000',
      'PriorityCalcPeriod=1',
    );
  const all = `n[1-${MATRIX_NODES}]`;
  if (c.jobs === 'nodes') lines.push(`PartitionName=debug Nodes=${all} Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE`);
  else if (c.jobs === 'tasks') lines.push('SelectTypeParameters=CR_CPU', `PartitionName=debug Nodes=${all} Default=YES MaxTime=INFINITE State=UP`);
  else
    lines.push(
      'SelectTypeParameters=CR_CPU_Memory',
      'DefMemPerCPU=500',
      `PartitionName=main Nodes=${all} Default=YES MaxTime=INFINITE State=UP PriorityJobFactor=1`,
      `PartitionName=short Nodes=n[${MATRIX_NODES / 2 + 1}-${MATRIX_NODES}] MaxTime=INFINITE State=UP PriorityJobFactor=2`,
    );
  return `${lines.join('\n')}\n`;
}

const TASK_CPUS = [1, 2, 3, 4, 6, 8];

/** A fresh workload of a cell's kind (`derive(seed, 'slurm-live-matrix')`; see the module comment). */
export function cellWorkload(kind: MatrixJobs, seed: number, jobs = 30, load = 1.2): TraceJob[] {
  const rng = derive(seed, `slurm-live-matrix-${kind}`);
  const shapes: { cpus: number; nodes: number; exclusive: boolean; memMb?: number; partition?: string }[] = [];
  for (let i = 0; i < jobs; i++) {
    if (kind === 'nodes') {
      const n = 1 + rng.int(4);
      shapes.push({ cpus: n * MATRIX_CPUS, nodes: n, exclusive: true });
    } else if (kind === 'tasks') shapes.push({ cpus: TASK_CPUS[rng.int(TASK_CPUS.length)]!, nodes: 0, exclusive: false });
    else {
      const partition = rng.uniform(0, 1) < 0.25 ? 'short' : 'main';
      if (rng.uniform(0, 1) < 1 / 3) {
        const n = 1 + rng.int(partition === 'short' ? 2 : 3);
        shapes.push({ cpus: n * MATRIX_CPUS, nodes: n, exclusive: true, partition });
      } else {
        const cpus = 1 + rng.int(6);
        const memMb = rng.uniform(0, 1) < 0.2 ? undefined : 300 + 100 * rng.int(28);
        shapes.push({ cpus, nodes: 0, exclusive: false, partition, ...(memMb !== undefined ? { memMb } : {}) });
      }
    }
  }
  const runs = shapes.map(() => 5 + rng.int(26));
  const work = shapes.reduce((a, s, i) => a + s.cpus * runs[i]!, 0) / jobs;
  const gap = work / (MATRIX_NODES * MATRIX_CPUS * load);
  const out: TraceJob[] = [];
  let t = 0;
  for (const [i, s] of shapes.entries()) {
    if (i > 0) t += rng.exponential(1 / gap);
    const run = runs[i]!;
    const limit = Math.min(180, Math.ceil((run * rng.uniform(2, 6)) / 60) * 60);
    out.push({
      id: String(i + 1),
      submit: Math.round(t * 10) / 10,
      runTime: run,
      timeLimit: limit,
      cpus: s.cpus,
      nodes: s.nodes,
      user: '1',
      partition: s.partition,
      ...(s.exclusive ? { exclusive: true } : {}),
      ...(s.memMb !== undefined ? { memMb: s.memMb } : {}),
    });
  }
  return out;
}
