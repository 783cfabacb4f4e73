/**
 * The GPU facet (src/workload/gpuRequest.ts) in native JSON: read exactly (defaults per_node false and
 * weight 1), total GPUs per job, errors with the JSON path (per_node without nodes, job_type without
 * steps, unknown fields), and the write/read round trip of `writeNativeWorkload`.
 */
import { describe, expect, it } from 'vitest';
import { jobGpus } from '../../src/workload/gpuRequest.js';
import { writeNativeWorkload } from '../../src/workload/index.js';
import type { Job } from '../../src/workload/job.js';
import { parseNativeWorkload } from '../../src/workload/nativeJson.js';

const parse = (jobs: unknown[]) => parseNativeWorkload({ jobs }, 'w.json').jobs;
const strip = (jobs: Job[]) => jobs.map(({ source: _s, ...j }) => j);

const JOBS = [
  { id: 'dl', subtime: 0, ntasks: 4, runtime: 3600, gpus: { count: 4, job_type: 'ResNet-50 (batch size 64)', steps: 1.5e5 } },
  { id: 'typed', subtime: 5, nodes: 2, ntasks: 4, runtime: 60, gpus: { count: 2, type: 'v100', per_node: true, weight: 5 } },
  { id: 'cpu', subtime: 9, ntasks: 2, runtime: 10 },
];

describe('the gpus facet in native JSON', () => {
  it('reads count, type, per node, DL work and weight', () => {
    const [dl, typed, cpu] = parse(JOBS);
    expect(dl!.gpus).toEqual({ count: 4, perNode: false, weight: 1, dl: { jobType: 'ResNet-50 (batch size 64)', steps: 1.5e5 } });
    expect(typed!.gpus).toEqual({ count: 2, type: 'v100', perNode: true, weight: 5 });
    expect(cpu!.gpus).toBeUndefined();
    expect([jobGpus(dl!), jobGpus(typed!), jobGpus(cpu!)]).toEqual([4, 4, 0]);
    // the DL job keeps its runtime: what engines without the DL progress model run
    expect([dl!.work, dl!.runtime]).toEqual(['delay', 3600]);
  });

  it('round-trips through writeNativeWorkload', () => {
    const jobs = parse(JOBS);
    const again = parseNativeWorkload(writeNativeWorkload({ name: 'w', jobs, skipped: {} }), 'again.json').jobs;
    expect(strip(again)).toEqual(strip(jobs));
    expect(writeNativeWorkload({ name: 'w', jobs, skipped: {} }).jobs[1]!['gpus']).toEqual({ count: 2, type: 'v100', per_node: true, weight: 5 });
  });

  it('names the JSON path of a bad request', () => {
    const one =
      (gpus: unknown, shape: Record<string, unknown> = { type: 'mpi', ntasks: 2 }) =>
      () =>
        parse([{ id: 'g', subtime: 0, runtime: 1, ...shape, gpus }]);
    expect(one({ count: 2, per_node: true })).toThrow(/\$\.jobs\[0\]\.gpus \(job "g"\): `per_node` GPUs need an exact node count: give `nodes`/);
    expect(one({ count: 2, job_type: 'A3C' })).toThrow(/\$\.jobs\[0\]\.gpus: give `job_type` and `steps` together/);
    expect(one({ count: 0 })).toThrow(/\$\.jobs\[0\]\.gpus\.count/);
    expect(one({ count: 1, steps: -3, job_type: 'A3C' })).toThrow(/\$\.jobs\[0\]\.gpus\.steps/);
    expect(one({ count: 1, gpu_type: 'v100' })).toThrow(/gpu_type/);
  });
});
