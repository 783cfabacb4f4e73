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
