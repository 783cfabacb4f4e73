/**
 * The GPU facet of a job (DESIGN §16): the GPUs it needs at once (gang: all of them or none), optionally of
 * one type, counted in total or per node; for a deep-learning job, its work in training steps of a job
 * type of the throughput table (`dlThroughput.ts`), so that its duration follows from where it runs; and
 * Gavel's priority weight.
 *
 * - `count` GPUs in total (`perNode: false`, Slurm's `--gpus`): the placement chooses the servers (one
 *   server: consolidated; several: spread); or `count` on each of the job's `nodes` nodes (`perNode:
 *   true`, Slurm's `--gpus-per-node`), `count * nodes` in total. A job without an exact node count
 *   (`nodes` 0: the Slurm preset's `--gres=gpu:N` with `-N MIN[-MAX]` or none) holds `count` on each node
 *   its placement gives it (Slurm's select plugin: `slurmSelect.ts`), so its total is known at its start.
 * - `type`: the GPU type the job must run on (Slurm's `--gpus=v100:4`); absent, any type.
 * - `dl`: `{jobType, steps}`: the job is done after `steps` steps; on `n` GPUs of type `G` it runs
 *   `throughput(jobType, G, n, consolidated)` steps/s. Its `runtime` stays what an engine without the
 *   DL progress model runs (the readers give its run time on the reference GPU type).
 * - `weight`: Gavel's priority weight (default 1): max-min fairness equalises rate / weight.
 */
import type { Job } from './job.js';

/** A deep-learning job's work: its job type in the throughput table and the steps it must run. */
export interface DlWork {
  jobType: string;
  /** Training steps (iterations) to run, > 0 (need not be whole: Gavel's generator draws run time x steps/s). */
  steps: number;
}

/** A job's GPU request (see the module comment). */
export interface GpuRequest {
  /** GPUs needed at once: in total, or on each node when `perNode`. */
  count: number;
  perNode: boolean;
  /** Required GPU type (absent: any). */
  type?: string | undefined;
  /** Deep-learning work (absent: the job's work is its runtime). */
  dl?: DlWork | undefined;
  /** Priority weight, > 0 (Gavel's `priority_weight`; default 1). */
  weight: number;
}

/**
 * The GPUs a job needs in total (0 without the facet) when it is placed on `nodes` nodes (by default its
 * exact node count: a per-node request without one needs its placement's, the module comment).
 */
export function jobGpus(job: Job, nodes = job.nodes): number {
  const g = job.gpus;
  if (g === undefined) return 0;
  return g.perNode ? g.count * nodes : g.count;
}

/** Why a GPU request does not fit the job's shape (`nodes`: its exact node count, 0 for any), or undefined. */
export function gpuRequestProblem(g: GpuRequest, nodes: number): string | undefined {
  if (g.perNode && nodes === 0) return '`per_node` GPUs need an exact node count: give `nodes`';
  return undefined;
}
