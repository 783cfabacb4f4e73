/**
 * `leaderboard --shard I/N` and `--merge`: the pieces merged equal the one-machine run byte for byte
 * in every per-episode value (and in everything else but wall times), with learned models and a
 * Python results file; shards with no episodes; incomplete (NaN, null in JSON) episodes; refusals.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type PolicyRow, settingResult } from '../../../agents/leaderboard/run.js';
import { mergeShards, parseShard, readShard, SHARD_FORMAT, shardRange } from '../../../agents/leaderboard/shard.js';
import { cli, HAVE_SHARED, SHARED_MISSING } from '../../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cg-shard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The JSON text without its wall times (`"seconds":...`), the one thing a merge does not reproduce. */
const withoutTimes = (text: string) => text.replace(/"seconds": ?[-0-9.e+]+/g, '"seconds":0');

describe('shard ranges', () => {
  it('I/N parses, and anything else is refused naming --shard', () => {
    expect(parseShard('2/5')).toEqual({ index: 2, count: 5 });
    expect(parseShard(' 0 / 1 ')).toEqual({ index: 0, count: 1 });
    for (const bad of ['5/5', '1', '-1/3', '1/0', 'a/b', '1/3/4']) expect(() => parseShard(bad)).toThrow(/--shard: expected I\/N/);
  });

  it('the shards of n episodes tile [0, n) in order, their sizes differing by one at most (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65536 }), fc.integer({ min: 1, max: 300 }), (n, count) => {
        let next = 0;
        const sizes: number[] = [];
        for (let index = 0; index < count; index++) {
          const r = shardRange(n, { index, count });
          if (r.from !== next || r.to < r.from) return false;
          sizes.push(r.to - r.from);
          next = r.to;
        }
        return next === n && Math.max(...sizes) - Math.min(...sizes) <= 1;
      }),
    );
  });
});

describe('leaderboard --shard / --merge', () => {
  // rlsched: the shipped linear and neural models; policy-pair and malleable: linear models (shipped)
  const base = ['leaderboard', '--settings', 'rlsched,policy-pair,malleable', '--episodes', '5', '--seed', '7'];

  // (rlsched replays lublin_256.swf from ../shared)
  it.skipIf(!HAVE_SHARED)(
    `3 shards merged give the one-machine JSON: per-episode values byte for byte, means, best heuristics, intervals${HAVE_SHARED ? '' : ` (${SHARED_MISSING})`}`,
    () => {
      const one = cli([...base, '--json', '--out', join(dir, 'one')]);
      expect(one.code, one.stderr).toBe(0);
      const files: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = cli([...base, '--shard', `${i}/3`, '--out', join(dir, 'pieces')]);
        expect(r.code, r.stderr).toBe(0);
        files.push(join(dir, 'pieces', `shard-${i}-of-3.json`));
      }
      // in any order on the command line
      const merged = cli(['leaderboard', '--merge', files[2]!, files[0]!, files[1]!, '--json', '--out', join(dir, 'merged')]);
      expect(merged.code, merged.stderr).toBe(0);
      expect(withoutTimes(merged.stdout)).toBe(withoutTimes(one.stdout));
      const a = JSON.parse(one.stdout) as { settings: { name: string; policies: { kind: string; per_episode: (number | null)[] }[] }[] };
      const b = JSON.parse(merged.stdout) as typeof a;
      for (let s = 0; s < a.settings.length; s++)
        for (let p = 0; p < a.settings[s]!.policies.length; p++)
          expect(JSON.stringify(b.settings[s]!.policies[p]!.per_episode)).toBe(JSON.stringify(a.settings[s]!.policies[p]!.per_episode));
      // learned rows took part (rlsched: the linear model and the neural one; the others a linear one)
      expect(a.settings.map((s) => s.policies.filter((p) => p.kind === 'learned').length)).toEqual([2, 1, 1]);
      // the files it writes are the one-machine run's too
      for (const f of ['leaderboard.json', 'leaderboard.md'])
        expect(withoutTimes(readFileSync(join(dir, 'merged', f), 'utf8'))).toBe(withoutTimes(readFileSync(join(dir, 'one', f), 'utf8')));
    },
  );

  it('more shards than episodes, and a Python results file, merge the same', () => {
    const args = ['leaderboard', '--settings', 'malleable,fair', '--episodes', '3', '--seed', '3', '--models', 'none'];
    const first = cli([...args, '--json', '--out', join(dir, 'r0')]);
    expect(first.code, first.stderr).toBe(0);
    const m = (JSON.parse(first.stdout) as { settings: { episode_seeds: { seed: number }[]; policies: { name: string; per_episode: number[] }[] }[] })
      .settings[0]!;
    const never = m.policies.find((p) => p.name === 'never')!;
    const results = join(dir, 'never.json');
    writeFileSync(
      results,
      JSON.stringify({
        format: 'clustergym-leaderboard-results',
        setting: 'malleable',
        name: 'python-never',
        seed: 3,
        per_episode: m.episode_seeds.map((e, i) => ({ seed: e.seed, metric: never.per_episode[i]! * 1.01 })),
      }),
    );
    const whole = cli([...args, '--results', results, '--json', '--out', join(dir, 'r1')]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toContain('"name":"python-never","kind":"learned"');
    const files: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = cli([...args, '--results', results, '--shard', `${i}/5`, '--out', join(dir, 'r-pieces')]);
      expect(r.code, r.stderr).toBe(0);
      files.push(join(dir, 'r-pieces', `shard-${i}-of-5.json`));
    }
    const merged = cli(['leaderboard', '--merge', ...files, '--json', '--out', join(dir, 'r2')]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(withoutTimes(merged.stdout)).toBe(withoutTimes(whole.stdout));
  });

  it('an incomplete episode (NaN, null in JSON) merges to the row the whole run has: NaN mean, incomplete, never the best', () => {
    const setting = { name: 's', description: 'd', why: 'w', env: { id: 'clustergym/Job-v0' }, metric: 'mean_bsld', lower_is_better: true };
    const eps = [0, 1, 2, 3].map((i) => ({ seed: 2 ** 32 + i, origin: i }));
    const whole: PolicyRow[] = [
      { name: 'a', kind: 'heuristic', mean: 0, per_episode: [1.5, 2.25, 0.1, 3], complete: true, seconds: 0 },
      { name: 'b', kind: 'heuristic', mean: 0, per_episode: [1, Number.NaN, 0.2, 1], complete: false, seconds: 0 },
      { name: 'm', kind: 'learned', model: '/x', mean: 0, per_episode: [1.2, 2, 0.3, 2.9], complete: true, seconds: 0 },
    ];
    const files = [0, 1].map((index) => {
      const { from, to } = shardRange(4, { index, count: 2 });
      const piece = {
        format: SHARD_FORMAT,
        shard: { index, count: 2 },
        seed: 0,
        episodes: 4,
        seed_ranges: {},
        settings: [
          {
            name: 's',
            description: 'd',
            why: 'w',
            env_id: 'clustergym/Job-v0',
            metric: 'mean_bsld',
            lower_is_better: true,
            episodes: 4,
            from,
            to,
            episode_seeds: eps.slice(from, to),
            policies: whole.map(({ mean: _, ...r }) => ({
              ...r,
              per_episode: r.per_episode.slice(from, to),
              complete: r.per_episode.slice(from, to).every((v) => !Number.isNaN(v)),
            })),
            seconds: 1,
          },
        ],
      };
      const file = join(dir, `nan-${index}.json`);
      writeFileSync(file, JSON.stringify(piece)); // NaN becomes null
      return file;
    });
    expect(readFileSync(files[0]!, 'utf8')).toContain('null');
    const merged = mergeShards(files.map((file) => ({ file, doc: readShard(file) })));
    const rows = whole.map((r) => ({ ...r, mean: r.per_episode.reduce((a, b) => a + b, 0) / 4 }));
    const expected = settingResult(setting, 0, eps, rows, 0);
    const got = merged.settings[0]!;
    expect(JSON.stringify({ ...got, seconds: 0 })).toBe(JSON.stringify(expected));
    expect(Number.isNaN(got.policies[1]!.mean)).toBe(true);
    expect(got.policies[1]!.complete).toBe(false);
    expect(got.best_heuristic).toBe('a');
  });

  it('refuses pieces that are not the shards of one run, and flags that do not shard (exit 2, naming the file)', () => {
    const piece = (i: number, n: number, extra: string[] = []) => {
      const out = join(dir, `bad-${i}-${n}-${extra.join('')}`);
      const r = cli(['leaderboard', '--settings', 'malleable', '--episodes', '4', '--models', 'none', '--shard', `${i}/${n}`, '--out', out, ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return join(out, `shard-${i}-of-${n}.json`);
    };
    const a = piece(0, 2);
    const b = piece(1, 2);
    const otherSeed = piece(1, 2, ['--seed', '9']);
    const merge = (...files: string[]) => cli(['leaderboard', '--merge', ...files, '--out', join(dir, 'bad-out')]);
    let r = merge(a);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shard 1\/2 missing/);
    r = merge(a, a, b);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shard 0\/2 is given twice/);
    r = merge(a, otherSeed);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${otherSeed}: $.seed: 9, where`);
    r = merge(join(dir, 'never-there.json'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read the shard: ENOENT/);
    r = cli(['leaderboard', '--settings', 'malleable', '--shard', '0/2', '--lookahead', '--out', join(dir, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shard: does not shard with --lookahead/);
    r = cli(['leaderboard', '--settings', 'malleable', a]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/files are given to --merge only/);
  });
});
