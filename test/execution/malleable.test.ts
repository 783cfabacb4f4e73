/**
 * Malleable progress on the one engine (src/execution/malleableProgress.ts): the hand-computed DMR run
 * (the same numbers as test/malleable/engine.test.ts, now on the main engine with the DMR passes), the
 * step time on unequal cores, expansions within the job's partition, the caller deciding points, and
 * the engine contract on the DMR preset.
 */
import { describe, expect, it } from 'vitest';
import { checkEngine, type TranscriptEntry } from '../../src/core/engineChecker.js';
import { ClusterSimulator, InvalidResizeError } from '../../src/execution/simulator.js';
import { paperWorkload, malleableJobs } from '../../src/malleable/workload.js';
import { homogeneousPlatform } from '../../src/platform/homogeneous.js';
import { parsePlatform } from '../../src/platform/loader.js';
import { DmrScheduler, dmrResizeDecider } from '../../src/scheduling/dmr.js';
import { dmrPolicy } from '../../src/scheduling/resizePolicy.js';
import { makeJob, type Job } from '../../src/workload/job.js';
import type { MalleableWork } from '../../src/workload/malleability.js';

const lin = { name: 'lin', t1: 1, serial: 0 };

function mjob(id: string, subtime: number, nodes: number, steps: number, spec: MalleableWork['spec'], extra: Partial<Job> = {}): Job {
  const work: MalleableWork = { spec, steps, speedup: lin };
  return makeJob({ id, subtime, ntasks: nodes, nodes, ntasksPerNode: 1, type: 'mpi', runtime: steps / nodes, malleable: work, ...extra });
}

function dmrEngine(platformNodes: number, jobs: Job[]) {
  const sim = new ClusterSimulator(homogeneousPlatform(platformNodes, 1), jobs, { malleable: 'steps', passClock: 'event' });
  const dmr = new DmrScheduler();
  dmr.attach(sim);
  sim.setScheduler(dmr);
  sim.setResizePolicy(dmrResizeDecider(dmr, dmrPolicy));
  return sim;
}

describe('malleable progress on the one engine', () => {
  it('the hand-computed DMR run: a shrink for the queued job, an expansion once the queue is empty', () => {
    // 4 nodes. A: malleable (1..4, pref 2, inhibit 0), 10 steps of d(n) = 1/n, at 0 on 4 nodes.
    // B: rigid, 2 nodes, 3 steps, arrives at 0.1. A shrinks to 2 at 0.25 (0.425 s): B starts at 0.675,
    // ends at 2.175; A expands to 4 at 2.175 (0.423 s) and ends at 4.098.
    const sim = dmrEngine(4, [mjob('A', 0, 4, 10, { min: 1, max: 4, pref: 2, factor: 2, inhibit: 0 }), mjob('B', 0.1, 2, 3, null)]);
    const ends: Record<string, { start: number; finish: number; ns: number; exp: number; shr: number }> = {};
    const resizes: [string, number, number, number][] = [];
    sim.addListener({
      onResize: (s, rj, from, to) => void resizes.push([rj.job.id, s.now, from, to]),
      onEnd: (_s, rec, rj) => {
        const m = rj!.malleable!;
        ends[rec.job.id] = { start: rec.start, finish: rec.finish, ns: m.nodeSeconds, exp: m.expands, shr: m.shrinks };
      },
    });
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(ends.B!.start).toBeCloseTo(0.675, 12);
    expect(ends.B!.finish).toBeCloseTo(2.175, 12);
    expect(ends.A!.finish).toBeCloseTo(4.098, 12);
    expect([ends.A!.shr, ends.A!.exp]).toEqual([1, 1]);
    expect(resizes.map(([j, , f, t]) => [j, f, t])).toEqual([
      ['A', 4, 2],
      ['A', 2, 4],
    ]);
    expect(resizes[0]![1]).toBeCloseTo(0.25, 12);
    expect(resizes[1]![1]).toBeCloseTo(2.175, 12);
    expect(ends.A!.ns).toBeCloseTo(4 * 0.675 + 2 * 1.5 + 4 * 1.923, 9);
    expect(ends.B!.ns).toBeCloseTo(3, 12);
    // energy and cores: the job held 4, 2, then 4 cores; none is held at the end
    expect(sim.busyCores).toBe(0);
  });

  it('the step time on unequal cores follows the slowest core (reference: the fastest)', () => {
    // two nodes of 1 core: 2000 and 1000 MOPS. A rigid iterative job of 2 nodes, 4 steps of d(2) = 0.5 s
    // on the fastest cores: on one fast and one slow core each step takes 0.5 x 2000 / 1000 = 1 s.
    const platform = parsePlatform(
      {
        clusters: [
          {
            id: 'c',
            nodes: [
              { id: 'fast', memory_gb: 1, processors: [{ cores: 1, clock_rate: 2, dpflops_per_cycle: 1 }] },
              { id: 'slow', memory_gb: 1, processors: [{ cores: 1, clock_rate: 1, dpflops_per_cycle: 1 }] },
            ],
          },
        ],
      },
      'two-speeds.json',
    );
    const sim = new ClusterSimulator(platform, [mjob('J', 0, 2, 4, null)], { malleable: 'steps' });
    sim.setScheduler({ schedule: (s) => void s.startJob(s.waiting[0]!, [0, 1]) });
    let finish = Number.NaN;
    sim.addListener({
      onEnd: (_s, rec) => {
        finish = rec.finish;
      },
    });
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(finish).toBe(4);
  });

  it('without a resize policy the engine stops at each point; a refused resize changes nothing', () => {
    const sim = new ClusterSimulator(homogeneousPlatform(4, 1), [mjob('A', 0, 4, 8, { min: 1, max: 4, pref: 2, factor: 2, inhibit: 0 })], {
      malleable: 'steps',
    });
    sim.setScheduler({ schedule: (s) => s.waiting.length > 0 && void s.startJob(s.waiting[0]!, [0, 1, 2, 3]) });
    let points = 0;
    for (;;) {
      sim.runUntil(Number.POSITIVE_INFINITY);
      const rj = sim.pendingPoint;
      if (rj === null) break;
      points++;
      expect(() => sim.decideResize(3)).toThrow(InvalidResizeError);
      expect(sim.pendingPoint).toBe(rj);
      sim.decideResize(rj.malleable!.size);
    }
    // 8 steps of 0.25 s with a point after each but the last
    expect(points).toBe(7);
    expect(sim.now).toBe(2);
    expect(sim.done).toBe(true);
  });

  it('an expansion takes nodes of the job partition only', () => {
    const platform = parsePlatform(
      {
        clusters: [{ id: 'c', nodes: [{ id: 'n', count: 4, memory_gb: 1, processors: [{ cores: 1, clock_rate: 1, dpflops_per_cycle: 1 }] }] }],
        partitions: [
          { name: 'left', nodes: ['n0', 'n1'] },
          { name: 'right', nodes: ['n2', 'n3'] },
        ],
      },
      'halves.json',
    );
    const sim = new ClusterSimulator(
      platform,
      [mjob('A', 0, 1, 40, { min: 1, max: 4, pref: null, factor: 2, inhibit: 0 }, { partition: 'right', type: 'seq', ntasksPerNode: 0 })],
      {
        malleable: 'steps',
      },
    );
    sim.setScheduler({ schedule: (s) => s.waiting.length > 0 && void s.startJob(s.waiting[0]!, [2]) });
    // expand as far as possible at every point: the job can only grow to the 2 nodes of its partition
    sim.setResizePolicy((s, rj) => ({ size: s.expansionNodes(rj).length >= rj.malleable!.size ? rj.malleable!.size * 2 : rj.malleable!.size }));
    let most = 0;
    sim.addListener({
      onResize: (_s, rj, _f, to) => {
        most = Math.max(most, to, ...rj.nodes);
      },
    });
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(most).toBe(3);
    expect(sim.done).toBe(true);
  });

  it('the DMR preset keeps the engine contract', () => {
    const r = checkEngine(
      () => {
        const sim = dmrEngine(64, malleableJobs(paperWorkload({ jobs: 30, seed: 4 })).jobs);
        const transcript: TranscriptEntry[] = [];
        sim.addListener({
          onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
          onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now }),
          onResize: (s, rj, from, to) => void transcript.push({ type: 'resize', job: rj.job.id, time: s.now, detail: `${from}->${to}` }),
          onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now }),
        });
        return { engine: sim, transcript };
      },
      { name: 'dmr preset', seed: 2 },
    );
    expect(r.resizes).toBeGreaterThan(0);
    expect(r.ended).toBe(30);
  });
});
