/**
 * Writes `data/workloads/combined-200.json`, the combined scenario's native workload file (issue 42):
 * the first episode of the `combined` leaderboard setting's generator (`data/configs/combined.json`,
 * seed 1), written with its facets: two users, two partitions of `data/platforms/hetero-20.json`,
 * malleable MPI jobs (seeded; running it again gives the same file). Run it after changing the setting's
 * generator: `npm run build && node dist/bench/makeCombinedWorkload.js`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeNativeWorkload } from '../src/workload/index.js';
import { generatePoisson, type PoissonConfig } from '../src/workload/poisson.js';

const root = join(import.meta.dirname, '..', '..');
const setting = JSON.parse(readFileSync(join(root, 'data/configs/combined.json'), 'utf8')) as { env: { config: { generator: PoissonConfig } } };
const w = generatePoisson(setting.env.config.generator, 1);
// no MaxProcs: the file runs on hetero-20 (the default platform), not on a homogeneous machine of its widest job
const out = writeNativeWorkload({ ...w, name: 'combined-200', maxProcs: undefined });
writeFileSync(join(root, 'data/workloads/combined-200.json'), `${JSON.stringify(out, null, 1)}\n`);
console.log(`wrote data/workloads/combined-200.json (${w.jobs.length} jobs)`);
