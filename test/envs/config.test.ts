import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { relativeConfigPaths, resolveConfigPaths } from '../../envs/config.js';
import { InputError } from '../../src/core/errors.js';
import { ENV_IDS, make, parseEnvConfig } from '../../envs/index.js';

describe('make and config validation', () => {
  it('an unknown env id lists the valid ones', () => {
    let err: unknown;
    try {
      make('clustergym/Nope-v0', {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const msg = (err as Error).message;
    for (const id of ENV_IDS) expect(msg).toContain(id);
    expect(() => make('Job-v0')).toThrow(/did you mean clustergym\/Job-v0/);
  });

  it('a bad config names every bad field with its path, in one error', () => {
    let msg = '';
    try {
      make('clustergym/JobNode-v0', {
        k: 0,
        observation: 'pixels',
        reward: { bsld: 1, happiness: 2 },
        trajectory: { length: -3, origin: 'middle' },
        unfit: 'reserve',
        max_steps: 1.5,
        typo_field: true,
      });
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      msg = (e as Error).message;
    }
    for (const path of ['$.k', '$.observation', '$.reward', '$.trajectory.length', '$.trajectory.origin', '$.max_steps', 'typo_field', '$.unfit'])
      expect(msg).toContain(path);
  });

  it('cross-field rules depend on the env id', () => {
    expect(() => parseEnvConfig('clustergym/Job-v0', { observation: 'minimal' })).toThrow(/\$\.observation: the `minimal` observation/);
    expect(() => parseEnvConfig('clustergym/JobNode-v0', { backfilling: 'easy' })).toThrow(/\$\.backfilling/);
    expect(() => parseEnvConfig('clustergym/Job-v0', { backfilling: 'easy' })).toThrow(/unfit: "reserve"/);
    expect(() => parseEnvConfig('clustergym/Job-v0', { backfilling: 'easy', unfit: 'reserve' })).not.toThrow();
    expect(() => parseEnvConfig('clustergym/PolicyPair-v0', { actions: ['sjf:first', 'nope:first', 'fcfs:bogus'] })).toThrow(
      /\$\.actions\[1\][\s\S]*\$\.actions\[2\]/,
    );
    expect(() => parseEnvConfig('clustergym/Job-v0', { queue_order: 'biggest' })).toThrow(
      /\$\.queue_order: unknown job-selection policy "biggest"; expected one of fcfs/,
    );
    expect(() => parseEnvConfig('clustergym/Job-v0', { workload: 'a.swf', generator: { model: 'lublin', jobs: 10 } })).toThrow(/\$\.generator: give either/);
  });

  it('defaults: {} is the embedded default', () => {
    const c = parseEnvConfig('clustergym/Job-v0', {});
    expect(c).toMatchObject({
      k: 32,
      observation: 'dict',
      reward: 'bsld',
      backfilling: 'none',
      unfit: 'mask',
      queue_order: 'fcfs',
      resource_policy: 'first',
      max_wait: 43200,
    });
    const env = make('clustergym/Job-v0', {});
    expect(env.actionSpace).toEqual({ type: 'Discrete', n: 33 });
    expect(env.observationSpace).toEqual({
      type: 'Dict',
      spaces: {
        jobs: { type: 'Box', low: 0, high: 1, shape: [32, 8], dtype: 'float32' },
        nodes: { type: 'Box', low: 0, high: 1, shape: [20, 7], dtype: 'float32' },
        global: { type: 'Box', low: 0, high: 1, shape: [5], dtype: 'float32' },
      },
    });
    expect(make('clustergym/JobNode-v0', { k: 4 }).actionSpace.n).toBe(4 * 20 + 1);
    expect(make('clustergym/PolicyPair-v0', {}).actionSpace.n).toBe(36);
    expect(make('clustergym/PolicyPair-v0', { observation: 'minimal' }).observationSpace).toEqual({
      type: 'Box',
      low: 0,
      high: 1,
      shape: [21],
      dtype: 'float32',
    });
    expect(make('clustergym/Job-v0', { observation: 'flat', k: 2 }).observationSpace).toEqual({
      type: 'Box',
      low: 0,
      high: 1,
      shape: [2 * 8 + 20 * 7 + 5],
      dtype: 'float32',
    });
    // `jobs`: the job rows and the global features, no node rows, whatever the platform
    expect(make('clustergym/Job-v0', { observation: 'jobs', k: 2 }).observationSpace).toEqual({
      type: 'Box',
      low: 0,
      high: 1,
      shape: [2 * 8 + 5],
      dtype: 'float32',
    });
    expect(() => make('clustergym/JobNode-v0', { observation: 'jobs' })).toThrow(/\$\.observation: the `jobs` observation .* is for Job-v0/);
  });

  it('a trajectory longer than the workload is named; a workload without a platform runs on the default one', () => {
    expect(() => make('clustergym/Job-v0', { trajectory: { length: 301 } })).toThrow(/\$\.trajectory\.length: 301 exceeds the 300 jobs/);
    expect(() => make('clustergym/Job-v0', { trajectory: { length: 100, origin: 250 } })).toThrow(/\$\.trajectory\.origin/);
    const platformOf = (config: Record<string, unknown>) => {
      const env = make('clustergym/Job-v0', config);
      env.reset({ seed: 0 });
      return env.sim.platform.name;
    };
    expect(platformOf({ workload: { jobs: [{ id: 'a', subtime: 0, res: 1, runtime: 5 }] } })).toBe('hetero-20');
    expect(platformOf({ generator: { model: 'poisson', jobs: 10 } })).toBe('hetero-20');
    expect(platformOf({ workload: { nb_res: 8, jobs: [{ id: 1, subtime: 0, res: 2, profile: 'd' }], profiles: { d: { type: 'delay', delay: 5 } } } })).toBe(
      'homogeneous-8',
    );
  });

  it('reset validates its seed and options', () => {
    const env = make('clustergym/Job-v0', { trajectory: { length: 10 } });
    expect(() => env.reset({ seed: 1.5 })).toThrow(InputError);
    expect(() => env.reset({ seed: 1, options: { bogus: 1 } as never })).toThrow(/bogus/);
    expect(() => env.reset({ seed: 1, options: { origin: 295 } })).toThrow(/origin 295/);
    env.reset({ seed: 1, options: { origin: 3 } });
    expect(env.visibleJobs()[0]!.id).toBe('j3'); // mixed-300's 4th job
    let r = env.step(env.actionMask().indexOf(1));
    while (!r.terminated && !r.truncated) r = env.step(env.actionMask().indexOf(1));
    expect(r.info.episode!.origin).toBe(3);
  });
});

describe('file paths of env configs', () => {
  it('relative paths are taken from the file, absolute ones and other keys are kept', () => {
    const c = { platform: '../platforms/p.json', workload: '/data/w.swf', k: 8 };
    expect(resolveConfigPaths(c, '/repo/data/configs')).toEqual({ platform: '/repo/data/platforms/p.json', workload: '/data/w.swf', k: 8 });
    expect(relativeConfigPaths({ platform: '/repo/data/platforms/p.json', k: 8 }, '/repo/data/models/m')).toEqual({ platform: '../../platforms/p.json', k: 8 });
    expect(c.platform).toBe('../platforms/p.json'); // the input is not changed
  });

  it('written relative to a directory, read back from it: the same absolute paths', () => {
    const seg = fc.stringMatching(/^[a-z0-9_-]{1,6}$/);
    const abs = fc.array(seg, { minLength: 1, maxLength: 5 }).map((p) => `/${p.join('/')}`);
    fc.assert(
      fc.property(abs, abs, (file, dir) => {
        const back = resolveConfigPaths(relativeConfigPaths({ workload: file }, dir), dir);
        expect(back.workload).toBe(file);
      }),
      { examples: [['/_', '/_']] }, // a path that is the directory itself (relative() gives '')
    );
  });
});
