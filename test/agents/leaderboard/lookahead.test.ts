/**
 * The `--lookahead` reference (agents/leaderboard/lookahead.ts) on the three cluster envs, on small
 * episodes of the shipped settings: by the rollout argument the lookahead never ends an episode
 * worse than its base played in the env (a fast-check property over episodes and budgets, on
 * JobNode-v0, PolicyPair-v0 and Job-v0), the search does change the outcome somewhere, and the base
 * in the env is exactly the batch heuristic where the env reproduces it (PolicyPair-v0's fixed
 * pair, Job-v0's committed-head priority).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lookaheadBase, lookaheadEpisode, lookaheadPlayers } from '../../../agents/leaderboard/lookahead.js';
import { episodeSeeds, runHeuristics, runSetting } from '../../../agents/leaderboard/run.js';
import { loadSetting, parseSetting, type Setting } from '../../../agents/leaderboard/settings.js';
import { LIVE_OBSERVES } from '../../../envs/observes.js';
import { makeContext } from '../../../envs/registry.js';
import { ROOT } from '../../helpers.js';

/** A shipped setting with `jobs` generated jobs per episode (arriving `rate` times faster: queues form). */
function small(name: string, jobs: number, policies?: NonNullable<Setting['heuristics']['policies']>, rate = 1, irmasim?: Record<string, unknown>[]): Setting {
  const s = loadSetting(join(ROOT, 'data/configs', `${name}.json`));
  const g = s.env.config.generator as { rate?: number };
  const config = { ...s.env.config, generator: { ...g, jobs, ...(g.rate ? { rate: g.rate * rate } : {}) } };
  return { ...s, env: { ...s.env, config }, heuristics: { ...s.heuristics, ...(policies ? { policies } : {}), irmasim } };
}

const HETERO = small('hetero', 80, { jobs: ['fcfs', 'sjf', 'f1', 'unicep'], resources: ['first', 'low_cores', 'high_gflops'], backfill: ['none', 'easy'] }, 4);
const PAIR = small('policy-pair', 80, undefined, 4);
const DEMO = small('demo', 128);
/** hetero-energy with IRMaSim's EnergyHeuristic as its only heuristic: the base is that manager, shown the whole queue. */
const ENERGY = {
  ...small('hetero-energy', 80, undefined, 4, [{ type: 'EnergyHeuristic', metric: 'timetasks', job_selection: 'lowest', resource_selection: 'lowest' }]),
};
ENERGY.heuristics = { ...ENERGY.heuristics, policies: undefined };

describe('lookahead reference', () => {
  for (const [setting, runs] of [
    [HETERO, 6],
    [PAIR, 6],
    [DEMO, 6],
    [ENERGY, 4],
  ] as const)
    it(`property: on ${setting.env.id} (${setting.name}, ${(setting.env.config.generator as { jobs: number }).jobs} jobs) the lookahead never ends an episode worse than its base in the env`, () => {
      const seeds = episodeSeeds(7, 2);
      const base = lookaheadBase(setting, runHeuristics(setting, seeds).rows);
      if (setting === ENERGY)
        expect([base.heuristic.name, base.config.k]).toEqual(['irmasim:EnergyHeuristic(metric=timetasks,job_selection=lowest,resource_selection=lowest)', 80]);
      const context = makeContext(setting.env.id, base.config);
      let changed = 0;
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 10_000 }),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 2, max: 12 }),
          fc.integer({ min: 1, max: 24 }),
          (seed, m, candidates, decisions) => {
            const e = lookaheadEpisode(context, seed, base, setting.metric, setting.lower_is_better, { m, candidates, decisions });
            expect(e.complete).toBe(true);
            expect(e.lookaheads).toBeLessThanOrEqual(decisions);
            expect(e.metric).toBeLessThanOrEqual(e.base * (1 + 1e-12));
            // the episode the search predicted is the one played
            expect(e.metric).toBe(e.predicted);
            if (e.metric < e.base * (1 - 1e-9)) changed++;
          },
        ),
        { numRuns: runs, seed: 35 },
      );
      // the search is not idle: it found a strictly better episode somewhere
      expect(changed).toBeGreaterThan(0);
    });

  it('the base in the env is the batch heuristic exactly on PolicyPair-v0 (a fixed pair), on Job-v0 with the committed head, and for an IRMaSim manager on JobNode-v0', async () => {
    for (const setting of [PAIR, DEMO, ENERGY]) {
      const r = await runSetting(setting, 3, 2, [], lookaheadPlayers({ ...setting, lookahead: { decisions: 2 } }));
      const ref = r.policies.filter((p) => p.kind === 'reference');
      expect(ref[0]!.name).toBe('lookahead(m=2,c=8,d=2) (oracle: future arrivals, actual run times)');
      expect(ref[1]!.name).toBe('lookahead(m=2,c=8,d=2) (parity: known jobs, requested times)');
      expect(ref[2]!.name).toBe('lookahead(m=2,c=8,d=2,s=8,n=128,z=2) (sampled: known jobs, arrivals and run times drawn from the seen ones)');
      expect([ref[1]!.observes, ref[2]!.observes]).toEqual([LIVE_OBSERVES, LIVE_OBSERVES]);
      ref.splice(1, 2);
      const name = /^lookahead base: (.+) \(in env\)$/.exec(ref[1]!.name)![1]!;
      const batch = r.policies.find((p) => p.name === name && p.kind === 'heuristic')!;
      expect(batch.mean).toBeGreaterThan(0);
      expect(r.best_heuristic).not.toMatch(/lookahead/);
      expect(ref[1]!.per_episode).toEqual(batch.per_episode);
      for (const [i, v] of ref[0]!.per_episode.entries()) expect(v).toBeLessThanOrEqual(ref[1]!.per_episode[i]!);
      expect(r.learned).toEqual([]);
    }
  });

  for (const future of ['known', 'sampled'] as const)
    it(`the ${future === 'known' ? 'parity' : 'sampled'} lookahead (rollouts on the ${future} future) is deterministic, searches, and plays the real episode`, () => {
      for (const setting of [DEMO, HETERO]) {
        const seeds = episodeSeeds(5, 2);
        const base = lookaheadBase(setting, runHeuristics(setting, seeds).rows);
        const context = makeContext(setting.env.id, base.config);
        const budget = { m: 2, candidates: 6, decisions: 6, samples: 2, sampled_jobs: 16, confidence: 0 };
        for (const seed of seeds) {
          const a = lookaheadEpisode(context, seed, base, setting.metric, setting.lower_is_better, budget, future);
          const b = lookaheadEpisode(context, seed, base, setting.metric, setting.lower_is_better, budget, future);
          expect(a).toEqual(b);
          expect(a.complete).toBe(true);
          expect(a.lookaheads).toBeGreaterThan(0);
          expect(a.rollouts).toBeGreaterThan(a.lookaheads);
          // the base's figure is the real episode's, as the oracle's run has it
          expect(a.base).toBe(lookaheadEpisode(context, seed, base, setting.metric, setting.lower_is_better, budget).base);
        }
      }
    });

  it('no lookahead on the seed systems’ envs, and their settings refuse a lookahead budget', () => {
    const file = join(ROOT, 'data/configs/fair.json');
    expect(lookaheadPlayers(loadSetting(file))).toEqual([]);
    const raw = JSON.parse(readFileSync(file, 'utf8'));
    expect(() => parseSetting({ ...raw, lookahead: { decisions: 2 } }, file)).toThrow(/lookahead: no --lookahead on clustergym\/Fair-v0/);
  });
});
