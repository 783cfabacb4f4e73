/**
 * A Slurm job's request as `squeue --json` (Slurm 22.05) reports it for a pending job, read into what a
 * placement must satisfy for Slurm to accept it exactly (`SlurmRequest`), and the rules of that
 * acceptance (`placementProblem`): the node count, CPUs and memory on each node, whole nodes, partitions,
 * features. `clustergym slurm-agent` decides placements with them (docs/slurm-agent.md, "What a job asks
 * for").
 *
 * How the fields are read (sbatch option → squeue field):
 * - `-N MIN[-MAX]` → `tres_req_str`'s `node=MIN` (`node_count` is Slurm's estimate, not the minimum) and
 *   `max_nodes` (0: no maximum; Slurm caps the maximum at the task count, `choose_nodes`);
 * - `-n` → `tasks`; `-c` → `cpus / tasks` while pending (`cpus_per_task` is not filled by 22.05's
 *   squeue); `--ntasks-per-node` → `tasks_per_node` (0: not given);
 * - `--mem` → `memory_per_node`, `--mem-per-cpu` → `memory_per_cpu` (MB; neither: the partition's or the
 *   cluster's default, else the whole node when memory is consumable);
 * - `--exclusive` → `shared: "none"` (also a partition with `OverSubscribe=EXCLUSIVE`);
 * - `-p a,b` → `partition: "a,b"`; `-C` → `features`; `-t` → `time_limit` (minutes; null: the partition's);
 * - `-d` → `dependency` (`afterok:12(unfulfilled)`; empty once every part is met); `--nice` → `nice`;
 *   `-q` → `qos`; `--contiguous` → `contiguous`; `-x` → `excluded_nodes`.
 */
import { expandHostList } from './hostList.js';

/** The fields of a `squeue --json` job that make its request (Slurm 22.05). */
export interface RequestFields {
  tasks: number;
  cpus: number;
  cpus_per_task?: number | null | undefined;
  tasks_per_node?: number | null | undefined;
  node_count: number;
  max_nodes?: number | null | undefined;
  tres_req_str?: string | undefined;
  memory_per_node?: number | null | undefined;
  memory_per_cpu?: number | null | undefined;
  shared?: string | null | undefined;
  partition: string;
  features?: string | undefined;
  time_limit: number | null;
  dependency?: string | undefined;
  nice?: number | null | undefined;
  qos?: string | undefined;
  contiguous?: boolean | undefined;
  excluded_nodes?: string | undefined;
}

/** What a job asks for (see the module comment). */
export interface SlurmRequest {
  minNodes: number;
  /** Infinity: no maximum. */
  maxNodes: number;
  tasks: number;
  cpusPerTask: number;
  /** 0: not given. */
  tasksPerNode: number;
  /** MB per node, MB per CPU (null: not given). */
  memPerNode: number | null;
  memPerCpu: number | null;
  /** `--exclusive`: whole nodes, none shared. */
  exclusive: boolean;
  /** The partitions it may run in (one of them, all its nodes in it). */
  partitions: string[];
  /** The constraint (`-C`), empty when none. */
  features: string;
  /** Seconds (Infinity: none given). */
  timeLimit: number;
  /** Slurm's dependency string (empty: none left). */
  dependency: string;
  nice: number;
  qos: string;
  contiguous: boolean;
  excludedNodes: string[];
}

/** Reads a pending job's request from its `squeue --json` fields. */
export function requestOf(j: RequestFields): SlurmRequest {
  const tres = /(?:^|,)node=(\d+)/.exec(j.tres_req_str ?? '');
  const minNodes = Math.max(1, tres ? Number(tres[1]) : j.node_count || 1);
  const tasks = Math.max(1, j.tasks || 1);
  const cpt = j.cpus_per_task && j.cpus_per_task > 0 ? j.cpus_per_task : Math.max(1, Math.floor(j.cpus / tasks));
  const maxNodes = j.max_nodes && j.max_nodes > 0 ? j.max_nodes : Number.POSITIVE_INFINITY;
  const excl = (j.excluded_nodes ?? '').trim();
  return {
    minNodes,
    maxNodes: Math.max(minNodes, maxNodes),
    tasks,
    cpusPerTask: cpt,
    tasksPerNode: j.tasks_per_node && j.tasks_per_node > 0 ? j.tasks_per_node : 0,
    memPerNode: j.memory_per_node ?? null,
    memPerCpu: j.memory_per_cpu ?? null,
    exclusive: j.shared === 'none',
    partitions: j.partition.split(',').filter((p) => p !== ''),
    features: (j.features ?? '').trim(),
    timeLimit: j.time_limit === null || j.time_limit >= 0xfffffffe ? Number.POSITIVE_INFINITY : j.time_limit * 60,
    dependency: (j.dependency ?? '').trim(),
    nice: j.nice ?? 0,
    qos: j.qos ?? '',
    contiguous: j.contiguous ?? false,
    excludedNodes: excl === '' || excl === '(null)' ? [] : expandHostList(excl),
  };
}
