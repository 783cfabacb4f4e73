/**
 * `npm run bench -- slurm-gpu` (issue 45): GPU jobs replayed on the Slurm preset configured by a slurm.conf
 * with `Gres=gpu:TYPE:N` nodes, against two live runs on Slurm 22.05 (`deploy/slurm/local-cluster.sh` with
 * `GPUS`: emulated GPUs, a gres.conf of character devices). The cluster is issue 43's matrix cell
 * `bfi1-bfr60-basic-tasks-changed` (8 nodes of 4 CPUs, `CR_CPU`, bf_interval 1 s, bf_resolution 60 s, priority/basic, sched_interval 20 s, batch_sched_delay 1 s) with
 * 2 V100s on n1-n2 and 2 K80s on n3-n4; the workload `sleepTrace` with GPUs: one-node jobs of 1 CPU, 5-30 s,
 * 70 % of them asking for 1-2 GPUs per node of type V100, K80 or any (`--gres=gpu[:TYPE]:N`), Poisson
 * arrivals at an offered load of 2 on 4 nodes (about 8 GPUs' worth of GPU demand). The verdict is the matrix's
 * (`compareWithLive`). Environment: `SLURM_GPU_PORT` (PORT_BASE, default 7117), `SLURM_GPU_OUT` (default a new
 * directory under the system's temp dir), `SLURM_GPU_JOBS` (30), `SLURM_GPU_SEED` (default fresh). About 8
 * minutes. Needs root and Debian's slurm-wlm and munge.
 */
import { randomInt } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleepTrace } from '../src/slurm/records.js';
import { matrixCell } from '../src/slurm/liveMatrix.js';
import { runCell } from './slurmLive.js';

/** The cluster's emulated GPUs (local-cluster.sh's `GPUS`). */
export const GPU_NODES = 'n1:v100:2,n2:v100:2,n3:k80:2,n4:k80:2';

/** The `slurm-gpu` bench section. */
export async function benchSlurmGpu(): Promise<Record<string, unknown>> {
  if (process.getuid?.() !== 0 || !existsSync('/usr/sbin/slurmctld')) return { skipped: 'needs root and slurm-wlm + munge (apt-get install slurm-wlm munge)' };
  const seed = process.env.SLURM_GPU_SEED !== undefined ? Number(process.env.SLURM_GPU_SEED) : randomInt(1, 2 ** 31 - 1);
  const jobs = Number(process.env.SLURM_GPU_JOBS ?? 30);
  const out = process.env.SLURM_GPU_OUT ?? mkdtempSync(join(tmpdir(), 'cg-slurm-gpu-'));
  const workload = sleepTrace({
    jobs,
    seed,
    minRun: 5,
    maxRun: 30,
    maxNodes: 1,
    platformNodes: 4,
    load: 2,
    limitFactor: 3,
    gpus: { share: 0.7, perNode: 2, types: ['v100', 'k80', undefined] },
  });
  const load = loadavg()[0];
  const row = await runCell(matrixCell('bfi1-bfr60-basic-tasks-changed'), out, Number(process.env.SLURM_GPU_PORT ?? 7117), seed, jobs, {
    gpus: GPU_NODES,
    workload,
  });
  return { ...row, gpu_jobs: workload.filter((j) => j.gpus !== undefined).length, load_before: load, load_after: loadavg()[0] };
}
