/**
 * Writes a seeded SWF of sleep jobs for comparing the Slurm engine with a live Slurm
 * (`src/slurm/trace.ts` `sleepTrace`; docs/slurm.md, "Engine vs a live slurmctld"):
 *
 *     node dist/tools/slurmSleepTrace.js JOBS SEED [MIN_RUN MAX_RUN MAX_NODES PLATFORM_NODES LOAD CPUS] > w.swf
 *
 * Defaults: 36 jobs, runs of 5-30 s on 1-4 nodes of an 8-node platform of 2 CPUs per node, load 1.2.
 */
import { sleepTrace, traceToSwf } from '../src/slurm/records.js';

const a = process.argv.slice(2).map(Number);
const [jobs = 36, seed = 1, minRun = 5, maxRun = 30, maxNodes = 4, platformNodes = 8, load = 1.2, cpus = 2] = a;
if (a.some((x) => !Number.isFinite(x))) {
  console.error('usage: slurmSleepTrace JOBS SEED [MIN_RUN MAX_RUN MAX_NODES PLATFORM_NODES LOAD CPUS] (numbers)');
  process.exit(2);
}
const trace = sleepTrace({ jobs, seed, minRun, maxRun, maxNodes, platformNodes, load, limitFactor: 3 });
process.stdout.write(
  traceToSwf(trace, cpus, `sleepTrace jobs=${jobs} seed=${seed} run=${minRun}-${maxRun}s nodes=1-${maxNodes} of ${platformNodes} load=${load}`),
);
