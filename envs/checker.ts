/**
 * An environment checker mirroring Gymnasium's `check_env` (and the action-mask checks of
 * sb3-contrib), for clustergym's environments or any `Env`:
 *
 * 1. the spaces are JSON-serialisable descriptors (they survive `JSON.stringify`/`parse`);
 * 2. `reset` returns `{ observation, info }`; the observation is inside the observation space, the
 *    info carries `action_mask` (one byte per action, 0/1) and `time`; `options: {}` is accepted;
 * 3. `reset({ seed })` twice gives the same observation, and the same episode under the same
 *    actions (observations, rewards, flags and masks compared step by step);
 * 4. optionally, another seed gives a different episode (configs with `origin: "random"` or a
 *    generator);
 * 5. every step returns an observation inside the space, a finite reward and boolean flags; every
 *    action the mask allows is accepted (tried on a clone) and every action it forbids follows the
 *    env's `invalid_action` rule (envs/invalidAction.ts) and leaves the state unchanged: in `raise`
 *    mode it throws `InvalidActionError`; in `noop` mode it returns the same observation and mask,
 *    the same time, both flags false and `info.invalid_action`, or, past the rule's limit, takes an
 *    allowed action named by `info.action_taken` (checked at a few states per episode); a value
 *    outside the action space always throws `InvalidActionError`;
 * 6. a random masked agent completes the requested number of episodes;
 * 7. `close()` twice is fine.
 *
 * `checkEnv` throws an `EnvCheckError` naming the first failed check, or returns what it checked.
 */
import { Rng } from '../src/core/rng.js';
import type { GymEnv as Env, GymObservation } from './gym.js';
import { EpisodeOverError, InvalidActionError } from './errors.js';
import { sampleMasked, spaceViolation } from './spaces.js';

/** A failed check. */
export class EnvCheckError extends Error {
  constructor(check: string, detail: string) {
    super(`env check failed: ${check}: ${detail}`);
    this.name = 'EnvCheckError';
  }
}

/** Options of `checkEnv`. */
export interface CheckOptions {
  /** Episodes the random masked agent must complete (default 5). */
  episodes?: number;
  /** Seed of the checks (default 0). */
  seed?: number;
  /** Also check that another seed gives a different episode (default false). */
  seedChangesEpisode?: boolean;
  /** States per episode where every action is tried (default 3; 0: never). */
  exhaustiveStates?: number;
  /** Stop an episode after this many steps (default 100,000: a safety net). */
  maxSteps?: number;
  /** Close the env at the end and check that closing twice is fine (default true). */
  close?: boolean;
}

/** What `checkEnv` checked. */
export interface CheckReport {
  checks: string[];
  episodes: number;
  steps: number;
  /** Actions tried exhaustively (accepted + refused). */
  actionsTried: number;
}

function fail(check: string, detail: string): never {
  throw new EnvCheckError(check, detail);
}

/** A digest of an observation (for equality checks). */
export function observationDigest(o: GymObservation): string {
  // a dict's boxes in their key order (the order the env builds them in)
  const parts = o instanceof Float32Array ? [o] : Object.values(o);
  let h = 2166136261;
  let n = 0;
  for (const a of parts) {
    const u = new Uint32Array(a.buffer, a.byteOffset, a.length);
    for (let i = 0; i < u.length; i++) {
      h ^= u[i]!;
      h = Math.imul(h, 16777619);
    }
    n += a.length;
  }
  return `${n}:${h >>> 0}`;
}

function maskDigest(m: Uint8Array): string {
  let h = 2166136261;
  for (let i = 0; i < m.length; i++) {
    h ^= m[i]!;
    h = Math.imul(h, 16777619);
  }
  return `${m.length}:${h >>> 0}`;
}

interface Trace {
  digests: string[];
  actions: number[];
  steps: number;
}

/** Runs an episode with a seeded random masked agent; returns digests of every state. */
function runEpisode(env: Env, seed: number, agentSeed: number, maxSteps: number, actions?: number[]): Trace {
  const rng = new Rng(`check/${agentSeed}`);
  const r = env.reset({ seed, options: {} });
  const digests = [`${observationDigest(r.observation)}|${maskDigest(r.info.action_mask)}|${r.info.time}`];
  const taken: number[] = [];
  for (let s = 0; s < maxSteps; s++) {
    const a = actions ? actions[s]! : sampleMasked(env.actionMask(), rng);
    if (a === undefined || a < 0) break;
    taken.push(a);
    const st = env.step(a);
    digests.push(`${observationDigest(st.observation)}|${maskDigest(st.info.action_mask)}|${st.info.time}|${st.reward}|${st.terminated}|${st.truncated}`);
    if (st.terminated || st.truncated) break;
  }
  return { digests, actions: taken, steps: taken.length };
}

/** Runs the checks of the module comment on `env`. */
export function checkEnv(env: Env, options: CheckOptions = {}): CheckReport {
  const seed = options.seed ?? 0;
  const episodes = options.episodes ?? 5;
  const maxSteps = options.maxSteps ?? 100_000;
  const exhaustive = options.exhaustiveStates ?? 3;
  const checks: string[] = [];
  let totalSteps = 0;
  let tried = 0;
  const nActions = env.actionSpace.n;

  // 1. spaces
  for (const [name, space] of [
    ['observationSpace', env.observationSpace],
    ['actionSpace', env.actionSpace],
  ] as const) {
    const round = JSON.parse(JSON.stringify(space)) as unknown;
    if (JSON.stringify(round) !== JSON.stringify(space)) fail('spaces', `${name} does not survive JSON`);
  }
  if (env.actionSpace.type !== 'Discrete' || !(nActions >= 1)) fail('spaces', `actionSpace must be Discrete(n >= 1), got ${JSON.stringify(env.actionSpace)}`);
  checks.push('spaces are JSON-serialisable descriptors');

  // 2. reset
  const r1 = env.reset({ seed, options: {} });
  if (!r1 || typeof r1 !== 'object' || !('observation' in r1) || !('info' in r1)) fail('reset', 'must return { observation, info }');
  const v = spaceViolation(env.observationSpace, r1.observation);
  if (v) fail('reset observation', v);
  const m = r1.info.action_mask;
  if (!(m instanceof Uint8Array) || m.length !== nActions) fail('reset info', `action_mask must be a Uint8Array of ${nActions}`);
  for (let i = 0; i < m.length; i++) if (m[i]! > 1) fail('reset info', `action_mask[${i}] = ${m[i]}`);
  if (typeof r1.info.time !== 'number') fail('reset info', 'time must be a number');
  if (maskDigest(env.actionMask()) !== maskDigest(m)) fail('actionMask', 'actionMask() differs from info.action_mask');
  checks.push('reset returns { observation, info } inside the spaces; options {} accepted');

  // 3. determinism
  const o1 = observationDigest(r1.observation);
  const r2 = env.reset({ seed, options: {} });
  if (observationDigest(r2.observation) !== o1) fail('determinism', `reset(seed=${seed}) twice gives different observations`);
  const a = runEpisode(env, seed, 1, maxSteps);
  const b = runEpisode(env, seed, 999, maxSteps, a.actions);
  if (a.digests.length !== b.digests.length || a.digests.some((d, i) => d !== b.digests[i]))
    fail('determinism', `the same seed and actions give a different episode (first difference at step ${a.digests.findIndex((d, i) => d !== b.digests[i])})`);
  totalSteps += a.steps + b.steps;
  checks.push('reset(seed) twice gives the same observation and the same episode under the same actions');

  // 4. another seed
  if (options.seedChangesEpisode) {
    const c = runEpisode(env, seed + 1, 1, maxSteps);
    totalSteps += c.steps;
    if (c.digests.length === a.digests.length && c.digests.every((d, i) => d === a.digests[i]))
      fail('seeding', `seeds ${seed} and ${seed + 1} give the same episode`);
    checks.push('another seed gives another episode');
  }

  // 5 + 6. random masked episodes, steps inside spaces, exhaustive action checks at a few states
  const rng = new Rng(`check/agent/${seed}`);
  for (let e = 0; e < episodes; e++) {
    let observation = env.reset({ seed: seed + 1000 + e, options: {} }).observation;
    const stateRng = new Rng(`check/states/${seed}/${e}`);
    let done = false;
    for (let s = 0; s < maxSteps && !done; s++) {
      const mask = env.actionMask().slice();
      if (exhaustive > 0 && (s < exhaustive || stateRng.next() < 0.02)) tried += tryAllActions(env, mask, observation);
      const act = sampleMasked(mask, rng);
      if (act < 0) fail('mask', `episode ${e} step ${s}: the mask allows nothing but the episode is not over`);
      const st = env.step(act);
      observation = st.observation;
      totalSteps++;
      const vi = spaceViolation(env.observationSpace, st.observation);
      if (vi) fail('step observation', `episode ${e} step ${s}: ${vi}`);
      if (typeof st.reward !== 'number' || !Number.isFinite(st.reward)) fail('step reward', `episode ${e} step ${s}: ${st.reward}`);
      if (typeof st.terminated !== 'boolean' || typeof st.truncated !== 'boolean') fail('step flags', 'terminated and truncated must be booleans');
      if (st.info.action_mask.length !== nActions) fail('step info', 'action_mask has the wrong length');
      done = st.terminated || st.truncated;
      if (done) {
        if (!st.info.metrics) fail('episode end', 'info.metrics missing at the end of an episode');
        let threw = false;
        try {
          env.step(0);
        } catch (err) {
          threw = err instanceof EpisodeOverError;
        }
        if (!threw) fail('episode end', 'step() after the end must throw EpisodeOverError');
      }
    }
    if (!done) fail('episodes', `episode ${e} did not end within ${maxSteps} steps`);
  }
  checks.push(`observations and rewards inside their spaces over ${episodes} random masked episodes`);
  if (exhaustive > 0) checks.push('every allowed action accepted, every forbidden action refused (raise) or a no-op (noop) with the state unchanged');

  // 7. close
  if (options.close ?? true) {
    env.close();
    env.close();
    checks.push('close() twice is fine');
  }
  return { checks, episodes, steps: totalSteps, actionsTried: tried };
}

/**
 * Tries every action at the current state: allowed ones on clones, forbidden ones on `env` itself
 * (`raise` mode) or on a clone (`noop` mode: re-cloned when the rule's limit made it take an action).
 */
function tryAllActions(env: Env, mask: Uint8Array, observation: GymObservation): number {
  const before = `${maskDigest(env.actionMask())}`;
  const obsBefore = observationDigest(observation);
  const reference = env.clone();
  const noop = env.invalidAction === 'noop';
  let probe: Env | null = null;
  let n = 0;
  for (let a = 0; a < mask.length; a++) {
    if (mask[a] === 1) {
      const c = env.clone();
      if (maskDigest(c.actionMask()) !== before) fail('clone', 'a clone has another action mask than its original');
      try {
        c.step(a);
      } catch (e) {
        fail('mask', `action ${a} is allowed by the mask but step() threw: ${(e as Error).message}`);
      } finally {
        c.close();
      }
    } else if (noop) {
      probe ??= env.clone();
      let r: ReturnType<Env['step']>;
      try {
        r = probe.step(a);
      } catch (e) {
        fail('mask', `action ${a} is forbidden by the mask and the env is in invalid_action "noop" mode, but step() threw: ${(e as Error).message}`);
      }
      if (r.info.invalid_action !== true) fail('mask', `forbidden action ${a} in noop mode: info.invalid_action must be true`);
      if (r.info.action_taken !== undefined) {
        // past the limit: the lowest allowed action was taken instead
        if (r.info.action_taken !== mask.indexOf(1))
          fail('mask', `forbidden action ${a} replaced by ${r.info.action_taken}, not the lowest allowed action ${mask.indexOf(1)}`);
        probe.close();
        probe = null;
      } else {
        if (r.terminated || r.truncated) fail('mask', `forbidden action ${a} in noop mode ended the episode`);
        if (maskDigest(probe.actionMask()) !== before) fail('mask', `forbidden action ${a} in noop mode changed the mask`);
        if (observationDigest(r.observation) !== obsBefore) fail('mask', `forbidden action ${a} in noop mode changed the observation`);
        if (!Number.isFinite(r.reward) || r.reward > 0)
          fail('mask', `forbidden action ${a} in noop mode: reward ${r.reward} (expected minus the penalty, <= 0)`);
      }
    } else {
      let threw: unknown = null;
      try {
        env.step(a);
      } catch (e) {
        threw = e;
      }
      if (!(threw instanceof InvalidActionError))
        fail('mask', `action ${a} is forbidden by the mask but step() ${threw ? `threw ${(threw as Error).name}` : 'accepted it'}`);
      if (maskDigest(env.actionMask()) !== before) fail('mask', `a refused action ${a} changed the state`);
    }
    n++;
  }
  probe?.close();
  for (const bad of [-1, mask.length, 0.5]) {
    let threw: unknown = null;
    try {
      env.step(bad);
    } catch (e) {
      threw = e;
    }
    if (!(threw instanceof InvalidActionError)) fail('mask', `action ${bad} (outside the space) must throw InvalidActionError`);
  }
  // the refused actions left the state as it was: the same allowed action gives the same result
  const first = mask.indexOf(1);
  if (first >= 0) {
    const after = env.clone();
    const x = reference.step(first);
    const y = after.step(first);
    if (observationDigest(x.observation) !== observationDigest(y.observation) || x.reward !== y.reward || x.info.time !== y.info.time)
      fail('mask', 'refused actions changed the state (the same action then gives another result)');
    after.close();
  }
  reference.close();
  return n;
}
