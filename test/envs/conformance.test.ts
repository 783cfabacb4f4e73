/**
 * The Gymnasium-style conformance suite (envs/checker.ts) on every mode and observation variant,
 * with small episodes so that it runs in seconds.
 */
import { describe, expect, it } from 'vitest';
import { checkEnv, EnvCheckError } from '../../envs/checker.js';
import { make, sampleMasked } from '../../envs/index.js';
import { Rng } from '../../src/core/rng.js';
import { SMALL } from './envHelpers.js';

const CASES: [string, Record<string, unknown>][] = [
  ['clustergym/JobNode-v0', { ...SMALL, k: 4 }],
  ['clustergym/JobNode-v0', { ...SMALL, k: 3, observation: 'flat', reward: { flowtime: 1e-4, energy: 1e-7 } }],
  ['clustergym/Job-v0', { ...SMALL, k: 6 }],
  ['clustergym/Job-v0', { ...SMALL, k: 6, unfit: 'reserve', backfilling: 'easy', queue_order: 'sjf' }],
  ['clustergym/Job-v0', { ...SMALL, k: 5, observation: 'flat', resource_policy: 'high_cores', node_fit: 'best_fit' }],
  ['clustergym/Job-v0', { ...SMALL, k: 5, observation: 'jobs', unfit: 'reserve' }],
  ['clustergym/PolicyPair-v0', { ...SMALL, observation: 'minimal' }],
  ['clustergym/PolicyPair-v0', { ...SMALL, k: 4, actions: ['fcfs:first', 'sjf:high_gflops', 'smallest:low_power'], backfilling: 'easy' }],
];

describe('conformance (Gymnasium env checker)', () => {
  for (const [id, config] of CASES)
    it(`${id} ${JSON.stringify(config)}`, () => {
      const env = make(id, config);
      const report = checkEnv(env, { episodes: 3, seed: 7, seedChangesEpisode: true, exhaustiveStates: 2 });
      expect(report.checks.length).toBeGreaterThanOrEqual(6);
      expect(report.actionsTried).toBeGreaterThan(0);
    });

  it('a random masked agent completes 100 episodes in each mode', () => {
    for (const [id, config] of [
      ['clustergym/JobNode-v0', { ...SMALL, k: 4 }],
      ['clustergym/Job-v0', { ...SMALL, k: 4 }],
      ['clustergym/Job-v0', { ...SMALL, k: 4, unfit: 'reserve', backfilling: 'easy' }],
      ['clustergym/PolicyPair-v0', { ...SMALL, k: 4 }],
    ] as const) {
      const env = make(id, config);
      const rng = new Rng('random-masked');
      let finished = 0;
      for (let e = 0; e < 100; e++) {
        env.reset({ seed: e });
        for (let s = 0; ; s++) {
          expect(s).toBeLessThan(10_000);
          const r = env.step(sampleMasked(env.actionMask(), rng));
          if (r.terminated || r.truncated) {
            expect(r.terminated).toBe(true);
            expect(r.info.metrics!.jobs_finished).toBe(20);
            finished++;
            break;
          }
        }
      }
      expect(finished).toBe(100);
    }
  });

  it('the checker catches a broken environment', () => {
    const env = make('clustergym/Job-v0', { ...SMALL, k: 4 });
    // an env whose masks lie: every action allowed
    const liar = new Proxy(env, {
      get(target, prop, recv) {
        if (prop === 'actionMask') return () => new Uint8Array(target.actionMask().length).fill(1);
        const v = Reflect.get(target, prop, recv) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    expect(() => checkEnv(liar, { episodes: 1, close: false })).toThrow(EnvCheckError);
  });
});
