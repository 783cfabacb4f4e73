/** Random malleable workloads for the property tests of the engine and of queue points. */
import fc from 'fast-check';
import type { MJob, MWorkload } from '../../src/malleable/model.js';

/** What varies between the property tests' workloads. */
export interface WorkloadArbOptions {
  /** Fewest jobs (at most 14). */
  minJobs: number;
  /** Latest submission time (s). */
  maxSubtime: number;
  /** Some jobs leave `pref` unknown (null). */
  unknownPref: boolean;
}

/**
 * Workloads of 4 to 32 nodes: rigid jobs of any size, and malleable ones whose sizes are
 * `pref * factor^k` (factor 2 or 3) from `min` (pref / factor^down) to `max` (pref * factor^up, at
 * most the platform), with random Amdahl apps, steps and inhibitor periods; sorted by submission.
 */
export function malleableWorkloadArb(o: WorkloadArbOptions): fc.Arbitrary<MWorkload> {
  return fc
    .record({ nodes: fc.integer({ min: 4, max: 32 }), n: fc.integer({ min: o.minJobs, max: 14 }) })
    .chain(({ nodes, n }) =>
      fc.record({
        nodes: fc.constant(nodes),
        jobs: fc.array(
          fc.record({
            subtime: fc.double({ min: 0, max: o.maxSubtime, noNaN: true }),
            t1: fc.double({ min: 0.05, max: 4, noNaN: true }),
            serial: fc.double({ min: 0, max: 1, noNaN: true }),
            steps: fc.integer({ min: 1, max: 60 }),
            factor: fc.integer({ min: 2, max: 3 }),
            pref: fc.integer({ min: 1, max: 4 }),
            down: fc.integer({ min: 0, max: 2 }),
            up: fc.integer({ min: 0, max: 3 }),
            inhibit: fc.double({ min: 0, max: 5, noNaN: true }),
            rigid: fc.boolean(),
            rigidNodes: fc.integer({ min: 1, max: nodes }),
            prefKnown: o.unknownPref ? fc.boolean() : fc.constant(true),
          }),
          { minLength: n, maxLength: n },
        ),
      }),
    )
    .map(
      ({ nodes, jobs }): MWorkload => ({
        nodes,
        jobs: jobs
          .map((j, i): MJob => {
            let max = j.pref;
            for (let k = 0; k < j.up && max * j.factor <= nodes; k++) max *= j.factor;
            const min = Math.max(1, Math.floor(j.pref / j.factor ** j.down));
            const app = { name: 'a', t1: j.t1, serial: j.serial };
            if (j.rigid) return { id: `j${i}`, subtime: j.subtime, app, steps: j.steps, nodes: j.rigidNodes, malleable: null };
            return {
              id: `j${i}`,
              subtime: j.subtime,
              app,
              steps: j.steps,
              nodes: max,
              malleable: { min, max, pref: j.prefKnown ? j.pref : null, factor: j.factor, inhibit: j.inhibit },
            };
          })
          .sort((a, b) => a.subtime - b.subtime),
      }),
    );
}
