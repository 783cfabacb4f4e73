import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { batsimExecutorJob, batsimProfileAnySize, batsimProfileProgress, isBatsimWorkload, parseBatsimWorkload } from '../../src/workload/batsim.js';
import type { Job } from '../../src/workload/job.js';

const base = { nb_res: 8 };

function job(id: string, subtime: number, res: number, profile: string, walltime?: number) {
  return walltime === undefined ? { id, subtime, res, profile } : { id, subtime, res, profile, walltime };
}

function opsJob(fields: Partial<Job> & { id: string; subtime: number; ntasks: number; source: string }): Job {
  return {
    reqTime: 0,
    reqEnergy: 0,
    type: 'mpi',
    work: 'ops',
    ops: 0,
    runtime: 0,
    mem: 0,
    memVol: 0,
    commVol: 0,
    tCompute: 1,
    nodes: 0,
    ntasksPerNode: 0,
    tasks: null,
    ...fields,
  };
}

describe('Batsim reader', () => {
  const data = {
    ...base,
    jobs: [
      job('d', 5, 2, 'delay', 30),
      job('d-nowall', 0, 1, 'delay', -1),
      job('hg', 10, 4, 'hg', 100),
      job('tot', 11, 4, 'tot', 50),
      job('spread', 12, 2, 'spread', 50),
      job('par', 13, 3, 'par', 60),
      job('seq', 14, 2, 'seq', 70),
      job('dseq', 15, 1, 'dseq'),
      job('old', 16, 2, 'old', 10),
    ],
    profiles: {
      delay: { type: 'delay', delay: 20.5 },
      hg: { type: 'parallel_homogeneous', cpu: 1e9, com: 2e6 },
      tot: { type: 'parallel_homogeneous_total', cpu: 4e9, com: 1.2e7 },
      spread: { type: 'ParallelTaskHomogeneousProfile', cpu: 3e9, com: 8e6, generation_strategy: 'DefinedAmountsSpreadUniformly' },
      par: { type: 'parallel', cpu: [1e9, 0, 2.5e8], com: [9, 1, 2, 3, 9, 4, 5, 6, 9] },
      seq: { type: 'composed', repeat: 3, seq: ['hg2', 'par2', 'hg2'] },
      hg2: { type: 'parallel_homogeneous', cpu: 1e6, com: 100 },
      par2: { type: 'parallel', cpu: [5e5, 0] },
      dseq: { type: 'SequentialCompositionProfile', seq: ['delay', 'delay2'] },
      delay2: { type: 'DelayProfile', delay: 4.5 },
      old: { type: 'msg_par_hg', cpu: 7e8, com: 0 },
      unused: { type: 'TraceReplayProfile', trace_type: 'SMPI', filename: 'x' },
    },
  };

  it('maps each supported profile type onto the work models', () => {
    const w = parseBatsimWorkload(data, 'w.json');
    expect(w.maxProcs).toBe(8);
    expect(w.skipped).toEqual({});
    const by = Object.fromEntries(w.jobs.map((j) => [j.id, j]));
    expect(w.jobs.map((j) => j.id)).toEqual(['d-nowall', 'd', 'hg', 'tot', 'spread', 'par', 'seq', 'dseq', 'old']);
    expect(by['d']).toEqual({
      id: 'd',
      subtime: 5,
      ntasks: 2,
      reqTime: 30,
      reqEnergy: 0,
      type: 'mpi',
      work: 'delay',
      ops: 0,
      runtime: 20.5,
      mem: 0,
      memVol: 0,
      commVol: 0,
      tCompute: 1,
      nodes: 0,
      ntasksPerNode: 0,
      tasks: null,
      profile: 'delay',
      source: '$.jobs[0]',
    });
    // walltime -1: the requested time is the delay
    expect(by['d-nowall']).toMatchObject({ reqTime: 20.5, runtime: 20.5, ntasks: 1 });
    expect(by['hg']).toEqual(opsJob({ id: 'hg', subtime: 10, ntasks: 4, reqTime: 100, ops: 1e9, commVol: 2e6, profile: 'hg', source: '$.jobs[2]' }));
    // totals spread over 4 tasks: 4e9 / 4 ops each, 1.2e7 / (4 * 3) bytes per pair
    expect(by['tot']).toEqual(opsJob({ id: 'tot', subtime: 11, ntasks: 4, reqTime: 50, ops: 1e9, commVol: 1e6, profile: 'tot', source: '$.jobs[3]' }));
    expect(by['spread']).toEqual(
      opsJob({ id: 'spread', subtime: 12, ntasks: 2, reqTime: 50, ops: 1.5e9, commVol: 4e6, profile: 'spread', source: '$.jobs[4]' }),
    );
    // per-task cpu; a zero becomes one operation; comm_vol = mean of the off-diagonal entries
    expect(by['par']).toEqual(
      opsJob({
        id: 'par',
        subtime: 13,
        ntasks: 3,
        reqTime: 60,
        commVol: (1 + 2 + 3 + 4 + 5 + 6) / 6,
        profile: 'par',
        source: '$.jobs[5]',
        tasks: [
          { ops: 1e9, runtime: 0, mem: 0, memVol: 0 },
          { ops: 1, runtime: 0, mem: 0, memVol: 0 },
          { ops: 2.5e8, runtime: 0, mem: 0, memVol: 0 },
        ],
      }),
    );
    // (hg2 + par2 + hg2) x 3: task 0 = 3 * (1e6 + 5e5 + 1e6), task 1 = 3 * 2e6; comm 3 * (100 + 0 + 100)
    expect(by['seq']).toMatchObject({ work: 'ops', commVol: 600, tasks: [{ ops: 7.5e6 }, { ops: 6e6 }] });
    // delays add up; no walltime -> the total delay
    expect(by['dseq']).toMatchObject({ work: 'delay', runtime: 25, reqTime: 25 });
    expect(by['old']).toMatchObject({ work: 'ops', ops: 7e8, commVol: 0 });
  });

  it('derives the requested time of ops jobs without walltime from a reference core', () => {
    const d = { jobs: [job('a', 0, 2, 'p')], profiles: { p: { type: 'parallel_homogeneous', cpu: 3e9, com: 0 } } };
    expect(parseBatsimWorkload(d, 'x').jobs[0]!.reqTime).toBe(3);
    expect(parseBatsimWorkload(d, 'x', { refMops: 3000 }).jobs[0]!.reqTime).toBe(1);
  });

  it('applies jobType and tCompute', () => {
    const d = { jobs: [job('a', 0, 2, 'p', 9)], profiles: { p: { type: 'parallel_homogeneous', cpu: 1e9, com: 5 } } };
    expect(parseBatsimWorkload(d, 'x', { tCompute: 0.75 }).jobs[0]).toMatchObject({ type: 'mpi', tCompute: 0.75, commVol: 5 });
    expect(parseBatsimWorkload(d, 'x', { jobType: 'seq' }).jobs[0]).toMatchObject({ type: 'seq', nodes: 1, tCompute: 1, commVol: 0 });
  });

  it('rejects a profile type it cannot model, naming the path and the supported types', () => {
    const d = { jobs: [job('a', 0, 1, 'io')], profiles: { io: { type: 'parallel_homogeneous_pfs', bytes_to_read: 1e6 } } };
    let err: unknown;
    try {
      parseBatsimWorkload(d, 'w.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const msg = (err as Error).message;
    expect(msg).toContain('w.json: $.jobs[0] (id "a", profile "io"): $.profiles.io.type: profile type "parallel_homogeneous_pfs" cannot be modelled');
    for (const t of [
      'delay/DelayProfile',
      'parallel/msg_par/ParallelTaskProfile',
      'parallel_homogeneous',
      'parallel_homogeneous_total',
      'composed/SequentialCompositionProfile',
    ])
      expect(msg).toContain(t);
  });

  it('skips and counts what it cannot model with unsupported: skip', () => {
    const d = {
      jobs: [job('a', 0, 1, 'io'), job('b', 1, 2, 'comm'), job('c', 2, 1, 'zero'), job('d', 3, 1, 'ok'), job('e', 4, 1, 'mix'), job('f', 5, 1, 'io')],
      profiles: {
        io: { type: 'data_staging', nb_bytes: 1, from: 'a', to: 'b' },
        comm: { type: 'parallel_homogeneous', cpu: 0, com: 1e6 },
        zero: { type: 'delay', delay: 0 },
        ok: { type: 'delay', delay: 1 },
        mix: { type: 'composed', seq: ['ok', 'hg'] },
        hg: { type: 'parallel_homogeneous', cpu: 1, com: 0 },
      },
    };
    const w = parseBatsimWorkload(d, 'x', { unsupported: 'skip' });
    expect(w.jobs.map((j) => j.id)).toEqual(['d']);
    expect(w.skipped).toEqual({ 'profile type data_staging': 2, 'no computation': 1, 'zero delay': 1, 'mixed delay and parallel parts': 1 });
    expect(() => parseBatsimWorkload(d, 'x')).toThrow(/\$\.profiles\.io\.type: profile type "data_staging"/);
  });

  it('reports malformed input with JSON paths', () => {
    const prof = { p: { type: 'delay', delay: 1 } };
    expect(() => parseBatsimWorkload({ jobs: [{ id: 'a', subtime: 0, profile: 'p' }], profiles: prof }, 'w.json')).toThrow(
      /w\.json: \$\.jobs\[0\]\.res: Required/,
    );
    expect(() => parseBatsimWorkload({ jobs: [job('a', 0, 1, 'q')], profiles: prof }, 'w.json')).toThrow(
      'w.json: $.jobs[0].profile: unknown profile "q"; expected one of p',
    );
    expect(() => parseBatsimWorkload({ jobs: [job('a', 0, 1, 'p'), job('a', 1, 1, 'p')], profiles: prof }, 'w.json')).toThrow(
      'w.json: $.jobs[1].id: duplicate job id "a"',
    );
    expect(() => parseBatsimWorkload({ jobs: [job('a', 0, 1, 'p')], profiles: { p: { type: 'delay' } } }, 'w.json')).toThrow(
      /\$\.profiles\.p\.delay: Required/,
    );
    const par = { p: { type: 'parallel', cpu: [1, 2] } };
    expect(() => parseBatsimWorkload({ jobs: [job('a', 0, 3, 'p')], profiles: par }, 'w.json')).toThrow(
      'w.json: $.profiles.p.cpu: expected 3 values (one per resource of the job), found 2',
    );
    const com = { p: { type: 'parallel', cpu: [1, 2], com: [0, 1, 2] } };
    expect(() => parseBatsimWorkload({ jobs: [job('a', 0, 2, 'p')], profiles: com }, 'w.json')).toThrow(
      '$.profiles.p.com: expected 4 values (a 2 x 2 matrix), found 3',
    );
    const cyc = { p: { type: 'composed', seq: ['q'] }, q: { type: 'composed', seq: ['p'] } };
    expect(() => parseBatsimWorkload({ jobs: [job('a', 0, 1, 'p')], profiles: cyc }, 'w.json')).toThrow('the composition refers to itself (p -> q -> p)');
    const missing = { p: { type: 'composed', seq: ['nope'] } };
    expect(() => parseBatsimWorkload({ jobs: [job('a', 0, 1, 'p')], profiles: missing }, 'w.json')).toThrow('$.profiles.p.seq: unknown profile "nope"');
    expect(() => parseBatsimWorkload({ jobs: [], profiles: {} }, 'w.json', { unsupported: 'maybe' as 'skip' })).toThrow(/unsupported/);
  });

  it('tells Batsim files from native/IRMaSim ones', () => {
    expect(isBatsimWorkload({ jobs: [], profiles: { p: { type: 'delay', delay: 1 } } })).toBe(true);
    // Batsim profiles may carry a runtime too; the Batsim type decides
    expect(isBatsimWorkload({ jobs: [], profiles: { p: { type: 'DelayProfile', delay: 1, runtime: 1 } } })).toBe(true);
    // IRMaSim files carry nb_res, but their profiles have req_ops
    expect(isBatsimWorkload({ nb_res: 60, jobs: [], profiles: { p: { req_ops: 1, ipc: 1, req_time: 1 } } })).toBe(false);
    // native profiles may carry a job type
    expect(isBatsimWorkload({ jobs: [], profiles: { p: { type: 'mpi', runtime: 3 } } })).toBe(false);
    expect(isBatsimWorkload({ nb_res: 4, jobs: [], profiles: {} })).toBe(true);
    expect(isBatsimWorkload({ jobs: [{ id: 1, subtime: 0, res: 1, runtime: 4 }] })).toBe(false);
    expect(isBatsimWorkload([1, 2])).toBe(false);
  });
});

describe('jobs of the Batsim protocol (executors known at EXECUTE_JOB)', () => {
  // two nodes of two cores at 1,000 MOPS, links of 1e8 bytes/s
  const hosts = { nodeFirstCore: [0, 2], nodeCoreCount: [2, 2], nodeCommBw: [1e8, 1e8], coreMops: [1000, 1000, 1000, 1000] };

  it('an ops job: each executor takes max(ops / pstate speed, remote bytes / link) (L07 alone), as operations of its core', () => {
    // executors 0, 1 on node 0 (2e9 ops/s), executor 2 on node 1 (1e9 ops/s); 2e8 bytes to each other executor
    const work = { kind: 'ops' as const, perTask: [4e9, 4e9, 1e9], commVol: 2e8 };
    const { job, cores } = batsimExecutorJob('w0!7', 5, 10, work, [0, 0, 1], [2e9, 2e9, 1e9], hosts);
    // executors 0, 1: max(4e9 / 2e9, 2e8 x 1 / 1e8) = 2 s; executor 2: max(1e9 / 1e9, 2e8 x 2 / 1e8) = 4 s; x 1e9 ops/s
    expect(cores).toEqual([0, 1, 2]);
    expect(job).toMatchObject({ id: 'w0!7', subtime: 5, ntasks: 3, work: 'ops', ops: 0, reqTime: 10 });
    expect(job.tasks!.map((t) => t.ops)).toEqual([2e9, 2e9, 4e9]);
  });

  it("executors beyond a node's core count share its cores (their work adds up); a delay job runs its delay; no walltime: no requested time", () => {
    const ops = batsimExecutorJob('a', 0, -1, { kind: 'ops', perTask: [1e9, 1e9, 1e9], commVol: 0 }, [1, 1, 1], [1e9, 1e9, 1e9], hosts);
    // cores 2, 3, then 2 again: core 2 does 2 s of work, core 3 one
    expect(ops.cores).toEqual([2, 3]);
    expect(ops.job.tasks!.map((t) => t.ops)).toEqual([2e9, 1e9]);
    expect(ops.job.reqTime).toBe(0);
    const delay = batsimExecutorJob('b', 3, 100, { kind: 'delay', seconds: 7 }, [0, 1], [1e9, 1e9], hosts);
    expect(delay.cores).toEqual([0, 2]);
    expect(delay.job).toMatchObject({ ntasks: 2, work: 'delay', runtime: 7, reqTime: 100, tasks: null });
  });

  it('which profiles take an allocation of any size, and the progress tree of a composition', () => {
    const profiles = {
      tot: { type: 'parallel_homogeneous_total', cpu: 1e9, com: 0 },
      spread: { type: 'parallel_homogeneous', cpu: 1e9, com: 0, generation_strategy: 'DefinedAmountsSpreadUniformly' },
      each: { type: 'parallel_homogeneous', cpu: 1e9, com: 0 },
      both: { type: 'composed', seq: ['tot', 'spread'] },
      mixed: { type: 'composed', seq: ['tot', 'each'] },
      a: { type: 'delay', delay: 10 },
      b: { type: 'delay', delay: 30 },
      ab: { type: 'composed', seq: ['a', 'b'] },
    };
    expect(['tot', 'spread', 'each', 'both', 'mixed', 'a', 'nope'].map((p) => batsimProfileAnySize(profiles, p))).toEqual([
      true,
      true,
      false,
      true,
      false,
      false,
      false,
    ]);
    // half of 40 s: part a (10 s) done, part b at (20 - 10) / 30
    expect(batsimProfileProgress(profiles, 'ab', 1, 0.5, 'w0')).toEqual({
      profile: 'ab',
      current_task_index: 1,
      current_task: { profile: 'b', progress: 1 / 3 },
    });
    expect(batsimProfileProgress(profiles, 'a', 1, 0.25, 'w0')).toEqual({ profile: 'a', progress: 0.25 });
  });
});
