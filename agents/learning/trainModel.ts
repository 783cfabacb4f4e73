/**
 * `clustergym train`'s dispatch: a training config trains by its algorithm (docs/agents.md):
 * imitation then ES fine-tuning when it has `imitation` (imitation.ts), evolution strategies of the
 * linear policy when it has `es` (evolve.ts), else PPO (train.ts).
 */
import type { PpoConfig } from './config.js';
import { trainEs } from './evolve.js';
import { trainImitation } from './imitation.js';
import { type TrainOptions, type TrainResult, train } from './train.js';

/** Trains `c` with its algorithm (see the module comment). */
export function trainModel(c: PpoConfig, options: TrainOptions): Promise<TrainResult> {
  if (c.imitation) return trainImitation(c, options);
  return c.es ? trainEs(c, options) : train(c, options);
}
