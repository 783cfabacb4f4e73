/**
 * Native/IRMaSim workload JSON: every job-spec form IRMaSim's loader accepts, resolved as its
 * `Simulator.generate_workload` resolves it (hand-computed, one case per form), the contradictions it
 * refuses, and the field checks (unknown fields with suggestions, IRMaSim's defaults).
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { nodeTaskShare, perNodeCores, type Job } from '../../src/workload/job.js';
import { parseNativeWorkload, resolveShape } from '../../src/workload/nativeJson.js';

const WORK = { req_ops: 2e9, req_time: 10 };

function one(fields: Record<string, unknown>, profiles: Record<string, unknown> = {}): Job {
  return parseNativeWorkload({ jobs: [{ id: 'j', subtime: 0, ...WORK, ...fields }], profiles }, 'w.json').jobs[0]!;
}
const shape = (j: Job) => ({ type: j.type, ntasks: j.ntasks, nodes: j.nodes, perNode: j.nodes > 0 && j.type === 'mpi' ? perNodeCores(j) : 0 });
function error(fields: Record<string, unknown>, profiles: Record<string, unknown> = {}): string {
  try {
    one(fields, profiles);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
  throw new Error('expected an InputError');
}

describe("job shapes as IRMaSim's loader resolves them", () => {
  it('res: n is one node with n tasks', () => {
    expect(shape(one({ res: 6 }))).toEqual({ type: 'seq', ntasks: 6, nodes: 1, perNode: 0 });
  });
  it('ntasks alone: ntasks_per_node defaults to 1, nodes = ntasks', () => {
    expect(shape(one({ ntasks: 6 }))).toEqual({ type: 'mpi', ntasks: 6, nodes: 6, perNode: 1 });
  });
  it('ntasks + ntasks_per_node: nodes = ceil(ntasks / ntasks_per_node)', () => {
    expect(shape(one({ ntasks: 7, ntasks_per_node: 3 }))).toEqual({ type: 'mpi', ntasks: 7, nodes: 3, perNode: 3 });
    expect(shape(one({ ntasks: 4, ntasks_per_node: 4 }))).toEqual({ type: 'seq', ntasks: 4, nodes: 1, perNode: 0 });
  });
  it('nodes alone: one task per node', () => {
    expect(shape(one({ nodes: 3 }))).toEqual({ type: 'mpi', ntasks: 3, nodes: 3, perNode: 1 });
    expect(shape(one({ nodes: 1 }))).toEqual({ type: 'seq', ntasks: 1, nodes: 1, perNode: 0 });
  });
  it('nodes + ntasks_per_node: ntasks = nodes * ntasks_per_node', () => {
    expect(shape(one({ nodes: 2, ntasks_per_node: 4 }))).toEqual({ type: 'mpi', ntasks: 8, nodes: 2, perNode: 4 });
  });
  it('nodes + ntasks (the form that used to be refused): ntasks_per_node = ceil(ntasks / nodes)', () => {
    expect(shape(one({ nodes: 2, ntasks: 6 }))).toEqual({ type: 'mpi', ntasks: 6, nodes: 2, perNode: 3 });
    expect(shape(one({ nodes: 3, ntasks: 7 }))).toEqual({ type: 'mpi', ntasks: 7, nodes: 3, perNode: 3 });
  });
  it('all three, consistent: ntasks_per_node becomes ceil(ntasks / nodes) as IRMaSim recomputes it', () => {
    // 5 tasks at 4 per node need ceil(5/4) = 2 nodes; IRMaSim then sets ntasks_per_node = ceil(5/2) = 3
    expect(shape(one({ nodes: 2, ntasks: 5, ntasks_per_node: 4 }))).toEqual({ type: 'mpi', ntasks: 5, nodes: 2, perNode: 3 });
  });
  it('round-robin shares: 7 tasks on 3 nodes hold 3, 2, 2', () => {
    const j = one({ nodes: 3, ntasks: 7 });
    expect([0, 1, 2].map((i) => nodeTaskShare(j, i))).toEqual([3, 2, 2]);
  });
  it("clustergym's extensions: type mpi with ntasks goes anywhere, type seq with ntasks on one node, tasks: [...]", () => {
    expect(shape(one({ type: 'mpi', ntasks: 6 }))).toEqual({ type: 'mpi', ntasks: 6, nodes: 0, perNode: 0 });
    expect(shape(one({ type: 'seq', ntasks: 6 }))).toEqual({ type: 'seq', ntasks: 6, nodes: 1, perNode: 0 });
    expect(shape(one({ tasks: [{ req_ops: 1e9 }, { req_ops: 3e9 }] }))).toEqual({ type: 'seq', ntasks: 2, nodes: 1, perNode: 0 });
  });
});

describe('contradictions are errors naming the job and the fields', () => {
  it('all three inconsistent', () => {
    expect(error({ nodes: 3, ntasks: 8, ntasks_per_node: 4 })).toBe(
      'w.json: $.jobs[0] (job "j"): nodes, ntasks and ntasks_per_node contradict each other: 8 tasks at 4 per node need ceil(8/4) = 2 nodes, found nodes = 3',
    );
  });
  it('res with the others', () => {
    expect(error({ res: 2, ntasks: 2 })).toMatch(
      /\(job "j"\): give either `res` or `nodes`\/`ntasks`\/`ntasks_per_node` \(IRMaSim refuses both\); found res and ntasks/,
    );
  });
  it('more nodes than tasks, ntasks_per_node alone, a seq job on several nodes, no size', () => {
    expect(error({ nodes: 4, ntasks: 2 })).toMatch(/4 nodes for 2 tasks would leave a node without a task/);
    expect(error({ ntasks_per_node: 2 })).toMatch(/`ntasks_per_node` alone does not size a job/);
    expect(error({ type: 'seq', ntasks: 8, ntasks_per_node: 4 })).toMatch(/a seq job runs on one node; its nodes\/ntasks\/ntasks_per_node give 2 nodes/);
    expect(error({})).toMatch(/the job has no size/);
  });
  it('resolveShape returns the reason instead of throwing', () => {
    expect(resolveShape({ nodes: 2, ntasks: 5, ntasks_per_node: 2 })).toMatch(/contradict/);
    expect(resolveShape({ nodes: 2, ntasks: 5 })).toEqual({ ntasks: 5, type: 'mpi', nodes: 2, ntasksPerNode: 3 });
  });
});

describe('fields', () => {
  it('an unknown job field is an error with the field it looks like', () => {
    expect(error({ res: 1, memvol: 5 })).toBe(
      'w.json: $.jobs[0].memvol: unknown field "memvol" (did you mean "mem_vol"?); expected one of ' +
        'id, subtime, profile, res, ntasks, nodes, ntasks_per_node, req_ops, ipc, runtime, mem, mem_vol, req_time, req_energy, type, comm_vol, t_compute, tasks, extra, user, account, partition, qos, malleable, operator_events, cpus_per_task, gpus, slurm_request',
    );
  });
  it('unknown profile and task fields too', () => {
    expect(error({ res: 1, profile: 'p' }, { p: { ...WORK, reqtime: 3 } })).toMatch(
      /\$\.profiles\.p\.reqtime: unknown field "reqtime" \(did you mean "req_time"\?\)/,
    );
    expect(error({ tasks: [{ req_ops: 1, memm: 2 }] })).toMatch(/\$\.jobs\[0\]\.tasks\[0\]\.memm: unknown field "memm" \(did you mean "mem"\?\)/);
  });
  it('extra is carried and ignored; Batsim leftovers of IRMaSim profiles (type, com, cpu) load', () => {
    expect(one({ res: 1, extra: { owner: 'me', tags: [1, 2] } }).ntasks).toBe(1);
    const j = one(
      { res: 2, profile: 'A', req_ops: undefined, req_time: undefined },
      { A: { type: 'parallel_homogeneous', com: 0, cpu: 2.1e10, req_time: 5, req_ops: 2.1e10, ipc: 1, mem: 500, mem_vol: 1e6 } },
    );
    expect([j.type, j.ops, j.memVol]).toEqual(['seq', 2.1e10, 1e6]);
  });
  it("IRMaSim's defaults: ipc 1, mem 0, mem_vol 0 (1 when the work comes from a profile without it), req_energy 0", () => {
    const inline = one({ res: 1, ipc: undefined });
    expect([inline.ops, inline.mem, inline.memVol, inline.reqEnergy]).toEqual([2e9, 0, 0, 0]);
    const fromProfile = one({ res: 1, profile: 'p', req_ops: undefined, req_time: undefined }, { p: { req_ops: 3e9, ipc: 1.5, req_time: 4, req_energy: 7 } });
    expect([fromProfile.ops, fromProfile.memVol, fromProfile.reqTime, fromProfile.reqEnergy]).toEqual([2e9, 1, 4, 7]);
  });
  it('a job without id is named job<index>, as IRMaSim names it', () => {
    const w = parseNativeWorkload(
      {
        jobs: [
          { subtime: 0, res: 1, ...WORK },
          { subtime: 1, res: 1, ...WORK },
        ],
      },
      'w.json',
    );
    expect(w.jobs.map((j) => j.id)).toEqual(['job0', 'job1']);
  });
});
