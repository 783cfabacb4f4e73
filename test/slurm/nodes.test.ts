import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SlurmJobInput } from '../../src/slurm/config.js';
import { type NodeRequest, distTasks, evalNodes, pickNodes, usableUnits } from '../../src/scheduling/nodeSelection.js';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import { runOn } from './presetHarness.js';

const tasks = (units: number, o: Partial<NodeRequest> = {}): NodeRequest => ({
  units,
  minNodes: 1,
  maxNodes: 0,
  whole: false,
  cpusPerTask: 1,
  memPerNode: 0,
  memPerUnit: 0,
  gpus: 0,
  gpuType: -1,
  ...o,
});

describe("cons_tres's node choice (evalNodes)", () => {
  it('one node left: the node of the best run with the fewest CPUs that hold the job', () => {
    // runs [0-1] (3+2 = 5 CPUs) and [3] (4): a job of 3 takes the sufficient run with the fewest CPUs: [3];
    // within it, node 3 holds all three
    expect(evalNodes(Int32Array.from([3, 2, 0, 4]), tasks(3))).toEqual({ pos: Int32Array.from([3]), units: Int32Array.from([3]) });
    // a job of 2: runs [0-1] (5) and [3] (4) are sufficient; [3] has fewer CPUs: node 3, 2 CPUs
    expect(evalNodes(Int32Array.from([3, 2, 0, 4]), tasks(2))).toEqual({ pos: Int32Array.from([3]), units: Int32Array.from([2]) });
  });

  it('no single node holds it: CPUs in node order, one kept for each node still to come', () => {
    // 6 CPUs over runs [0-2] (2+2+2) and [4] (4): [0-2] is sufficient (6 >= 6) and [4] is not; nodes 0, 1, 2 take 2 each
    expect(evalNodes(Int32Array.from([2, 2, 2, 0, 4]), tasks(6))).toEqual({ pos: Int32Array.from([0, 1, 2]), units: Int32Array.from([2, 2, 2]) });
    // 5 CPUs on [4, 4]: node 0 takes 4 (5 - 0 nodes to come... rem_nodes is 1: no CPU kept), node 1 the last one
    expect(evalNodes(Int32Array.from([4, 4]), tasks(5))).toEqual({ pos: Int32Array.from([0, 1]), units: Int32Array.from([4, 1]) });
    // -N 2 -n 5: node 0 keeps one CPU for node 1 (_cpus_to_use): 4 and 1
    expect(evalNodes(Int32Array.from([4, 4]), tasks(5, { minNodes: 2 }))).toEqual({ pos: Int32Array.from([0, 1]), units: Int32Array.from([4, 1]) });
    // -N 2 -n 2 on [4, 4]: one each
    expect(evalNodes(Int32Array.from([4, 4]), tasks(2, { minNodes: 2 }))).toEqual({ pos: Int32Array.from([0, 1]), units: Int32Array.from([1, 1]) });
    // too few CPUs, or too few nodes
    expect(evalNodes(Int32Array.from([2, 0, 1]), tasks(4))).toBeNull();
    expect(evalNodes(Int32Array.from([4, 0, 0]), tasks(2, { minNodes: 2 }))).toBeNull();
  });

  it('whole nodes: every CPU of each node taken; on one-unit nodes the choice is pickNodes (property)', () => {
    expect(evalNodes(Int32Array.from([4, 0, 4, 4]), tasks(2, { whole: true, minNodes: 2 }))).toEqual({
      pos: Int32Array.from([2, 3]),
      units: Int32Array.from([4, 4]),
    });
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 24 }), fc.integer({ min: 1, max: 8 }), (bits, n) => {
        const avail = Uint8Array.from(bits, (b) => (b ? 1 : 0));
        const want = pickNodes(avail, n);
        const got = evalNodes(Int32Array.from(avail), tasks(n, { whole: true, minNodes: n }));
        expect(got?.pos ?? null).toEqual(want);
      }),
      { numRuns: 400, seed: 43 },
    );
  });

  it('usable CPUs on a node: its free CPUs (at least a task, all its tasks with -N 1), by memory per CPU in whole tasks; whole nodes only when idle', () => {
    // can_job_run_on_node: the free CPUs, not rounded to whole tasks (3 for -c 2), a node of fewer than a task's unusable
    expect(usableUnits(tasks(4, { cpusPerTask: 2 }), 4, 3, 4000, false, 0)).toBe(3);
    expect(usableUnits(tasks(4, { cpusPerTask: 2 }), 4, 1, 4000, false, 0)).toBe(0);
    // -N 1 (max_nodes 1): min_cpus_per_node is all its tasks' CPUs
    expect(usableUnits(tasks(4, { maxNodes: 1 }), 4, 3, 4000, false, 0)).toBe(0);
    expect(usableUnits(tasks(4, { maxNodes: 1 }), 4, 4, 4000, false, 0)).toBe(4);
    expect(usableUnits(tasks(4, { memPerUnit: 500 }), 4, 4, 1200, false, 0)).toBe(2);
    // memory per CPU: as many CPUs as it allows (3), then whole tasks of -c 2
    expect(usableUnits(tasks(4, { memPerUnit: 500, cpusPerTask: 2 }), 4, 4, 1600, false, 0)).toBe(2);
    expect(usableUnits(tasks(4, { memPerNode: 3000 }), 4, 4, 2000, false, 0)).toBe(0);
    expect(usableUnits(tasks(4, { memPerNode: 3000 }), 4, 4, 3000, false, 0)).toBe(4);
    expect(usableUnits(tasks(1, { whole: true }), 4, 4, 4000, true, 0)).toBe(4);
    expect(usableUnits(tasks(1, { whole: true }), 4, 3, 4000, false, 0)).toBe(0);
    // GPUs per node (issue 45): the node's GPUs of the job's type (NodeMap.gpusFor) must hold its count
    expect(usableUnits(tasks(2, { gpus: 2 }), 4, 4, 4000, false, 1)).toBe(0);
    expect(usableUnits(tasks(2, { gpus: 2 }), 4, 4, 4000, false, 2)).toBe(4);
    expect(usableUnits(tasks(1, { whole: true, gpus: 4 }), 4, 4, 4000, true, 2)).toBe(0);
  });
});

describe('what the live Slurm 22.05 allocates (cons_tres, CR_CPU; docs/slurm.md "Node ranges and CPUs per task")', () => {
  // sbatch SHAPE on nodes with `avail` usable CPUs each (scontrol show job -d: the nodes and CPU_IDs), as evalNodes gives them
  const cases: [string, number[], NodeRequest, number[] | null, number[]][] = [
    ['-N 2-4 -n 6 on four idle 2-CPU nodes', [2, 2, 2, 2], tasks(6, { minNodes: 2, maxNodes: 4 }), [0, 1, 2, 3], [2, 2, 1, 1]],
    ['-N 1-3 -n 3 on four idle 2-CPU nodes', [2, 2, 2, 2], tasks(3, { maxNodes: 3 }), [0, 1, 2], [1, 1, 1]],
    ['-N 2 -n 2 -c 2 on four idle 2-CPU nodes', [2, 2, 2, 2], tasks(4, { minNodes: 2, maxNodes: 2, cpusPerTask: 2 }), [0, 1], [2, 2]],
    ['-n 3 -c 2 on four idle 2-CPU nodes', [2, 2, 2, 2], tasks(6, { cpusPerTask: 2 }), [0, 1, 2], [2, 2, 2]],
    ['-N 2-3 -n 4 -c 2 on 2-CPU nodes (refused at submission)', [2, 2, 2, 2], tasks(8, { minNodes: 2, maxNodes: 3, cpusPerTask: 2 }), null, []],
    ['-N 2 -n 2 -c 2 on four idle 4-CPU nodes', [4, 4, 4, 4], tasks(4, { minNodes: 2, maxNodes: 2, cpusPerTask: 2 }), [0, 1], [2, 2]],
    ['-N 2 -n 4 -c 2 on four idle 4-CPU nodes', [4, 4, 4, 4], tasks(8, { minNodes: 2, maxNodes: 2, cpusPerTask: 2 }), [0, 1], [4, 4]],
    ['-N 2-4 -n 6 on four idle 4-CPU nodes', [4, 4, 4, 4], tasks(6, { minNodes: 2, maxNodes: 4 }), [0, 1, 2, 3], [2, 2, 1, 1]],
    ['-N 2-4 -n 3 -c 2 on four idle 4-CPU nodes', [4, 4, 4, 4], tasks(6, { minNodes: 2, maxNodes: 4, cpusPerTask: 2 }), [0, 1, 2], [2, 2, 2]],
    ['-N 2-3 -n 5 on four idle 4-CPU nodes', [4, 4, 4, 4], tasks(5, { minNodes: 2, maxNodes: 3 }), [0, 1, 2], [3, 1, 1]],
    ['-N 1-2 -n 3 -c 2 on four idle 4-CPU nodes', [4, 4, 4, 4], tasks(6, { maxNodes: 2, cpusPerTask: 2 }), [0, 1], [4, 2]],
    // the relief valve: 5 tasks of 3 CPUs hold 13 CPUs, two tasks on node 0's 4
    ['-n 5 -c 3 on four idle 4-CPU nodes', [4, 4, 4, 4], tasks(15, { cpusPerTask: 3 }), [0, 1, 2, 3], [4, 3, 3, 3]],
    // a 1-CPU job on each node first: 3 tasks of 2 CPUs hold 5 CPUs
    ['-N 2 -n 3 -c 2 on 4-CPU nodes with 3 free each', [3, 3, 3, 3], tasks(6, { minNodes: 2, maxNodes: 2, cpusPerTask: 2 }), [0, 1], [3, 2]],
    ['-N 2-4 -n 3 on 4-CPU nodes with 0, 1, 3, 3 free', [0, 1, 3, 3], tasks(3, { minNodes: 2, maxNodes: 4 }), [1, 2, 3], [1, 1, 1]],
  ];
  for (const [name, avail, req, pos, units] of cases)
    it(name, () => {
      const pick = evalNodes(Int32Array.from(avail), req);
      if (pos === null) expect(pick).toBeNull();
      else expect(pick).toEqual({ pos: Int32Array.from(pos), units: Int32Array.from(units) });
    });

  it('-N 1 -n 4 on 4-CPU nodes with 3, 4, 0, 4 free: node 1, the 3-CPU node unusable (it does not join node 1 in a run)', () => {
    const req = tasks(4, { maxNodes: 1 });
    const avail = Int32Array.from([3, 4, 0, 4], (f) => usableUnits(req, 4, f, Number.POSITIVE_INFINITY, f === 4, 0));
    expect(evalNodes(avail, req)).toEqual({ pos: Int32Array.of(1), units: Int32Array.of(4) });
  });

  it('distTasks lays tasks out cyclically within what _eval_nodes chose (one each, then one more on each in turn), the relief valve past it', () => {
    expect([...distTasks(Int32Array.of(2, 2, 2, 1), tasks(6))]).toEqual([2, 2, 1, 1]);
    expect([...distTasks(Int32Array.of(3, 2), tasks(4, { cpusPerTask: 2 }))]).toEqual([2, 2]);
    expect([...distTasks(Int32Array.of(4, 1), tasks(5))]).toEqual([4, 1]);
    expect([...distTasks(Int32Array.of(4, 4, 4, 3), tasks(15, { cpusPerTask: 3 }))]).toEqual([4, 3, 3, 3]);
  });
});

describe('on the Slurm preset', () => {
  describe('CPU nodes with memory (nodeSelect)', () => {
    const platform = new SlurmPlatform({
      groups: [{ name: 'n', count: 2, cores: 4, memory_mb: 4000 }],
      partitions: [{ name: 'p', groups: ['n'] }],
    });
    const config = { nodeSelect: true, bfWillRun: true, backfill: false, schedOnSubmit: true };
    const run = (jobs: SlurmJobInput[]) => {
      const out = new Map<number, { start: number; cores: number }>();
      for (const [id, r] of runOn(platform, jobs, config).recs) if (r.state === 'completed') out.set(id, { start: r.start, cores: r.cpus });
      return out;
    };
    const job = (id: number, submit: number, cores: number, runTime: number, shape: SlurmJobInput['shape'] = {}): SlurmJobInput => ({
      id,
      submit,
      cores,
      runTime,
      timeLimit: 600,
      user: 0,
      shape,
    });

    it('memory decides: two jobs of 3,000 MB cannot share a node, so the third waits although CPUs are free', () => {
      const r = run([job(1, 0, 1, 100, { memPerNode: 3000 }), job(2, 0, 1, 100, { memPerNode: 3000 }), job(3, 0, 1, 50, { memPerNode: 3000 })]);
      expect([r.get(1)!.start, r.get(2)!.start, r.get(3)!.start]).toEqual([0, 0, 100]);
    });

    it('a whole-node job waits for an idle node and holds all its CPUs; tasks share the other', () => {
      const r = run([job(1, 0, 1, 100), job(2, 0, 4, 50, { whole: true, minNodes: 1 }), job(3, 0, 1, 30, { whole: true, minNodes: 1 })]);
      // job 1 (1 CPU) on node 0; job 2 takes node 1 whole (4 CPUs); job 3 waits for an idle node: node 1 at 50
      expect(r.get(2)).toEqual({ start: 0, cores: 4 });
      expect(r.get(3)).toEqual({ start: 50, cores: 4 });
    });
  });

  describe('node ranges and -c (nodeSelect)', () => {
    const layout = { groups: [{ name: 'n', count: 4, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const config = { nodeSelect: true, bfWillRun: true, backfill: false, schedOnSubmit: true, users: 1 };

    it('refuses at submission a request the select plugin can never place (-N 1 -c 2 of 6 CPUs on 4-CPU nodes); the run ends', () => {
      const jobs: SlurmJobInput[] = [
        { id: 1, submit: 0, cores: 6, runTime: 10, timeLimit: 20, user: 0, shape: { minNodes: 1, maxNodes: 1, cpusPerTask: 2 } },
        { id: 2, submit: 5, cores: 6, runTime: 10, timeLimit: 20, user: 0, shape: { minNodes: 2, maxNodes: 2, cpusPerTask: 2 } },
      ];
      // (before, job 1 waited for ever: the run went on with priority ticks and never ended; stopped at 10,000 s, job 2 has its row)
      const run = runOn(layout, jobs, config, 10_000);
      expect([run.recs.get(1)!.state, run.recs.get(2)!.state]).toEqual(['refused', 'completed']);
      expect(run.idle).toBe(true);
    });
    // (a job holding its tasks' CPUs, -N 2-4 -n 6 on four idle 2-CPU nodes 2 + 2 + 1 + 1: presetNodes.test's hand-computed case)
  });
});
