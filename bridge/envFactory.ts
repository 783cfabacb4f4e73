/**
 * What the bridge needs of environments (`BridgeEnv`, made by an `EnvFactory`), and the factory of
 * the gym registry: makes environments by id and config (one loaded
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
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { InputError } from '../src/core/errors.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import { allEnvIds, EpisodeOverError, InvalidActionError, isEnvId, type LoadedEnv, loadEnv, makeEnv } from '../envs/index.js';
import { encodeNdArray } from './ndarray.js';
import { BridgeError, type ErrorCode, limitError, type SpaceDescriptor } from './protocol.js';

/** What the bridge needs of an environment. */
export interface BridgeEnv {
  readonly observationSpace: SpaceDescriptor;
  readonly actionSpace: SpaceDescriptor;
  reset(args: { seed?: number | undefined; options?: Record<string, unknown> | undefined }): { observation: unknown; info: Record<string, unknown> };
  /**
   * Throws what `reset(args)` would throw for a bad seed or bad options, changing nothing (optional):
   * `reset_batch` checks every env's reset with it before any env resets.
   */
  checkReset?(args: { seed?: number | undefined; options?: Record<string, unknown> | undefined }): void;
  step(action: number): { observation: unknown; reward: number; terminated: boolean; truncated: boolean; info: Record<string, unknown> };
  actionMask(): Uint8Array;
  /**
   * What the env does with an action its mask forbids: `noop` (the env steps it as a no-op, so a
   * batch passes it through) or `raise`/absent (a batch refuses it before any env moves).
   */
  readonly invalidAction?: 'noop' | 'raise';
  close(): void;
}

/** Makes environments and classifies their errors. */
export interface EnvFactory {
  /** Registered env ids. */
  ids(): string[];
  /** Makes an env; throws for an unknown id or a bad config. */
  make(envId: string, config: Record<string, unknown>): BridgeEnv;
  /** The factory's own limits, reported by `hello` (optional). */
  limits?(): Record<string, number>;
  /** Maps an error thrown by `make`, `reset` or `step` to an error reply, or null if it is a bug. */
  classify(e: unknown): { code: ErrorCode; message: string; details?: unknown } | null;
}

/** What the factory lets a client load (each raised or set by a flag of `clustergym serve`). */
export interface FactoryOptions {
  /** Loaded contexts kept for reuse (oldest evicted). */
  maxContexts?: number | undefined;
  /** `--data-root` (repeatable): the folders whose files a config may name; default the working directory. The embedded `data/` is always allowed. */
  roots?: string[] | undefined;
  /** `--max-jobs`: jobs of a generated or inline workload at most. */
  maxJobs?: number | undefined;
  /** `--max-file-bytes`: size of a file a config names at most. */
  maxFileBytes?: number | undefined;
}

/** The factory's default limits. */
export const FACTORY_LIMITS = { maxJobs: 1_000_000, maxFileBytes: 256 * 1024 * 1024 } as const;

function within(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}

/**
 * Checks every string of a config that names something on disk (every env's file fields, whatever
 * their key): it must be a regular file (or a folder) under an allowed root, after symbolic links, and
 * a file no larger than `maxFileBytes`. Strings naming nothing on disk are left to the env (which
 * says "not found"). Errors name the config path and the file, never its content.
 */
export function checkConfigFiles(config: unknown, roots: string[], maxFileBytes: number, path = '$'): void {
  if (typeof config === 'string') {
    let st: ReturnType<typeof statSync> | undefined;
    try {
      st = statSync(config);
    } catch {
      return; // names nothing: the env reports it
    }
    let real: string;
    try {
      real = realpathSync(config);
    } catch {
      throw new BridgeError('forbidden', `${path}: ${JSON.stringify(config)} cannot be resolved`, { path });
    }
    if (!roots.some((r) => within(r, real)))
      throw new BridgeError(
        'forbidden',
        `${path}: ${JSON.stringify(config)} is outside the server's data roots (${roots.join(', ')}); start clustergym serve with --data-root DIR to allow a folder`,
        { path, roots },
      );
    if (!st.isFile() && !st.isDirectory())
      throw new BridgeError('forbidden', `${path}: ${JSON.stringify(config)} is not a regular file (devices, FIFOs and sockets are refused)`, { path });
    if (st.isFile() && st.size > maxFileBytes) throw limitError(`file size (bytes) of ${path}`, st.size, maxFileBytes, '--max-file-bytes');
    return;
  }
  if (Array.isArray(config)) {
    for (let i = 0; i < config.length; i++) checkConfigFiles(config[i], roots, maxFileBytes, `${path}[${i}]`);
    return;
  }
  if (config !== null && typeof config === 'object') for (const [k, v] of Object.entries(config)) checkConfigFiles(v, roots, maxFileBytes, `${path}.${k}`);
}

/**
 * Checks the job counts a config asks for, before anything is loaded or generated: a generator's
 * `jobs`, the episode length `trajectory.length` of a generator (each reset generates that many jobs,
 * whatever `generator.jobs` says), an inline workload's `jobs` list.
 */
export function checkConfigJobs(config: Record<string, unknown>, maxJobs: number): void {
  const gen = config.generator as { jobs?: unknown } | undefined;
  if (gen && typeof gen === 'object') {
    const n = gen.jobs;
    if ((typeof n === 'number' || typeof n === 'bigint') && Number(n) > maxJobs) throw limitError('$.generator.jobs', Number(n), maxJobs, '--max-jobs');
    const t = config.trajectory as { length?: unknown } | undefined;
    const len = t && typeof t === 'object' ? t.length : undefined;
    if ((typeof len === 'number' || typeof len === 'bigint') && Number(len) > maxJobs)
      throw limitError('$.trajectory.length', Number(len), maxJobs, '--max-jobs');
  }
  const w = config.workload as { jobs?: unknown } | undefined;
  if (w && typeof w === 'object' && Array.isArray(w.jobs) && w.jobs.length > maxJobs) throw limitError('$.workload.jobs', w.jobs.length, maxJobs, '--max-jobs');
}

/** A JSON key of a config (bigints, which JSON cannot write, as strings). */
function configKey(envId: string, config: unknown): string {
  return `${envId}\u0000${JSON.stringify(config, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
}

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
export function registryFactory(options: FactoryOptions = {}): EnvFactory {
  const maxContexts = options.maxContexts ?? 16;
  const maxJobs = options.maxJobs ?? FACTORY_LIMITS.maxJobs;
  const maxFileBytes = options.maxFileBytes ?? FACTORY_LIMITS.maxFileBytes;
  const roots = [...(options.roots ?? [process.cwd()]), resolve(PACKAGE_ROOT, 'data')].map((r) => {
    try {
      return realpathSync(r);
    } catch {
      return resolve(r);
    }
  });
  const contexts = new Map<string, LoadedEnv>();
  return {
    ids: () => allEnvIds(),
    limits: () => ({ max_jobs: maxJobs, max_file_bytes: maxFileBytes }),
    make(envId, config) {
      checkConfigJobs(config, maxJobs);
      checkConfigFiles(config, roots, maxFileBytes);
      const key = configKey(envId, config);
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
