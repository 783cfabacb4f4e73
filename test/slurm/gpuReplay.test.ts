/**
 * GPU jobs on the Slurm preset of the one engine (issue 45; written for the Slurm engine, which gave the same
 * schedules until its retirement, issue 42): a slurm.conf with `Gres=gpu:TYPE:N` nodes configures the
 * node groups with their GPUs, and jobs asking for GPUs (`--gres=gpu[:TYPE]:N`, read from
 * sacct's TRES) run only where their GPUs are free, through the main scheduler, the backfill pass (a GPU
 * profile beside the core profile) and the replay of job records. Schedules by hand.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SlurmConfig, SlurmJobInput } from '../../src/slurm/config.js';
import { SlurmPlatform, type SlurmPlatformSpec } from '../../src/slurm/platform.js';
import { runSlurmPreset } from '../../src/slurm/preset.js';
import { parseSlurmConf } from '../../src/slurm/slurmConf.js';
import { readTrace, tresGpus } from '../../src/slurm/records.js';
import { engineSchedule, replayJobs } from '../../src/slurm/trace.js';

const CONF = `ClusterName=gpus
GresTypes=gpu
SelectType=select/cons_tres
NodeName=g[1-2] CPUs=8 RealMemory=1000 Gres=gpu:v100:2
NodeName=g3 CPUs=8 RealMemory=1000 Gres=gpu:k80:2
NodeName=c1 CPUs=8 RealMemory=1000
PartitionName=all Nodes=g[1-3],c1 Default=YES MaxTime=UNLIMITED
`;

/** Each job's start, end, nodes (the first run's; on the counted capacity, its node group), node group and whether a backfill pass started it, and the run. */
function gpuRun(platform: SlurmPlatformSpec, jobs: SlurmJobInput[], config: Partial<SlurmConfig> = {}) {
  const ran = new Map<number, { start: number; end: number; nodes: number[]; group: number; bf: boolean }>();
  const byBackfill = new Set<string>();
  const run = runSlurmPreset(
    platform,
    jobs,
    config,
    [
      {
        onStart: (sim, rj) => {
          byBackfill.delete(rj.job.id);
          const nodes = [...rj.nodes];
          const group = sim.counted !== null ? nodes[0]! : sim.platform.nodeGroup[nodes[0]!]!;
          ran.set(Number(rj.job.id), { start: sim.now, end: Number.NaN, nodes, group, bf: false });
        },
        onEnd: (_s, r) => {
          const x = ran.get(Number(r.job.id))!;
          x.end = r.finish;
          x.bf = byBackfill.has(r.job.id);
        },
      },
    ],
    undefined,
    (job) => void byBackfill.add(job.id),
  );
  return { ran, run };
}

describe('GPU jobs on the Slurm preset', () => {
  it('a slurm.conf with Gres configures the groups’ GPUs', () => {
    const conf = parseSlurmConf(CONF, 'gpus.conf');
    expect(conf.platform.groups).toEqual([
      { name: 'g[1-2]', count: 2, cores: 8, gpus: { count: 2, type: 'v100' } },
      { name: 'g3', count: 1, cores: 8, gpus: { count: 2, type: 'k80' } },
      { name: 'c1', count: 1, cores: 8 },
    ]);
    const p = new SlurmPlatform(conf.platform);
    expect(p.gpuTypes).toEqual(['v100', 'k80']);
    expect(Array.from(p.gpusPerNode)).toEqual([2, 2, 0]);
    expect(Array.from(p.groupGpuType)).toEqual([0, 1, -1]);
    // without GresTypes=gpu slurmctld does not manage the GPUs: neither does the preset
    const undeclared = parseSlurmConf(CONF.replace('GresTypes=gpu\n', ''), 'x.conf');
    expect(undeclared.platform.groups.every((g) => g.gpus === undefined)).toBe(true);
  });

  it('jobs wait for their GPUs, on their type; backfill keeps the GPU job’s reservation (by hand)', () => {
    const conf = parseSlurmConf(CONF, 'gpus.conf');
    const job = (id: number, submit: number, cores: number, runTime: number, timeLimit: number, gpus = 0, gpuType?: string): SlurmJobInput =>
      Object.assign({ id, submit, cores, runTime, timeLimit, user: 0 }, gpus > 0 ? { gpus } : {}, gpuType ? { gpuType } : {});
    // the defaults: main pass at submission, backfill every 30 s
    const { ran } = gpuRun(conf.platform, [
      job(0, 0, 2, 100, 300, 4, 'v100'), // all 4 V100s (group 0)
      job(1, 0, 1, 100, 300, 2), // any type: no V100 left, the 2 K80s (group 1)
      job(2, 10, 1, 50, 120, 1, 'v100'), // no V100 free: pends, and blocks the partition's main pass
      job(3, 20, 1, 20, 60), // no GPU, same size, younger: behind job 2 in priority; started by the backfill pass at 30 on group 0's free cores
    ]);
    // the backfill passes: every 30 s from the first submission's instant (jobs pended then, before the main pass);
    // at 30 s job 2's reservation is where job 0 ends by its limit (300 s: bucket ceil(270 / 60) = 5, its GPU
    // profile being 0 until then); job 3 (1 bucket, no GPU) fits on group 0's cores now
    const rows = Object.fromEntries([...ran].map(([id, r]) => [id, [r.start, r.end, r.group, r.bf]]));
    expect(rows).toEqual({
      0: [0, 100, 0, false],
      1: [0, 100, 1, false],
      2: [100, 150, 0, false], // at job 0's end, the main pass
      3: [30, 50, 0, true],
    });
  });

  it('backfill does not start a job on GPUs a higher-priority job has reserved (by hand)', () => {
    const v100 = (id: number, gpus: number, runTime: number, timeLimit: number): SlurmJobInput => ({
      id,
      submit: 0,
      cores: 1,
      runTime,
      timeLimit,
      user: 0,
      gpus,
      gpuType: 'v100',
    });
    const { ran } = gpuRun(parseSlurmConf(CONF, 'gpus.conf').platform, [v100(0, 2, 100, 300), v100(1, 4, 50, 120), v100(2, 2, 60, 600)]);
    // at the backfill pass of 30 s, 2 V100s are free; job 1 (4 V100s) is reserved from job 0's limit (bucket 5,
    // 2 buckets), so job 2 (2 V100s for 10 buckets) would overlap it: not started (cores alone would let it)
    expect(Object.fromEntries([...ran].map(([id, r]) => [id, [r.start, r.end, r.bf]]))).toEqual({
      0: [0, 100, false],
      1: [100, 150, false],
      2: [150, 210, false],
    });
  });

  it('on specific nodes (a read slurm.conf): GPUs per node, of the job’s type; backfill’s will-run test counts them (by hand)', () => {
    const conf = parseSlurmConf(CONF, 'gpus.conf');
    // the slurm.conf's own timing (Slurm 22.05's passes), one user; whole-node allocation (the select plugin)
    expect(conf.config.nodeSelect).toBe(true);
    const shape = { minNodes: 1, maxNodes: 1 };
    const gpu = (id: number, submit: number, runTime: number, gpus: number, gpuType?: string): SlurmJobInput => ({
      id,
      submit,
      cores: 1,
      runTime,
      timeLimit: 600,
      user: 0,
      shape,
      gpus,
      ...(gpuType ? { gpuType } : {}),
    });
    const { ran: runs, run } = gpuRun(
      conf.platform,
      [
        gpu(0, 0, 100, 2, 'v100'), // both GPUs of a V100 node
        gpu(1, 0, 100, 1, 'v100'), // one GPU of the other V100 node
        gpu(2, 0, 50, 2, 'v100'), // no V100 node has 2 free until job 0 ends
        gpu(3, 0, 50, 2), // any type: the K80 node (nodes 0-1 are V100s, 2 the K80s)
        { id: 4, submit: 0, cores: 8, runTime: 50, timeLimit: 600, user: 0, shape }, // no GPU: the CPU node
      ],
      { ...conf.config, users: 1 },
    );
    const ran = Object.fromEntries(runs);
    expect(ran[0]!.nodes.length).toBe(1);
    expect(ran[1]!.nodes).toEqual([1 - ran[0]!.nodes[0]!]);
    expect(ran[3]!.nodes).toEqual([2]);
    expect(ran[4]!.nodes).toEqual([3]);
    // job 2 waits for job 0's node (job 1 keeps one GPU of the other)
    expect(ran[2]!.nodes).toEqual(ran[0]!.nodes);
    expect(ran[2]!.start).toBeGreaterThanOrEqual(ran[0]!.end);
    for (const id of [0, 1, 3, 4]) expect(ran[id]!.start).toBeLessThan(ran[0]!.end);
    // every GPU back at the end
    expect(Array.from(run.sim.allocation.nodeFreeGpus)).toEqual([2, 2, 2, 0]);
    expect(Array.from(run.sim.allocation.freeGpusByType)).toEqual([4, 2]);
  });

  it('refuses at submission GPU requests no group can hold; a GPU count not whole is an input error naming the job', () => {
    const p = parseSlurmConf(CONF, 'gpus.conf').platform;
    const submit = (job: SlurmJobInput) => () => runSlurmPreset(p, [job], {});
    // (the Slurm engine threw an input error for the first two; the preset refuses them as any job no group of its partition holds)
    expect(submit({ id: 7, submit: 0, cores: 1, runTime: 1, timeLimit: 60, user: 0, gpus: 5 })().summary.jobs_rejected).toBe(1);
    expect(submit({ id: 8, submit: 0, cores: 1, runTime: 1, timeLimit: 60, user: 0, gpus: 1, gpuType: 'a100' })().summary.jobs_rejected).toBe(1);
    expect(submit({ id: 9, submit: 0, cores: 1, runTime: 1, timeLimit: 60, user: 0, gpus: 1.5 })).toThrow(/job 9: 1\.5 GPUs: expected a whole number/);
  });

  it('replays sacct records with GPUs (AllocTRES) on the slurm.conf', () => {
    expect(
      tresGpus([
        { name: 'cpu', count: 4 },
        { name: 'gres/gpu', count: 2 },
        { name: 'gres/gpu:v100', count: 2 },
      ]),
    ).toEqual({ count: 2, type: 'v100' });
    expect(tresGpus([{ name: 'gres/gpu', count: 1 }])).toEqual({ count: 1, type: undefined });
    expect(tresGpus([{ name: 'gres/mps', count: 100 }])).toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), 'cg-gpu-replay-'));
    const f = join(dir, 'sacct.txt');
    writeFileSync(
      f,
      `JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|User|Partition|AllocTRES
1|2024-01-01T10:00:00|2024-01-01T10:00:01|2024-01-01T10:05:01|00:05:00|00:10:00|2|2|alice|all|billing=2,cpu=2,gres/gpu:v100=4,gres/gpu=4,node=2
2|2024-01-01T10:00:10|2024-01-01T10:05:02|2024-01-01T10:07:02|00:02:00|00:05:00|1|1|bob|all|billing=1,cpu=1,gres/gpu:v100=2,gres/gpu=2,node=1
3|2024-01-01T10:00:20|2024-01-01T10:00:21|2024-01-01T10:01:21|00:01:00|00:05:00|4|1|bob|all|billing=4,cpu=4,node=1
`,
    );
    const conf = parseSlurmConf(CONF, 'gpus.conf');
    const trace = readTrace(f);
    expect(trace.jobs.map((j) => j.gpus)).toEqual([{ count: 4, type: 'v100' }, { count: 2, type: 'v100' }, undefined]);
    const jobs = replayJobs(trace, conf);
    // GPUs on each node (`--gres` is per node), the job on exactly its nodes
    expect(jobs.map((j) => [j.gpus, j.gpuType, j.gpuNodes])).toEqual([
      [2, 'v100', 2],
      [2, 'v100', 1],
      [undefined, undefined, undefined],
    ]);
    const { jobs: out } = engineSchedule(jobs, conf);
    const [a, b, c] = out;
    // job 2 needs 2 V100s on one node, job 1 holds both V100 nodes' (2 each): it starts once job 1 has ended (300 s of sleep + the 0.05 s overhead)
    expect(a!.end).toBeCloseTo(a!.start + 300.05, 6);
    expect(b!.start).toBeGreaterThanOrEqual(a!.end);
    expect(b!.end).toBeCloseTo(b!.start + 120.05, 6);
    // job 3 needs no GPU and runs beside job 1 long before job 2
    expect(c!.end).toBeLessThan(b!.start);
    // the retired Slurm engine's schedule (recorded at d188ed7, where the preset gave it too)
    expect(out).toEqual([
      { id: '1', submit: 0, start: 0.5, end: 300.55, nodes: 1, state: 'completed', backfilled: false },
      { id: '2', submit: 10, start: 303.5, end: 423.55, nodes: 1, state: 'completed', backfilled: false },
      { id: '3', submit: 20, start: 30, end: 90.05, nodes: 1, state: 'completed', backfilled: true },
    ]);
  });
});
