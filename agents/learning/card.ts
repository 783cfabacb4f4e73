/**
 * What a model is, for its card and the leaderboard (DESIGN §14: models are named by their method,
 * not by the folder they come from):
 *
 * - `method`: how its weights were obtained: `es-linear` (a linear score trained by evolution
 *   strategies: evolve.ts, or flat.ts without hidden units), `es-mlp` (flat.ts with hidden units),
 *   `ppo`, `imitation+ppo` (PPO after a behaviour-cloning warm start), `imitation` or
 *   `imitation+es` (imitation.ts: DAgger on a lookahead teacher, then ES fine-tuning);
 * - `neural`: whether the policy is a network with a hidden layer;
 * - `observes`: what its observation showed (envs/observes.ts), from its training env config.
 *
 * Cards written before these fields existed get them derived from the model's config.json;
 * `observes` then takes the defaults of that time (the `trajectory` horizon on the cluster envs,
 * Slurm-v0 and CoSched-v0; `actual` task durations on Fair-v0), since that is what those models saw.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonText } from '../../src/core/json.js';
import { envObserves, LIVE_OBSERVES, type Observes } from '../../envs/observes.js';
import type { PpoConfig } from './config.js';

/** A model's method, whether it is neural, and what it observes. */
export interface ModelIdentity {
  method: string;
  neural: boolean;
  observes: Observes;
}

/**
 * The identity of a model trained by `clustergym train` with PPO config `c`. An imitation run
 * (imitation.ts) says where its selected weights came from (`lineage`: its start, an imitation
 * round, ES generations after an imitation round, or ES generations from the start) and whether its
 * hidden layers feed its scores (`hiddenUsed`: a residual network started at a linear model whose
 * selected weights are its start still has zero output weights: it is that linear model).
 */
export function modelIdentity(c: PpoConfig, o: { lineage?: 'start' | 'imitation' | 'imitation+es' | 'es'; hiddenUsed?: boolean } = {}): ModelIdentity {
  const layers = c.network.kernel.length > 0 || c.network.wait.length > 0;
  const neural = layers && (o.hiddenUsed ?? true);
  let method: string;
  if (c.imitation) {
    const start = c.imitation.init === 'base' ? 'es-linear' : 'untrained';
    method = { start, imitation: 'imitation', 'imitation+es': 'imitation+es', es: neural ? 'es-mlp' : start }[o.lineage ?? 'imitation+es'];
  } else if (c.es) method = layers ? 'es-mlp' : 'es-linear';
  else method = c.baseline && c.baseline.warm_start_steps > 0 ? 'imitation+ppo' : 'ppo';
  return { method, neural, observes: envObserves(c.env.id, c.env.config) };
}

/** The identity of a flat-observation model (flat.ts): linear, or with `hidden` tanh units. */
export function flatIdentity(c: { env: { id: string; config: Record<string, unknown> }; hidden?: number }): ModelIdentity {
  const neural = (c.hidden ?? 0) > 0;
  return { method: neural ? 'es-mlp' : 'es-linear', neural, observes: envObserves(c.env.id, c.env.config) };
}

/** What a model trained before `observe` existed saw (see the module comment). */
export function legacyObserves(envId: string, config: Record<string, unknown>): Observes {
  if (config['observe'] !== undefined) return envObserves(envId, config);
  const o = envObserves(envId, config);
  if (envId === 'clustergym/Fair-v0') return { ...o, durations: 'actual' };
  if (envId === 'clustergym/Malleable-v0') return o;
  return { ...o, horizon: 'trajectory' };
}

/**
 * The identity of the model in `dir`: its card's `method`, `neural` and `observes`, or, for a card
 * written before them, derived from its config.json (and `linear.json` for a flat model).
 */
export function cardIdentity(dir: string): ModelIdentity {
  const read = (f: string) => parseJsonText(readFileSync(join(dir, f), 'utf8'), join(dir, f)) as Record<string, unknown>;
  const card = read('card.json');
  if (typeof card['method'] === 'string' && typeof card['neural'] === 'boolean' && card['observes'] !== undefined)
    return { method: card['method'], neural: card['neural'], observes: card['observes'] as Observes };
  // a directory without its training config (a card alone) cannot say what it is
  if (!existsSync(join(dir, 'config.json'))) return { method: 'unknown', neural: false, observes: LIVE_OBSERVES };
  const config = read('config.json') as {
    env: { id: string; config: Record<string, unknown> };
    hidden?: number;
    network?: PpoConfig['network'];
  } & Partial<PpoConfig>;
  const observes = legacyObserves(config.env.id, config.env.config ?? {});
  if (existsSync(join(dir, 'linear.json'))) return { ...flatIdentity(config), observes };
  const neural = (config.network?.kernel?.length ?? 1) > 0 || (config.network?.wait?.length ?? 1) > 0;
  const method = config.es ? (neural ? 'es-mlp' : 'es-linear') : config.baseline && config.baseline.warm_start_steps > 0 ? 'imitation+ppo' : 'ppo';
  return { method, neural, observes };
}

/** The CPU seconds (user + system) this process spent since `start` (`process.cpuUsage()`): a model card's training cost. */
export function cpuSeconds(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}
