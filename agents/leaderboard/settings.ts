/**
 * Leaderboard settings: one JSON file each in `data/configs/` (`rlsched.json`, `hetero.json`, ...),
 * read and validated here. A setting is an environment (id and config), the metric the leaderboard
 * ranks by and its direction, the default number of held-out episodes, and the heuristics that
 * compete:
 *
 * - on the cluster envs (Job-v0, JobNode-v0, PolicyPair-v0) `policies` is a cross product of job
 *   selections x resource selections x backfilling modes, each a batch scheduler run as
 *   `clustergym simulate` runs it (the whole queue, its own placement) on each episode's jobs, plus
 *   `names` (single policy names) and `irmasim` (IRMaSim `workload_manager` objects: EnergyHeuristic,
 *   Backfill with its energy/EDP orders);
 * - on the other systems' envs `agents` names heuristic agents of that env (`agents/leaderboard/heuristics.ts`
 *   lists them); each reproduces its system's batch policy decision for decision.
 *
 * Metrics: on the cluster envs `mean_bsld`, `mean_wait` or `edp` (an episode's energy in J times its
 * makespan in s); on the other envs `return` (the episode's return: the env's own objective) or
 * `metrics.KEY` (a number of the env's end `info.metrics`, dotted for nested keys).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { parseJsonText } from '../../src/core/json.js';
import { resolveConfigPaths } from '../../envs/config.js';

/** The format tag of a setting file. */
export const SETTING_FORMAT = 'clustergym-leaderboard-setting';

/** The settings of the leaderboard, in display order (each is `data/configs/NAME.json`). */
export const SETTING_NAMES = [
  'rlsched',
  'rlsched-easy',
  'rlsched-reorder',
  'hetero',
  'hetero-loaded',
  'hetero-energy',
  'hetero-energy-loaded',
  'policy-pair',
  'malleable',
  'cosched',
  'fair',
  'slurm',
  'combined',
  'gpu',
  'gpu-philly',
] as const;

/** The cluster envs' metrics (from the batch run's or the env's summary of the episode). */
export const CLUSTER_METRICS = ['mean_bsld', 'mean_wait', 'edp'] as const;

const CLUSTER_IDS = ['clustergym/Job-v0', 'clustergym/JobNode-v0', 'clustergym/PolicyPair-v0'];

const nonEmpty = z.array(z.string().min(1)).min(1);

/** A setting file as zod sees it. */
export const SettingSchema = z
  .object({
    format: z.literal(SETTING_FORMAT),
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
    description: z.string().min(1),
    env: z.object({ id: z.string().min(1), config: z.record(z.unknown()).default({}) }).strict(),
    metric: z.string().min(1),
    lower_is_better: z.boolean(),
    /** Held-out episodes when `--episodes` is not given. */
    episodes: z.number().int().min(1).max(65536),
    heuristics: z
      .object({
        policies: z.object({ jobs: nonEmpty, resources: nonEmpty, backfill: nonEmpty }).strict().optional(),
        names: nonEmpty.optional(),
        irmasim: z.array(z.record(z.unknown())).min(1).optional(),
        agents: nonEmpty.optional(),
        /** Batch schedulers commit to their chosen head job until it starts (RLScheduler's decision model; `compare --commit-head`). */
        commit_head: z.boolean().default(false),
      })
      .strict(),
    /** Why these heuristics are the strongest fair competition known (in leaderboard.json and leaderboard.md). */
    why: z.string().min(1),
    /**
     * The `--lookahead` search's budget on a cluster setting (lookahead.ts): proposals per order,
     * candidates per lookahead decision, lookahead decisions per episode; for the sampled row,
     * sampled futures per candidate and future arrivals per sampled future.
     */
    lookahead: z
      .object({
        m: z.number().int().min(1).max(16),
        candidates: z.number().int().min(2).max(64),
        decisions: z.number().int().min(1).max(100000),
        samples: z.number().int().min(1).max(64),
        sampled_jobs: z.number().int().min(0).max(100000),
        confidence: z.number().min(0).max(10),
      })
      .partial()
      .strict()
      .optional(),
  })
  .strict();

/** A validated setting. */
export type Setting = z.output<typeof SettingSchema>;

/** Whether the setting is one of the cluster envs (batch-scheduler heuristics). */
export function isClusterSetting(s: Pick<Setting, 'env'>): boolean {
  return CLUSTER_IDS.includes(s.env.id);
}

/** Validates a parsed setting (`where` names the file); relative platform/workload paths are taken from `base`. */
export function parseSetting(raw: unknown, where: string, base?: string): Setting {
  const r = SettingSchema.safeParse(raw);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const s = r.data;
  const issues: { path: (string | number)[]; message: string }[] = [];
  const cluster = isClusterSetting(s);
  const h = s.heuristics;
  if (cluster) {
    if (!(CLUSTER_METRICS as readonly string[]).includes(s.metric))
      issues.push({ path: ['metric'], message: `a ${s.env.id} setting ranks by one of ${CLUSTER_METRICS.join(', ')}; found ${JSON.stringify(s.metric)}` });
    if (h.agents) issues.push({ path: ['heuristics', 'agents'], message: 'cluster settings run batch schedulers: use `policies`, `names` or `irmasim`' });
    if (!h.policies && !h.names && !h.irmasim) issues.push({ path: ['heuristics'], message: 'give `policies`, `names` or `irmasim`' });
  } else {
    if (s.metric !== 'return' && !/^metrics\.[A-Za-z0-9_.]+$/.test(s.metric))
      issues.push({ path: ['metric'], message: `expected "return" or "metrics.KEY"; found ${JSON.stringify(s.metric)}` });
    if (!h.agents || h.policies || h.names || h.irmasim)
      issues.push({ path: ['heuristics'], message: `a ${s.env.id} setting lists its heuristic agents in \`agents\` (and nothing else)` });
    if (s.lookahead) issues.push({ path: ['lookahead'], message: `no --lookahead on ${s.env.id} (agents/leaderboard/lookahead.ts says why)` });
  }
  if (issues.length) throw inputErrorFromIssues(where, issues);
  return base === undefined ? s : { ...s, env: { ...s.env, config: resolveConfigPaths(s.env.config, base) } };
}

/** Reads and validates a setting file. */
export function loadSetting(file: string): Setting {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the setting: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, file);
  }
  const s = parseSetting(parseJsonText(text, file), file, dirname(file));
  const expected = file.replace(/^.*[\\/]/, '').replace(/\.json$/, '');
  if (s.name !== expected) throw new InputError(`$.name: ${JSON.stringify(s.name)} differs from the file name ${JSON.stringify(expected)}`, file);
  return s;
}

/** The setting file of `name` under `configDir`. */
export function settingFile(configDir: string, name: string): string {
  return join(configDir, `${name}.json`);
}
