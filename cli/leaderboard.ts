/**
 * `clustergym leaderboard`: every setting's heuristics (at full strength: batch schedulers on the
 * whole queue with their own placement, or the systems' own policies as agents) and learned
 * policies on the SAME held-out episodes, with each learned policy's paired difference to the best
 * heuristic and its 95 % bootstrap interval (agents/leaderboard, docs/leaderboard.md).
 *
 *     clustergym leaderboard [--seed S] [--episodes N] [--settings a,b,...] [--models DIR|SETTING=DIR,...|none]
 *                            [--results FILE,...] [--json] [--out DIR] [--export DIR] [--lookahead] [--shard I/N]
 *     clustergym leaderboard --merge SHARD.json... [--json] [--out DIR]
 *
 * `--shard I/N` plays shard I of N of every setting's episodes (an array job's piece) and writes it
 * to `--out DIR/shard-I-of-N.json` (and prints it with `--json`); `--merge` puts the pieces together
 * into the whole run's leaderboard, identical to one machine's but for the wall times
 * (agents/leaderboard/shard.ts).
 *
 * A progress line per setting goes to stderr. Writes `leaderboard.json` (the `--json` object),
 * `leaderboard.md` (a table per setting) and `SETTING.svg` (each policy's difference to the best
 * heuristic with its interval) into `--out` (default `clustergym-leaderboard` in the current
 * directory). `--json` prints `{ seed, episodes, settings: [ { name, env_id, metric,
 * lower_is_better, policies: [ { name, kind, model?, mean, per_episode } ], best_heuristic,
 * learned: [ { name, diff: { mean, ci95 }, verdict } ] } ] }` on stdout instead of the tables.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../src/core/errors.js';
import type { Command } from 'commander';
import type { SettingResult, SettingShard } from '../agents/leaderboard/index.js';
import { addFlags, type CliCommandModule, defineFlags, formatTable, int, PACKAGE_ROOT, readFlags, text, type Values } from './common.js';
import { duration } from './progress.js';

/** The directory of the setting files. */
export const SETTINGS_DIR = resolve(PACKAGE_ROOT, 'data/configs');
/** The directory of the shipped models. */
export const MODELS_DIR = resolve(PACKAGE_ROOT, 'data/models');

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/** The flags of `leaderboard`. */
export const flags = defineFlags({
  seed: { value: 'S', schema: int({ gte: 0, lte: 65535 }), default: 0, help: 'the held-out episodes: seed S names episodes 2^32 + S*65536 + i' },
  episodes: { value: 'N', schema: int({ gte: 1, lte: 65536 }), help: "episodes per setting (default: each setting's)" },
  settings: { value: 'a,b,...', schema: text(true), help: 'the settings to run (default: all of them)' },
  models: {
    value: 'DIR,...',
    schema: text(true),
    help: 'learned models: DIR (its card names the setting) or SETTING=DIR, or none (default: the shipped models in data/models)',
  },
  results: { value: 'FILE,...', schema: text(true), help: 'per-episode results of policies that ran elsewhere (Python over the bridge), as learned rows' },
  json: { help: 'print the leaderboard as JSON on stdout instead of the tables' },
  out: { value: 'DIR', schema: text(true), default: 'clustergym-leaderboard', help: 'write leaderboard.json, leaderboard.md and SETTING.svg there' },
  export: { value: 'DIR', schema: text(true), help: 'write each episode as DIR/SETTING/NNN/ (platform.json, workload.json, config.json) to replay elsewhere' },
  lookahead: {
    help: 'add reference rows on the cluster settings (Job-v0, JobNode-v0, PolicyPair-v0): a lookahead over the heuristics on env clones that hold the episode (oracle: future arrivals, actual run times), one on clones that hold only what a live scheduler knows (parity: known jobs, requested times), one on clones that add futures sampled from what the episode has shown so far (sampled), and their base in the env',
  },
  configs: { value: 'DIR', schema: text(true), default: SETTINGS_DIR, help: 'the directory of the setting files' },
  shard: { value: 'I/N', schema: text(true), help: "play shard I of N (from 0) of every setting's episodes: an array job's piece, for --merge" },
  merge: { help: "merge the shard files given after the flags (the --shard runs' outputs) into the whole leaderboard" },
});

/** Runs the command (`files`: the shard files of `--merge`); returns the exit code. */
export async function leaderboard(f: Values<typeof flags>, files: readonly string[] = []): Promise<number> {
  const lb = await import('../agents/leaderboard/index.js');
  if (f.merge) return mergeCommand(f, files);
  if (files.length > 0) throw new InputError(`unexpected argument ${JSON.stringify(files[0])}: files are given to --merge only`);
  const shard = f.shard !== undefined ? lb.parseShard(f.shard) : null;
  if (shard !== null && f.lookahead)
    throw new InputError("does not shard with --lookahead: the lookahead's base is the best heuristic over all of a setting's episodes", '--shard');
  if (shard !== null && f.export !== undefined)
    throw new InputError('export the episodes in an unsharded run (--export writes every episode of a setting)', '--shard');
  const names = f.settings !== undefined ? list(f.settings) : [...lb.SETTING_NAMES];
  const known = (n: string) => existsSync(lb.settingFile(f.configs, n));
  for (const n of names)
    if (!known(n))
      throw new InputError(
        `unknown setting ${JSON.stringify(n)}: no ${lb.settingFile(f.configs, n)}; the settings are ${lb.SETTING_NAMES.join(', ')} (and demo)`,
        '--settings',
      );
  const settings = names.map((n) => lb.loadSetting(lb.settingFile(f.configs, n)));
  const models = f.models === 'none' ? [] : f.models !== undefined ? lb.modelEntries(list(f.models)) : lb.shippedModels(MODELS_DIR);
  for (const m of models)
    if (!known(m.setting)) throw new InputError(`the model's setting ${JSON.stringify(m.setting)} has no setting file in ${f.configs}`, m.dir);
  const results = f.results !== undefined ? list(f.results).map(lb.readResults) : [];
  const rows: SettingResult[] = [];
  const pieces: SettingShard[] = [];
  for (const s of settings) {
    const n = f.episodes ?? s.episodes;
    const all = lb.episodeSeeds(f.seed, n);
    const learned = [
      ...models.filter((m) => m.setting === s.name).map(lb.ppoPlayer),
      ...results.filter((r) => r.setting === s.name).map((r) => lb.resultsPlayer(r, f.seed, s, all)),
    ];
    if (shard !== null) {
      const piece = await lb.runSettingShard(s, f.seed, n, shard, learned);
      pieces.push(piece);
      process.stderr.write(
        `leaderboard: ${s.name} shard ${shard.index}/${shard.count}: episodes ${piece.from}..${piece.to - 1} of ${n}, ${piece.policies.length} rows; ${duration(piece.seconds)}\n`,
      );
      continue;
    }
    const references = f.lookahead ? lb.lookaheadPlayers(s) : [];
    if (f.export !== undefined) lb.exportSetting(s, f.seed, n, join(f.export, s.name));
    const r = await lb.runSetting(s, f.seed, n, learned, references);
    rows.push(r);
    const best = r.policies.find((p) => p.name === r.best_heuristic)!;
    const verdicts = r.learned.map((l) => `${l.name} ${l.verdict} (${pct(l.diff.mean)} [${pct(l.diff.ci95[0])}, ${pct(l.diff.ci95[1])}])`);
    process.stderr.write(
      `leaderboard: ${s.name} (${s.env.id.replace('clustergym/', '')}): ${n} episodes, ${r.policies.filter((p) => p.kind === 'heuristic').length} heuristics, ` +
        `best ${best.name} ${fmtNum(best.mean)}${verdicts.length ? `; ${verdicts.join('; ')}` : ''}; ${duration(r.seconds)}\n`,
    );
  }
  const episodes = f.episodes ?? Object.fromEntries(settings.map((s) => [s.name, s.episodes]));
  const seedRanges = { training: lb.TRAINING_SEEDS, evaluation: lb.EVALUATION_SEEDS };
  if (shard !== null) {
    const piece = { format: lb.SHARD_FORMAT, shard, seed: f.seed, episodes, seed_ranges: seedRanges, settings: pieces };
    mkdirSync(f.out, { recursive: true });
    const file = join(f.out, `shard-${shard.index}-of-${shard.count}.json`);
    writeFileSync(file, `${JSON.stringify(piece)}\n`);
    if (f.json) process.stdout.write(`${JSON.stringify(piece)}\n`);
    else console.log(`${file}: shard ${shard.index}/${shard.count} of ${settings.length} settings (merge with clustergym leaderboard --merge FILE...)`);
    return 0;
  }
  return writeLeaderboard(f, { seed: f.seed, episodes, seed_ranges: seedRanges, settings: rows });
}

/** `--merge FILE...`: the shards' pieces as the whole leaderboard. */
async function mergeCommand(f: Values<typeof flags>, files: readonly string[]): Promise<number> {
  const lb = await import('../agents/leaderboard/index.js');
  if (f.shard !== undefined) throw new InputError('give --shard to the pieces, not to their merge', '--merge');
  if (files.length === 0) throw new InputError("no shard files: write clustergym leaderboard --merge SHARD.json... (the --shard runs' outputs)", '--merge');
  const doc = lb.mergeShards(files.map((file) => ({ file, doc: lb.readShard(file) })));
  process.stderr.write(`leaderboard: merged ${files.length} shards: ${doc.settings.map((s) => `${s.name} (${s.episode_seeds.length} episodes)`).join(', ')}\n`);
  return writeLeaderboard(f, doc);
}

/** Writes leaderboard.json, leaderboard.md and the SVGs into `--out`, and prints the JSON (`--json`) or the tables. */
async function writeLeaderboard(
  f: Values<typeof flags>,
  doc: { seed: number; episodes: unknown; seed_ranges: unknown; settings: SettingResult[] },
): Promise<number> {
  const lb = await import('../agents/leaderboard/index.js');
  const rows = doc.settings;
  mkdirSync(f.out, { recursive: true });
  writeFileSync(join(f.out, 'leaderboard.json'), `${JSON.stringify(doc, null, 1)}\n`);
  writeFileSync(join(f.out, 'leaderboard.md'), lb.leaderboardMarkdown(doc));
  for (const r of rows) writeFileSync(join(f.out, `${r.name}.svg`), lb.settingSvg(r, doc.seed));
  if (f.json) {
    process.stdout.write(`${JSON.stringify(doc)}\n`);
    return 0;
  }
  for (const r of rows) {
    console.log(`\n${lb.settingHeadline(r)}`);
    const t = lb.settingTable(r, 8);
    console.log(formatTable(t.header, t.rows));
    if (t.hidden > 0) console.log(`(${t.hidden} more heuristics in ${join(f.out, 'leaderboard.json')})`);
  }
  console.log(`\n${join(f.out, 'leaderboard.json')}, ${join(f.out, 'leaderboard.md')}, ${rows.length} SVG`);
  return 0;
}

const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
const fmtNum = (v: number) => (Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(3) : v.toFixed(3));

/** `clustergym leaderboard` (files after the flags are `--merge`'s shards). */
export const command: CliCommandModule = {
  configure(cmd: Command, done) {
    cmd.argument('[shards...]', 'the shard files of --merge');
    addFlags(cmd, flags);
    cmd.action(async (shards: string[], _options: unknown, self: Command) => {
      const { values } = readFlags(self, flags);
      done(await leaderboard(values, shards));
    });
  },
};
