/**
 * The environment configuration (DESIGN §5), validated with zod. `parseEnvConfig(id, raw)` checks
 * the object as a whole and throws ONE `InputError` that names every bad field with its JSON path
 * (`$.k: Number must be greater than or equal to 1`, `$.unfit: only Job-v0 has ...`), so a user
 * fixes everything in one go. Unknown fields are errors (a typo is never silently ignored).
 *
 * Everything has a default: `{}` is the embedded default (platform `data/platforms/hetero-20.json`,
 * workload `data/workloads/mixed-300.json`). See docs/environments.md for the meaning of each field.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { inputErrorFromIssues } from '../src/core/errors.js';
import { ModelsSchema } from '../src/platform/loader.js';
import { EngineConfigSchema } from '../src/scheduling/engineConfig.js';
import { InvalidActionFields } from './invalidAction.js';
import { isPolicyPairName, isJobSelectionName, isResourcePolicyName, JOB_SELECTION_LIST, RESOURCE_POLICY_LIST } from './policies.js';

/** The environment ids. */
export const ENV_IDS = ['clustergym/JobNode-v0', 'clustergym/Job-v0', 'clustergym/PolicyPair-v0'] as const;
/** An environment id. */
export type EnvId = (typeof ENV_IDS)[number];

/** Terminal reward terms (given once, at termination): minus the mean of a metric, or plus utilisation. */
export const TERMINAL_REWARDS = ['bsld', 'wait', 'slowdown', 'makespan', 'utilisation'] as const;
/** Dense reward terms (given at every step, for the time the step covered). */
export const DENSE_REWARDS = ['flowtime', 'energy', 'dt'] as const;
/** Any reward term. */
export type RewardTerm = (typeof TERMINAL_REWARDS)[number] | (typeof DENSE_REWARDS)[number];
const REWARD_NAMES: readonly string[] = [...TERMINAL_REWARDS, ...DENSE_REWARDS];

const rewardTerm = z.string().refine(
  (s) => REWARD_NAMES.includes(s),
  (s) => ({ message: `unknown reward term ${JSON.stringify(s)}; expected one of ${REWARD_NAMES.join(', ')}` }),
);

const positive = z.number().finite().positive();

/** The cluster envs' `observe` field (envs/observes.ts says what each value means). */
export const ObserveSchema = z
  .object({
    durations: z.enum(['requested', 'actual']).default('requested'),
    horizon: z.enum(['seen', 'trajectory']).default('seen'),
  })
  .strict();

/** The configuration object as zod sees it. */
export const EnvConfigSchema = z
  .object({
    /** Platform: a file path (native or IRMaSim JSON) or the platform object itself. */
    platform: z.union([z.string().min(1), z.record(z.unknown())]).optional(),
    /** Platform name inside an IRMaSim platform file with several. */
    platform_name: z.string().min(1).optional(),
    /** Workload: a file path (SWF, Batsim or native JSON) or a workload object (Batsim or native). */
    workload: z.union([z.string().min(1), z.record(z.unknown())]).optional(),
    /** Force the workload format instead of detecting it. */
    workload_format: z.enum(['auto', 'swf', 'batsim', 'native']).default('auto'),
    /** Options of the SWF reader (see src/workload/swf.ts), e.g. `{ "reqTimeFromRuntime": true }`. */
    swf: z.record(z.unknown()).optional(),
    /** A workload generator configuration (Poisson or Lublin); a fresh trajectory is generated per episode. */
    generator: z.record(z.unknown()).optional(),
    /** Episodes: `length` jobs from `origin` (an index, or `random`: drawn from the reset seed). */
    trajectory: z
      .object({
        length: z.number().int().positive().optional(),
        origin: z.union([z.number().int().nonnegative(), z.literal('random')]).default(0),
        /** A pool of origins: each episode draws one uniformly (from the reset seed), overriding `origin`. */
        origins: z.array(z.number().int().nonnegative()).min(1).optional(),
      })
      .strict()
      .default({}),
    /** Queue window K: the jobs visible to the agent. */
    k: z.number().int().min(1).max(65536).default(32),
    /** Order of the queue, which decides the K visible jobs (a job-selection policy name). */
    queue_order: z.string().default('fcfs'),
    /** Observation variant. */
    observation: z.enum(['dict', 'flat', 'jobs', 'minimal']).default('dict'),
    /**
     * What the policy may observe (DESIGN §14; the defaults are what a live scheduler knows):
     * `durations` the jobs' `requested` run times (walltimes, the default) or their `actual` run
     * times (fixed-duration `delay` jobs only: an oracle, for studies); `horizon` how the global
     * features are normalised: `seen` (default) by the jobs submitted so far (the time feature by the
     * last submission so far + L.req_time, the queue and running features by the jobs seen so far),
     * or `trajectory` by the whole trajectory's last submission and length (future arrivals a live
     * scheduler cannot know; models trained before this option saw it).
     */
    observe: ObserveSchema.default({}),
    /**
     * `dict` observation on a platform with a network: add `switch_use` (per node, the busiest link its
     * traffic to other switches can cross) and `hops` (node x node route lengths) for placement.
     */
    topology: z.boolean().default(false),
    /** Reward: a term name, or weights of terms (`{ "flowtime": 1e-4, "energy": 1e-6 }`). */
    reward: z.union([rewardTerm, z.record(rewardTerm, z.number().finite())]).default('bsld'),
    /** Backfilling while a reserved job waits (Job-v0 with `unfit: reserve`) or in policy pairs (PolicyPair-v0). */
    backfilling: z.enum(['none', 'easy', 'conservative']).default('none'),
    /** Job-v0: a job that does not fit now is masked out (`mask`) or reserved until it can start (`reserve`). */
    unfit: z.enum(['mask', 'reserve']).optional(),
    /** Resource selection that places jobs (Job-v0, PolicyPair-v0 default) and orders spill-over nodes (JobNode-v0). */
    resource_policy: z.string().default('first'),
    /**
     * JobNode-v0: `spill` (an MPI job puts what node n can hold there and the rest on other nodes) or
     * `one_node` (IRMaSim's managers' layout: action `(j, n)` is valid only when node n can hold ALL of
     * job j's tasks now, and they all go there; a job wider than every node, or with an exact node
     * count above 1, keeps the `spill` placement so that it can still run).
     */
    placement: z.enum(['spill', 'one_node']).default('spill'),
    /** Node fit of `seq` jobs under the resource policy. */
    node_fit: z.enum(['first_fit', 'best_fit']).default('first_fit'),
    /** PolicyPair-v0: the policy pairs (`job:resource`), restricting the default 6 x 6 IRMaSim set. */
    actions: z.array(z.string()).min(1).optional(),
    /** Truncate the episode after this many steps. */
    max_steps: z.number().int().positive().optional(),
    /** Truncate the episode once simulated time reaches this (s). */
    max_sim_time: positive.optional(),
    /** Normalisation of waiting times (s): wait / max_wait, clipped to 1. */
    max_wait: positive.default(12 * 3600),
    /** IRMaSim's queue sensitivity of the `minimal` observation's queue-variation ratio. */
    queue_sensitivity: positive.default(0.05),
    /** Normalisation limits overriding the workload's 99th percentiles. */
    limits: z.object({ req_time: positive, ntasks: positive, mem: positive, mem_vol: positive }).partial().strict().optional(),
    /** Overrides of the platform's models. */
    models: ModelsSchema.optional(),
    /** Node memory is a placement constraint. */
    enforce_memory: z.boolean().default(true),
    /** Kill jobs still running at start + req_time. */
    walltime_kill: z.boolean().default(false),
    /**
     * The engine's dimensions by name (src/scheduling/engineConfig.ts): malleable progress and the resize
     * policy at reconfiguration points (the agent decides starts; resizes are the policy's), the
     * `multifactor` queue order's weights and shares. Absent: the documented model.
     */
    engine: EngineConfigSchema.refine((e) => e.preempt_type === 'none', {
      message:
        "expected 'none': the cluster environments have no preemption pass (the agent decides every start); partition_prio runs under simulate and compare",
      path: ['preempt_type'],
    })
      .refine((e) => typeof e.pass_clock === 'string', {
        message: "expected 'instant' or 'event': the agent decides at the engine's decision points; Slurm's pass clock runs under simulate and compare",
        path: ['pass_clock'],
      })
      .refine((e) => e.capacity === 'cores', {
        message: "expected 'cores': the environments observe and place cores on nodes; the counted capacity runs under simulate and compare",
        path: ['capacity'],
      })
      .optional(),
    /** Idle processors draw power from t = 0 (`always`, documented) or from their first task (IRMaSim's accounting). */
    idle_power: z.enum(['always', 'after-first-task']).default('always'),
    /** Seed of the episodes started by `reset()` without a seed. */
    seed: z.number().int().default(0),
    /** What `step` does with an action the mask forbids (envs/invalidAction.ts). */
    ...InvalidActionFields,
  })
  .strict();

/** The configuration as given by a user (every field optional). */
export type EnvConfig = z.input<typeof EnvConfigSchema>;
/** The validated configuration, with defaults filled in. */
export type ResolvedEnvConfig = z.output<typeof EnvConfigSchema> & { unfit: 'mask' | 'reserve' };

interface Issue {
  path: (string | number)[];
  message: string;
}

/** Checks that depend on the env id or on several fields. */
function crossIssues(id: EnvId, c: z.output<typeof EnvConfigSchema>): Issue[] {
  const issues: Issue[] = [];
  const short = id.replace('clustergym/', '');
  if (c.workload !== undefined && c.generator !== undefined) issues.push({ path: ['generator'], message: 'give either `workload` or `generator`, not both' });
  if (c.swf !== undefined && c.generator !== undefined) issues.push({ path: ['swf'], message: 'SWF options apply to a workload file, not to a generator' });
  if (c.unfit !== undefined && id !== 'clustergym/Job-v0')
    issues.push({ path: ['unfit'], message: `only Job-v0 has the \`unfit\` option; ${short} always masks jobs that do not fit` });
  if (c.topology && c.observation !== 'dict')
    issues.push({ path: ['topology'], message: 'the topology features are keys of the `dict` observation; set `observation: "dict"`' });
  if (c.observation === 'minimal' && id !== 'clustergym/PolicyPair-v0')
    issues.push({
      path: ['observation'],
      message: `the \`minimal\` observation (queue percentiles, IRMaSim) is for PolicyPair-v0; ${short} needs \`dict\` or \`flat\``,
    });
  if (c.observation === 'jobs' && id !== 'clustergym/Job-v0')
    issues.push({
      path: ['observation'],
      message: `the \`jobs\` observation (the job window and the global features, no node rows) is for Job-v0, which picks jobs only; ${short} needs \`dict\` or \`flat\``,
    });
  if (c.placement !== 'spill' && id !== 'clustergym/JobNode-v0')
    issues.push({ path: ['placement'], message: `only JobNode-v0 chooses a node per action; ${short} has no \`placement\`` });
  if (c.actions !== undefined && id !== 'clustergym/PolicyPair-v0')
    issues.push({ path: ['actions'], message: `only PolicyPair-v0 has \`actions\` (policy pairs)` });
  if (c.backfilling !== 'none') {
    if (id === 'clustergym/JobNode-v0')
      issues.push({ path: ['backfilling'], message: 'JobNode-v0 has no backfilling (the agent chooses every start); use `none`' });
    if (id === 'clustergym/Job-v0' && c.unfit !== 'reserve')
      issues.push({
        path: ['backfilling'],
        message: 'backfilling applies to Job-v0 with `unfit: "reserve"` (while the reserved job waits); set `unfit: "reserve"` or `backfilling: "none"`',
      });
    if (id === 'clustergym/Job-v0' && c.backfilling === 'conservative')
      issues.push({ path: ['backfilling'], message: 'Job-v0 reserves one job at a time, so only `easy` backfilling applies; use `easy` or `none`' });
  }
  if (!isJobSelectionName(c.queue_order))
    issues.push({
      path: ['queue_order'],
      message: `unknown job-selection policy ${JSON.stringify(c.queue_order)}; expected one of ${JOB_SELECTION_LIST.join(', ')}`,
    });
  if (!isResourcePolicyName(c.resource_policy))
    issues.push({
      path: ['resource_policy'],
      message: `unknown resource-selection policy ${JSON.stringify(c.resource_policy)}; expected one of ${RESOURCE_POLICY_LIST.join(', ')}`,
    });
  c.actions?.forEach((a, i) => {
    if (!isPolicyPairName(a))
      issues.push({
        path: ['actions', i],
        message: `${JSON.stringify(a)} is not a policy pair \`job:resource\`; job one of ${JOB_SELECTION_LIST.join(', ')}; resource one of ${RESOURCE_POLICY_LIST.join(', ')}`,
      });
  });
  if (c.actions && new Set(c.actions).size !== c.actions.length) issues.push({ path: ['actions'], message: 'a policy pair is listed twice' });
  if (typeof c.reward === 'object' && Object.keys(c.reward).length === 0) issues.push({ path: ['reward'], message: 'give at least one reward term' });
  return issues;
}

/**
 * Validates `raw` for env `id`. Throws one `InputError` naming every bad field (with its path).
 * `where` names the source in the message (a file, or `<id> config`).
 */
export function parseEnvConfig(id: EnvId, raw: unknown, where = `${id} config`): ResolvedEnvConfig {
  const r = EnvConfigSchema.safeParse(raw ?? {});
  if (!r.success) {
    // also report the cross-field problems of the fields that did parse, so nothing is hidden
    const extra = raw !== null && typeof raw === 'object' ? crossIssuesLoose(id, raw as Record<string, unknown>, r.error.issues) : [];
    throw inputErrorFromIssues(where, [...r.error.issues, ...extra]);
  }
  const issues = crossIssues(id, r.data);
  if (issues.length) throw inputErrorFromIssues(where, issues);
  return { ...r.data, unfit: r.data.unfit ?? 'mask' };
}

/** Cross-field checks on a config that failed the schema: only on fields that are themselves fine. */
function crossIssuesLoose(id: EnvId, raw: Record<string, unknown>, schemaIssues: readonly { path: (string | number)[] }[]): Issue[] {
  const bad = new Set(schemaIssues.map((i) => String(i.path[0])));
  const probe = EnvConfigSchema.partial().safeParse(Object.fromEntries(Object.entries(raw).filter(([k]) => !bad.has(k) && k in EnvConfigSchema.shape)));
  if (!probe.success) return [];
  const filled = EnvConfigSchema.safeParse(probe.data);
  if (!filled.success) return [];
  return crossIssues(id, filled.data).filter((i) => !bad.has(String(i.path[0])));
}

/** The keys of an env config that name files. */
const PATH_KEYS = ['platform', 'workload'] as const;

/**
 * An env config (any env's: a plain object) whose relative `platform` and `workload` paths are taken
 * relative to `base` (the directory of the file that holds it) and made absolute.
 */
export function resolveConfigPaths(config: Record<string, unknown>, base: string): Record<string, unknown> {
  const c = { ...config };
  for (const key of PATH_KEYS) {
    const v = c[key];
    if (typeof v === 'string' && v !== '' && !isAbsolute(v)) c[key] = resolve(base, v);
  }
  return c;
}

/**
 * An env config as written into a file of `dir`: its absolute `platform` and `workload` paths made
 * relative to `dir`, so the file keeps working when the checkout moves (the inverse of
 * `resolveConfigPaths` with `base = dir`).
 */
export function relativeConfigPaths(config: Record<string, unknown>, dir: string): Record<string, unknown> {
  const c = { ...config };
  for (const key of PATH_KEYS) {
    const v = c[key];
    // `relative` gives '' for the directory itself, which would read back as no path: write '.'
    if (typeof v === 'string' && isAbsolute(v)) c[key] = relative(resolve(dir), v) || '.';
  }
  return c;
}
