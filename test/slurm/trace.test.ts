import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quantile } from '../../src/core/statistics.js';
import { engineForRun } from '../../src/slurm/agreement.js';
import { ctldCompletions, ctldStarts, ctldTimers, readCtldLog } from '../../src/slurm/live.js';
import { parseSlurmConf } from '../../src/slurm/slurmConf.js';
import { parseElapsed, readTrace, sleepTrace, traceToSwf } from '../../src/slurm/records.js';
import { type ScheduledJob, compareSchedules, engineSchedule, ksDistance, replayJobs, summarise } from '../../src/slurm/trace.js';

const dir = mkdtempSync(join(tmpdir(), 'cg-trace-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const EXCL = parseSlurmConf(
  'NodeName=n[1-8] CPUs=2\nPartitionName=debug Nodes=n[1-8] Default=YES MaxTime=30 OverSubscribe=EXCLUSIVE\nSchedulerParameters=bf_interval=1\n',
);

describe('job records', () => {
  it('sacct -P: steps left out, never-started jobs counted, elapsed and limits read', () => {
    const t = readTrace(
      file(
        'a.txt',
        `JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|User|Partition|State
10|2024-01-01T10:00:00|2024-01-01T10:00:05|2024-01-01T10:01:05|00:01:00|00:02:00|4|2|alice|debug|COMPLETED
10.batch|2024-01-01T10:00:05|2024-01-01T10:00:05|2024-01-01T10:01:05|00:01:00||2|1||||COMPLETED
11|2024-01-01T10:00:30|Unknown|Unknown|00:00:00|1-00:00:00|1|1|bob|debug|PENDING
12|2024-01-01T10:01:00|2024-01-01T10:02:00|2024-01-01T10:02:30|00:00:30|UNLIMITED|2|1|bob|other|COMPLETED
`,
      ),
    );
    expect(t.format).toBe('sacct-parsable');
    expect(t.skipped).toEqual({ 'never started': 1 });
    expect(t.jobs).toEqual([
      { id: '10', submit: 1704103200, runTime: 60, timeLimit: 120, cpus: 4, nodes: 2, user: 'alice', partition: 'debug' },
      { id: '12', submit: 1704103260, runTime: 30, timeLimit: Number.POSITIVE_INFINITY, cpus: 2, nodes: 1, user: 'bob', partition: 'other' },
    ]);
    // shrink 2: submissions and runs halved, limits in whole minutes (120 / 2 = 1 min; unlimited -> the partition's 30 min)
    expect(replayJobs(t, EXCL, 2)).toEqual([
      { id: '10', index: 0, submit: 0, runTime: 30, limitMinutes: 1, units: 2, nodes: 2, memMb: 0, partition: 0, user: 0 },
      { id: '12', index: 1, submit: 30, runTime: 15, limitMinutes: 15, units: 1, nodes: 1, memMb: 0, partition: 0, user: 1 },
    ]);
  });

  it('sacct -P errors name the line', () => {
    expect(() => readTrace(file('b.txt', 'JobID|Submit\n1|x\n'))).toThrow(/b\.txt: line 1: sacct -P header lacks Start/);
    expect(() => readTrace(file('c.txt', 'JobID|Submit|Start|Elapsed|Timelimit|NCPUS\n1|2024-01-01T00:00:00|2024-01-01T00:00:01|soon|1:00|1\n'))).toThrow(
      /c\.txt:2: Elapsed/,
    );
  });

  it('sacct --json (22.05 layout and the later {number} one)', () => {
    const t = readTrace(
      file(
        'd.json',
        JSON.stringify({
          jobs: [
            {
              job_id: 5,
              user: 'u',
              partition: 'debug',
              allocation_nodes: 3,
              time: { submission: 100, start: 110, end: 150, elapsed: 40, limit: 2 },
              required: { CPUs: 6 },
            },
            { job_id: 6, time: { submission: 90, start: 0, end: 0, limit: 1 } },
            {
              job_id: 7,
              time: { submission: 120, start: 130, end: 131, limit: { set: true, infinite: false, number: 5 } },
              tres: { allocated: [{ type: 'cpu', count: 2 }] },
            },
          ],
        }),
      ),
    );
    expect(t.format).toBe('sacct-json');
    expect(t.skipped).toEqual({ 'never started': 1 });
    expect(t.jobs.map((j) => [j.id, j.submit, j.runTime, j.timeLimit, j.cpus, j.nodes])).toEqual([
      ['5', 100, 40, 120, 6, 3],
      ['7', 120, 1, 300, 2, 0],
    ]);
    expect(() => readTrace(file('e.json', '{"jobs": [{"job_id": "x"}]}'))).toThrow(/e\.json: [\s\S]*\$\.jobs\[0\]\.job_id: Expected number/);
  });

  it('SWF (through the SWF reader): processors -> nodes of 2 CPUs with whole nodes', () => {
    const swf = traceToSwf(sleepTrace({ jobs: 5, seed: 3, minRun: 5, maxRun: 30, maxNodes: 4, platformNodes: 8, load: 1.2, limitFactor: 3 }), 2);
    const t = readTrace(file('w.swf', swf));
    expect(t.format).toBe('swf');
    const orig = sleepTrace({ jobs: 5, seed: 3, minRun: 5, maxRun: 30, maxNodes: 4, platformNodes: 8, load: 1.2, limitFactor: 3 });
    expect(replayJobs(t, EXCL).map((j) => j.units)).toEqual(orig.map((j) => j.nodes));
    expect(replayJobs(t, EXCL).map((j) => j.limitMinutes * 60)).toEqual(orig.map((j) => j.timeLimit));
  });

  it('Slurm elapsed syntax', () => {
    expect(parseElapsed('1-02:03:04')).toBe(93784);
    expect(parseElapsed('02:03')).toBe(123);
    expect(parseElapsed('Partition_Limit')).toBe(Number.POSITIVE_INFINITY);
    expect(parseElapsed('x')).toBeNaN();
  });
});

describe('schedules and their comparison', () => {
  const sj = (id: string, submit: number, start: number, end = start + 10): ScheduledJob => ({
    id,
    submit,
    start,
    end,
    nodes: 1,
    state: 'completed',
    backfilled: false,
  });
  const a = [sj('x', 0, 0), sj('y', 1, 5), sj('z', 2, 3)];
  const b = [sj('x', 0, 1), sj('y', 1, 5), sj('z', 2, 10)];

  it('hand-computed: start differences 1, 0, 7; KS of waits {0,4,1} vs {1,4,8} = 1/3; z overtook y in a only', () => {
    const cap = 2;
    const c = compareSchedules({ jobs: a, summary: summarise(a, cap, () => 1) }, { jobs: b, summary: summarise(b, cap, () => 1) }, ['engine', 'slurm']);
    expect(c.start_diff).toMatchObject({ median: 1, max: 7, mean: 8 / 3 });
    expect(c.start_diff.p90).toBeCloseTo(5.8, 12);
    expect(c.ks_wait).toBeCloseTo(1 / 3, 12);
    expect(c.backfill_differences).toHaveLength(1);
    expect(c.backfill_differences[0]).toMatchObject({ id: 'z', overtook_in: 'a', passed: ['y'] });
    expect(c.backfill_differences[0]!.reason).toBe(
      'engine started it at 3.0 s ahead of 1 earlier job(s) (job y started at 5.0 s); slurm started it at 10.0 s, after job y (5.0 s)',
    );
    // summary of a: waits 0, 4, 1; makespan 15; work 30 on 2 units
    expect(c.a).toMatchObject({ jobs: 3, mean_wait: 5 / 3, max_wait: 4, makespan: 15, utilisation: 1, overtaking: 1 });
    expect(c.a.p90_wait).toBeCloseTo(3.4, 12);
  });

  it('KS distance: 0 for equal samples, 1 for disjoint ones, symmetric (property)', () => {
    expect(ksDistance([1, 2, 3], [1, 2, 3])).toBe(0);
    expect(ksDistance([1, 2], [5, 6])).toBe(1);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1 }), fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1 }), (x, y) => {
        const d = ksDistance(x, y);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(1);
        expect(ksDistance(y, x)).toBeCloseTo(d, 12);
      }),
    );
    expect(quantile([0, 1, 7], 0.5)).toBe(1);
  });

  it('engine schedule under the slurm.conf: whole nodes, minute limits, backfill ticks of 1 s', () => {
    // 8 nodes; A: 8 nodes 10 s at 0; B: 4 nodes 5 s at 0.5; C: 4 nodes 20 s at 0.6; D: 1 node 5 s at 2
    const jobs = [
      { id: 'A', index: 0, submit: 0, runTime: 10, limitMinutes: 1, units: 8, nodes: 0, memMb: 0, partition: 0, user: 0 },
      { id: 'B', index: 1, submit: 0.5, runTime: 5, limitMinutes: 1, units: 4, nodes: 0, memMb: 0, partition: 0, user: 0 },
      { id: 'C', index: 2, submit: 0.6, runTime: 20, limitMinutes: 1, units: 4, nodes: 0, memMb: 0, partition: 0, user: 0 },
      { id: 'D', index: 3, submit: 2, runTime: 5, limitMinutes: 1, units: 1, nodes: 0, memMb: 0, partition: 0, user: 0 },
    ];
    const s = engineSchedule(jobs, EXCL, 0);
    // Slurm's background thread (batch_sched_delay 3 s, ticks at k + 0.5): A's submission queues a main pass,
    // run at the tick 0.5 (before the backfill tick at 1); B and C wait. A ends at 10.5, a background tick 7 s
    // after the last pass (3.5, queued by D's submission): the main pass then starts B and C; B ends at 15.5,
    // a tick again (>= 10.5 + 3), which starts D.
    expect(s.jobs.map((j) => [j.id, j.start, j.end, j.nodes, j.backfilled])).toEqual([
      ['A', 0.5, 10.5, 8, false],
      ['B', 10.5, 15.5, 4, false],
      ['C', 10.5, 30.5, 4, false],
      ['D', 15.5, 20.5, 1, false],
    ]);
    expect(s.summary.makespan).toBe(30.5);
    // with Slurm's measured job overhead (0.05 s) every job holds its nodes 0.05 s longer: A ends at 10.55, the
    // backfill tick at 11 starts B and C (the next background tick is 11.5); B ends at 16.05 and the background
    // tick at 16.5 (>= 11.5 + 3) starts D before the backfill tick at 17
    const o = engineSchedule(jobs, EXCL);
    const want = [
      [0.5, 10.55, false],
      [11, 16.05, true],
      [11, 31.05, true],
      [16.5, 21.55, false],
    ] as const;
    for (const [k, j] of o.jobs.entries()) {
      expect(j.start).toBeCloseTo(want[k]![0], 9);
      expect(j.end).toBeCloseTo(want[k]![1], 9);
      expect(j.backfilled).toBe(want[k]![2]);
    }
  });
});

describe('the engine on a live run (engineForRun)', () => {
  it("takes the run's submissions (late, out of order), run times and backfill passes", () => {
    const jobs = [
      { id: 'A', index: 0, submit: 0, runTime: 10, limitMinutes: 1, units: 8, nodes: 0, memMb: 0, partition: 0, user: 0 },
      { id: 'B', index: 1, submit: 0.5, runTime: 5, limitMinutes: 1, units: 4, nodes: 0, memMb: 0, partition: 0, user: 0 },
      { id: 'C', index: 2, submit: 0.6, runTime: 20, limitMinutes: 1, units: 4, nodes: 0, memMb: 0, partition: 0, user: 0 },
    ];
    // the run: sbatch of B came 3 s late, after C; A held its nodes 12.05 s; backfill passes at 0.2, 13.3, 14.3
    // (the first starts A)
    const run = {
      jobs: [
        { id: 'A', submit: 0, start: 0.2, end: 12.25 },
        { id: 'B', submit: 3.5, start: 13.3, end: 18.4 },
        { id: 'C', submit: 0.6, start: 13.3, end: 33.4 },
      ],
      bf_ticks: [0.2, 13.3, 14.3],
    };
    const s = engineForRun(jobs, EXCL, run);
    expect(s.jobs.map((j) => j.submit)).toEqual([0, 3.5, 0.6]);
    expect(s.jobs.map((j) => j.id)).toEqual(['A', 'B', 'C']);
    expect(s.jobs[0]!.start).toBeCloseTo(0.2, 9);
    // A's run time is the run's: it ends at 12.25 (not 10.25), and the background tick at 12.5 starts B and C
    expect(s.jobs[0]!.end).toBeCloseTo(12.25, 9);
    expect(s.jobs[1]!.start).toBeCloseTo(12.5, 9);
    expect(s.jobs[2]!.start).toBeCloseTo(12.5, 9);
    expect(s.jobs[1]!.end - s.jobs[1]!.start).toBeCloseTo(5.1, 9);
  });
});

describe("the engine's clock phase (clockPhase, --clock-phase)", () => {
  it("moves bf_resolution's grid: a reservation at 120 s of the wall clock lets Z through at phase 0, not at phase 50", () => {
    const C = parseSlurmConf(
      'NodeName=n[1-2] CPUs=2\nPartitionName=d Nodes=n[1-2] Default=YES MaxTime=30 OverSubscribe=EXCLUSIVE\nSchedulerParameters=bf_interval=1\n',
    );
    // X (1 node, 100 s, limit 2 min) starts at the background tick 0.5: expected end 120.5. Y (2 nodes) reserves
    // from there: [floor(120.5), floor(180.5)) on the 60 s grid. Z (1 node, limit 1 min) arrives at 30 and would
    // run until 90.
    const jobs = [
      { id: 'X', index: 0, submit: 0, runTime: 100, limitMinutes: 2, units: 1, nodes: 0, memMb: 0, partition: 0, user: 0 },
      { id: 'Y', index: 1, submit: 1, runTime: 10, limitMinutes: 1, units: 2, nodes: 0, memMb: 0, partition: 0, user: 0 },
      { id: 'Z', index: 2, submit: 30, runTime: 10, limitMinutes: 1, units: 1, nodes: 0, memMb: 0, partition: 0, user: 0 },
    ];
    const at = (ph: number) => engineSchedule(jobs, C, 0, ph).jobs.map((j) => [j.id, j.start, j.end, j.backfilled]);
    // phase 0: the reservation is [120, 180): Z (30-90) is backfilled at once
    expect(at(0)).toEqual([
      ['X', 0.5, 100.5, false],
      ['Y', 100.5, 110.5, false],
      ['Z', 30, 40, true],
    ]);
    // phase 50: X's end is 170.5 on the wall clock, the reservation [120, 180) there, [70, 130) in replay time: Z
    // would reach it and waits for Y (X's end at 100.5 is a background tick: Y runs 100.5-110.5, then Z)
    const p50 = at(50);
    expect(p50[2]![0]).toBe('Z');
    expect(p50[2]![1]).toBeCloseTo(110.5, 9);
    expect(p50[2]![3]).toBe(false);
  });
});

describe("slurmctld's log", () => {
  it('reads submit, start (main or backfill) and end times to the millisecond', () => {
    const m = readCtldLog(
      `[2026-11-26T20:52:43.197] _slurm_rpc_submit_batch_job: JobId=4 InitPrio=4294901756 usec=785
[2026-11-26T20:52:43.941] sched/backfill: _start_job: Started JobId=4 in debug on n[1-8]
[2026-11-26T20:52:46.966] _job_complete: JobId=4 WEXITSTATUS 0
[2026-11-26T20:52:46.966] _job_complete: JobId=4 done
[2026-11-26T20:52:46.987] sched: Allocate JobId=5 NodeList=n[1-8] #CPUs=16 Partition=debug
`,
    );
    const j4 = m.get(4)!;
    expect(j4.backfill).toBe(true);
    expect(j4.start! - j4.submit!).toBeCloseTo(0.744, 6);
    expect(j4.end! - j4.start!).toBeCloseTo(3.025, 6);
    expect(m.get(5)).toMatchObject({ backfill: false });
  });

  it("reads slurmctld's start and its timers at debug2 (background thread's ticks, backfill passes)", () => {
    const log = `[2026-11-28T16:04:23.469] slurmctld version 22.05.8 started on cluster cg6967
[2026-11-28T16:04:24.486] debug:  sched/backfill: _attempt_backfill: no jobs to backfill
[2026-11-28T16:04:30.498] debug:  sched/backfill: _attempt_backfill: 1 jobs to backfill
[2026-11-28T16:04:53.604] debug2: Testing job time limits and checkpoints
[2026-11-28T16:05:23.665] debug2: Testing job time limits and checkpoints
[2026-11-28T16:05:30.001] slurmctld version 22.05.8 started on cluster cg6967
`;
    const t0 = Date.parse('2026-11-28T16:04:23.469Z') / 1000;
    const starts = ctldStarts(log);
    expect(starts).toHaveLength(2);
    expect(starts[0]).toBeCloseTo(t0, 6);
    const { bg, bf } = ctldTimers(log);
    expect(bg.map((t) => Math.round((t - t0) * 1000))).toEqual([30135, 60196]);
    expect(bf.map((t) => Math.round((t - t0) * 1000))).toEqual([1017, 7029]);
  });

  it("takes the background thread's main passes as ticks too, but not an epilog message's pass nor a second line of one tick", () => {
    const log = `[2026-11-28T16:04:23.469] slurmctld version 22.05.8 started on cluster cg6967
[2026-11-28T16:04:25.100] debug:  sched: Running job scheduler for default depth.
[2026-11-28T16:04:27.000] debug2: _slurm_rpc_epilog_complete: JobId=3 Node=n2
[2026-11-28T16:04:27.030] debug:  sched: Running job scheduler for default depth.
[2026-11-28T16:04:28.104] debug2: Testing job time limits and checkpoints
[2026-11-28T16:04:28.106] debug:  sched: Running job scheduler for full queue.
[2026-11-28T16:04:31.110] debug:  sched: Running job scheduler for default depth.
`;
    const t0 = Date.parse('2026-11-28T16:04:23.469Z') / 1000;
    // 25.100 (a tick's pass), not 27.030 (the epilog's), 28.104 (not 28.106: the same tick), 31.110
    expect(ctldTimers(log).bg.map((t) => Math.round((t - t0) * 1000))).toEqual([1631, 4635, 7641]);
  });

  it("reads when each job's nodes left COMPLETING: the last node's answer, or its epilog message", () => {
    // job 1 on n[1-2]: ended 10.000 (terminate agent logged first), n2 answers 10.012, n1 10.020: released 10.020 by
    // the answer. Job 2 on n3: ended 12.000; n3 answers 12.005 (SUCCESS: the step still exits), epilog 12.040.
    // A ping's answer from n1 at 11.000 belongs to no terminate agent. Job 3: below.
    const log = `[2026-11-28T16:04:00.000] sched: Allocate JobId=1 NodeList=n[1-2] #CPUs=8 Partition=debug
[2026-11-28T16:04:01.000] sched/backfill: _start_job: Started JobId=2 in debug on n3
[2026-11-28T16:04:10.000] debug2: Spawning RPC agent for msg_type REQUEST_TERMINATE_JOB
[2026-11-28T16:04:10.000] _job_complete: JobId=1 done
[2026-11-28T16:04:10.012] debug2: node_did_resp n2
[2026-11-28T16:04:10.020] debug2: node_did_resp n1
[2026-11-28T16:04:11.000] debug2: node_did_resp n1
[2026-11-28T16:04:12.000] _job_complete: JobId=2 done
[2026-11-28T16:04:12.000] debug2: Spawning RPC agent for msg_type REQUEST_TERMINATE_JOB
[2026-11-28T16:04:12.005] debug2: node_did_resp n3
[2026-11-28T16:04:12.040] debug2: _slurm_rpc_epilog_complete: JobId=2 Node=n3
[2026-11-28T16:04:13.000] sched: Allocate JobId=3 NodeList=n[4-5] #CPUs=8 Partition=debug
[2026-11-28T16:04:20.000] _job_complete: JobId=3 done
[2026-11-28T16:04:20.000] debug2: Spawning RPC agent for msg_type REQUEST_TERMINATE_JOB
[2026-11-28T16:04:20.017] debug2: _slurm_rpc_epilog_complete: JobId=3 Node=n4
[2026-11-28T16:04:20.035] debug2: node_did_resp n5
[2026-11-28T16:04:20.035] debug2: node_did_resp n4
`;
    const t0 = Date.parse('2026-11-28T16:04:00.000Z') / 1000;
    const c = ctldCompletions(log);
    expect(c.get(1)!.released - t0).toBeCloseTo(10.02, 6);
    expect(c.get(1)!.epilog).toBe(false);
    expect(c.get(2)!.released - t0).toBeCloseTo(12.04, 6);
    expect(c.get(2)!.epilog).toBe(true);
    // job 3 on n[4-5]: n5's "already complete" answer released it as it came, though node_did_resp is logged when
    // the agent is done (20.035, after n4's answer); the job's last node leaves COMPLETING with n4's epilog (20.017)
    expect(c.get(3)!.released - t0).toBeCloseTo(20.017, 6);
    expect(c.get(3)!.epilog).toBe(true);
  });
});
