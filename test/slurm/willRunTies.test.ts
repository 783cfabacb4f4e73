/**
 * The will-run backfill pass's order of running jobs with equal expected ends (`WillRunJob.key`): slurmctld's
 * job list's, the order of submission. `_will_run_test` (Slurm 22.05, cons_common job_test.c) builds its list
 * of running jobs by walking `job_list` (`_create_job_record` appends a job at its submission; a requeue keeps
 * it) and sorts it by `end_time` with `list_sort`, glibc's `qsort`, a merge sort: stable. The walk's peek (a
 * job on none of the usable nodes is skipped without looking at the job after it) makes the order matter: a
 * usable job behind an unusable one of the same end joins the batch although it ends after the window.
 * Before, the Slurm engine walked equal ends by its job-table slot (recycled: a job submitted later may hold a
 * lower slot) and the one engine by its running slot.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { type Layout, MULTI_CORE_NODES, WHOLE_NODES } from './layouts.js';
import { checkedNodeRows, type NodeRow, nodeWorkload, type Priority, willRunConfigOf } from './presetHarness.js';

/** `pa` over three one-core nodes (0-2), `pb` over one (3). */
const TIES: Layout = {
  groups: [
    { name: 'a', count: 3, cores: 1 },
    { name: 'b', count: 1, cores: 1 },
  ],
  partitions: [
    { name: 'pa', groups: ['a'] },
    { name: 'pb', groups: ['b'] },
  ],
};

/**
 * Pairs of jobs of `rows` that ran at the same time with the same whole-second expected end (`floor(start)` plus
 * the time limit: slurmctld's `end_time`), never suspended: the ties the will-run pass orders.
 */
function ties(rows: Map<number, NodeRow>, jobs: SlurmJobInput[]): number {
  const ran = jobs.flatMap((j) => {
    const r = rows.get(j.id)!;
    return Number.isNaN(r.start) || r.periods.length > 0 ? [] : [{ r, end: Math.floor(r.start + 1e-9) + j.timeLimit }];
  });
  let n = 0;
  for (let i = 0; i < ran.length; i++)
    for (let k = i + 1; k < ran.length; k++) {
      const a = ran[i]!;
      const b = ran[k]!;
      if (a.end === b.end && a.r.start < b.r.end && b.r.start < a.r.end) n++;
    }
  return n;
}

/** A job of user 0 (the hand-computed cases). */
function job(id: number, submit: number, partition: number, cores: number, runTime: number, timeLimit: number): SlurmJobInput {
  return { id, submit, partition, cores, runTime, timeLimit, user: 0 };
}

describe('the will-run pass walks equal expected ends in the job list order (submission order), both engines', () => {
  it('hand-computed: a usable job behind an unusable one of the same end joins the batch, so the reservation moves and a job backfills', () => {
    const jobs = [
      job(0, 0, 0, 1, 3, 100), // node 0 until 3; its slot is free when job 4's is taken (at job 3's arrival, 5 s)
      job(1, 1, 0, 1, 200, 300), // Y: node 1, expected end 301
      job(2, 2, 0, 1, 450, 500), // Z: node 2, expected end 502
      job(3, 5, 1, 1, 1, 10), // node 3 from 5 to 6
      job(4, 7, 1, 1, 250, 294), // X: node 3 (pb), expected end 301, submitted after Y, in job 0's recycled slot (below Y's)
      job(5, 10, 0, 2, 50, 100), // W: two nodes of pa; only node 0 is free: waits, blocks pa for the main pass
      job(6, 11, 0, 1, 100, 400), // V: one node, 400 s
    ];
    const settings = { interval: 30, window: 3_600, resolution: 1, maxJobTest: 100, grid: true, slurmRounding: false, reserveIdle: 'none' as const };
    const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', settings), users: 1 };
    // The backfill pass at 30 s tests W: running Y (301, usable), X (301, node 3: not usable), Z (502, usable).
    // In the job list Y comes before X: Y is removed (the batch's barrier 330 s, window 30 s), the peek sees X
    // (301 <= 360: go on), X is skipped, and Z is taken without a peek: removed too. W fits on nodes 0-2 at the
    // last removed end, 502 s, on nodes 0 and 1: reserved [502, 602). V then starts now on node 0 (30 + 400 <=
    // 502). (Walked X, Y, Z, as the Slurm engine's slots had it, Y alone closes the batch on Z's peek: W at 301 on
    // nodes 0 and 1, V kept off node 0, and V started at 251 after W's run.) At 201 Y ends and the main pass starts
    // W on nodes 0 and 1 (V left node 0 at 130).
    const want = new Map<number, { start: number; end: number; nodes: number[] }>([
      [0, { start: 0, end: 3, nodes: [0] }],
      [1, { start: 1, end: 201, nodes: [1] }],
      [2, { start: 2, end: 452, nodes: [2] }],
      [3, { start: 5, end: 6, nodes: [3] }],
      [4, { start: 7, end: 257, nodes: [3] }],
      [5, { start: 201, end: 251, nodes: [0, 1] }],
      [6, { start: 30, end: 130, nodes: [0] }],
    ]);
    for (const rows of [checkedNodeRows(TIES, config, jobs)]) {
      const got = new Map([...rows].map(([id, r]) => [id, { start: r.start, end: r.end, nodes: r.nodes }]));
      expect(got).toEqual(want);
    }
  });

  it('hand-computed: a job the pass starts joins the running jobs at its place in the job list, before a later-submitted job of the same end', () => {
    const jobs = [
      job(0, 0, 0, 1, 1000, 1000), // Z: node 0 until 1000
      job(1, 0, 0, 3, 100, 100), // B: three nodes of pa: waits (the main pass leaves pa blocked behind it)
      job(2, 1, 0, 1, 95, 95), // S: one node, 95 s
      job(3, 2, 1, 1, 200, 98), // R: node 3 (pb) from 2, expected end 100, killed at 100
      job(4, 3, 0, 2, 50, 100), // W: two nodes, 100 s
      job(5, 4, 0, 1, 50, 200), // V: one node, 200 s
    ];
    const settings = { interval: 5, window: 86_400, resolution: 1, maxJobTest: 100, grid: true, slurmRounding: false, reserveIdle: 'none' as const };
    const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', settings), users: 1 };
    // The pass at 5: B reserves nodes 0-2 from Z's end, [1000, 1100); S starts now on node 1, expected end 100, the
    // same as R's. S was submitted before R, so W's will-run test walks S (usable: removed), R (node 3: skipped) and
    // takes Z without a peek: W would start at 1000 on B's nodes, then at B's end: [1100, 1200). V starts now on node
    // 2 ([5, 205) touches no reservation). (S put after R, as a job started in the pass once was: R skipped, S
    // removed, the peek at Z closes the batch: W reserved nodes 1-2 from 100, V kept off node 2.) At 100 S and R
    // end (V ended at 55): the main pass leaves B waiting, the pass at 100 starts W on nodes 1-2 ([100, 200) is
    // clear of B's reservation); B starts at 1000, Z's end.
    const want = new Map<number, { start: number; nodes: number[] }>([
      [0, { start: 0, nodes: [0] }],
      [1, { start: 1000, nodes: [0, 1, 2] }],
      [2, { start: 5, nodes: [1] }],
      [3, { start: 2, nodes: [3] }],
      [4, { start: 100, nodes: [1, 2] }],
      [5, { start: 5, nodes: [2] }],
    ]);
    for (const rows of [checkedNodeRows(TIES, config, jobs)])
      expect(new Map([...rows].map(([id, r]) => [id, { start: r.start, nodes: r.nodes }]))).toEqual(want);
  });

  // Slurm 22.05.8 live (deploy/slurm/local-cluster.sh: 4 one-CPU nodes, `debug` = n[1-3], `pb` = n4,
  // select/cons_tres, bf_interval=5, bf_resolution=1): Y (debug, -t 5), Z (debug, -t 10) and X (pb, -t 5) start in
  // one second on n1, n2, n4 (Y's and X's end_time equal); then W (debug, -N 2, -t 2) and V (debug, -t 10). With Y
  // submitted before X (job ids Y 1, Z 2, X 3) slurmctld gave W the start Z's end on n[1-2] (`SchedNodeList`) and
  // started V on n3 seven seconds after the others; with X submitted first (X 1, Y 2, Z 3) W's start was Y's end on
  // n[1,3] and V stayed pending. So equal ends are walked in submission order, whichever partition the job is in.
  // The same runs on both engines (sleep 600: Y and X killed at their limits):
  for (const [variant, order, v, w] of [
    ['Y submitted before X', ['Y', 'Z', 'X'], { start: 5, nodes: [2] }, { start: 300, nodes: [0, 2] }],
    ['X submitted before Y', ['X', 'Y', 'Z'], { start: 360, nodes: [0] }, { start: 300, nodes: [0, 2] }],
  ] as const)
    it(`as a live slurmctld, ${variant}: V ${v.start === 5 ? 'backfilled at the first pass' : 'kept waiting'}`, () => {
      const layout: Layout = {
        groups: [
          { name: 'a', count: 3, cores: 1 },
          { name: 'b', count: 1, cores: 1 },
        ],
        partitions: [
          { name: 'debug', groups: ['a'] },
          { name: 'pb', groups: ['b'] },
        ],
      };
      const spec = { Y: [0, 300], Z: [0, 600], X: [1, 300] } as const;
      const jobs: SlurmJobInput[] = order.map((n, i) => ({
        id: i + 1,
        submit: 0,
        partition: spec[n][0],
        cores: 1,
        runTime: 600,
        timeLimit: spec[n][1],
        user: 0,
      }));
      jobs.push({ id: 4, submit: 1, partition: 0, cores: 2, runTime: 60, timeLimit: 120, user: 0 }); // W
      jobs.push({ id: 5, submit: 2, partition: 0, cores: 1, runTime: 60, timeLimit: 600, user: 0 }); // V
      const settings = { interval: 5, window: 86_400, resolution: 1, maxJobTest: 100, grid: true, slurmRounding: true, reserveIdle: 'none' as const };
      const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', settings), users: 1 };
      for (const rows of [checkedNodeRows(layout, config, jobs)]) {
        expect({ start: rows.get(5)!.start, nodes: rows.get(5)!.nodes }).toEqual(v);
        expect({ start: rows.get(4)!.start, nodes: rows.get(4)!.nodes }).toEqual(w);
      }
    });

  for (const [name, layout] of [
    ['a whole-node platform', WHOLE_NODES],
    ['nodes of several cores', MULTI_CORE_NODES],
  ] as const)
    it(`on ${name}, submissions off the whole second (ties common): both engines the same rows and nodes`, () => {
      let cases = 0;
      let withTies = 0;
      let pairs = 0;
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.constantFrom<Priority>('fifo', 'multifactor'),
          fc.record({
            interval: fc.constantFrom(1, 5, 30),
            window: fc.constantFrom(600, 3_600, 86_400),
            resolution: fc.constantFrom(1, 10, 60),
            maxJobTest: fc.constantFrom(2, 10, 100),
            grid: fc.boolean(),
            slurmRounding: fc.boolean(),
            reserveIdle: fc.constant<'none'>('none'),
          }),
          (seed, priority, backfill) => {
            const jobs = nodeWorkload(seed, 60, layout, true);
            const config: Partial<SlurmConfig> = willRunConfigOf(priority, backfill);
            config.priority = { ...config.priority!, calcPhase: Math.floor(jobs[0]!.submit) % DEFAULT_SLURM.priority.calcPeriod };
            const a = checkedNodeRows(layout, config, jobs);
            const t = ties(a, jobs);
            cases++;
            pairs += t;
            if (t > 0) withTies++;
          },
        ),
        { numRuns: 60, seed: derive(7, `will-run-ties/${name}`).int(1_000_000) },
      );
      console.log(`${name}: ${JSON.stringify({ cases, withTies, pairs })}`);
      // the property reaches ties: running jobs with equal whole-second expected ends
      expect(withTies).toBeGreaterThan(6);
    });
});
