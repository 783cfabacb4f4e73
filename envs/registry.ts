/**
 * The environment registry: `make(id, config)` builds an environment by id, Gymnasium-style.
 *
 * ```ts
 * import { make } from './envs/index.js'
 * const env = make('clustergym/Job-v0', { workload: 'trace.swf', k: 64, unfit: 'reserve' })
 * ```
 *
 * An unknown id throws an `InputError` listing the valid ids; a bad config throws one `InputError`
 * naming every bad field with its path. `makeFromContext` builds more environments on an already
 * loaded context (the vector envs do, so the platform and workload are loaded once).
 *
 * The three cluster environments (`Job-v0`, `JobNode-v0`, `PolicyPair-v0`) share `EnvContext`.
 * The other systems' environments (malleable jobs, time sharing, fairness, Slurm, GPUs) register an
 * `EnvRegistration` in `SYSTEM_ENVS`: how to load their context from a config and make an env on
 * it. `loadEnv`/`makeEnv` and `make` work for every id; the bridge and the checker see `GymEnv`.
 */
import { InputError } from '../src/core/errors.js';
import { ENV_IDS, type EnvId } from './config.js';
import { EnvContext } from './context.js';
import type { ClusterEnv } from './env.js';
import type { GymEnv } from './gym.js';
import { fairRegistration } from './fairness/index.js';
import { gpuRegistration } from './gpu/index.js';
import { JobEnv } from './jobEnv.js';
import { JobNodeEnv } from './jobNodeEnv.js';
import { malleableRegistration } from './malleable/index.js';
import { PolicyPairEnv } from './policyPairEnv.js';
import { slurmRegistration } from './slurm/index.js';
import { coschedRegistration } from './timesharing/index.js';

const CONSTRUCTORS: Record<EnvId, new (ctx: EnvContext) => ClusterEnv> = {
  'clustergym/JobNode-v0': JobNodeEnv,
  'clustergym/Job-v0': JobEnv,
  'clustergym/PolicyPair-v0': PolicyPairEnv,
};

/**
 * An environment of another system: its id, one line for listings, how to load the context its envs
 * share from a config (validated: an `InputError` naming every bad field, paths as `$.field`), and
 * how to make an env on a loaded context.
 */
export interface EnvRegistration<C = unknown> {
  readonly id: string;
  readonly description: string;
  load(config: unknown): C;
  create(context: C): GymEnv;
}

/** The other systems' environments (each system's env module exports its registrations). */
// biome-ignore lint/suspicious/noExplicitAny: each registration has its own context type
const SYSTEM_ENVS: readonly EnvRegistration<any>[] = [malleableRegistration, slurmRegistration, fairRegistration, coschedRegistration, gpuRegistration];

const SYSTEM_BY_ID = new Map(SYSTEM_ENVS.map((r) => [r.id, r]));

/** Every registered environment id: the cluster ones, then the other systems'. */
export function allEnvIds(): string[] {
  return [...ENV_IDS, ...SYSTEM_ENVS.map((r) => r.id)];
}

/** Short descriptions of the environments, for listings (`clustergym serve`'s `list`, docs). */
export const ENV_DESCRIPTIONS: Readonly<Record<EnvId, string>> = {
  'clustergym/JobNode-v0': 'pick a visible job and a node: Discrete(K*N + 1), the last action waits',
  'clustergym/Job-v0': 'pick a visible job, a resource policy places it: Discrete(K + 1), the last action waits (unfit: mask | reserve)',
  'clustergym/PolicyPair-v0': 'pick a scheduling heuristic (job selection x resource selection), IRMaSim-style: Discrete(P)',
};

/** Whether `id` is a registered environment id. */
export function isEnvId(id: string): id is EnvId {
  return (ENV_IDS as readonly string[]).includes(id);
}

/** The error for an id that is not registered, listing the valid ids. */
function unknownId(id: string): InputError {
  const ids = allEnvIds();
  const near = ids.find((v) => v.toLowerCase() === id.toLowerCase() || v.endsWith(`/${id}`));
  return new InputError(`unknown environment id ${JSON.stringify(id)}${near ? ` (did you mean ${near}?)` : ''}; valid ids: ${ids.join(', ')}`);
}

/** Checks a cluster environment id; throws an `InputError` listing the valid ids. */
export function checkEnvId(id: string): EnvId {
  if (isEnvId(id)) return id;
  throw unknownId(id);
}

/** The description of any registered id (undefined if unknown). */
export function envDescription(id: string): string | undefined {
  return isEnvId(id) ? ENV_DESCRIPTIONS[id] : SYSTEM_BY_ID.get(id)?.description;
}

/** A loaded context of any registered environment, to make several envs on it. */
export type LoadedEnv =
  | { readonly kind: 'cluster'; readonly context: EnvContext }
  | { readonly kind: 'system'; readonly registration: EnvRegistration; readonly context: unknown };

/** Loads the context of any registered id with `config` (validated). */
export function loadEnv(id: string, config: unknown = {}): LoadedEnv {
  if (isEnvId(id)) return { kind: 'cluster', context: new EnvContext(id, config) };
  const registration = SYSTEM_BY_ID.get(id);
  if (!registration) throw unknownId(id);
  return { kind: 'system', registration, context: registration.load(config) };
}

/** An environment on a loaded context of any id. */
export function makeEnv(loaded: LoadedEnv): GymEnv {
  return loaded.kind === 'cluster' ? makeFromContext(loaded.context) : loaded.registration.create(loaded.context);
}

/** Loads the context of `id` with `config` (validated), to build several environments on it. */
export function makeContext(id: string, config: unknown = {}): EnvContext {
  return new EnvContext(checkEnvId(id), config);
}

/** An environment on an already loaded context. */
export function makeFromContext(context: EnvContext): ClusterEnv {
  return new CONSTRUCTORS[context.id](context);
}

/**
 * Makes environment `id` (`clustergym/JobNode-v0`, `clustergym/Job-v0`, `clustergym/PolicyPair-v0`)
 * with `config` (see `EnvConfig` and docs/environments.md). Call `reset()` before `step()`.
 */
export function make(id: EnvId, config?: unknown): ClusterEnv;
/** Makes any registered environment (the other systems' ids too). */
export function make(id: string, config?: unknown): GymEnv;
export function make(id: string, config: unknown = {}): GymEnv {
  return makeEnv(loadEnv(id, config));
}
