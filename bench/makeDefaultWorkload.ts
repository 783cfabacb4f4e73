/**
 * Writes `data/workloads/mixed-300.json`, the embedded default workload for `hetero-20`
 * (seeded; running it again gives the same file). Jobs: Poisson arrivals (mean 15 s apart);
 * 70 % `seq` jobs of 1 to 16 tasks, 30 % `mpi` jobs of 8 to 96 tasks exchanging 1e6 to 1e9 bytes
 * per remote pair with 70 % to 95 % of their time computing; lognormal work (median ~60 s on a
 * 3 GHz x 4 core), memory 100 MB to 2 GB per task, memory traffic proportional to the work.
 */
import { writeFileSync } from 'node:fs';
import { derive } from '../src/core/rng.js';

const rng = derive(2026, 'default-workload');
const jobs: Record<string, unknown>[] = [];
let t = 0;
for (let i = 0; i < 300; i++) {
  t += rng.exponential(1 / 15);
  const mpi = rng.next() < 0.3;
  const ntasks = mpi ? 8 + rng.int(89) : 1 + rng.int(16);
  const seconds = Math.min(3600, rng.lognormal(Math.log(60), 1.0));
  const reqOps = Math.round(seconds * 12e9);
  const job: Record<string, unknown> = {
    id: `j${i}`,
    subtime: Math.round(t * 1000) / 1000,
    req_ops: reqOps,
    ipc: 1,
    req_time: Math.ceil(seconds * (1.5 + 2 * rng.next()) * 2),
    mem: 100 + rng.int(1900),
    mem_vol: Math.round(seconds * (500 + rng.int(30000))),
  };
  if (mpi) {
    job.type = 'mpi';
    job.ntasks = ntasks;
    job.comm_vol = Math.round(Math.exp(rng.uniform(Math.log(1e6), Math.log(1e9))));
    job.t_compute = Math.round(rng.uniform(0.7, 0.95) * 100) / 100;
  } else {
    job.res = ntasks;
  }
  jobs.push(job);
}
const out = { description: 'clustergym embedded default workload for hetero-20 (bench/makeDefaultWorkload.ts, seed 2026)', jobs, profiles: {} };
writeFileSync(new URL('../../data/workloads/mixed-300.json', import.meta.url), `${JSON.stringify(out, null, 1)}\n`);
console.log(`wrote ${jobs.length} jobs`);
