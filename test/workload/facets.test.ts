/**
 * Job facets (src/workload/job.ts, facets.ts): the native reader fills them exactly (a malleable job's
 * size defaults to max and its run time is steps x d(nodes)), errors name the JSON path, `makeJob` and
 * `writeNativeWorkload` carry them through a write/read round trip, and Batsim's `user` is read.
 */
import { describe, expect, it } from 'vitest';
import { parseBatsimWorkload } from '../../src/workload/batsim.js';
import { makeDelayJob, makeJob, numericJobId, type Job, type Workload, withSubtime } from '../../src/workload/job.js';
import { allowedSizes, nominalRuntime, stepTime } from '../../src/workload/malleability.js';
import { parseNativeWorkload } from '../../src/workload/nativeJson.js';
import { writeNativeWorkload } from '../../src/workload/index.js';

const parse = (jobs: unknown[], profiles: Record<string, unknown> = {}) => parseNativeWorkload({ jobs, profiles }, 'w.json').jobs;
const error = (job: Record<string, unknown>) => () => parse([{ id: 'j', subtime: 0, ...job }]);
const strip = (jobs: Job[]) => jobs.map(({ source: _s, ...j }) => j);

const AMDAHL = { name: 'cg', t1: 10, serial: 0.2 };

describe('facets in native JSON', () => {
  it('user, account, partition, qos and operator events', () => {
    const [j] = parse([
      {
        id: 'a',
        subtime: 0,
        ntasks: 2,
        runtime: 100,
        user: 'alice',
        account: 7,
        partition: 'debug',
        qos: 'high',
        operator_events: [
          { after: 10, duration: 5 },
          { after: 10, duration: 1 },
        ],
      },
    ]);
    expect([j!.user, j!.account, j!.partition, j!.qos]).toEqual(['alice', '7', 'debug', 'high']);
    expect(j!.operatorEvents).toEqual([
      { after: 10, duration: 5 },
      { after: 10, duration: 1 },
    ]);
    // a job without facets has none of them
    const [plain] = parse([{ id: 'b', subtime: 0, ntasks: 2, runtime: 100 }]);
    expect(Object.keys(plain!).filter((k) => ['user', 'account', 'partition', 'qos', 'malleable', 'operatorEvents', 'cpusPerTask'].includes(k))).toEqual([]);
    // fractional cores per task, for the vector capacity
    const [half] = parse([{ id: 'c', subtime: 0, ntasks: 1, runtime: 10, cpus_per_task: 0.25 }]);
    expect(half!.cpusPerTask).toBe(0.25);
    expect(() => parse([{ id: 'd', subtime: 0, ntasks: 1, runtime: 10, cpus_per_task: 0 }])).toThrow(/\$\.jobs\[0\]\.cpus_per_task/);
  });

  it("Slurm's node request (slurm_request): read, checked and written back", () => {
    const [x, r] = parse([
      { id: 'x', subtime: 0, nodes: 2, ntasks_per_node: 4, runtime: 10, slurm_request: { exclusive: true, min_nodes: 2 } },
      { id: 'r', subtime: 1, ntasks: 6, runtime: 10, slurm_request: { min_nodes: 2, max_nodes: 2, cpus_per_task: 1, mem_per_node: 1500 } },
    ]);
    expect(x!.slurmRequest).toEqual({ exclusive: true, minNodes: 2 });
    expect([x!.nodes, x!.ntasks]).toEqual([2, 8]);
    expect(r!.slurmRequest).toEqual({ minNodes: 2, maxNodes: 2, cpusPerTask: 1, memPerNode: 1500 });
    expect(() => parse([{ id: 'm', subtime: 0, ntasks: 2, runtime: 1, slurm_request: { mem_per_node: 0 } }])).toThrow(/slurm_request\.mem_per_node/);
    expect(() => parse([{ id: 'b', subtime: 0, ntasks: 2, runtime: 1, slurm_request: { min_nodes: 3, max_nodes: 2 } }])).toThrow(
      /slurm_request: expected max_nodes >= min_nodes/,
    );
    expect(() => parse([{ id: 'b', subtime: 0, ntasks: 2, runtime: 1, slurm_request: { nodes: 2 } }])).toThrow(/slurm_request/);
    const json = JSON.parse(JSON.stringify(writeNativeWorkload({ name: 'w', jobs: [x!, r!], skipped: {} })));
    expect(parseNativeWorkload(json, 'again.json').jobs.map((j) => j.slurmRequest)).toEqual([x!.slurmRequest, r!.slurmRequest]);
  });

  it('a malleable job: submitted at max by default, runtime = steps x d(max), its facet exact', () => {
    const [j] = parse([{ id: 'm', subtime: 3, malleable: { min: 2, max: 8, pref: 4, inhibit: 15, steps: 100, speedup: AMDAHL } }]);
    // d(8) = 10 x (0.2 + 0.8 / 8) = 3 s per step
    expect(stepTime(AMDAHL, 8)).toBeCloseTo(3, 12);
    expect([j!.type, j!.nodes, j!.ntasks, j!.ntasksPerNode, j!.work]).toEqual(['mpi', 8, 8, 1, 'delay']);
    expect(j!.runtime).toBe(100 * stepTime(AMDAHL, 8));
    expect(j!.reqTime).toBe(j!.runtime);
    expect(j!.malleable).toEqual({ spec: { min: 2, max: 8, pref: 4, factor: 2, inhibit: 15 }, steps: 100, speedup: AMDAHL });
    expect(allowedSizes(j!.malleable!.spec!)).toEqual([2, 4, 8]);
  });

  it('a rigid iterative job with a table of step times, 16 ranks per node, its own resize cost and req_time', () => {
    const times = { '2': 6, '4': 3.5 };
    const [j] = parse([
      {
        id: 'r',
        subtime: 0,
        nodes: 2,
        ntasks_per_node: 16,
        req_time: 999,
        malleable: { steps: 10, speedup: { times }, resize_cost: { expand: 1, shrink: 2 } },
      },
    ]);
    expect([j!.nodes, j!.ntasks, j!.runtime, j!.reqTime]).toEqual([2, 32, 60, 999]);
    expect(j!.malleable).toEqual({ spec: null, steps: 10, speedup: { name: 'app', times: { 2: 6, 4: 3.5 } }, resizeCost: { expand: 1, shrink: 2 } });
    expect(nominalRuntime(j!.malleable!, 4)).toBe(35);
    expect(() => stepTime(j!.malleable!.speedup, 8)).toThrow('speed-up table "app" has no step time for 8 nodes');
  });

  it('errors name the JSON path', () => {
    const m = (fields: Record<string, unknown>) => ({ malleable: { steps: 10, speedup: AMDAHL, ...fields } });
    expect(error({ user: '' })).toThrow(/^w\.json: \$\.jobs\[0\]\.user: /);
    expect(error({ ...m({ min: 2 }) })).toThrow('w.json: $.jobs[0].malleable: give `min` and `max` together');
    expect(error({ ...m({ pref: 2 }), nodes: 2 })).toThrow('w.json: $.jobs[0].malleable: `pref`, `factor` and `inhibit` need the limits');
    expect(error({ ...m({ min: 2, max: 6, pref: 4 }) })).toThrow('w.json: $.jobs[0].malleable (job "j"): max (6) must be pref (4) times a power of factor (2)');
    expect(error({ ...m({ min: 2, max: 8 }), nodes: 4 })).toThrow(
      'w.json: $.jobs[0].malleable (job "j"): a malleable job is submitted at max (8 nodes); its shape gives 4',
    );
    expect(error({ ...m({ min: 2, max: 8 }), runtime: 5 })).toThrow(
      'w.json: $.jobs[0].runtime (job "j"): the work of a job with `malleable` is its steps; found `runtime`',
    );
    expect(error({ ...m({}), type: 'mpi', ntasks: 4 })).toThrow(
      'w.json: $.jobs[0] (job "j"): a job with `malleable` runs on an exact node count: give `nodes`',
    );
    expect(error({ ...m({}) })).toThrow('w.json: $.jobs[0] (job "j"): the job has no size');
    expect(error({ malleable: { steps: 10, speedup: { t1: 1 } }, nodes: 2 })).toThrow(
      'w.json: $.jobs[0].malleable.speedup: expected `t1` and `serial` (Amdahl) or `times`',
    );
    expect(error({ malleable: { steps: 10, speedup: { times: { '2': 1 } } }, nodes: 4 })).toThrow(
      'w.json: $.jobs[0].malleable (job "j"): the step-time table gives no time for 4 node(s); the job can run at 4',
    );
    expect(error({ malleable: { steps: 10, speedup: { times: { two: 1 } } }, nodes: 2 })).toThrow(
      /\$\.jobs\[0\]\.malleable\.speedup\.times\.two: a node count/,
    );
    expect(
      error({
        ntasks: 1,
        runtime: 1,
        operator_events: [
          { after: 5, duration: 1 },
          { after: 2, duration: 1 },
        ],
      }),
    ).toThrow('w.json: $.jobs[0].operator_events[1].after: operator events must come in increasing `after`');
    expect(error({ ntasks: 1, runtime: 1, operator_events: [{ after: 5, duration: 0 }] })).toThrow(/\$\.jobs\[0\]\.operator_events\[0\]\.duration: /);
  });
});

describe('round trip: makeJob -> writeNativeWorkload -> parseNativeWorkload', () => {
  it('every facet comes back, on jobs with and without profiles', () => {
    const malleable = {
      spec: { min: 1, max: 4, pref: null, factor: 2, inhibit: 0 },
      steps: 7,
      speedup: { name: 'x', t1: 1.5, serial: 0.125 },
      resizeCost: { expand: 0.5, shrink: 0.25 },
    };
    const runtime = nominalRuntime(malleable, 4);
    const jobs = [
      makeJob({
        id: 'a',
        subtime: 0,
        ntasks: 3,
        runtime: 10,
        user: 'u1',
        account: 'acc',
        partition: 'p',
        qos: 'q',
        operatorEvents: [{ after: 1, duration: 2 }],
        cpusPerTask: 0.5,
      }),
      makeJob({ id: 'b', subtime: 1, ntasks: 4, type: 'mpi', nodes: 4, ntasksPerNode: 1, runtime, reqTime: runtime, user: 'u2', malleable }),
      makeJob({ id: 'c', subtime: 2, ntasks: 1, type: 'seq', runtime: 5, profile: 'p', user: 'u1' }),
      makeJob({
        id: 'd',
        subtime: 3,
        ntasks: 2,
        type: 'mpi',
        nodes: 2,
        ntasksPerNode: 1,
        runtime: 40,
        reqTime: 50,
        profile: 'it',
        malleable: { spec: null, steps: 4, speedup: { name: 't', times: { 2: 10 } } },
      }),
    ];
    expect(jobs[0]!.user).toBe('u1');
    const w: Workload = { name: 'f', jobs, skipped: {} };
    const json = JSON.parse(JSON.stringify(writeNativeWorkload(w)));
    expect(json.jobs[1]).toEqual({
      id: 'b',
      subtime: 1,
      ntasks: 4,
      nodes: 4,
      ntasks_per_node: 1,
      type: 'mpi',
      req_time: runtime,
      user: 'u2',
      malleable: {
        min: 1,
        max: 4,
        pref: null,
        factor: 2,
        inhibit: 0,
        steps: 7,
        speedup: { name: 'x', t1: 1.5, serial: 0.125 },
        resize_cost: { expand: 0.5, shrink: 0.25 },
      },
    });
    const back = parseNativeWorkload(json, 'back.json');
    expect(strip(back.jobs)).toEqual(strip(jobs));
  });
});

describe('Batsim', () => {
  it("a job's user (a string or a number) becomes its user facet", () => {
    const w = parseBatsimWorkload(
      {
        nb_res: 4,
        jobs: [
          { id: 1, subtime: 0, res: 1, profile: 'd', user: 12 },
          { id: 2, subtime: 0, res: 1, profile: 'd', user: 'bob' },
          { id: 3, subtime: 0, res: 1, profile: 'd' },
        ],
        profiles: { d: { type: 'delay', delay: 5 } },
      },
      'b.json',
    );
    expect(w.jobs.map((j) => j.user)).toEqual(['12', 'bob', undefined]);
  });
});

describe('makeDelayJob (a rigid job of fixed duration, its shared fields on its prototype)', () => {
  /** A job without facets (each an own key, undefined). */
  const NO_FACETS = {
    user: undefined,
    partition: undefined,
    qos: undefined,
    operatorEvents: undefined,
    epilogPass: undefined,
    gpus: undefined,
    slurmRequest: undefined,
  };
  const JOB_FIELDS = Object.keys(makeJob({ id: 'x', subtime: 0, ntasks: 1 }));
  const read = (j: Job, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, (j as unknown as Record<string, unknown>)[k]]));
  it("reads as makeJob's job with the same fields, field for field; every job has one shape; withSubtime keeps it", () => {
    const facets = {
      user: '7',
      partition: 'normal',
      qos: 'q1',
      operatorEvents: [{ after: 5, duration: 10 }],
      epilogPass: true,
      gpus: { count: 2, perNode: false, type: 'v100', weight: 1 },
      slurmRequest: { minNodes: 2, maxNodes: 4, cpusPerTask: 2 },
    };
    const fast = makeDelayJob('42', 100, 16, 3600, 7200, facets);
    const slow = makeJob({ id: '42', subtime: 100, ntasks: 16, type: 'mpi', runtime: 3600, reqTime: 7200, ...facets });
    const keys = [...JOB_FIELDS, ...Object.keys(facets)];
    expect(keys).toContain('tCompute');
    expect(read(fast, keys)).toEqual(read(slow, keys));
    expect(read(fast, keys)).toEqual(slow);
    // absent facets stay own keys (undefined), so that jobs with and without them share one shape
    const bare = makeDelayJob('1', 0, 1, 10, 10, NO_FACETS);
    expect(Object.keys(bare)).toEqual(Object.keys(fast));
    expect(bare.gpus).toBeUndefined();
    // a copy at another submission time keeps every field (a spread would drop the shared ones)
    const moved = withSubtime(fast, 250);
    expect(read(moved, keys)).toEqual({ ...read(slow, keys), subtime: 250 });
    expect(fast.subtime).toBe(100);
    expect(withSubtime(fast, 100)).toBe(fast);
    const plain = withSubtime(slow, 5);
    expect(plain).toEqual({ ...slow, subtime: 5 });
  });

  it('numericJobId is Number(job.id), a numeric id read as it was given', () => {
    for (const id of [0, 7, 123456789, '42', 'x1']) {
      const j = makeDelayJob(id, 0, 1, 10, 10, NO_FACETS);
      expect(j.id).toBe(String(id));
      expect(Object.is(numericJobId(j), Number(j.id))).toBe(true);
      expect(Object.is(numericJobId(withSubtime(j, 3)), Number(j.id))).toBe(true);
    }
    expect(numericJobId(makeJob({ id: '17', subtime: 0, ntasks: 1 }))).toBe(17);
    expect(numericJobId(makeJob({ id: 'a', subtime: 0, ntasks: 1 }))).toBeNaN();
  });
});
