/**
 * A leaderboard in pieces (`leaderboard --shard I/N`, `leaderboard --merge FILE...`), for an array
 * job (Slurm, deploy/slurm/leaderboard.sbatch) or a Dask sweep (python-client/clustergym/dask.py):
 * shard `I` of `N` plays, in every setting, the episodes `[floor(I n / N), floor((I+1) n / N))` of
 * the setting's `n` (every policy on the same episodes, as the whole run does), and `--merge` puts
 * the shards' `--json` outputs together into the document one machine gives.
 *
 * **Identical to one machine.** Every episode's figure depends on its seed alone (the heuristics
 * run each episode's jobs from scratch, agents and learned players reset the env with the episode's
 * seed), so a shard's per-episode values are the whole run's, bit for bit. The merge concatenates
 * each row's per-episode values in episode order and computes from them what the whole run computes
 * (`rowMean`, the best heuristic, the paired bootstrap intervals seeded by leaderboard seed,
 * setting and policy: run.ts, stats.ts), so the merged JSON is the whole run's except the wall
 * times (`seconds`: the merge sums its shards'). Tests check both, byte for byte.
 *
 * **Checks.** A merge refuses (naming the file) pieces that are not shards of the same run: another
 * leaderboard seed, episode counts, settings, policies or shard count; a shard missing or given
 * twice; episode ranges that do not tile the setting's episodes. `--lookahead` does not shard: its
 * base is the best heuristic over all of a setting's episodes, which no shard knows.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { parseJsonText } from '../../src/core/json.js';
import {
  EVALUATION_SEEDS,
  episodeSeeds,
  headerFields,
  type LearnedPlayer,
  playSetting,
  type PolicyRow,
  rowMean,
  type SettingResult,
  settingResult,
  TRAINING_SEEDS,
} from './run.js';
import type { Setting } from './settings.js';

/** The format tag of a shard's `--json` output. */
export const SHARD_FORMAT = 'clustergym-leaderboard-shard';

/** Shard `index` of `count` (0-based). */
export interface Shard {
  index: number;
  count: number;
}

/** `I/N` (0 <= I < N): an InputError naming `--shard` otherwise. */
export function parseShard(s: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(s);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !(count >= 1 && count <= 65536) || !(index < count))
    throw new InputError(
      `expected I/N with 0 <= I < N <= 65536 (shard I of N, from 0: an array job's $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT), got ${JSON.stringify(s)}`,
      '--shard',
    );
  return { index, count };
}

/** The episodes `[from, to)` of a setting's `n` that shard `s` plays. */
export function shardRange(n: number, s: Shard): { from: number; to: number } {
  return { from: Math.floor((s.index * n) / s.count), to: Math.floor(((s.index + 1) * n) / s.count) };
}

/** A setting's piece in a shard: what a merge needs to rebuild the setting's result. */
export interface SettingShard extends ReturnType<typeof headerFields> {
  /** The setting's episodes in the whole run, and this shard's range of them. */
  episodes: number;
  from: number;
  to: number;
  episode_seeds: { seed: number; origin: number }[];
  /** The rows on this shard's episodes (`mean` is left to the merge). */
  policies: Omit<PolicyRow, 'mean'>[];
  seconds: number;
}

/** Plays shard `shard` of a setting's `n` episodes of leaderboard seed `seed`. */
export async function runSettingShard(setting: Setting, seed: number, n: number, shard: Shard, learned: readonly LearnedPlayer[]): Promise<SettingShard> {
  const t0 = performance.now();
  const { from, to } = shardRange(n, shard);
  const seeds = episodeSeeds(seed, n).slice(from, to);
  const played = seeds.length > 0 ? await playSetting(setting, seeds, learned) : { episodes: [], rows: [] };
  return {
    ...headerFields(setting),
    episodes: n,
    from,
    to,
    episode_seeds: played.episodes,
    policies: played.rows.map(({ mean: _, ...row }) => row),
    seconds: (performance.now() - t0) / 1000,
  };
}

/** A shard's `--json` document. */
export interface ShardDoc {
  format: typeof SHARD_FORMAT;
  shard: Shard;
  seed: number;
  /** As the whole run's document says it (`--episodes N`, or each setting's count). */
  episodes: number | Record<string, number>;
  seed_ranges: unknown;
  settings: SettingShard[];
}

/** A figure as JSON keeps it: NaN (an incomplete IRMaSim episode) is null. */
const Figure = z.union([z.number(), z.null()]).transform((v) => (v === null ? Number.NaN : v));

const RowSchema = z
  .object({
    name: z.string(),
    kind: z.enum(['heuristic', 'learned', 'reference']),
    model: z.string().optional(),
    per_episode: z.array(Figure),
    complete: z.boolean(),
    seconds: z.number(),
  })
  .strict();

const SettingShardSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    why: z.string(),
    env_id: z.string(),
    metric: z.string(),
    lower_is_better: z.boolean(),
    episodes: z.number().int().min(1),
    from: z.number().int().min(0),
    to: z.number().int().min(0),
    episode_seeds: z.array(z.object({ seed: z.number(), origin: z.number() }).strict()),
    policies: z.array(RowSchema),
    seconds: z.number(),
  })
  .strict();

const ShardDocSchema = z
  .object({
    format: z.literal(SHARD_FORMAT),
    shard: z.object({ index: z.number().int().min(0), count: z.number().int().min(1) }).strict(),
    seed: z.number().int(),
    episodes: z.union([z.number().int(), z.record(z.number().int())]),
    seed_ranges: z.unknown(),
    settings: z.array(SettingShardSchema),
  })
  .strict();

/** Reads a shard file (a shard's `--json` output). */
export function readShard(file: string): ShardDoc {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the shard: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, file);
  }
  const r = ShardDocSchema.safeParse(parseJsonText(text, file));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  return r.data as ShardDoc;
}

/** The whole run's document (`leaderboard --json`) from its shards; throws an InputError naming the file at fault. */
export function mergeShards(shards: readonly { file: string; doc: ShardDoc }[]): {
  seed: number;
  episodes: number | Record<string, number>;
  seed_ranges: { training: typeof TRAINING_SEEDS; evaluation: typeof EVALUATION_SEEDS };
  settings: SettingResult[];
} {
  if (shards.length === 0) throw new InputError('--merge: no shard files given');
  const first = shards[0]!;
  const count = first.doc.shard.count;
  const byIndex: ({ file: string; doc: ShardDoc } | undefined)[] = new Array(count);
  for (const s of shards) {
    const d = s.doc;
    const differs = (what: string, a: unknown, b: unknown) =>
      new InputError(`$.${what}: ${JSON.stringify(a)}, where ${first.file} has ${JSON.stringify(b)}: not a shard of the same leaderboard run`, s.file);
    if (d.shard.count !== count) throw differs('shard.count', d.shard.count, count);
    if (d.seed !== first.doc.seed) throw differs('seed', d.seed, first.doc.seed);
    if (JSON.stringify(d.episodes) !== JSON.stringify(first.doc.episodes)) throw differs('episodes', d.episodes, first.doc.episodes);
    const names = d.settings.map((x) => x.name);
    const firstNames = first.doc.settings.map((x) => x.name);
    if (JSON.stringify(names) !== JSON.stringify(firstNames)) throw differs('settings', names, firstNames);
    if (d.shard.index >= count) throw new InputError(`$.shard.index: ${d.shard.index} is not below the shard count ${count}`, s.file);
    const twice = byIndex[d.shard.index];
    if (twice !== undefined) throw new InputError(`shard ${d.shard.index}/${count} is given twice (also ${twice.file})`, s.file);
    byIndex[d.shard.index] = s;
  }
  const missing: number[] = [];
  for (let i = 0; i < count; i++) if (byIndex[i] === undefined) missing.push(i);
  if (missing.length > 0)
    throw new InputError(
      `--merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing (give all ${count} shards' files)`,
    );
  const ordered = byIndex as { file: string; doc: ShardDoc }[];
  const seed = first.doc.seed;
  const settings = first.doc.settings.map((header, k) =>
    mergeSetting(
      seed,
      header,
      ordered.map((s) => ({ file: s.file, piece: s.doc.settings[k]! })),
    ),
  );
  return { seed, episodes: first.doc.episodes, seed_ranges: { training: TRAINING_SEEDS, evaluation: EVALUATION_SEEDS }, settings };
}

/** One setting's result from its pieces (in shard order). */
function mergeSetting(seed: number, header: SettingShard, pieces: readonly { file: string; piece: SettingShard }[]): SettingResult {
  let next = 0;
  const episodes: { seed: number; origin: number }[] = [];
  let rows: PolicyRow[] | null = null;
  let seconds = 0;
  for (const { file, piece } of pieces) {
    const where = `$.settings[${header.name}]`;
    if (piece.episodes !== header.episodes || piece.env_id !== header.env_id || piece.metric !== header.metric)
      throw new InputError(`${where}: another setting than in ${pieces[0]!.file} (episodes, env or metric differ)`, file);
    if (piece.from !== next || piece.to < piece.from || piece.episode_seeds.length !== piece.to - piece.from)
      throw new InputError(`${where}: episodes [${piece.from}, ${piece.to}) do not follow the previous shard's (next is ${next})`, file);
    next = piece.to;
    seconds += piece.seconds;
    if (piece.to === piece.from) continue;
    episodes.push(...piece.episode_seeds);
    if (rows === null) {
      rows = piece.policies.map((p) => row(p, [...p.per_episode]));
      continue;
    }
    const names = piece.policies.map((p) => `${p.kind}:${p.name}:${p.model ?? ''}`);
    const known = rows.map((p) => `${p.kind}:${p.name}:${p.model ?? ''}`);
    if (JSON.stringify(names) !== JSON.stringify(known))
      throw new InputError(`${where}.policies: other policies than the earlier shards' (${known.length} rows there, ${names.length} here)`, file);
    piece.policies.forEach((p, i) => {
      const r = rows![i]!;
      r.per_episode.push(...p.per_episode);
      r.complete = r.complete && p.complete;
      r.seconds += p.seconds;
    });
  }
  if (next !== header.episodes)
    throw new InputError(`$.settings[${header.name}]: the shards cover ${next} of its ${header.episodes} episodes`, pieces.at(-1)!.file);
  const merged = (rows ?? []).map((r) => row(r, r.per_episode));
  return settingResult({ ...header, env: { id: header.env_id } }, seed, episodes, merged, seconds);
}

/** A row in the whole run's key order, its mean computed as the whole run computes it. */
function row(p: Omit<PolicyRow, 'mean'>, perEpisode: number[]): PolicyRow {
  return {
    name: p.name,
    kind: p.kind,
    ...(p.model !== undefined ? { model: p.model } : {}),
    mean: rowMean(perEpisode),
    per_episode: perEpisode,
    complete: p.complete,
    seconds: p.seconds,
  };
}
