/**
 * The leaderboard (agents/leaderboard, `clustergym leaderboard`): the paired bootstrap statistics by
 * hand and as properties, the model card's seed check, and the command end to end through the built
 * CLI on small settings: the JSON's shape, the intervals recomputed from `per_episode`, and the
 * Done-when check that on exported episodes the leaderboard's best heuristic is at least as good as
 * the best of every order x resource selection x backfilling (none, EASY) that `clustergym compare` runs there.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelEntries, readModelCard, shippedModels } from '../../agents/leaderboard/models.js';
import { bootstrapSeed, episodeSeeds, EVALUATION_SEEDS, offeredLoad, type SettingResult } from '../../agents/leaderboard/run.js';
import { pairedDiff, quantile, verdictOf } from '../../agents/leaderboard/stats.js';
import { InputError } from '../../src/core/errors.js';
import type { Job } from '../../src/workload/job.js';
import { JOB_SELECTION_NAMES } from '../../src/scheduling/jobSelection.js';
import { RESOURCE_SELECTION_NAMES } from '../../src/scheduling/resourceSelection.js';
import { cli, HAVE_SHARED, ROOT, SHARED_MISSING } from '../helpers.js';
import { checkSvg, findAll } from '../report/svgCheck.js';

describe('leaderboard statistics', () => {
  it('quantiles interpolate between order statistics (numpy default)', () => {
    expect(quantile([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75, 12);
    expect(quantile([1, 2, 3, 4], 0.5)).toBeCloseTo(2.5, 12);
    expect(quantile([5], 0.975)).toBe(5);
  });

  it('a constant paired difference has a point interval: x = 1, y = 2 on every episode is -50 %, better when lower is better', () => {
    const d = pairedDiff([1, 1, 1, 1], [2, 2, 2, 2], 's');
    expect(d.mean).toBeCloseTo(-0.5, 12);
    expect(d.ci95[0]).toBeCloseTo(-0.5, 12);
    expect(d.ci95[1]).toBeCloseTo(-0.5, 12);
    expect(verdictOf(d.ci95, true)).toBe('better');
    expect(verdictOf(d.ci95, false)).toBe('worse');
  });

  it('differences of both signs: mean (x - y) / mean(y) and an interval across 0 (tie)', () => {
    // d = (-1, +1, -1, +1) / 2 -> mean 0; resamples range over [-0.5, 0.5]
    const d = pairedDiff([1, 3, 1, 3], [2, 2, 2, 2], 7);
    expect(d.mean).toBe(0);
    expect(d.ci95[0]).toBeLessThan(0);
    expect(d.ci95[1]).toBeGreaterThan(0);
    expect(verdictOf(d.ci95, true)).toBe('tie');
  });

  it('verdicts follow the direction', () => {
    expect(verdictOf([0.01, 0.2], true)).toBe('worse');
    expect(verdictOf([0.01, 0.2], false)).toBe('better');
    expect(verdictOf([-0.2, 0], true)).toBe('tie');
  });

  it('property: the interval is ordered, within the range of the differences, and reproducible from its seed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0.5, max: 100, noNaN: true }), fc.double({ min: 0.5, max: 100, noNaN: true })), { minLength: 1, maxLength: 12 }),
        fc.integer(),
        (pairs, seed) => {
          const x = pairs.map((p) => p[0]);
          const y = pairs.map((p) => p[1]);
          const a = pairedDiff(x, y, seed, 500);
          const scale = Math.abs(y.reduce((s, v) => s + v, 0) / y.length);
          const d = x.map((v, i) => (v - y[i]!) / scale);
          const eps = 1e-9;
          expect(a.ci95[0]).toBeLessThanOrEqual(a.ci95[1] + eps);
          expect(a.ci95[0]).toBeGreaterThanOrEqual(Math.min(...d) - eps);
          expect(a.ci95[1]).toBeLessThanOrEqual(Math.max(...d) + eps);
          expect(pairedDiff(x, y, seed, 500)).toEqual(a);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('episode seeds are in the evaluation range, disjoint across leaderboard seeds', () => {
    const a = episodeSeeds(0, 3);
    expect(a).toEqual([2 ** 32, 2 ** 32 + 1, 2 ** 32 + 2]);
    expect(episodeSeeds(1, 1)[0]).toBe(2 ** 32 + 65536);
    expect(episodeSeeds(65535, 65536).at(-1)!).toBeLessThan(EVALUATION_SEEDS.to);
    expect(() => episodeSeeds(65536, 1)).toThrow(InputError);
  });
});

describe('offered load', () => {
  it('is the work over the capacity during the arrivals: delay jobs on the cores, ops jobs on every core at its speed', () => {
    // 8 cores; nodes of 1,000 and 3,000 MOPS: 4e9 operations per second
    const platform = { nodeCount: 2, nodeMops: new Float64Array([1000, 3000]), coreCount: 8 } as never;
    const job = (subtime: number, work: 'delay' | 'ops', ntasks: number, runtime: number, ops: number) => ({ subtime, work, ntasks, runtime, ops }) as Job;
    // span 100 s; delay work (2 x 100 + 1 x 60) / 8 = 32.5 s of the platform; ops 4 x 1e11 / 4e9 = 100 s
    const jobs = [job(0, 'delay', 2, 100, 0), job(50, 'ops', 4, 0, 1e11), job(100, 'delay', 1, 60, 0)];
    expect(offeredLoad(platform, jobs)).toBeCloseTo(1.325, 12);
    expect(offeredLoad(platform, jobs.slice(0, 1))).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('model cards', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-lb-card-'));
  const card = (c: unknown) => {
    writeFileSync(join(dir, 'card.json'), JSON.stringify(c));
    return () => readModelCard(dir);
  };
  it('reads the setting and the training seeds of a card', () => {
    expect(card({ setting: 'rlsched', training_seeds: { from: 0, to: 2 ** 31 } })()).toEqual({ setting: 'rlsched', training_seeds: { from: 0, to: 2 ** 31 } });
  });
  it('refuses training seeds that meet the evaluation seeds, and a card without them', () => {
    expect(card({ setting: 'rlsched', training_seeds: { from: 0, to: 2 ** 32 + 1 } })).toThrow(/meets the evaluation seeds/);
    expect(card({ setting: 'rlsched' })).toThrow(/training_seeds: missing/);
  });
  it('a card superseded by a newer model is left out of the default models, and still plays when named', () => {
    const root = mkdtempSync(join(tmpdir(), 'cg-lb-models-'));
    const seeds = { from: 0, to: 2 ** 31 };
    for (const [d, c] of [
      ['new', { setting: 'rlsched', training_seeds: seeds }],
      ['old', { setting: 'rlsched', training_seeds: seeds, superseded_by: 'new' }],
      ['none', { training_seeds: seeds }],
    ] as const) {
      mkdirSync(join(root, d));
      writeFileSync(join(root, d, 'card.json'), JSON.stringify(c));
    }
    // a card without method and without config.json: its method is unknown
    expect(shippedModels(root).map((m) => m.name)).toEqual(['unknown:new']);
    expect(modelEntries([join(root, 'old')]).map((m) => m.setting)).toEqual(['rlsched']);
  });
  it('the shipped models name their settings and training seeds', () => {
    expect(readModelCard(join(ROOT, 'data/models/lublin256'))).toEqual({ setting: 'rlsched', training_seeds: { from: 0, to: 2 ** 31 } });
    expect(readModelCard(join(ROOT, 'data/models/lublin256-easy')).setting).toBe('rlsched-easy');
  });
});

/** A copy of the shipped settings with smaller episodes (CI time), in a configs directory of its own. */
function smallConfigs(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cg-lb-configs-'));
  for (const f of readdirSync(join(ROOT, 'data/configs'))) {
    const raw = JSON.parse(readFileSync(join(ROOT, 'data/configs', f), 'utf8'));
    if (raw.format !== 'clustergym-leaderboard-setting') continue;
    const c = raw.env.config;
    for (const k of ['platform', 'workload']) if (typeof c[k] === 'string') c[k] = join(ROOT, 'data/configs', c[k]);
    if (c.generator) c.generator.jobs = 40;
    if (c.trajectory) c.trajectory.length = 128;
    if (raw.name === 'malleable') c.jobs = 12;
    writeFileSync(join(dir, f), JSON.stringify(raw));
  }
  return dir;
}

function run(args: string[]): { doc: { seed: number; settings: SettingResult[] }; stderr: string } {
  const r = cli(['leaderboard', ...args, '--json']);
  expect(r.stderr).not.toMatch(/error/);
  expect(r.code).toBe(0);
  return { doc: JSON.parse(r.stdout), stderr: r.stderr };
}

describe('clustergym leaderboard', () => {
  const configs = smallConfigs();
  const out = mkdtempSync(join(tmpdir(), 'cg-lb-out-'));
  const seed = 40321;

  it('every policy on the same episodes; the best heuristic is the best complete mean; a progress line per setting', () => {
    const { doc, stderr } = run([
      '--configs',
      configs,
      '--seed',
      String(seed),
      '--episodes',
      '3',
      '--settings',
      'hetero,malleable,fair',
      '--models',
      'none',
      '--out',
      out,
    ]);
    expect(doc.seed).toBe(seed);
    expect(doc.settings.map((s) => s.name)).toEqual(['hetero', 'malleable', 'fair']);
    expect(
      stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('leaderboard: ')),
    ).toHaveLength(3);
    for (const s of doc.settings) {
      expect(s.episode_seeds.map((e) => e.seed)).toEqual(episodeSeeds(seed, 3));
      for (const p of s.policies) expect(p.per_episode).toHaveLength(3);
      const h = s.policies.filter((p) => p.kind === 'heuristic' && p.complete);
      const sign = s.lower_is_better ? 1 : -1;
      const best = h.reduce((a, b) => (sign * b.mean < sign * a.mean ? b : a));
      expect(s.best_heuristic).toBe(best.name);
    }
    expect(doc.settings[0]!.policies.filter((p) => p.kind === 'heuristic').length).toBeGreaterThanOrEqual(84);
    expect(readFileSync(join(out, 'leaderboard.md'), 'utf8')).toContain('## hetero');
    // the SVG: one point per row (fair's 12 heuristics: at most 12 are drawn), each its paired difference to the best
    const svg = checkSvg(readFileSync(join(out, 'fair.svg'), 'utf8'));
    expect(findAll(svg, 'circle')).toHaveLength(12);
  });

  it('a results file is a learned row; its interval recomputed from per_episode agrees with the report', () => {
    const first = run(['--configs', configs, '--seed', String(seed), '--episodes', '4', '--settings', 'malleable', '--models', 'none', '--out', out]).doc
      .settings[0]!;
    const never = first.policies.find((p) => p.name === 'never')!;
    const file = join(out, 'never.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'clustergym-leaderboard-results',
        setting: 'malleable',
        name: 'python-never',
        seed,
        per_episode: first.episode_seeds.map((e, i) => ({ seed: e.seed, metric: never.per_episode[i] })),
      }),
    );
    const s = run([
      '--configs',
      configs,
      '--seed',
      String(seed),
      '--episodes',
      '4',
      '--settings',
      'malleable',
      '--models',
      'none',
      '--results',
      file,
      '--out',
      out,
    ]).doc.settings[0]!;
    const best = s.policies.find((p) => p.name === s.best_heuristic)!;
    const learned = s.policies.find((p) => p.kind === 'learned')!;
    expect(learned.per_episode).toEqual(never.per_episode);
    const l = s.learned[0]!;
    const again = pairedDiff(learned.per_episode, best.per_episode, bootstrapSeed(seed, 'malleable', 'python-never'));
    expect(l.diff).toEqual(again);
    const meanBest = best.per_episode.reduce((a, b) => a + b, 0) / 4;
    expect(l.diff.mean).toBeCloseTo((learned.mean - best.mean) / meanBest, 12);
    expect(l.verdict).toBe(verdictOf(again.ci95, true));
    // results for other episodes are refused
    const bad = cli([
      'leaderboard',
      '--configs',
      configs,
      '--seed',
      '1',
      '--episodes',
      '4',
      '--settings',
      'malleable',
      '--models',
      'none',
      '--results',
      file,
      '--out',
      out,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/leaderboard seed 40321, not 1/);
    const unknown = cli(['leaderboard', '--configs', configs, '--settings', 'hetro', '--out', out]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--settings: unknown setting "hetro"/);
  });

  it.skipIf(!HAVE_SHARED)(
    `on exported episodes the best heuristic is at least as good as every policy compare runs there${HAVE_SHARED ? '' : ` (${SHARED_MISSING})`}`,
    () => {
      const exp = mkdtempSync(join(tmpdir(), 'cg-lb-export-'));
      const { doc } = run([
        '--configs',
        configs,
        '--seed',
        String(seed),
        '--episodes',
        '2',
        '--settings',
        'rlsched,hetero',
        '--models',
        'none',
        '--out',
        out,
        '--export',
        exp,
      ]);
      const every = JOB_SELECTION_NAMES.flatMap((j) => RESOURCE_SELECTION_NAMES.map((r) => `${j}:${r}`));
      const cases = [
        // RLScheduler's setting: no backfilling, committed head (the env's decision model), one-core nodes
        { name: 'rlsched', policies: JOB_SELECTION_NAMES.filter((j) => j !== 'random').map((j) => `${j}:first`), extra: ['--commit-head'] },
        // every order x resource selection, without and with EASY (the setting leaves conservative out: its cost)
        { name: 'hetero', policies: every.flatMap((p) => [p, `${p}+easy`]), extra: [] },
      ];
      for (const c of cases) {
        const s = doc.settings.find((x) => x.name === c.name)!;
        const best = s.policies.find((p) => p.name === s.best_heuristic)!;
        const sums = new Map<string, number>();
        for (const ep of ['000', '001']) {
          const d = join(exp, c.name, ep);
          const cfg = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8'));
          expect(cfg.seed).toBe(s.episode_seeds[Number(ep)]!.seed);
          const r = cli([
            'compare',
            '--platform',
            join(d, 'platform.json'),
            '--workload',
            join(d, 'workload.json'),
            '--policies',
            c.policies.join(','),
            ...c.extra,
            '--json',
          ]);
          expect(r.stderr).toBe('');
          for (const p of JSON.parse(r.stdout).policies as { name: string; mean_bsld: number }[]) sums.set(p.name, (sums.get(p.name) ?? 0) + p.mean_bsld / 2);
        }
        const simulateBest = Math.min(...sums.values());
        expect(best.mean).toBeLessThanOrEqual(simulateBest * (1 + 1e-12));
        // and the leaderboard's own figure of that policy is compare's
        expect(sums.get(best.name)).toBeCloseTo(best.mean, 9);
      }
    },
  );

  it.skipIf(!HAVE_SHARED)(`a shipped model plays its card's setting on the heuristics' episodes${HAVE_SHARED ? '' : ` (${SHARED_MISSING})`}`, () => {
    const s = run([
      '--configs',
      configs,
      '--seed',
      String(seed),
      '--episodes',
      '2',
      '--settings',
      'rlsched',
      '--models',
      join(ROOT, 'data/models/rlsched'),
      '--out',
      out,
    ]).doc.settings[0]!;
    const learned = s.policies.find((p) => p.kind === 'learned')!;
    expect(learned.name).toBe('es-linear:rlsched');
    expect(learned.model).toBe(join(ROOT, 'data/models/rlsched'));
    expect(learned).toMatchObject({ method: 'es-linear', neural: false, observes: { durations: 'requested', horizon: 'seen' } });
    expect(learned.per_episode).toHaveLength(2);
    expect(s.learned.map((l) => l.name)).toEqual(['es-linear:rlsched']);
    // every heuristic row says what it observes: FCFS reads no run time, the others the requested ones
    for (const p of s.policies.filter((p) => p.kind === 'heuristic'))
      expect(p.observes).toEqual({ durations: p.name === 'fcfs:first' ? 'none' : 'requested', horizon: 'seen' });
    // a model that saw the trajectory's horizon is not ranked against heuristics that see the jobs so far
    const unfair = cli([
      'leaderboard',
      '--configs',
      configs,
      '--episodes',
      '1',
      '--settings',
      'rlsched',
      '--models',
      join(ROOT, 'data/models/lublin256'),
      '--out',
      out,
    ]);
    expect(unfair.code).toBe(2);
    expect(unfair.stderr).toMatch(/imitation\+ppo:lublin256 observes more than the heuristics of setting rlsched are given \(horizon: trajectory > seen\)/);
    // a model for another setting is refused
    const bad = cli([
      'leaderboard',
      '--configs',
      configs,
      '--episodes',
      '1',
      '--settings',
      'hetero',
      '--models',
      `hetero=${join(ROOT, 'data/models/rlsched')}`,
      '--out',
      out,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/the model plays clustergym\/Job-v0; setting hetero is clustergym\/JobNode-v0/);
  });

  it.skipIf(!HAVE_SHARED)(
    `--lookahead adds four reference rows on Job-v0, JobNode-v0 and PolicyPair-v0 (the oracle lookahead, never worse than its base in the env, the parity and sampled lookaheads, and that base), never compared as competitors${HAVE_SHARED ? '' : ` (${SHARED_MISSING})`}`,
    () => {
      const doc = run([
        '--configs',
        configs,
        '--seed',
        String(seed),
        '--episodes',
        '1',
        '--settings',
        'rlsched,hetero,policy-pair,fair',
        '--models',
        'none',
        '--lookahead',
        '--out',
        out,
      ]).doc;
      for (const s of doc.settings) {
        const ref = s.policies.filter((p) => p.kind === 'reference');
        if (s.name === 'fair') {
          expect(ref).toEqual([]);
          continue;
        }
        expect(ref.map((p) => p.name.replace(/: .* \(in env\)$/, ''))).toEqual([
          'lookahead(m=2,c=8,d=8) (oracle: future arrivals, actual run times)',
          'lookahead(m=2,c=8,d=8) (parity: known jobs, requested times)',
          'lookahead(m=2,c=8,d=8,s=8,n=128,z=2) (sampled: known jobs, arrivals and run times drawn from the seen ones)',
          'lookahead base',
        ]);
        expect(ref.map((p) => p.observes)).toEqual([
          { durations: 'actual', horizon: 'future' },
          { durations: 'requested', horizon: 'seen' },
          { durations: 'requested', horizon: 'seen' },
          { durations: 'requested', horizon: 'seen' },
        ]);
        expect(ref[0]!.per_episode).toHaveLength(1);
        expect(ref[0]!.per_episode[0]!).toBeLessThanOrEqual(ref[3]!.per_episode[0]!);
        expect(Number.isFinite(ref[1]!.mean)).toBe(true);
        expect(Number.isFinite(ref[2]!.mean)).toBe(true);
        expect(Number.isFinite(ref[0]!.mean)).toBe(true);
        expect(s.learned).toEqual([]);
        expect(s.best_heuristic).not.toMatch(/lookahead/);
      }
    },
  );

  const python = (mods: string) => spawnSync('/usr/bin/python3', ['-c', `import ${mods}`]).status === 0;
  const HAVE_PY = python('zmq, msgpack, numpy');
  const HAVE_TORCH = HAVE_PY && python('torch');
  const py = (script: string, args: string[]) => {
    const r = spawnSync('/usr/bin/python3', [join(ROOT, 'python-client/examples', script), ...args], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: join(ROOT, 'python-client') },
      timeout: 240_000,
    });
    expect(r.stderr).not.toMatch(/Traceback/);
    expect(r.status).toBe(0);
    return r.stdout;
  };

  it.skipIf(!HAVE_PY)(
    `a Python policy over the bridge on the exported episodes is a learned row${HAVE_PY ? '' : ' (skipped: /usr/bin/python3 lacks zmq, msgpack or numpy)'}`,
    () => {
      const exp = mkdtempSync(join(tmpdir(), 'cg-lb-py-'));
      const base = ['--configs', configs, '--seed', '9', '--episodes', '2', '--settings', 'demo', '--models', 'none', '--out', out];
      run([...base, '--export', exp]);
      const fcfs = join(exp, 'fcfs.json');
      py('leaderboard_play.py', ['--episodes', join(exp, 'demo'), '--policy', 'fcfs', '--name', 'fcfs-python', '--out', fcfs]);
      const files = [fcfs];
      if (HAVE_TORCH) {
        // the CleanRL-style PyTorch PPO, trained briefly on the demo's env, then played greedily on the same episodes
        const agent = join(exp, 'agent.pt');
        const platform = join(ROOT, 'data/platforms/hetero-20.json');
        py('ppo_torch.py', [
          '--total-steps',
          '128',
          '--num-envs',
          '2',
          '--num-steps',
          '64',
          '--jobs',
          '40',
          '--eval-episodes',
          '1',
          '--quiet',
          '--save',
          agent,
          '--platform',
          platform,
        ]);
        const ppo = join(exp, 'ppo.json');
        py('leaderboard_play.py', ['--episodes', join(exp, 'demo'), '--policy', `ppo_torch:${agent}`, '--out', ppo]);
        files.push(ppo);
      }
      const s = run([...base, '--results', files.join(',')]).doc.settings[0]!;
      // FCFS through the env (committed head, EASY) makes the batch fcfs+easy schedule: the same episodes, the same figures
      const row = s.policies.find((p) => p.name === 'fcfs-python')!;
      expect(row.kind).toBe('learned');
      const batch = s.policies.find((p) => p.name === 'fcfs:first+easy')!;
      row.per_episode.forEach((v, i) => {
        expect(v).toBeCloseTo(batch.per_episode[i]!, 9);
      });
      expect(s.learned.map((l) => l.name)).toEqual(HAVE_TORCH ? ['fcfs-python', 'ppo_torch'] : ['fcfs-python']);
    },
  );
});
