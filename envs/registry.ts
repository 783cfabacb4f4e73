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
 */
import { InputError } from '../src/core/errors.js';
import { ENV_IDS, type EnvId } from './config.js';
import { EnvContext } from './context.js';
import type { ClusterEnv } from './env.js';
import { JobEnv } from './jobEnv.js';
import { JobNodeEnv } from './jobNodeEnv.js';
import { PolicyPairEnv } from './policyPairEnv.js';

const CONSTRUCTORS: Record<EnvId, new (ctx: EnvContext) => ClusterEnv> = {
  'clustergym/JobNode-v0': JobNodeEnv,
  'clustergym/Job-v0': JobEnv,
  'clustergym/PolicyPair-v0': PolicyPairEnv,
};

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

/** Checks an id; throws an `InputError` listing the valid ids. */
export function checkEnvId(id: string): EnvId {
  if (isEnvId(id)) return id;
  const near = ENV_IDS.find((v) => v.toLowerCase() === id.toLowerCase() || v.endsWith(`/${id}`));
  throw new InputError(`unknown environment id ${JSON.stringify(id)}${near ? ` (did you mean ${near}?)` : ''}; valid ids: ${ENV_IDS.join(', ')}`);
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
export function make(id: string, config: unknown = {}): ClusterEnv {
  return makeFromContext(makeContext(id, config));
}
