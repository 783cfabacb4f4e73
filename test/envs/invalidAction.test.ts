/**
 * Every element of the action space is a legal argument of `step` (envs/invalidAction.ts), in all
 * eight environments with their default invalid-action rule: an action the mask forbids is a no-op
 * (same observation, mask and time, reward minus the penalty, `info.invalid_action`), and a policy
 * that picks forbidden actions whenever it can still ends its episodes (past `invalid_action_limit`
 * the lowest allowed action is taken). `invalid_action: "raise"` keeps the strict behaviour.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { observationDigest } from '../../envs/checker.js';
import { InvalidActionError } from '../../envs/errors.js';
import { allEnvIds, make } from '../../envs/registry.js';
import { spaceViolation } from '../../envs/spaces.js';
import { Rng } from '../../src/core/rng.js';
import { SYNTHETIC_THROUGHPUTS } from '../../src/workload/dlThroughput.js';
import { SMALL } from './envHelpers.js';

/** Small configs of every env id (defaults otherwise: the invalid-action rule is the default one). */
const SMALL_CONFIGS: Record<string, Record<string, unknown>> = {
  'clustergym/JobNode-v0': { ...SMALL, k: 4 },
  'clustergym/Job-v0': { ...SMALL, k: 6 },
  'clustergym/PolicyPair-v0': { ...SMALL, k: 4, actions: ['fcfs:first', 'sjf:first'] },
  'clustergym/Malleable-v0': { jobs: 10 },
  'clustergym/Slurm-v0': { jobs: 60, nodes: 16, period: 1800, users: 4 },
  'clustergym/Fair-v0': {},
  'clustergym/CoSched-v0': { sim: { n_jobs: 40, MPL_TOTAL: 3, n: 4 }, period: 1000 },
  'clustergym/Gpu-v0': { jobs: 8, arrivals_per_hour: 12, throughputs: SYNTHETIC_THROUGHPUTS },
};

function maskDigest(m: Uint8Array): string {
  return Array.from(m).join('');
}

describe('invalid actions (default rule: a no-op)', () => {
  it('covers the eight registered envs', () => {
    expect(Object.keys(SMALL_CONFIGS).sort()).toEqual(allEnvIds().sort());
  });

  for (const id of allEnvIds())
    it(`${id}: uniform actions over the whole action space step without an error; forbidden ones change nothing and pay the penalty`, () => {
      const penalty = 0.25;
      const env = make(id, { ...SMALL_CONFIGS[id], invalid_action_penalty: penalty, invalid_action_limit: 8 });
      expect(env.invalidAction).toBe('noop');
      const n = env.actionSpace.n;
      const rng = new Rng(`invalid/${id}`);
      let forbidden = 0;
      let substituted = 0;
      for (let e = 0; e < 2; e++) {
        const r = env.reset({ seed: 11 + e });
        let obs = observationDigest(r.observation);
        let time = r.info.time;
        let steps = r.info.steps;
        let ret = 0;
        for (let s = 0; ; s++) {
          expect(s).toBeLessThan(200_000);
          const mask = env.actionMask().slice();
          const a = Math.floor(rng.next() * n);
          const st = env.step(a);
          ret += st.reward;
          expect(spaceViolation(env.observationSpace, st.observation)).toBeNull();
          if (mask[a] === 1) expect(st.info.invalid_action).toBeUndefined();
          else if (st.info.action_taken === undefined) {
            forbidden++;
            expect(st.info.invalid_action).toBe(true);
            expect([st.reward, st.terminated, st.truncated, st.info.time, st.info.steps]).toEqual([-penalty, false, false, time, steps]);
            expect(observationDigest(st.observation)).toBe(obs);
            expect(maskDigest(env.actionMask())).toBe(maskDigest(mask));
          } else {
            substituted++;
            expect(st.info.invalid_action).toBe(true);
            expect(st.info.action_taken).toBe(mask.indexOf(1));
          }
          if (st.terminated || st.truncated) {
            expect(st.info.episode!.return).toBeCloseTo(ret, 6);
            break;
          }
          obs = observationDigest(st.observation);
          time = st.info.time;
          steps = st.info.steps;
        }
      }
      // these envs' masks forbid actions at some states (PolicyPair-v0, Slurm-v0 and CoSched-v0 allow every action)
      if (['clustergym/JobNode-v0', 'clustergym/Job-v0', 'clustergym/Malleable-v0', 'clustergym/Fair-v0'].includes(id)) expect(forbidden).toBeGreaterThan(0);
      if (id === 'clustergym/JobNode-v0') expect(substituted).toBeGreaterThan(0);
    });

  it('a policy that picks a forbidden action whenever there is one still ends its episode: at most `limit` no-ops between two real steps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 1000 }), (limit, seed) => {
        const env = make('clustergym/JobNode-v0', { ...SMALL, k: 4, invalid_action_limit: limit });
        env.reset({ seed });
        let run = 0;
        for (let s = 0; ; s++) {
          const mask = env.actionMask();
          const bad = mask.indexOf(0);
          const r = env.step(bad >= 0 ? bad : 0);
          if (r.info.invalid_action && r.info.action_taken === undefined) run++;
          else run = 0;
          expect(run).toBeLessThanOrEqual(limit);
          if (r.info.action_taken !== undefined) expect(run).toBe(0);
          if (r.terminated || r.truncated) {
            expect(r.terminated).toBe(true);
            return;
          }
          expect(s).toBeLessThan(100_000);
        }
      }),
      { numRuns: 12 },
    );
  });

  it('values outside the action space are refused in every mode; "raise" refuses forbidden actions and changes nothing', () => {
    for (const id of allEnvIds()) {
      const env = make(id, SMALL_CONFIGS[id]);
      env.reset({ seed: 3 });
      const n = env.actionSpace.n;
      for (const bad of [-1, n, 0.5, Number.NaN]) expect(() => env.step(bad)).toThrow(InvalidActionError);
      const strict = make(id, { ...SMALL_CONFIGS[id], invalid_action: 'raise' });
      expect(strict.invalidAction).toBe('raise');
      strict.reset({ seed: 3 });
      const mask = strict.actionMask().slice();
      const forbidden = mask.indexOf(0);
      if (forbidden >= 0) {
        expect(() => strict.step(forbidden)).toThrow(InvalidActionError);
        expect(maskDigest(strict.actionMask())).toBe(maskDigest(mask));
      }
    }
  });

  it('without a penalty a forbidden action earns exactly 0 (not -0), and the return is unchanged', () => {
    const env = make('clustergym/Job-v0', SMALL_CONFIGS['clustergym/Job-v0']);
    env.reset({ seed: 4 });
    const bad = env.actionMask().indexOf(0);
    const r = env.step(bad);
    expect(Object.is(r.reward, 0)).toBe(true);
    expect(r.info.invalid_action).toBe(true);
  });

  it('the config fields are checked', () => {
    for (const id of allEnvIds()) {
      expect(() => make(id, { ...SMALL_CONFIGS[id], invalid_action: 'ignore' })).toThrow(/invalid_action/);
      expect(() => make(id, { ...SMALL_CONFIGS[id], invalid_action_penalty: -1 })).toThrow(/invalid_action_penalty/);
      expect(() => make(id, { ...SMALL_CONFIGS[id], invalid_action_limit: 0 })).toThrow(/invalid_action_limit/);
    }
  });
});
