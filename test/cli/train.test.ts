/**
 * `clustergym train`, `evaluate` and `demo` through the built CLI: a tiny run end to end, and bad
 * input (exit 2, a message naming the field or the directory, no stack trace).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'cg-ppo-cli-'));

const TINY = {
  env: { id: 'clustergym/Job-v0', config: { k: 8, trajectory: { length: 20, origin: 'random' }, unfit: 'reserve', backfilling: 'easy' } },
  total_steps: 256,
  num_envs: 2,
  num_steps: 64,
  checkpoint_every: 1,
  eval_episodes: 2,
};

function configFile(dir: string, config: unknown, name = 'ppo.json'): string {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify(config));
  return f;
}

function expectInputError(r: { code: number | null; stderr: string }, ...patterns: RegExp[]): void {
  expect(r.code).toBe(2);
  for (const p of patterns) expect(r.stderr).toMatch(p);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('clustergym train / evaluate', () => {
  it('trains a tiny run, then evaluates it against the heuristics with a report', () => {
    const d = tmp();
    const out = join(d, 'run');
    const t = cli(['train', '--config', configFile(d, TINY), '--out', out]);
    expect(t.stderr).toBe('');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/backend (wasm|tensorflow|cpu)/);
    expect(t.stdout).toMatch(/trained 256 steps/);
    for (const f of [
      'config.json',
      'metrics.csv',
      'model/model.json',
      'model/weights.bin',
      'model/policy.json',
      'model/config.json',
      'checkpoints/step-000000128/trainer.json',
    ])
      expect(existsSync(join(out, f)), f).toBe(true);
    // a second run into the same directory is refused; --resume continues it
    expectInputError(cli(['train', '--config', join(d, 'ppo.json'), '--out', out]), /already holds a training run/);
    const resumed = cli(['train', '--resume', out, '--steps', '384']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/trained 384 steps/);

    // without --out: ./clustergym-evaluation in the current directory, never beside the model
    const e = cli(['evaluate', '--model', join(out, 'model'), '--episodes', '2', '--policies', 'fcfs,sjf+easy'], d);
    expect(e.stderr).toBe('');
    expect(e.code).toBe(0);
    expect(e.stdout).toMatch(/^ppo\s/m);
    expect(e.stdout).toMatch(/^fcfs\s/m);
    expect(e.stdout).toMatch(/^sjf\+easy\s/m);
    expect(existsSync(join(out, 'evaluation'))).toBe(false);
    const ev = JSON.parse(readFileSync(join(d, 'clustergym-evaluation', 'evaluation.json'), 'utf8'));
    expect(ev.policies.map((p: { name: string }) => p.name)).toEqual(['ppo', 'fcfs', 'sjf+easy']);
    expect(ev.seeds).toEqual([2 ** 32, 2 ** 32 + 1]);
    for (const p of ev.policies) expect(p.per_trajectory.map((x: { seed: number }) => x.seed)).toEqual(ev.seeds);
    // the Gantt charts: the model's and the best heuristic's on the first episode
    const best = ev.policies
      .slice(1)
      .reduce((b: { name: string; mean_bsld: number }, p: { name: string; mean_bsld: number }) => (p.mean_bsld < b.mean_bsld ? p : b));
    for (const f of [
      'index.html',
      'comparison.svg',
      'learning_curve.svg',
      'gantt_ppo.svg',
      `gantt_${best.name.replace(/[^A-Za-z0-9_-]+/g, '_')}.svg`,
      'utilisation.svg',
    ])
      expect(existsSync(join(d, 'clustergym-evaluation', 'report', f)), f).toBe(true);

    // --json: the table as JSON on stdout, nothing else
    const j = cli(['evaluate', '--model', join(out, 'model'), '--episodes', '1', '--policies', 'fcfs', '--out', join(d, 'eval-json'), '--json']);
    expect(j.stderr).toBe('');
    expect(j.code).toBe(0);
    const table = JSON.parse(j.stdout);
    expect(table.policies.map((p: { name: string }) => p.name)).toEqual(['ppo', 'fcfs']);
    for (const p of table.policies) expect(Object.keys(p)).toEqual(['name', 'mean_bsld', 'mean_wait', 'utilisation', 'makespan', 'energy']);
    expect(table.backend).toMatch(/^(wasm|tensorflow|cpu)$/);
    expect(existsSync(join(d, 'eval-json', 'evaluation.json'))).toBe(true);
  });

  it('a bad training config names every bad field (exit 2)', () => {
    const d = tmp();
    const bad = { ...TINY, learning_rate: -1, num_envs: 0, colour: 'red', env: { id: 'clustergym/Job-v0', config: { k: 0 } } };
    const r = cli(['train', '--config', configFile(d, bad), '--out', join(d, 'out')]);
    expectInputError(
      r,
      /ppo\.json/,
      /\$\.learning_rate: Number must be greater than 0/,
      /\$\.num_envs/,
      /colour/,
      /\$\.env\.config\.k: Number must be greater than or equal to 1/,
    );
    const r2 = cli(['train', '--config', configFile(d, { ...TINY, env: { id: 'clustergym/Job-v0', config: { k: 0 } } })]);
    expectInputError(r2, /\$\.env\.config\.k: Number must be greater than or equal to 1/);
    const r3 = cli(['train', '--config', configFile(d, { ...TINY, env: { id: 'clustergym/Job-v0', config: { observation: 'flat' } } })]);
    expectInputError(r3, /\$\.env\.config\.observation: PPO reads the `dict` observation/);
    expectInputError(cli(['train', '--config', configFile(d, { ...TINY, env: { id: 'clustergym/PolicyPair-v0' } })]), /\$\.env\.id/);
    expectInputError(cli(['train', '--config', join(d, 'nope.json')]), /nope\.json: cannot read the training config: no such file/);
    expectInputError(cli(['train']), /--config: Required/);
    expect(existsSync(join(d, 'out'))).toBe(false);
  });

  it('a missing model directory, or one for another env shape, is a clear error (exit 2)', async () => {
    const d = tmp();
    expectInputError(cli(['evaluate', '--model', join(d, 'missing')]), /missing: no such model directory/);
    mkdirSync(join(d, 'empty'));
    expectInputError(cli(['evaluate', '--model', join(d, 'empty')]), /policy\.json is missing: not a clustergym PPO model directory/);
    // a JobNode-v0 model evaluated on a Job-v0 env
    const { buildModel, parsePpoConfig, PolicyNetwork, rowLayout, saveModelDir, selectBackend } = await import('../../agents/learning/index.js');
    await selectBackend('auto');
    const nodeConfig = parsePpoConfig({ ...TINY, env: { id: 'clustergym/JobNode-v0', config: { k: 8, trajectory: { length: 20, origin: 'random' } } } });
    const layout = rowLayout('clustergym/JobNode-v0', 8, 20);
    const net = new PolicyNetwork(buildModel(layout.rowSize, nodeConfig.network, 1), layout);
    const limits = { req_time: 100, ntasks: 10, mem: 100, mem_vol: 100 };
    await saveModelDir(join(d, 'jobnode'), net, { config: nodeConfig, limits, steps: 0, backend: 'test' });
    expectInputError(
      cli(['evaluate', '--model', join(d, 'jobnode'), '--config', configFile(d, TINY)]),
      /trained on clustergym\/JobNode-v0 \(rows of 23 features/,
      /this env is clustergym\/Job-v0 \(rows of 16 features\)/,
    );
    // a model.json whose network does not match its policy.json
    const jobLayout = rowLayout('clustergym/Job-v0', 8, 20);
    const jobConfig = parsePpoConfig(TINY);
    await saveModelDir(join(d, 'tampered'), net, { config: nodeConfig, limits, steps: 0, backend: 'test' });
    const wrong = new PolicyNetwork(buildModel(jobLayout.rowSize, jobConfig.network, 1), jobLayout);
    await saveModelDir(join(d, 'job'), wrong, { config: jobConfig, limits, steps: 0, backend: 'test' });
    writeFileSync(join(d, 'tampered', 'model.json'), readFileSync(join(d, 'job', 'model.json')));
    writeFileSync(join(d, 'tampered', 'weights.bin'), readFileSync(join(d, 'job', 'weights.bin')));
    expectInputError(cli(['evaluate', '--model', join(d, 'tampered')]), /takes inputs of \[16,30\] features/, /needs rows of 23/);
    net.dispose();
    wrong.dispose();
  });
});

describe('clustergym evaluate on named trajectories', () => {
  it('--origins/--length/--backfill play the model and the in-env heuristics on exactly those trajectories; --card records them', () => {
    const d = tmp();
    const jobs = Array.from({ length: 80 }, (_, i) => ({
      id: i + 1,
      subtime: i * 20,
      runtime: 40 + ((i * 53) % 300),
      req_time: 400,
      ntasks: 1 + ((i * 3) % 4),
    }));
    writeFileSync(join(d, 'w.json'), JSON.stringify({ jobs }));
    const config = {
      env: {
        id: 'clustergym/Job-v0',
        config: { platform: 'data/platforms/hetero-20.json', workload: 'w.json', trajectory: { length: 16, origin: 'random' }, k: 8, unfit: 'reserve' },
      },
      total_steps: 128,
      num_envs: 2,
      num_steps: 64,
      checkpoint_every: 0,
      baseline: { policy: 'f1', origin_stride: 8, warm_start_steps: 128 },
    };
    // the platform path is relative to the config file: give it absolute
    config.env.config.platform = join(process.cwd(), 'data/platforms/hetero-20.json');
    const out = join(d, 'run');
    const t = cli(['train', '--config', configFile(d, config), '--out', out]);
    expect(t.stderr).toBe('');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/training on 9 origins \(f1 mean bsld >= 0, every 8-th origin\)/);
    expect(t.stdout).toMatch(/warm start: 128 states of f1, cross-entropy/);
    const model = join(out, 'model');
    const e = cli(['evaluate', '--model', model, '--origins', '3,50,64', '--length', '16', '--backfill', 'easy', '--out', join(d, 'ev'), '--card']);
    expect(e.stderr).toBe('');
    expect(e.code).toBe(0);
    expect(e.stdout).toMatch(/3 trajectories of 16 jobs, backfilling easy/);
    const ev = JSON.parse(readFileSync(join(d, 'ev', 'evaluation.json'), 'utf8'));
    // the model by its method: PPO after a behaviour-cloning warm start
    expect(ev.policies.map((p: { name: string }) => p.name)).toEqual(['imitation+ppo', 'fcfs', 'sjf', 'f1', 'wfp3', 'unicep']);
    expect(ev.origins).toEqual([3, 50, 64]);
    expect(ev.backfilling).toBe('easy');
    for (const p of ev.policies) {
      expect(p.per_trajectory.map((x: { origin: number }) => x.origin)).toEqual([3, 50, 64]);
      expect(p.per_trajectory.every((x: { jobs: number; jobs_finished: number }) => x.jobs === 16 && x.jobs_finished === 16)).toBe(true);
    }
    const card = JSON.parse(readFileSync(join(model, 'card.json'), 'utf8'));
    expect(card.held_out).toMatchObject({ workload: 'w.json', origins: [3, 50, 64], length: 16, backfilling: 'easy' });
    expect(card.held_out.policies.map((p: { name: string }) => p.name)).toEqual(ev.policies.map((p: { name: string }) => p.name));
    expect(card.split).toMatchObject({ training_origins: 9, origin_stride: 8 });

    expectInputError(
      cli(['evaluate', '--model', model, '--origins', '3,65', '--length', '16']),
      /--origins: origin 65 \+ length 16 exceeds the 80 jobs of the workload \(largest origin: 64\)/,
    );
    expectInputError(cli(['evaluate', '--model', model, '--origins', '3', '--episodes', '2']), /give one of --origins, --trajectories, --episodes/);
    expectInputError(cli(['evaluate', '--model', model, '--origins', '3,x']), /--origins: expected comma-separated integers >= 0, found "x"/);
    expectInputError(cli(['evaluate', '--model', model, '--backfill', 'conservative']), /--backfill: expected one of none, easy/);
  });
});

// the demo's leaderboard row plays the hetero setting's 220 batch heuristics on each episode
describe('clustergym demo', () => {
  it('trains briefly in the hetero setting, evaluates against batch heuristics on the same jobs and writes the report and DIR/demo.json; --json prints it', () => {
    const d = tmp();
    const r = cli(['demo', '--out', join(d, 'demo'), '--steps', '2048', '--episodes', '2', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(JSON.parse(readFileSync(join(d, 'demo', 'demo.json'), 'utf8'))).toEqual(out);
    // the linear policy it trains and the shipped neural one, each named by its method
    const neural = `${JSON.parse(readFileSync('data/models/hetero-neural/card.json', 'utf8')).method}:hetero-neural`;
    expect(out.policies.map((p: { name: string }) => p.name)).toEqual(['es-linear:demo', neural, 'fcfs', 'fcfs+easy', 'sjf', 'sjf+easy', 'f1', 'f1+easy']);
    expect(out.learned.map((l: { name: string; neural: boolean }) => [l.name, l.neural])).toEqual([
      ['es-linear:demo', false],
      [neural, true],
    ]);
    for (const p of out.policies) expect(Object.keys(p)).toEqual(['name', 'mean_bsld', 'mean_wait', 'utilisation', 'makespan', 'energy']);
    expect(out.train_seconds).toBeGreaterThan(0);
    expect(out.backend).toMatch(/^(wasm|tensorflow|cpu)$/);
    expect(existsSync(join(d, 'demo', 'report', 'index.html'))).toBe(true);
    // the leaderboard row: the best of the setting's heuristics at full strength, and ppo's paired interval
    const lb = out.leaderboard as {
      best_heuristic: string;
      diff: { mean: number; ci95: [number, number] };
      verdict: string;
      heuristics: { name: string; mean: number }[];
    };
    // the hetero setting's 10 orders x 11 resource selections x (none, EASY)
    expect(lb.heuristics).toHaveLength(220);
    expect(lb.heuristics.map((h) => h.name)).toContain('unicep:high_gflops+easy');
    expect(lb.best_heuristic).toBe(lb.heuristics.reduce((a, b) => (b.mean < a.mean ? b : a)).name);
    expect(lb.diff.ci95[0]).toBeLessThanOrEqual(lb.diff.ci95[1]);
    expect(lb.verdict).toMatch(/^(better|worse|tie)$/);
    const page = readFileSync(join(d, 'demo', 'report', 'index.html'), 'utf8');
    expect(page).toMatch(/Leaderboard rows of the demo(&#39;|')s setting/);
    expect(page).toContain(`verdict: ${lb.verdict}`);
  }, 180_000);

  it("closes with each learned policy's verdict against the best heuristic, with the interval", () => {
    const d = tmp();
    const r = cli(['demo', '--out', join(d, 'demo'), '--steps', '1024', '--episodes', '2']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const demo = JSON.parse(readFileSync(join(d, 'demo', 'demo.json'), 'utf8'));
    const pc = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
    const best = demo.leaderboard.best_heuristic.replace(/[+]/g, '\\+');
    demo.learned.forEach((l: { name: string; neural: boolean; diff: { ci95: [number, number] }; verdict: string }, i: number) => {
      const line = lines.at(i - demo.learned.length)!;
      expect(line).toMatch(
        new RegExp(
          `^${l.name.replace(/[+]/g, '\\+')} \\(${l.neural ? 'neural' : 'linear'}\\) mean bsld [0-9.]+ vs the best heuristic ${best} [0-9.]+ \\(best of 220, same 2 episodes\\): `,
        ),
      );
      expect(line).toContain(`95% CI [${pc(l.diff.ci95[0])}, ${pc(l.diff.ci95[1])}]; verdict: ${l.verdict}`);
    });
  }, 180_000);
});
