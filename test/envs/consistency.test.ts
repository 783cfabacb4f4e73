/**
 * Consistency with the batch simulator:
 * - Job-v0 with `unfit: "reserve"` (RLScheduler's semantics), with and without EASY: an agent that
 *   always picks the job FCFS / SJF / F1 ranks first reproduces exactly the metrics of the batch
 *   scheduler with a committed head (`compare --commit-head`), on the same trajectories;
 * - PolicyPair-v0 with one fixed pair reproduces `simulate` with that pair.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { PriorityAgent, PolicyPairAgent, SchedulerAgent, runEpisode } from '../../agents/heuristics/index.js';
import { make, type ClusterEnv } from '../../envs/index.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { makeScheduler, parsePolicyName } from '../../src/scheduling/policyName.js';
import { makeJobSelection } from '../../src/scheduling/jobSelection.js';
import { makeResourcePolicy } from '../../src/scheduling/resourceSelection.js';
import { PolicyScheduler } from '../../src/scheduling/scheduler.js';
import { Rng } from '../../src/core/rng.js';
import { comparePolicies, cutTrajectories } from '../../src/scheduling/compare.js';
import { HAVE_SHARED, ROOT, SHARED_DATA, SHARED_MISSING } from '../helpers.js';

const LUBLIN = resolve(SHARED_DATA, 'traces/lublin_256.swf');

/**
 * The batch run of `policy` on the env's platform over the trajectory from `origin`, cut as `compare`
 * cuts it. `fullEasy`: EASY recomputed at every decision point (the scheduler's incremental EASY is
 * not result-equivalent to it on node-based reservations; see the report of the environments issue).
 */
function batch(env: ClusterEnv, policy: string, origin: number, commitHead: boolean, fullEasy = false) {
  const ctx = env.context;
  const jobs = cutTrajectories(ctx.workload!, { length: ctx.length, origins: [origin] })[0]!.jobs;
  const spec = parsePolicyName(policy);
  const scheduler = fullEasy
    ? new PolicyScheduler({
        selection: makeJobSelection(spec.job, new Rng(0)),
        resources: makeResourcePolicy(spec.resource, new Rng(0)),
        backfill: spec.backfill,
        commitHead,
        fit: ctx.config.node_fit,
        incrementalEasy: false,
      })
    : makeScheduler(spec, { commitHead, fit: ctx.config.node_fit });
  return runSimulation(ctx.platform, jobs, scheduler, { enforceMemory: ctx.config.enforce_memory }).summary;
}

/** Env episode with `agent` on the trajectory from `origin`. */
function episode(env: ClusterEnv, agent: Parameters<typeof runEpisode>[1], origin: number) {
  return runEpisode(env, agent, 0, { origin }).summary;
}

describe('Job-v0 unfit: reserve reproduces compare --commit-head', () => {
  const origins = [0, 2000, 6500];
  for (const backfilling of ['none', 'easy'] as const)
    it.skipIf(!HAVE_SHARED)(`Lublin-256, fcfs/sjf/f1${backfilling === 'easy' ? ' + EASY' : ''}, 3 trajectories of 512 jobs (comparePolicies)`, () => {
      const policies = ['fcfs', 'sjf', 'f1'];
      const base = make('clustergym/Job-v0', { workload: LUBLIN, trajectory: { length: 512 } });
      const ctx = base.context;
      const want = comparePolicies(ctx.platform, cutTrajectories(ctx.workload!, { length: 512, origins }), policies, {
        commitHead: true,
        defaultBackfill: backfilling,
      });
      policies.forEach((policy, p) => {
        const env = make('clustergym/Job-v0', { workload: LUBLIN, trajectory: { length: 512 }, k: 16, unfit: 'reserve', backfilling, queue_order: policy });
        const agent = new PriorityAgent(policy);
        origins.forEach((origin, t) => {
          const got = episode(env, agent, origin);
          const row = want[p]!.per_trajectory[t]!;
          expect(row.trajectory).toBe(String(origin));
          for (const key of [
            'jobs_finished',
            'jobs_killed',
            'jobs_rejected',
            'mean_bsld',
            'max_bsld',
            'mean_wait',
            'utilisation',
            'makespan',
            'energy',
          ] as const)
            expect(got[key], `${policy} origin ${origin} ${key}`).toBe(row[key]);
        });
      });
    });

  it.skipIf(!HAVE_SHARED)('Lublin-256 through the CLI: `clustergym compare --commit-head --json` (with and without EASY)', () => {
    for (const backfill of ['none', 'easy']) {
      const r = spawnSync(
        process.execPath,
        [
          resolve(ROOT, 'dist/cli/main.js'),
          'compare',
          '--workload',
          LUBLIN,
          '--policies',
          'fcfs,sjf,f1',
          '--backfill',
          backfill,
          '--commit-head',
          '--trajectories',
          '3',
          '--length',
          '400',
          '--seed',
          '7',
          '--json',
        ],
        { encoding: 'utf8' },
      );
      expect(r.status, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as {
        policies: {
          name: string;
          mean_bsld: number;
          per_trajectory: { trajectory: string; mean_bsld: number; mean_wait: number; makespan: number; utilisation: number }[];
        }[];
      };
      for (const pol of report.policies) {
        const policy = pol.name.split(':')[0]!;
        const env = make('clustergym/Job-v0', {
          workload: LUBLIN,
          trajectory: { length: 400 },
          k: 8,
          unfit: 'reserve',
          backfilling: backfill,
          queue_order: policy,
        });
        const agent = new PriorityAgent(policy);
        let sum = 0;
        for (const row of pol.per_trajectory) {
          const got = episode(env, agent, Number(row.trajectory));
          expect(got.mean_bsld).toBe(row.mean_bsld);
          expect(got.mean_wait).toBe(row.mean_wait);
          expect(got.makespan).toBe(row.makespan);
          expect(got.utilisation).toBe(row.utilisation);
          sum += got.mean_bsld;
        }
        expect(sum / pol.per_trajectory.length).toBeCloseTo(pol.mean_bsld, 9);
      }
    }
  });
  if (!HAVE_SHARED) it.skip(SHARED_MISSING, () => {});

  for (const backfilling of ['none', 'easy'] as const)
    for (const policy of ['fcfs', 'sjf', 'f1', 'wfp3'])
      it(`embedded hetero-20 + mixed-300 (seq and MPI jobs, memory, contention), ${policy}${backfilling === 'easy' ? ' + EASY' : ''}`, () => {
        const env = make('clustergym/Job-v0', { trajectory: { length: 150 }, k: 8, unfit: 'reserve', backfilling, queue_order: policy });
        const agent = new PriorityAgent(policy);
        for (const origin of [0, 75, 150]) expect(episode(env, agent, origin)).toEqual(batch(env, `${policy}:first+${backfilling}`, origin, true, true));
      });

  it('the agent sees the committed job in slot 0 even with a small window', () => {
    const env = make('clustergym/Job-v0', { trajectory: { length: 150 }, k: 1, unfit: 'reserve', queue_order: 'sjf' });
    expect(episode(env, { name: 'slot0', act: () => 0 }, 10)).toEqual(batch(env, 'sjf:first', 10, true));
  });
});

describe('PolicyPair-v0 with one fixed pair reproduces simulate', () => {
  for (const pair of ['fcfs:first', 'sjf:high_gflops', 'smallest:low_power', 'low_mem:high_mem', 'low_mem_bw:high_mem_bw', 'f1:high_cores'])
    for (const backfilling of ['none', 'easy'] as const)
      it(`${pair}${backfilling === 'easy' ? '+easy' : ''}`, () => {
        const env = make('clustergym/PolicyPair-v0', { backfilling, actions: [pair, 'fcfs:first'].filter((p, i, a) => a.indexOf(p) === i) });
        const got = runEpisode(env, new PolicyPairAgent(pair), 0).summary;
        const want = runSimulation(env.context.platform, env.context.workload!.jobs, makeScheduler(`${pair}+${backfilling}`)).summary;
        expect(got).toEqual(want);
      });
});

describe('PolicyPair-v0 against the CLI', () => {
  it('`clustergym simulate --policy PAIR --json` on the embedded default, with and without EASY, random pairs seeded', () => {
    for (const [pair, extra, seed] of [
      ['sjf:high_gflops', [], 0],
      ['smallest:low_power', ['--backfill', 'easy'], 0],
      ['random:random', ['--seed', '5'], 5],
    ] as const) {
      const r = spawnSync(process.execPath, [resolve(ROOT, 'dist/cli/main.js'), 'simulate', '--policy', pair, ...extra, '--json'], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const want = JSON.parse(r.stdout) as Record<string, number>;
      const env = make('clustergym/PolicyPair-v0', { actions: [pair], backfilling: extra[0] === '--backfill' ? 'easy' : 'none' });
      expect(runEpisode(env, new PolicyPairAgent(pair), seed).summary).toEqual(want);
    }
  });
});

describe('PolicyPair-v0 with a random pair reproduces simulate with the same seed', () => {
  for (const pair of ['random:first', 'fcfs:random', 'random:random'])
    it(pair, () => {
      const env = make('clustergym/PolicyPair-v0', { actions: [pair] });
      for (const seed of [3, 11]) {
        const got = runEpisode(env, new PolicyPairAgent(pair), seed).summary;
        const want = runSimulation(env.context.platform, env.context.workload!.jobs, makeScheduler(pair, { seed })).summary;
        expect(got).toEqual(want);
      }
    });
});

describe('SchedulerAgent on Job-v0 (unfit: mask) follows the batch scheduler', () => {
  for (const policy of ['fcfs:first', 'sjf:first', 'fcfs:high_gflops', 'f1:first'])
    it(policy, () => {
      const env = make('clustergym/Job-v0', { k: 300, resource_policy: policy.split(':')[1] });
      const got = runEpisode(env, new SchedulerAgent(policy), 0).summary;
      expect(got).toEqual(runSimulation(env.context.platform, env.context.workload!.jobs, makeScheduler(policy)).summary);
    });
});
