/**
 * The evolution-strategies step every ES trainer of this folder takes (evolve.ts: the linear
 * job/job-node policy; flat.ts: the flat-observation policies; imitation.ts: fine-tuning a
 * network's weights): antithetic Gaussian perturbations with centred-rank fitness shaping
 * (Salimans et al., 2017), lower fitness is better.
 *
 *     for k = 1..population:  eps_k ~ N(0, I);  f+_k = fitness(theta + sigma eps_k),  f-_k = fitness(theta - sigma eps_k)
 *     theta <- theta - learning_rate * sum_k (r(f+_k) - r(f-_k)) eps_k / population
 *
 * with `r` the centred rank of a fitness among the generation's 2 x population values (in
 * [-0.5, 0.5], so one extreme episode cannot dominate a step). The noise is drawn from `noise` in
 * a fixed order (eps_1, then eps_2, ...), so a generation is a function of its noise stream, and a
 * run resumed at generation g takes the same steps.
 */
import type { Rng } from '../../src/core/rng.js';

/** The step's hyperparameters. */
export interface EsStepSettings {
  /** Antithetic pairs (2 x population candidates). */
  population: number;
  /** Standard deviation of the parameter noise. */
  sigma: number;
  /** Step size. */
  learning_rate: number;
}

/**
 * One generation: scores the 2 x population candidates around `theta` with `fitness` (lower is
 * better; the candidate array is reused, copy it to keep it) and moves `theta` in place. Returns the
 * candidates' fitnesses in evaluation order (+eps_1, -eps_1, +eps_2, ...).
 */
export function esGeneration(theta: Float64Array, s: EsStepSettings, noise: Rng, fitness: (candidate: Float64Array) => number): number[] {
  const size = theta.length;
  const eps: Float64Array[] = [];
  const f: number[] = [];
  const candidate = new Float64Array(size);
  for (let k = 0; k < s.population; k++) {
    const e = new Float64Array(size);
    for (let i = 0; i < size; i++) e[i] = noise.normal();
    eps.push(e);
    for (const sign of [1, -1]) {
      for (let i = 0; i < size; i++) candidate[i] = theta[i]! + sign * s.sigma * e[i]!;
      f.push(fitness(candidate));
    }
  }
  const sorted = [...f].sort((a, b) => a - b);
  const rank = (x: number) => sorted.indexOf(x) / Math.max(1, f.length - 1) - 0.5;
  const step = new Float64Array(size);
  for (let k = 0; k < s.population; k++) {
    const w = rank(f[2 * k]!) - rank(f[2 * k + 1]!);
    for (let i = 0; i < size; i++) step[i]! += w * eps[k]![i]!;
  }
  for (let i = 0; i < size; i++) theta[i]! -= (s.learning_rate * step[i]!) / s.population;
  return f;
}

/**
 * Keeps the best parameters seen on fixed validation episodes (the ES trainers' model is the best
 * theta there, not the last: the rank-shaped step follows the Gaussian-smoothed fitness, whose
 * optimum can lie off a sharp optimum of the fitness itself). Lower fitness is better.
 */
export interface BestTheta {
  generation: number;
  fitness: number;
  theta: number[];
}

/** `best` updated with `theta` of generation `g` scored `f` on the validation episodes (strictly better replaces). */
export function keepBest(best: BestTheta | null, g: number, f: number, theta: ArrayLike<number>): BestTheta {
  return !best || f < best.fitness ? { generation: g, fitness: f, theta: Array.from(theta) } : best;
}
