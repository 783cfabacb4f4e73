/** Slurm platforms shared by the differential tests of the Slurm engine and the one engine's Slurm preset. */
import type { SlurmPlatformSpec } from '../../src/slurm/platform.js';

/** Node groups and partitions over them (both engines read the same spec). */
export type Layout = SlurmPlatformSpec & { partitions: { name: string; groups: string[]; max_time?: number }[] };

/**
 * Three groups and three partitions, two of them sharing a group: `g0` 2x4, `g1` 1x8, `g2` 3x4; `a` {g0, g1},
 * `b` {g1, g2}, `c` {g2} with a 500 s time limit (longer jobs are refused at submission).
 */
export const LAYOUT: Layout = {
  groups: [
    { name: 'g0', count: 2, cores: 4 },
    { name: 'g1', count: 1, cores: 8 },
    { name: 'g2', count: 3, cores: 4 },
  ],
  partitions: [
    { name: 'a', groups: ['g0', 'g1'] },
    { name: 'b', groups: ['g1', 'g2'] },
    { name: 'c', groups: ['g2'], max_time: 500 },
  ],
};

/** Whole-node allocation (test/slurm/presetNodes.test.ts): a whole-node platform, three groups of one-core nodes, two partitions sharing one group. */
export const WHOLE_NODES: Layout = {
  groups: [
    { name: 'w0', count: 5, cores: 1 },
    { name: 'w1', count: 3, cores: 1 },
    { name: 'w2', count: 6, cores: 1 },
  ],
  partitions: [
    { name: 'a', groups: ['w0', 'w1'] },
    { name: 'b', groups: ['w1', 'w2'], max_time: 500 },
  ],
};

/** Nodes of several cores, the same partitions. */
export const MULTI_CORE_NODES: Layout = {
  groups: [
    { name: 'm0', count: 2, cores: 4 },
    { name: 'm1', count: 3, cores: 2 },
    { name: 'm2', count: 2, cores: 8 },
  ],
  partitions: [
    { name: 'a', groups: ['m0', 'm1'] },
    { name: 'b', groups: ['m1', 'm2'], max_time: 500 },
  ],
};

/** Partitions of equal nodes (an exclusive job's whole nodes have one size in each): `a` over 4-core nodes, `b` over 2-core nodes. */
export const SHAPED_NODES: Layout = {
  groups: [
    { name: 's0', count: 3, cores: 4 },
    { name: 's1', count: 2, cores: 4 },
    { name: 's2', count: 4, cores: 2 },
  ],
  partitions: [
    { name: 'a', groups: ['s0', 's1'] },
    { name: 'b', groups: ['s2'], max_time: 500 },
  ],
};

/**
 * Consumable memory (`memory_mb`) on nodes of several memory sizes: `x0` 2 nodes of 4 cores and 4,000 MB, `x1` 2 of 4 cores
 * and 8,000 MB, `x2` 3 of 2 cores and 3,000 MB; `a` {x0, x1} (equal cores: exclusive jobs), `b` {x1, x2}.
 */
export const MEMORY_NODES: Layout = {
  groups: [
    { name: 'x0', count: 2, cores: 4, memory_mb: 4000 },
    { name: 'x1', count: 2, cores: 4, memory_mb: 8000 },
    { name: 'x2', count: 3, cores: 2, memory_mb: 3000 },
  ],
  partitions: [
    { name: 'a', groups: ['x0', 'x1'] },
    { name: 'b', groups: ['x1', 'x2'], max_time: 500 },
  ],
};

/**
 * GPUs on nodes of several counts and types (test/slurm/presetGpuNodes.test.ts): `v` 2 nodes of 4 cores with 2
 * V100s each, `a` 2 of 4 cores with 4 A100s, `c` 2 of 4 cores without GPUs, `k` 1 of 8 cores with one K80;
 * `p` {v, a, c} (equal cores: exclusive jobs), `q` {a, k}.
 */
export const GPU_NODES: Layout = {
  groups: [
    { name: 'v', count: 2, cores: 4, gpus: { count: 2, type: 'v100' } },
    { name: 'a', count: 2, cores: 4, gpus: { count: 4, type: 'a100' } },
    { name: 'c', count: 2, cores: 4 },
    { name: 'k', count: 1, cores: 8, gpus: { count: 1, type: 'k80' } },
  ],
  partitions: [
    { name: 'p', groups: ['v', 'a', 'c'] },
    { name: 'q', groups: ['a', 'k'], max_time: 500 },
  ],
};

/** A whole-node platform with GPUs: `w0` 4 one-core nodes with a V100 each, `w1` 3 with 2 A100s, `w2` 4 without; `a` {w0, w1}, `b` {w1, w2}. */
export const WHOLE_GPU_NODES: Layout = {
  groups: [
    { name: 'w0', count: 4, cores: 1, gpus: { count: 1, type: 'v100' } },
    { name: 'w1', count: 3, cores: 1, gpus: { count: 2, type: 'a100' } },
    { name: 'w2', count: 4, cores: 1 },
  ],
  partitions: [
    { name: 'a', groups: ['w0', 'w1'] },
    { name: 'b', groups: ['w1', 'w2'], max_time: 500 },
  ],
};

/**
 * GPUs on few nodes beside a larger group without (test/slurm/presetGpuNodes.test.ts): `v` 1 node of 4 cores with 2
 * V100s, `a` 2 of 4 cores with 4 A100s, `c` 3 of 4 cores without GPUs; `p` {v, a, c} (equal cores: exclusive jobs),
 * `q` {a, c}. A GPU request without a shape of more CPUs than the nodes with its GPUs have (but no more than group
 * `c`'s 12: not refused) waits for ever on both engines.
 */
export const GPU_FEW_NODES: Layout = {
  groups: [
    { name: 'v', count: 1, cores: 4, gpus: { count: 2, type: 'v100' } },
    { name: 'a', count: 2, cores: 4, gpus: { count: 4, type: 'a100' } },
    { name: 'c', count: 3, cores: 4 },
  ],
  partitions: [
    { name: 'p', groups: ['v', 'a', 'c'] },
    { name: 'q', groups: ['a', 'c'], max_time: 500 },
  ],
};

/**
 * Memory on some groups only (test/slurm/presetNodes.test.ts): `x0` 2 nodes of 4 cores with 4,000 MB, `y0` 2 of 4
 * cores and `y1` 1 of 2 cores without `memory_mb` (memory not consumable there), `x2` 3 of 2 cores with 3,000 MB;
 * `a` {x0, y0} (equal cores: exclusive jobs), `b` {y0, x2, y1}.
 */
export const MIXED_MEMORY_NODES: Layout = {
  groups: [
    { name: 'x0', count: 2, cores: 4, memory_mb: 4000 },
    { name: 'y0', count: 2, cores: 4 },
    { name: 'x2', count: 3, cores: 2, memory_mb: 3000 },
    { name: 'y1', count: 1, cores: 2 },
  ],
  partitions: [
    { name: 'a', groups: ['x0', 'y0'] },
    { name: 'b', groups: ['y0', 'x2', 'y1'], max_time: 500 },
  ],
};
