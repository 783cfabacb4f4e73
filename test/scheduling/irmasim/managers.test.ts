/**
 * IRMaSim conformance: IRMaSim's own examples with their published or hand-derived results, every
 * heuristic workload-manager configuration against IRMaSim's outputs on two generated cases (the
 * golden file, produced by running IRMaSim itself: tools/irmasim-diff/golden.py), and hand-computed
 * cases of the names whose meaning IRMaSim's code fixes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PythonRandom } from '../../../src/core/rng.js';
import { roundHalfEven } from '../../../src/execution/simulator.js';
import { runSimulation } from '../../../src/scheduling/run.js';
import { makeIrmasimManager } from '../../../src/scheduling/irmasim/index.js';
import { prepareIrmasimRun } from '../../../src/scheduling/irmasim/options.js';
import { HAVE_SHARED, SHARED_DATA, SHARED_MISSING } from '../../helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'cg-irmasim-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs an options file as `simulate --irmasim` does; per-job [start, finish] and the summary. */
function run(optionsFile: string, idlePower: 'always' | 'after-first-task' = 'after-first-task') {
  const r = prepareIrmasimRun(optionsFile);
  const jobs: Record<string, [number, number]> = {};
  const cores: Record<string, number[]> = {};
  const { summary } = runSimulation(r.platform, r.jobs, r.manager.scheduler, {
    ...r.simulator,
    idlePower,
    listeners: [
      {
        onEnd: (_s, rec) => {
          jobs[rec.job.id] = [rec.start, rec.finish];
          cores[rec.job.id] = Array.from(rec.cores);
        },
      },
    ],
  });
  return { jobs, cores, summary, run: r };
}

/** Writes an options file (and the case's platform and workload) into a fresh folder. */
function optionsFor(name: string, platform: unknown, workload: unknown, opts: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmp, `${name.replace(/[^a-z0-9]/gi, '_')}-`));
  writeFileSync(join(dir, 'platform.json'), JSON.stringify(platform));
  writeFileSync(join(dir, 'workload.json'), JSON.stringify(workload));
  const f = join(dir, 'options.json');
  writeFileSync(f, JSON.stringify({ platform_file: 'platform.json', workload_file: 'workload.json', ...opts }));
  return f;
}

describe.skipIf(!HAVE_SHARED)(`IRMaSim's examples (../shared/data/irmasim)${HAVE_SHARED ? '' : ` ${SHARED_MISSING}`}`, () => {
  it('dual_core: the published output (makespan 1.8 s, 350 J, job57218 0 -> 1.3 on core 0, job57219 0.5 -> 1.8 on core 1)', () => {
    for (const idle of ['always', 'after-first-task'] as const) {
      const r = run(join(SHARED_DATA, 'irmasim/dual_core/options.json'), idle);
      expect(r.run.manager.type).toBe('Minimal');
      expect(r.jobs).toEqual({ job57218: [0, 1.3], job57219: [0.5, 1.8] });
      expect(r.cores).toEqual({ job57218: [0], job57219: [1] });
      expect(r.summary.makespan).toBe(1.8);
      expect(r.summary.energy).toBeCloseTo(350, 9);
    }
  });

  it('energy/options_heuristic.json: the schedule and energy derived by hand with IRMaSim stepping', () => {
    // 2 nodes of one 4-core processor: node0 3.4 GHz (static 6.14211 W, dynamic 5.59316 W), node1 1.5 GHz
    // (2.31082 W, 1.59482 W); memory traffic too small for contention. Heuristic first x first:
    // t=0: jobs 1 (3 x 1e10 ops), 2 (3 x 5e9), 3 (3 x 1e9) arrive; 1 -> node0, 2 -> node1, 3 waits (head).
    const f0 = 3.4e9;
    const f1 = 1.5e9;
    const e1 = 1e10 / f0; // job 1 ends
    // job 2 on node1 lost round(f1 * dt) operations at each step: t = 1, 2 (arrivals), e1
    const left2 = 5e9 - roundHalfEven(f1 * 1) - roundHalfEven(f1 * 1) - roundHalfEven(f1 * (e1 - 2));
    const e2 = e1 + left2 / f1;
    const e3 = e1 + 1e9 / f0; // job 3 (head) on node0 at e1
    const e5 = e3 + 5e9 / f0; // at e3: job 4 (2 x 1e10) and 5 (2 x 5e9) fill node0
    const e4 = e3 + 1e10 / f0;
    const e6 = e2 + 1e9 / f1; // at e2: 6 (2 x 1e9), 7 (1e10), 8 (5e9) fill node1; 9 waits
    const e8 = e2 + 5e9 / f1;
    const e7 = e2 + 1e10 / f1;
    const e9 = e6 + 1e9 / f1; // at e6: job 9 on node1
    const r = run(join(SHARED_DATA, 'irmasim/energy/options_heuristic.json'));
    const expected: Record<string, [number, number]> = {
      '1': [0, e1],
      '2': [0, e2],
      '3': [e1, e3],
      '4': [e3, e4],
      '5': [e3, e5],
      '6': [e2, e6],
      '7': [e2, e7],
      '8': [e2, e8],
      '9': [e6, e9],
    };
    // (IRMaSim also rounds the operations of the other running tasks at every step: each end moves by
    // less than 1e-9 s from the values above; the golden tests below check those bits exactly)
    for (const [id, [s, e]] of Object.entries(expected)) {
      expect(Math.abs(r.jobs[id]![0] - s)).toBeLessThan(1e-8);
      expect(Math.abs(r.jobs[id]![1] - e)).toBeLessThan(1e-8);
    }
    expect(Math.abs(r.summary.makespan - e7)).toBeLessThan(1e-8);
    // energy: busy cores per processor over time, P = static + busy * dynamic (idle: 0.05 * static)
    const p0 = (b: number) => (b === 0 ? 0.05 * 6.14211 : 6.14211 + b * 5.59316);
    const p1 = (b: number) => (b === 0 ? 0.05 * 2.31082 : 2.31082 + b * 1.59482);
    const node0 = p0(3) * e1 + p0(3) * (e3 - e1) + p0(4) * (e5 - e3) + p0(2) * (e4 - e5) + p0(0) * (e7 - e4);
    const node1 = p1(3) * e2 + p1(4) * (e6 - e2) + p1(3) * (e9 - e6) + p1(2) * (e8 - e9) + p1(1) * (e7 - e8);
    expect(Math.abs(r.summary.energy - (node0 + node1))).toBeLessThan(1e-6);
    expect(r.summary.energy).toBeCloseTo(200.9429933739491, 9); // what IRMaSim prints
  });

  it('energy/options_energy.json names a manager of an older IRMaSim: exit-2 error that names EnergyHeuristic', () => {
    expect(() => prepareIrmasimRun(join(SHARED_DATA, 'irmasim/energy/options_energy.json'))).toThrow(
      /unknown workload manager "Energy" \(did you mean "EnergyHeuristic"\?\); clustergym runs Minimal, Heuristic, Backfill, EnergyHeuristic, Duplex/,
    );
  });
});

interface Golden {
  irmasim: string;
  cases: Record<
    string,
    {
      seed: number;
      platform: unknown;
      workload: unknown;
      runs: Record<string, { workload_manager: Record<string, unknown>; makespan: number; energy: number; jobs: Record<string, [number, number]> }>;
    }
  >;
}
const golden = JSON.parse(readFileSync(join(here, 'golden.json'), 'utf8')) as Golden;

describe(`every manager configuration gives IRMaSim's numbers (golden file from ${golden.irmasim})`, () => {
  for (const [caseName, c] of Object.entries(golden.cases))
    describe(caseName, () => {
      for (const [name, expected] of Object.entries(c.runs))
        it(name, () => {
          const f = optionsFor(`${caseName}-${name}`, c.platform, c.workload, {
            seed: c.seed,
            platform_name: 'plat',
            workload_manager: expected.workload_manager,
          });
          const r = run(f);
          // bit for bit: the same float operations in the same order as IRMaSim's simulator loop
          expect(r.jobs).toEqual(expected.jobs);
          expect(r.summary.makespan).toBe(expected.makespan);
          expect(Math.abs(r.summary.energy - expected.energy) / expected.energy).toBeLessThan(1e-12);
        });
    });

  it('the golden cases tell the configurations apart (a test that a wrong name would fail)', () => {
    const schedules = new Set(Object.values(golden.cases['all-forms']!.runs).map((r) => JSON.stringify(r.jobs)));
    expect(schedules.size).toBeGreaterThan(20);
  });
});

describe('hand-computed: what the names mean', () => {
  // node0: 4 cores x 1 GHz (peak power 4 x (1 + 8/4) = 12 W), node1: 2 cores x 2 GHz (2 x (4 + 2/2) = 10 W),
  // node2: 8 cores x 1 GHz (8 x (1 + 8/8) = 16 W); no contention (no memory traffic)
  const proc = (cores: number, clock: number, stat: number, dyn: number) => ({
    cores,
    clock_rate: clock,
    dpflops_per_cycle: 1,
    static_power: stat,
    dynamic_power: dyn,
    min_power: 0.1,
    b: -1.85e-5,
    c: 32000,
    da: 1.75,
    db: 2000,
    dc: 50000,
    dd: 6000,
  });
  const platform = {
    platform: { p: { id: 'p', model_name: 'modelV1', clusters: [{ id: 'c', nodes: [{ type: 'small' }, { type: 'fast' }, { type: 'big' }] }] } },
    node: {
      small: { processors: [{ type: 's' }], memory: { capacity: 16 } },
      fast: { processors: [{ type: 'f' }], memory: { capacity: 16 } },
      big: { processors: [{ type: 'b' }], memory: { capacity: 64 } },
    },
    processor: { s: proc(4, 1, 8, 1), f: proc(2, 2, 2, 4), b: proc(8, 1, 8, 1) },
  };
  const job = (id: string, subtime: number, res: number, seconds: number, extra: Record<string, unknown> = {}) => ({
    id,
    subtime,
    res,
    req_ops: seconds * 1e9,
    req_time: seconds,
    ...extra,
  });
  const nodeOf = (cores: number[]) => (cores[0]! < 4 ? 'node0' : cores[0]! < 6 ? 'node1' : 'node2');
  const place = (resource: string, jobs: unknown[], jobSel = 'first') => {
    const f = optionsFor(
      `hand-${resource}-${jobSel}`,
      platform,
      { jobs },
      { platform_name: 'p', workload_manager: { type: 'Heuristic', job_selection: jobSel, resource_selection: resource } },
    );
    return run(f);
  };

  it('resource orders: a 2-task job goes to the node the key puts first among those with 2 idle cores', () => {
    const one = [job('a', 0, 2, 10)];
    const first = (r: string) => nodeOf(place(r, one).cores['a']!);
    expect(first('first')).toBe('node0'); // ids node0 < node1 < node2
    expect(first('high_gflops')).toBe('node1'); // 2 GHz
    expect(first('high_cores')).toBe('node2'); // 8 idle
    expect(first('low_cores')).toBe('node1'); // 2 idle
    expect(first('low_power')).toBe('node1'); // 10 W < 12 W < 16 W
    expect(first('high_mem')).toBe('node0'); // nothing in use anywhere: platform order
  });

  it('high_mem: the node with the most memory IN USE; high_cores/low_cores follow the idle cores', () => {
    // t=0: x (1 task, 5000 MB) on node2 through high_cores; t=1: y (1 task) -> high_mem picks node2 again
    const r = place('high_mem', [job('x', 0, 1, 100, { mem: 5000 }), job('y', 1, 1, 10)]);
    expect(nodeOf(r.cores['x']!)).toBe('node0');
    expect(nodeOf(r.cores['y']!)).toBe('node0'); // node0 holds 5000 MB, the others none
    const lc = place('low_cores', [job('x', 0, 1, 100), job('y', 1, 1, 10)]);
    expect(nodeOf(lc.cores['x']!)).toBe('node1'); // 2 idle: the fewest
    expect(nodeOf(lc.cores['y']!)).toBe('node1'); // now 1 idle: still the fewest
  });

  it('longest first, and the head blocks: no backfilling in Heuristic', () => {
    // 14 cores in all; t=0: big (14 tasks, 10 s) takes every core; t=1: short (1 task, 1 s) and long (1 task, 5 s)
    const jobs = [{ id: 'big', subtime: 0, ntasks: 3, nodes: 3, req_ops: 1e10, req_time: 10 }, job('long', 1, 4, 5), job('short', 1, 4, 1)];
    const l = place('first', jobs, 'longest');
    const s = place('first', jobs, 'shortest');
    expect(l.jobs['long']![0]).toBeLessThanOrEqual(l.jobs['short']![0]);
    expect(s.jobs['short']![0]).toBeLessThanOrEqual(s.jobs['long']![0]);
  });
});

describe('IRMaSim options files: errors and warnings', () => {
  const platform = {
    platform: { p: { id: 'p', clusters: [{ nodes: [{ type: 'n' }] }] } },
    node: { n: { processors: [{ type: 'c' }], memory: { capacity: 8 } } },
    processor: {
      c: {
        cores: 2,
        clock_rate: 1,
        dpflops_per_cycle: 1,
        static_power: 1,
        dynamic_power: 1,
        min_power: 0.1,
        b: -1.85e-5,
        c: 32000,
        da: 1.75,
        db: 2000,
        dc: 50000,
        dd: 6000,
      },
    },
  };
  const workload = { jobs: [{ id: 'a', subtime: 0, res: 1, req_ops: 1e9, req_time: 2 }] };
  const prep = (opts: Record<string, unknown>) => prepareIrmasimRun(optionsFor('errs', platform, workload, { platform_name: 'p', ...opts }));

  it("IRMaSim's learning manager and NodeWM name what to use instead", () => {
    expect(() => prep({ workload_manager: { type: 'Policy' } })).toThrow(/"Policy" is IRMaSim's learning manager.*clustergym\/PolicyPair-v0/);
    expect(() => prep({ workload_manager: { type: 'NodeWM' } })).toThrow(/needs IRMaSim's modelV2 platforms/);
  });
  it('bad names list the valid ones', () => {
    expect(() => prep({ workload_manager: { type: 'Heuristic', resource_selection: 'low_powr' } })).toThrow(
      /Heuristic has no resource_selection "low_powr" \(did you mean "low_power"\?\); expected one of first, random, high_gflops, high_cores, low_cores, high_mem, high_mem_bw, low_power/,
    );
    expect(() => prep({ workload_manager: { type: 'Backfill', resource_selection: 'low_cores' } })).toThrow(/Backfill has no resource_selection "low_cores"/);
  });
  it('fields IRMaSim ignores are warnings with a suggestion; the run goes on as IRMaSim would', () => {
    const r = prep({ workload_manager: { type: 'Heuristic', core_selection: 'first', job_selecton: 'shortest' }, trajectory_orign: 3 });
    expect(r.warnings).toEqual([
      '$.trajectory_orign: IRMaSim does not read this key, and neither does this run: unknown field "trajectory_orign" (did you mean "trajectory_origin"?)',
      '$.workload_manager.core_selection: IRMaSim\'s Heuristic ignores this field, and so does this run: unknown field "core_selection" (a former name of "resource_selection")',
      '$.workload_manager.job_selecton: IRMaSim\'s Heuristic ignores this field, and so does this run: unknown field "job_selecton" (did you mean "job_selection"?)',
    ]);
  });
  it('several trajectories in one run are refused; random origins draw from the seeded Python generator', () => {
    expect(() => prep({ nbtrajectories: '3' })).toThrow(/clustergym runs one trajectory per options file/);
    const two = { jobs: [0, 1, 2, 3, 4].map((i) => ({ id: `j${i}`, subtime: i, res: 1, req_ops: 1e9, req_time: 2 })) };
    const r = prepareIrmasimRun(optionsFor('traj', platform, two, { platform_name: 'p', seed: 4, trajectory_length: '2', trajectory_origin: 'random' }));
    const py = new PythonRandom(4);
    expect(r.trajectory).toEqual({ origin: py.randint(0, 3), length: 2, total: 5 });
  });
  it('a CSV workload (IRMaSim reads those too)', () => {
    const dir = mkdtempSync(join(tmp, 'csv-'));
    writeFileSync(join(dir, 'platform.json'), JSON.stringify(platform));
    writeFileSync(join(dir, 'w.csv'), 'id,subtime,res,req_ops,req_time\na,0,1,1000000000,2\nb,0.5,2,2000000000,3\n');
    writeFileSync(join(dir, 'o.json'), JSON.stringify({ platform_file: 'platform.json', platform_name: 'p', workload_file: 'w.csv' }));
    const r = run(join(dir, 'o.json'));
    expect(r.jobs).toEqual({ a: [0, 1], b: [1, 3] });
  });
  it('the managers run from any options, and as agents (see test/agents)', () => {
    expect(makeIrmasimManager({ type: 'Duplex' }, new PythonRandom(0), 'x').scheduler.name).toBe('Duplex(duplex)');
  });
});
