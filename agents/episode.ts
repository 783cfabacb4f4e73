/**
 * Agents of any registered environment, and the loop that plays one episode with one (the seed
 * systems' agents use it; the cluster envs' `runEpisode` in agents/heuristics adds trajectories).
 */
import type { GymEnv } from '../envs/gym.js';

/** What an env's `step` puts in `info.metrics` at the end. */
export type MetricsOf<E extends GymEnv> = NonNullable<ReturnType<E['step']>['info']['metrics']>;

/** An observation of env `E`. */
export type ObservationOf<E extends GymEnv> = ReturnType<E['step']>['observation'];

/** An agent of env `E`: a name, and its action in the env's current state (the env and its last observation). */
export interface EnvAgent<E extends GymEnv> {
  readonly name: string;
  act(env: E, observation: ObservationOf<E>): number;
}

/** What one episode gave: the env's end metrics, the return and the steps. */
export interface PlayedEpisode<M> {
  metrics: M;
  return: number;
  steps: number;
}

/** Plays one episode of `env` (reset with `seed`) with `agent` until it terminates or is truncated. */
export function playEpisode<E extends GymEnv>(env: E, agent: EnvAgent<E>, seed: number): PlayedEpisode<MetricsOf<E>> {
  let observation = env.reset({ seed }).observation as ObservationOf<E>;
  let ret = 0;
  for (;;) {
    const r = env.step(agent.act(env, observation)) as ReturnType<E['step']>;
    ret += r.reward;
    observation = r.observation as ObservationOf<E>;
    if (r.terminated || r.truncated) {
      if (r.info.metrics === undefined) throw new Error(`${env.id}: the episode ended without info.metrics`);
      return { metrics: r.info.metrics as MetricsOf<E>, return: ret, steps: r.info.steps };
    }
  }
}
