/**
 * Heuristic agents: every baseline completes episodes in its mode with valid actions, follows the
 * batch scheduler it names where the env can express it exactly, and evaluation uses the same
 * episodes for every agent.
 */
import { describe, expect, it } from 'vitest';
import {
  evaluate,
  heuristicAgents,
  irmasimAgent,
  PolicyPairAgent,
  PriorityAgent,
  RandomMaskedAgent,
  runEpisode,
  SchedulerAgent,
} from '../../agents/heuristics/index.js';
import { readFileSync } from 'node:fs';
import { PythonRandom } from '../../src/core/rng.js';
import { makeIrmasimManager } from '../../src/scheduling/irmasim/index.js';
import { DEFAULT_WORKLOAD } from '../../src/core/paths.js';
import { make } from '../../envs/index.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { SMALL } from '../envs/envHelpers.js';

describe('heuristic agents', () => {
  for (const [id, config] of [
    ['clustergym/JobNode-v0', { ...SMALL, k: 8 }],
    ['clustergym/Job-v0', { ...SMALL, k: 8 }],
    ['clustergym/Job-v0', { ...SMALL, k: 8, unfit: 'reserve', backfilling: 'easy' }],
    ['clustergym/PolicyPair-v0', { ...SMALL, actions: ['fcfs:first', 'sjf:high_gflops', 'smallest:low_power'] }],
  ] as const)
    it(`every baseline of ${id} ${JSON.stringify(config)} completes its episodes`, () => {
      const env = make(id, config);
      const agents = heuristicAgents(env);
      expect(agents.length).toBeGreaterThanOrEqual(3);
      for (const a of agents) {
        const r = evaluate(env, a, [1, 2]);
        expect(r.episodes.every((e) => e.summary.jobs_finished === 20)).toBe(true);
        expect(r.mean.mean_bsld).toBeGreaterThanOrEqual(1);
      }
    });

  it('JobNode-v0 with SchedulerAgent(fcfs:first) reproduces the batch fcfs:first', () => {
    const env = make('clustergym/JobNode-v0', { k: 300 });
    const got = runEpisode(env, new SchedulerAgent('fcfs:first'), 0).summary;
    expect(got).toEqual(runSimulation(env.context.platform, env.context.workload!.jobs, makeScheduler('fcfs:first')).summary);
  });

  it('SJF beats FCFS and random on mean wait on the embedded default (Job-v0, reserve)', () => {
    const env = make('clustergym/Job-v0', { trajectory: { length: 150, origin: 'random' }, unfit: 'reserve', k: 64 });
    const seeds = [1, 2, 3, 4];
    const fcfs = evaluate(env, new PriorityAgent('fcfs'), seeds).mean;
    const sjf = evaluate(env, new PriorityAgent('sjf'), seeds).mean;
    const rnd = evaluate(env, new RandomMaskedAgent(1), seeds).mean;
    expect(sjf.mean_wait).toBeLessThan(fcfs.mean_wait);
    expect(sjf.mean_wait).toBeLessThan(rnd.mean_wait);
  });

  it("IRMaSim's managers as agents: JobNode-v0 and Job-v0 episodes complete; on one-node jobs JobNode-v0 follows them exactly", () => {
    const managers = [
      { type: 'Backfill', resource_selection: 'energy_lowest' },
      { type: 'EnergyHeuristic', metric: 'edp' },
      { type: 'Duplex' },
      { type: 'Heuristic', job_selection: 'longest', resource_selection: 'low_cores' },
    ];
    for (const id of ['clustergym/JobNode-v0', 'clustergym/Job-v0'] as const) {
      const env = make(id, { ...SMALL, k: 8 });
      for (const m of managers) expect(evaluate(env, irmasimAgent(m), [1]).episodes[0]!.summary.jobs_finished).toBe(20);
    }
    // the embedded default's one-node jobs: the env with the agent = the manager run as a batch scheduler
    const all = JSON.parse(readFileSync(DEFAULT_WORKLOAD, 'utf8')) as { jobs: { res?: number }[] };
    const workload = { jobs: all.jobs.filter((j) => j.res !== undefined).slice(0, 120) };
    for (const m of managers.slice(0, 3)) {
      const env = make('clustergym/JobNode-v0', { workload, k: 200 });
      const viaEnv = runEpisode(env, irmasimAgent(m), 0).summary;
      const batch = runSimulation(env.context.platform, env.context.workload!.jobs, makeIrmasimManager(m, new PythonRandom(0), 'test').scheduler).summary;
      expect(viaEnv).toEqual(batch);
    }
  });

  it('agents refuse the wrong mode', () => {
    const pp = make('clustergym/PolicyPair-v0', SMALL);
    pp.reset({ seed: 0 });
    expect(() => new PriorityAgent('sjf').act(pp)).toThrow(/Job-v0/);
    expect(() => new PolicyPairAgent('ljf:first').act(pp)).toThrow(/not among this env's actions/);
    expect(() => new PriorityAgent('random')).toThrow(/deterministic/);
  });
});
