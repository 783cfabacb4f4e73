/**
 * The bridge's view of the gym registry: makes environments by id and config (one loaded
 * `EnvContext` per distinct `(id, config)`, shared by the envs made with it, so `make_vec(16)` loads
 * a trace once), and turns the environments' errors into protocol errors:
 *
 * | thrown by the env | error code | details |
 * | --- | --- | --- |
 * | `InputError` for an unknown id | `unknown_env_id` | `{ env_ids }` |
 * | `InputError` of a config | `bad_config` | `{ issues: [{ path, message }] }` (paths as `$.k`) |
 * | `InvalidActionError` | `invalid_action` | `{ action, reason, mask }` |
 * | `EpisodeOverError` | `bad_state` | |
 */
import { InputError } from '../src/core/errors.js';
import { allEnvIds, EpisodeOverError, InvalidActionError, isEnvId, type LoadedEnv, loadEnv, makeEnv } from '../envs/index.js';
import { encodeNdArray } from './ndarray.js';
import type { BridgeEnv, EnvFactory } from './server.js';

/** Splits a config error message into `{path, message}` issues (one per `$.path: message` line). */
export function configIssues(message: string): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  for (const line of message.split('\n')) {
    const m = /(\$[^\s:]*): (.*)$/.exec(line.trim());
    if (m) issues.push({ path: m[1]!, message: m[2]! });
  }
  return issues;
}

/** An `EnvFactory` over the gym registry. Contexts are cached (at most `maxContexts`, oldest evicted). */
export function registryFactory(maxContexts = 16): EnvFactory {
  const contexts = new Map<string, LoadedEnv>();
  return {
    ids: () => allEnvIds(),
    make(envId, config) {
      const key = `${envId}\u0000${JSON.stringify(config)}`;
      let ctx = contexts.get(key);
      if (!ctx) {
        ctx = loadEnv(envId, config);
        contexts.set(key, ctx);
        if (contexts.size > maxContexts) contexts.delete(contexts.keys().next().value!);
      }
      return makeEnv(ctx) as unknown as BridgeEnv;
    },
    classify(e) {
      if (e instanceof InvalidActionError)
        return { code: 'invalid_action', message: e.message, details: { action: e.action as number, reason: e.reason, mask: encodeNdArray(e.mask) } };
      if (e instanceof EpisodeOverError) return { code: 'bad_state', message: e.message };
      if (e instanceof InputError) {
        if (/unknown environment id/.test(e.message)) return { code: 'unknown_env_id', message: e.message, details: { env_ids: allEnvIds() } };
        return { code: 'bad_config', message: e.message, details: { issues: configIssues(e.message) } };
      }
      return null;
    },
  };
}

export { isEnvId };
