/**
 * The DMR preset of the one engine (src/malleable/preset.ts) against the malleable engine it replaces
 * (src/malleable/engine.ts), while both exist: on random malleable workloads (test/malleable/arbitraries.ts)
 * and random policies (`dmr`, `never`, and learned-like random decisions at both kinds of decision, some
 * refused), with and without queue points, driven by a policy inside the run or decision by decision
 * by the caller, the two give the same run to the last bit: every decision's context, every job's
 * outcome, every resize, the timeline and every metric.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalleableSim, type MRunResult as OldResult, simulate as oldSimulate } from '../../src/malleable/engine.js';
import type { MWorkload } from '../../src/malleable/model.js';
import { dmrPreset, type MRunResult, simulate } from '../../src/malleable/preset.js';
import { paperWorkload } from '../../src/malleable/workload.js';
import { allowedSizes } from '../../src/workload/malleability.js';
import { type Decision, dmrPolicy, neverPolicy, type PointContext, type ResizePolicy } from '../../src/scheduling/resizePolicy.js';
import { malleableWorkloadArb } from './arbitraries.js';

/**
 * A learned-like policy: a deterministic function of the context and a seed that picks any allowed size
 * (sometimes one that does not fit, which the engine refuses), promotes a random queued job, and
 * answers queue points with a random smaller size or a decline. Pure: both engines see the same answers
 * for the same contexts.
 */
function randomPolicy(seed: number): ResizePolicy {
  return (ctx: PointContext): Decision => {
    let x = (seed ^ Math.floor(ctx.time * 1e6) ^ (ctx.size * 7919) ^ (ctx.free * 104729) ^ (ctx.queue.length * 31)) >>> 0;
    const rnd = () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x / 2 ** 32;
    };
    const sizes = allowedSizes(ctx.spec);
    if (ctx.kind === 'queue') {
      const smaller = sizes.filter((s) => s < ctx.size);
      const size = rnd() < 0.5 || smaller.length === 0 ? ctx.size : smaller[Math.floor(rnd() * smaller.length)]!;
      return { size, promote: -1, rule: 'no-action' };
    }
    const size = sizes[Math.floor(rnd() * sizes.length)]!;
    const promote = ctx.queue.length > 0 && rnd() < 0.3 ? Math.floor(rnd() * (ctx.queue.length + 1)) : -1;
    return { size, promote, rule: 'no-action' };
  };
}

/** An old engine's result with its timeline in the new shape (allocated fraction, queue). */
function inNewShape(r: OldResult, nodes: number): MRunResult {
  return { ...r, timeline: r.timeline.map((p) => ({ time: p.time, utilisation: p.allocated / nodes, queue: p.queue, power: 0 })) };
}

/** The old engine's run, decision by decision (`contexts` gets what each decision saw). */
function oldRun(w: MWorkload, policy: ResizePolicy, queuePoints: boolean, contexts: unknown[]): MRunResult {
  const sim = new MalleableSim(w, { queuePoints, timeline: true });
  for (let p = sim.next(); p !== null; p = sim.next()) {
    contexts.push({ ...p, queue: [...p.queue], progress: sim.pendingProgress, job: sim.pendingJob!.id, head: sim.headJob?.id, nodes: sim.queuedNodes });
    sim.decideWith(policy);
  }
  return inNewShape(sim.result(), w.nodes);
}

/** The preset's run, decision by decision. */
function newRun(w: MWorkload, policy: ResizePolicy, queuePoints: boolean, contexts: unknown[]): MRunResult {
  const sim = dmrPreset(w, { queuePoints, timeline: true });
  for (let p = sim.next(); p !== null; p = sim.next()) {
    contexts.push({ ...p, queue: [...p.queue], progress: sim.pendingProgress, job: sim.pendingJob!.id, head: sim.headJob?.id, nodes: sim.queuedNodes });
    sim.decideWith(policy);
  }
  return sim.result();
}

/** What the compared runs exercised (so that a generator that stopped producing a case shows). */
const seen = { resizes: 0, invalid: 0, queuePoints: 0, requests: 0, promotions: 0 };

function expectSame(a: MRunResult, b: MRunResult): void {
  seen.resizes += a.resizes.length;
  seen.invalid += a.invalidResizes;
  seen.queuePoints += a.queuePoints;
  seen.requests += a.shrinkRequests;
  expect(b.jobs).toEqual(a.jobs);
  expect(b.resizes).toEqual(a.resizes);
  expect(b.timeline).toEqual(a.timeline);
  expect({ ...b, jobs: [], resizes: [], timeline: [] }).toEqual({ ...a, jobs: [], resizes: [], timeline: [] });
}

const policyArb = fc.oneof(
  fc.constant({ name: 'dmr', policy: dmrPolicy }),
  fc.constant({ name: 'never', policy: neverPolicy }),
  fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((seed) => ({ name: `random ${seed}`, policy: randomPolicy(seed) })),
);

describe('the DMR preset gives the malleable engine runs exactly', () => {
  it('on random workloads and policies, decision by decision, with and without queue points', () => {
    fc.assert(
      fc.property(malleableWorkloadArb({ minJobs: 1, maxSubtime: 50, unknownPref: true }), policyArb, fc.boolean(), (w, { policy }, queuePoints) => {
        const before: unknown[] = [];
        const after: unknown[] = [];
        const a = oldRun(w, policy, queuePoints, before);
        const b = newRun(w, policy, queuePoints, after);
        expect(after).toEqual(before);
        expectSame(a, b);
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it('with the policy inside the run (simulate), the same as decision by decision', () => {
    fc.assert(
      fc.property(malleableWorkloadArb({ minJobs: 2, maxSubtime: 30, unknownPref: false }), policyArb, fc.boolean(), (w, { policy }, queuePoints) => {
        const a = oldSimulate(w, policy, { queuePoints, timeline: true });
        const b = simulate(w, policy, { queuePoints, timeline: true });
        expectSame(inNewShape(a, w.nodes), b);
      }),
      { numRuns: 200, seed: 43 },
    );
  });

  it("on the paper's workload: dmr, never and a random policy, with queue points and other costs", () => {
    for (const seed of [1, 2, 3]) {
      const w = paperWorkload({ jobs: 120, seed });
      for (const policy of [dmrPolicy, neverPolicy, randomPolicy(seed)])
        for (const queuePoints of [false, true]) {
          const before: unknown[] = [];
          const after: unknown[] = [];
          expectSame(oldRun(w, policy, queuePoints, before), newRun(w, policy, queuePoints, after));
          expect(after).toEqual(before);
        }
      const cost = { expand: 3, shrink: 0 };
      expectSame(inNewShape(oldSimulate(w, dmrPolicy, { cost }), w.nodes), simulate(w, dmrPolicy, { cost }));
    }
    // without pref, dmr's §4.3 shrinks promote queued jobs
    const noPref = paperWorkload({ jobs: 120, seed: 4 });
    for (const j of noPref.jobs) if (j.malleable) j.malleable = { ...j.malleable, pref: null };
    const a = inNewShape(oldSimulate(noPref, dmrPolicy), noPref.nodes);
    expectSame(a, simulate(noPref, dmrPolicy));
    const promoted = new Set(a.jobs.filter((j) => j.shrinks > 0).map((j) => j.id)).size;
    seen.promotions += promoted;
  });

  it('the comparisons covered resizes, refused decisions, queue points, requests and §4.3 promotions', () => {
    expect(seen.resizes).toBeGreaterThan(1000);
    expect(seen.invalid).toBeGreaterThan(100);
    expect(seen.queuePoints).toBeGreaterThan(100);
    expect(seen.requests).toBeGreaterThan(50);
    expect(seen.promotions).toBeGreaterThan(0);
  });
});
