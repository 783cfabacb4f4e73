/**
 * The streaming summary (DESIGN §2.5), by hand: means over the jobs that ran (finished or killed),
 * rejected jobs only counted, utilisation = core-seconds / (makespan x cores), EDP = energy x makespan.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterSimulator, JobRecord } from '../../src/execution/simulator.js';
import { MetricsCollector } from '../../src/metrics/summary.js';
import { makeJob } from '../../src/workload/job.js';
import { opsJob, runListScheduler, tfg2x2x4 } from '../helpers.js';

function record(id: string, ntasks: number, submit: number, start: number, finish: number, state: JobRecord['state']): JobRecord {
  const none = new Int32Array(0);
  return {
    job: makeJob({ id, subtime: submit, ntasks, runtime: 1 }),
    submit,
    start,
    finish,
    state,
    cores: none,
    nodes: none,
    releases: new Float64Array(0),
    commTime: 0,
  };
}

describe('MetricsCollector', () => {
  it('sums what ran, counts what was rejected, and passes every record to its sinks', () => {
    const m = new MetricsCollector();
    const seen: string[] = [];
    m.onRecord((r) => seen.push(r.job.id));
    const sim = {} as ClusterSimulator; // onEnd and onReject do not read the simulator
    // a: 2 tasks, wait 0, run 20; b: killed, wait 25, run 5 (slowdown 6, bsld 30 / 10); c: rejected
    m.onEnd(sim, record('a', 2, 0, 0, 20, 'finished'));
    m.onReject(sim, record('c', 8, 3, 0, 0, 'rejected'));
    m.onEnd(sim, record('b', 1, 5, 30, 35, 'killed'));
    expect(seen).toEqual(['a', 'c', 'b']);
    const end = { lastEnd: 35, platform: { coreCount: 4 }, energy: 700, networkVolume: 3e8 } as unknown as ClusterSimulator;
    expect(m.summary(end)).toEqual({
      jobs_finished: 1,
      jobs_killed: 1,
      jobs_rejected: 1,
      makespan: 35,
      energy: 700,
      edp: 700 * 35,
      network_volume: 3e8,
      utilisation: (20 * 2 + 5 * 1) / (35 * 4),
      mean_wait: 12.5,
      mean_turnaround: 25,
      mean_slowdown: 3.5,
      mean_bsld: 2,
      max_bsld: 3,
    });
  });

  it('nothing ran: zero means and utilisation', () => {
    const s = new MetricsCollector().summary({ lastEnd: 0, platform: { coreCount: 4 }, energy: 0, networkVolume: 0 } as unknown as ClusterSimulator);
    expect([s.jobs_finished, s.makespan, s.utilisation, s.mean_wait, s.mean_bsld, s.max_bsld]).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('on a run: seq jobs of 6, 6 and 4 tasks on tfg-2x2x4 (the third waits for 1 s)', () => {
    // a, b: 0 -> 1 on node0, node1; c: 1 -> 2 on node0's first processor
    const { summary } = runListScheduler(tfg2x2x4(), [opsJob('a', 6), opsJob('b', 6), opsJob('c', 4)]);
    expect(summary.jobs_finished).toBe(3);
    expect(summary.mean_wait).toBeCloseTo(1 / 3, 12);
    expect(summary.mean_turnaround).toBeCloseTo(4 / 3, 12);
    expect(summary.mean_slowdown).toBeCloseTo(4 / 3, 12);
    expect([summary.mean_bsld, summary.max_bsld]).toEqual([1, 1]); // runs of 1 s count as 10
    expect(summary.utilisation).toBeCloseTo((6 + 6 + 4) / (2 * 16), 12);
    // [0, 1): 2 x (4 x 10 + 20 + 2 x 10 + 20) W; [1, 2): 4 x 10 + 20 W and three idle processors at 1 W
    expect(summary.energy).toBeCloseTo(200 + 63, 9);
    expect(summary.edp).toBeCloseTo(263 * 2, 9);
  });
});
