/**
 * The Slurm preset with whole-node allocation and GPUs on nodes (`nodeSelect`, `--gres=gpu[:TYPE]:N`, issues
 * 42 and 45): the one engine's Slurm main pass `within: "nodes"` and its will-run and node-profile backfill
 * passes place a GPU job where Slurm's select plugin would (only nodes with that many GPUs of its type free:
 * `usableGpus` in src/scheduling/nodeSelection.ts, the rule the Slurm engine's `NodeMap` runs), and the job
 * holds its count of GPUs on each of its nodes on the core capacity, as the Slurm engine's `NodeMap` holds them.
 * On random workloads over nodes of unequal GPU counts and types (and nodes without), every job gets the Slurm
 * engine's start, end, state, suspension periods, nodes, CPUs and GPUs on each node, and the free GPUs of its
 * nodes once it started.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { JobPhase } from '../../src/core/engine.js';
import { derive } from '../../src/core/rng.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { SlurmEngine } from '../../src/slurm/engine.js';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import { runSlurmPreset, slurmPresetRefusal, slurmPresetRequest } from '../../src/slurm/preset.js';
import { GPU_NODES, type Layout, WHOLE_GPU_NODES } from './layouts.js';
import { partitionedWorkload, type Priority, slurmConfigOf } from './presetHarness.js';

/** A job's row: its schedule, and on its first run its nodes, CPUs and GPUs on each, and the GPUs left free on them once it started (a job not holding its nodes whole). */
interface GpuRow {
  start: number;
  end: number;
  killed: boolean;
  periods: number[];
  nodes: number[];
  units: number[];
  gpus: number[];
  gpuFree: number[];
}

const REFUSED: GpuRow = { start: Number.NaN, end: Number.NaN, killed: true, periods: [], nodes: [], units: [], gpus: [], gpuFree: [] };

/** The Slurm engine's rows (a job holding its nodes whole holds all their GPUs there: its row says its request, as the one engine's job holds). */
function slurmGpuRows(layout: Layout, config: Partial<SlurmConfig>, jobs: SlurmJobInput[]): Map<number, GpuRow> {
  const e = new SlurmEngine(new SlurmPlatform(layout), config);
  const first = new Map<number, Omit<GpuRow, 'start' | 'end' | 'killed' | 'periods'>>();
  const out = new Map<number, GpuRow>();
  e.addListener({
    onStart: (eng, s) => {
      const id = eng.jobs.id[s]!;
      if (first.has(id)) return;
      const a = eng.nodeMap!.held.get(s)!;
      first.set(id, {
        nodes: [...a.nodes],
        units: [...a.units],
        gpus: a.whole ? [...a.nodes].map(() => eng.jobs.gpus[s]!) : [...a.gpus],
        gpuFree: a.whole ? [] : [...a.nodes].map((x) => eng.nodeMap!.gpuFree[x]!),
      });
    },
  });
  e.onFinish((J, s) => {
    const id = J.id[s]!;
    if (J.state[s] === JobPhase.Rejected) return void out.set(id, REFUSED);
    out.set(id, { start: J.start[s]!, end: J.end[s]!, killed: J.state[s] !== JobPhase.Completed, periods: J.periods(s).flat(), ...first.get(id)! });
  });
  e.stream(jobs);
  e.run();
  return out;
}

/** The one engine's rows through the Slurm preset. */
function presetGpuRows(layout: Layout, config: Partial<SlurmConfig>, jobs: SlurmJobInput[]): Map<number, GpuRow> {
  const first = new Map<number, Omit<GpuRow, 'start' | 'end' | 'killed' | 'periods'>>();
  const out = new Map<number, GpuRow>();
  runSlurmPreset(layout, jobs, config, [
    {
      onStart: (sim, rj) => {
        const id = Number(rj.job.id);
        if (first.has(id)) return;
        const p = sim.platform;
        const count = (ids: ArrayLike<number>, nodeOf: ArrayLike<number>) => {
          const on = new Map<number, number>();
          for (let i = 0; i < ids.length; i++) on.set(nodeOf[ids[i]!]!, (on.get(nodeOf[ids[i]!]!) ?? 0) + 1);
          return [...rj.nodes].map((x) => on.get(x) ?? 0);
        };
        const whole = rj.job.slurmRequest?.exclusive === true || p.partitions[p.partitionOf(rj.job) as number]!.nodes.every((x) => p.nodeCoreCount[x] === 1);
        first.set(id, {
          nodes: [...rj.nodes],
          units: count(rj.cores, p.coreNode),
          gpus: count(rj.gpus, p.gpuNode),
          gpuFree: whole ? [] : [...rj.nodes].map((x) => sim.allocation.nodeFreeGpus[x]!),
        });
      },
      onEnd: (_s, r) => {
        const id = Number(r.job.id);
        out.set(id, { start: r.start, end: r.finish, killed: r.state === 'killed', periods: r.suspensions ? [...r.suspensions] : [], ...first.get(id)! });
      },
      onReject: (_s, r) => void out.set(Number(r.job.id), REFUSED),
    },
  ]);
  return out;
}

/**
 * `partitionedWorkload` on `layout` with GPU requests: about half the jobs ask for 1 to the most GPUs of one node
 * of a type of their partition (a third of them any type) on each node, with 1-4 CPUs; of these, on a platform of
 * several cores, half `-N MIN[-MAX]` (exactly `MIN`, at least, or a range; some on more nodes than hold the GPUs:
 * refused by both engines) and, on partition `p`, one in six `--exclusive` on 1-2 whole nodes; the others no shape
 * (on a whole-node platform: as many whole nodes as CPUs). A request the Slurm engine errors on (no node of its
 * partition has the GPUs) or keeps waiting for ever (no shape, never placeable: the preset refuses to model it)
 * loses its GPUs, counted in `dropped`.
 */
function gpuWorkload(seed: number, n: number, layout: Layout, dropped: { n: number }, fractional = false): SlurmJobInput[] {
  const rng = derive(seed, 'preset-gpu-nodes/requests');
  const wholeNodes = layout.groups.every((g) => g.cores === 1);
  const groupOf = new Map(layout.groups.map((g) => [g.name, g]));
  const jobs = partitionedWorkload(seed, n, layout).map((j0) => {
    const j = fractional ? (({ opAfter: _a, opFor: _f, ...k }) => ({ ...k, submit: k.submit + ((k.submit * 7) % 10) / 10 }))(j0) : j0;
    if (rng.next() >= 0.5) return j;
    const part = layout.partitions[j.partition ?? 0]!;
    const gs = part.groups.map((name) => groupOf.get(name)!).filter((g) => g.gpus !== undefined);
    const any = rng.next() < 1 / 3;
    const type = any ? undefined : gs[Math.floor(rng.uniform(0, gs.length))]!.gpus!.type;
    const most = Math.max(...gs.filter((g) => any || g.gpus!.type === type).map((g) => g.gpus!.count));
    const gpus = 1 + Math.floor(rng.uniform(0, most));
    let job: SlurmJobInput = { ...j, gpus, ...(type !== undefined ? { gpuType: type } : {}) };
    if (wholeNodes) job = { ...job, cores: Math.min(j.cores, 3) };
    else {
      const cores = 1 + Math.floor(rng.uniform(0, 4));
      const u = rng.next();
      if (part.name === 'p' && u < 1 / 6) {
        const nodes = 1 + Math.floor(rng.uniform(0, 2));
        job = { ...job, cores: nodes * 4, shape: { whole: true, minNodes: nodes } };
      } else if (u < 0.6) {
        const min = 1 + Math.floor(rng.uniform(0, 2));
        const v = rng.next();
        const max = v < 1 / 3 ? 0 : v < 2 / 3 ? min : min + 1 + Math.floor(rng.uniform(0, 2));
        job = { ...job, cores: Math.max(cores, min), shape: { minNodes: min, maxNodes: max } };
      } else job = { ...job, cores };
    }
    try {
      slurmPresetRequest(job, layout);
    } catch (e) {
      if (!(e instanceof InputError) || !/no node of partition|cannot hold even idle/.test(e.message)) throw e;
      dropped.n++;
      return j;
    }
    return job;
  });
  return jobs;
}

/** What the rows show of GPU jobs: they ran, shared a node with another job, waited on a node for another GPU job's end, ran on each GPU type. */
interface Seen {
  ran: number;
  shared: number;
  waitedForGpus: number;
  refused: number;
  exclusive: number;
  spread: number;
  types: Set<string>;
}

function tally(seen: Seen, layout: Layout, jobs: SlurmJobInput[], rows: Map<number, GpuRow>): void {
  const typeOf: string[] = [];
  for (const g of layout.groups) for (let x = 0; x < g.count; x++) typeOf.push(g.gpus?.type ?? '');
  for (const [id, r] of rows) {
    const j = jobs[id]!;
    if ((j.gpus ?? 0) === 0) continue;
    if (Number.isNaN(r.start)) {
      seen.refused++;
      continue;
    }
    seen.ran++;
    if (j.shape?.whole) seen.exclusive++;
    if (r.nodes.length > 1) seen.spread++;
    for (const x of r.nodes) seen.types.add(`${j.gpuType ?? 'any'}:${typeOf[x]}`);
    const overlaps = (o: GpuRow) => o.start < r.end && r.start < o.end && o.nodes.some((x) => r.nodes.includes(x));
    if ([...rows].some(([k, o]) => k !== id && !Number.isNaN(o.start) && overlaps(o))) seen.shared++;
    // it started at the end of a GPU job on one of its nodes, after its submission: it waited for those GPUs
    if (r.start > j.submit && [...rows].some(([k, o]) => k !== id && (jobs[k]!.gpus ?? 0) > 0 && o.end === r.start && o.nodes.some((x) => r.nodes.includes(x))))
      seen.waitedForGpus++;
  }
}

const settings = { window: 3_600, maxJobTest: 100, grid: false, slurmRounding: false, reserveIdle: 'none' as const };

describe("the Slurm preset with whole-node allocation and GPUs on nodes gives the Slurm engine's schedules, nodes and GPUs", () => {
  for (const [name, layout, willRun] of [
    ["nodes of unequal GPU counts and types, under sched/builtin and Slurm 22.05's will-run pass", GPU_NODES, true],
    ['a whole-node platform with GPUs, under sched/builtin and the node-profile pass', WHOLE_GPU_NODES, false],
    ["a whole-node platform with GPUs, under Slurm 22.05's will-run pass", WHOLE_GPU_NODES, true],
  ] as const)
    it(`on ${name}: every job the same start, end, state, periods, nodes, CPUs and GPUs on each`, () => {
      const seen: Seen = { ran: 0, shared: 0, waitedForGpus: 0, refused: 0, exclusive: 0, spread: 0, types: new Set() };
      const dropped = { n: 0 };
      let backfilled = 0;
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.constantFrom<Priority>('fifo', 'multifactor'),
          fc.boolean(),
          fc.constantFrom(1, 10, 60),
          fc.boolean(),
          (seed, priority, backfill, resolution, fractional) => {
            // (submissions on the whole second or off it, where the will-run test's ends tie often: below)
            const jobs = gpuWorkload(seed, 60, layout, dropped, fractional);
            const bf = backfill ? { ...settings, interval: 5, resolution } : null;
            const config: Partial<SlurmConfig> = { ...slurmConfigOf(priority, bf), nodeSelect: true, bfWillRun: willRun };
            // (a whole-second phase: off it, both engines' tick arithmetic can land on the tick's own instant again and never end)
            config.priority = { ...config.priority!, calcPhase: Math.floor(jobs[0]!.submit) % DEFAULT_SLURM.priority.calcPeriod };
            const a = slurmGpuRows(layout, config, jobs);
            const b = presetGpuRows(layout, config, jobs);
            expect(b.size).toBe(a.size);
            for (const [id, r] of a) expect(b.get(id), `job ${id}`).toEqual(r);
            tally(seen, layout, jobs, a);
            if (backfill)
              for (const [id, r] of a)
                if ((jobs[id]!.gpus ?? 0) > 0 && jobs.some((j) => j.id < id && j.partition === jobs[id]!.partition && a.get(j.id)!.start > r.start))
                  backfilled++;
          },
        ),
        { numRuns: 40, seed: derive(7, `preset-gpu-nodes/${name}`).int(1_000_000) },
      );
      console.log(`${name}: ${JSON.stringify({ ...seen, types: [...seen.types].sort(), backfilled, dropped: dropped.n })}`);
      // GPU jobs ran, waited for GPUs on their nodes, were backfilled; any-type jobs ran on several types; on nodes
      // of several cores they shared nodes with other jobs (a whole-node platform's jobs hold their nodes whole)
      expect(seen.ran).toBeGreaterThan(400);
      expect(seen.waitedForGpus).toBeGreaterThan(100);
      expect(backfilled).toBeGreaterThan(20);
      expect([...seen.types].filter((t) => t.startsWith('any:')).length).toBeGreaterThanOrEqual(2);
      expect(dropped.n).toBeLessThan(200);
      if (layout === GPU_NODES) {
        expect(seen.shared).toBeGreaterThan(200);
        expect(seen.exclusive).toBeGreaterThan(20);
        expect(seen.spread).toBeGreaterThan(50);
        expect(seen.refused).toBeGreaterThan(5);
      }
    });

  it('hand-computed: GPU jobs wait for their GPUs while cores are free, a job without GPUs shares a GPU node, a free GPU waits for cores; both engines', () => {
    // nodes 0-1: 4 cores, 2 V100s each; node 2: 4 cores, one K80; node 3: 4 cores, no GPU. FIFO, sched/builtin, a pass at each event
    const layout: Layout = {
      groups: [
        { name: 'v', count: 2, cores: 4, gpus: { count: 2, type: 'v100' } },
        { name: 'k', count: 1, cores: 4, gpus: { count: 1, type: 'k80' } },
        { name: 'c', count: 1, cores: 4 },
      ],
      partitions: [{ name: 'p', groups: ['v', 'k', 'c'] }],
    };
    const job = (id: number, cores: number, runTime: number, gpus: number, gpuType?: string, shape?: SlurmJobInput['shape']): SlurmJobInput => ({
      id,
      submit: id,
      cores,
      runTime,
      timeLimit: 1_000,
      user: 0,
      ...(gpus > 0 ? { gpus } : {}),
      ...(gpuType !== undefined ? { gpuType } : {}),
      ...(shape !== undefined ? { shape } : {}),
    });
    const jobs = [
      // -N 1 --gres=gpu:v100:2: nodes 0 and 1 usable (4 CPUs each); the fewest-CPU node that holds it, the first: node 0 -> 0-100
      job(0, 1, 100, 2, 'v100', { minNodes: 1, maxNodes: 1 }),
      // -N 2 -n 2 --gres=gpu:1 (any): node 0 has no V100 free, node 3 no GPU: the run {1, 2}, a CPU and a GPU on each -> 1-51
      job(1, 2, 50, 1, undefined, { minNodes: 2, maxNodes: 2 }),
      // --gres=gpu:v100:2: node 1 has 3 CPUs free but one V100: waits (and blocks the partition) until job 1 ends at 51, on node 1 -> 51-81
      job(2, 1, 30, 2, 'v100'),
      // -N 1 -n 3, no GPU: behind job 2; at 51 nodes 0-3 have 3, 3, 4, 4 CPUs free: the fewest that hold 3, node 0 (beside job 0) -> 51-71
      job(3, 3, 20, 0, undefined, { minNodes: 1, maxNodes: 1 }),
      // -n 4, no GPU: at 51 nodes 1-3 have 3, 4, 4 free: node 2 (the K80's node: its 4 CPUs) -> 51-61
      job(4, 4, 10, 0),
      // --gres=gpu:k80:1: at 51 the K80 is free but node 2 has no CPU free: waits for job 4's end -> 61-71
      job(5, 1, 10, 1, 'k80'),
      // -N 3 --gres=gpu:v100:2: two nodes have 2 V100s: refused at submission by both
      job(6, 3, 10, 2, 'v100', { minNodes: 3, maxNodes: 3 }),
    ];
    const config: Partial<SlurmConfig> = { ...slurmConfigOf('fifo', null), users: 1, nodeSelect: true, bfWillRun: true };
    const row = (start: number, end: number, nodes: number[], units: number[], gpus: number[], gpuFree: number[]): GpuRow => ({
      start,
      end,
      killed: false,
      periods: [],
      nodes,
      units,
      gpus,
      gpuFree,
    });
    const want = new Map<number, GpuRow>([
      [0, row(0, 100, [0], [1], [2], [0])],
      [1, row(1, 51, [1, 2], [1, 1], [1, 1], [1, 0])],
      [2, row(51, 81, [1], [1], [2], [0])],
      [3, row(51, 71, [0], [3], [0], [0])],
      [4, row(51, 61, [2], [4], [0], [1])],
      [5, row(61, 71, [2], [1], [1], [0])],
      [6, REFUSED],
    ]);
    expect(slurmGpuRows(layout, config, jobs)).toEqual(want);
    expect(presetGpuRows(layout, config, jobs)).toEqual(want);
  });

  // Found here as a divergence of the will-run pass, not of GPUs: running jobs with the same whole-second expected
  // end were walked in the order of the Slurm engine's job-table slot (recycled) and the one engine's running slot
  // (given at the start), and the walk's peek (a job on no usable node closes no batch) makes that order matter.
  // Both now walk them in slurmctld's order, the job list's (submission order; `WillRunJob.key`). Submissions off
  // the whole second (a live run's clock) make such ties common.
  it('equal expected ends walked in job-list order (submission order) by both engines (submissions off the whole second)', () => {
    const jobs = gpuWorkload(134824, 60, GPU_NODES, { n: 0 }, true);
    const config: Partial<SlurmConfig> = { ...slurmConfigOf('fifo', { ...settings, interval: 5, resolution: 1 }), nodeSelect: true, bfWillRun: true };
    config.priority = { ...config.priority!, calcPhase: Math.floor(jobs[0]!.submit) % DEFAULT_SLURM.priority.calcPeriod };
    // job 44: with the slots' orders, the one engine's pass started it at 1363.1, the Slurm engine's at 1403.1
    expect(presetGpuRows(GPU_NODES, config, jobs).get(44)!.start).toBe(slurmGpuRows(GPU_NODES, config, jobs).get(44)!.start);
  });

  it('refuses what it does not model, naming it; GPU requests no node holds are errors as on the Slurm engine', () => {
    expect(slurmPresetRefusal({ nodeSelect: true, backfill: false }, GPU_NODES)).toBeNull();
    expect(slurmPresetRefusal({ nodeSelect: true, bfWillRun: true }, GPU_NODES)).toBeNull();
    const config = { nodeSelect: true, backfill: false, users: 1 };
    const job: SlurmJobInput = { id: 3, submit: 0, cores: 2, runTime: 10, timeLimit: 20, user: 0, gpus: 3, gpuType: 'v100' };
    // no node of partition p has 3 V100s: the Slurm engine's error at submission, and the preset's
    expect(() => new SlurmEngine(new SlurmPlatform(GPU_NODES), config).submit(job)).toThrow(/job 3: 3 GPUs of type v100: no node of partition p/);
    expect(() => runSlurmPreset(GPU_NODES, [job], config)).toThrow(/job 3: 3 GPUs of type v100: no node of partition p has that many GPUs of that type/);
    // no shape, 12 CPUs with 2 V100s on each node: the V100 nodes have 8 CPUs; the Slurm engine keeps it waiting for ever
    expect(() => runSlurmPreset(GPU_NODES, [{ ...job, cores: 12, gpus: 2 }], config)).toThrow(
      /job 3: the Slurm preset of the one engine does not model a GPU request \(12 CPUs with 2 GPUs of type v100 on each node\) without a node shape that the nodes of its partition cannot hold even idle/,
    );
    // with a shape, both engines refuse it at submission
    const shaped = { ...job, cores: 12, gpus: 2, shape: { minNodes: 1 } };
    expect(runSlurmPreset(GPU_NODES, [shaped], config).summary.jobs_rejected).toBe(1);
    expect(slurmGpuRows(GPU_NODES, config, [shaped]).get(3)).toEqual(REFUSED);
  });
});
