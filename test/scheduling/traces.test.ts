/**
 * Policies on real traces (skipped when ../shared/data is absent): the Lublin-Feitelson trace of
 * RLScheduler, 10 trajectories of 1,024 jobs, with and without EASY, in both head modes; the orderings
 * must be those the literature reports (RLScheduler, SC'20: FCFS far worse than SJF and F1 without
 * backfilling; EASY helps FCFS most). And the NASA iPSC trace replays end to end under every
 * backfilling.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homogeneousPlatform } from '../../src/platform/homogeneous.js';
import { comparePolicies, cutTrajectories, type PolicyResult } from '../../src/scheduling/compare.js';
import { loadWorkload } from '../../src/workload/index.js';
import { HAVE_SHARED, SHARED_DATA, SHARED_MISSING } from '../helpers.js';

const bsld = (rs: PolicyResult[]) => Object.fromEntries(rs.map((r) => [r.name.split(/[:+]/)[0]!, r.mean_bsld]));

describe.skipIf(!HAVE_SHARED)(`traces ${HAVE_SHARED ? '' : SHARED_MISSING}`, () => {
  const lublin = () => {
    const w = loadWorkload(join(SHARED_DATA, 'traces/lublin_256.swf'));
    return { w, platform: homogeneousPlatform(w.maxProcs!, 1), trajectories: cutTrajectories(w, { length: 1024, trajectories: 10, seed: 1 }) };
  };

  it('lublin_256: 10 x 1,024 jobs, orderings alike RLScheduler (re-ordering and commit-head)', () => {
    const { w, platform, trajectories } = lublin();
    expect(w.maxProcs).toBe(256);
    expect(platform.coreCount).toBe(256);
    expect(trajectories).toHaveLength(10);
    const policies = ['fcfs', 'sjf', 'f1', 'wfp3', 'unicep'];
    for (const commitHead of [false, true]) {
      const none = bsld(comparePolicies(platform, trajectories, policies, { commitHead }));
      const easy = bsld(comparePolicies(platform, trajectories, policies, { commitHead, defaultBackfill: 'easy' }));
      // without backfilling FCFS is by far the worst; SJF and F1 an order of magnitude better
      for (const p of ['sjf', 'f1', 'wfp3', 'unicep']) expect(none[p]!).toBeLessThan(none.fcfs! / 10);
      // EASY helps FCFS a lot
      expect(easy.fcfs!).toBeLessThan(none.fcfs! / 10);
      // with EASY, SJF and F1 still beat FCFS
      expect(easy.sjf!).toBeLessThan(easy.fcfs!);
      expect(easy.f1!).toBeLessThan(easy.fcfs!);
      for (const v of [...Object.values(none), ...Object.values(easy)]) expect(v).toBeGreaterThanOrEqual(1);
    }
  });

  it('lublin_256: conservative is no worse than FCFS without backfilling, every job finishes', () => {
    const { platform, trajectories } = lublin();
    const [none, cons] = comparePolicies(platform, trajectories.slice(0, 3), ['fcfs', 'fcfs+conservative']);
    expect(cons!.mean_bsld).toBeLessThan(none!.mean_bsld);
    for (const t of cons!.per_trajectory) expect(t.jobs_finished).toBe(1024);
  });

  it('NASA iPSC/860: the whole trace replays under none, easy and conservative', () => {
    const w = loadWorkload(join(SHARED_DATA, 'traces/NASA-iPSC-1993-3.1-cln.swf'));
    const platform = homogeneousPlatform(w.maxProcs!, 1);
    const rs = comparePolicies(platform, cutTrajectories(w), ['fcfs', 'fcfs+easy', 'fcfs+conservative', 'sjf+easy']);
    for (const r of rs) {
      const t = r.per_trajectory[0]!;
      expect(t.jobs_finished).toBe(w.jobs.length);
      expect(t.jobs_killed + t.jobs_rejected).toBe(0);
    }
    expect(rs[1]!.mean_wait).toBeLessThanOrEqual(rs[0]!.mean_wait);
  });
});
