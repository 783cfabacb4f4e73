/**
 * Seeded synthetic workloads (DESIGN §3). Arrivals, sizes and runtimes come from
 * `derive(seed, 'workload')`; requested-time factors from `derive(seed, 'workload/req_time')` and the
 * optional memory and communication fields from `derive(seed, 'workload/resources')`, so switching
 * those on does not change the arrivals, sizes or runtimes. The same configuration and seed give the
 * same jobs, draw for draw. Each model has a streaming form
 * (`function*`, for million-job benchmarks: one job at a time, nothing retained) and a collecting form
 * returning a `Workload`. Generated jobs have ids `"1"`, `"2"`, ... in submission order.
 *
 * The models: `poisson.ts` (a Poisson process of arrivals, sizes and runtimes from configured
 * distributions) and `lublin.ts` (the Lublin–Feitelson model of rigid jobs with its daily cycle);
 * what they share (distributions, common fields, the generated job) is in `generatorCommon.ts`. This
 * module is their entry point: it re-exports both and dispatches on `model`.
 */
import { inputErrorFromIssues } from '../core/errors.js';
import type { Job, Workload } from './job.js';
import { generateLublin, type LublinConfig, LublinConfigSchema, lublinJobs } from './lublin.js';
import { generatePoisson, type PoissonConfig, PoissonConfigSchema, poissonJobs } from './poisson.js';
import { parseConfig } from './generatorCommon.js';

export { type Distribution, DistributionSchema, sample } from './generatorCommon.js';
export { generatePoisson, type PoissonConfig, PoissonConfigSchema, poissonJobs } from './poisson.js';
export {
  gammaCdf,
  generateLublin,
  LUBLIN_BATCH,
  LUBLIN_INTERACTIVE,
  LUBLIN_TYPELESS,
  type LublinConfig,
  LublinConfigSchema,
  lublinDailyWeights,
  lublinJobs,
  type LublinParams,
  lublinParams,
  logGamma,
} from './lublin.js';

/** A generator configuration as given by the caller: `{ "model": "lublin", ... }` or Poisson (`model` absent or `"poisson"`). */
export type GeneratorConfig = PoissonConfig | LublinConfig;

/** Validates a generator configuration read from `where` (e.g. a JSON file), dispatching on `model`. */
export function parseGeneratorConfig(data: unknown, where: string): GeneratorConfig {
  const model = typeof data === 'object' && data !== null ? (data as { model?: unknown }).model : undefined;
  if (model === 'lublin') return parseConfig(LublinConfigSchema, data, where);
  if (model === undefined || model === 'poisson') return parseConfig(PoissonConfigSchema, data, where);
  throw inputErrorFromIssues(where, [{ path: ['model'], message: `expected "poisson" or "lublin", found ${JSON.stringify(model)}` }]);
}

/** Whether a configuration is the Lublin model's (`model: "lublin"`; Poisson otherwise). */
function isLublin(config: GeneratorConfig): config is LublinConfig {
  return (config as { model?: unknown }).model === 'lublin';
}

/** Streams the jobs of either model. */
export function generateJobs(config: GeneratorConfig, seed: number | string, where?: string): Generator<Job, void, undefined> {
  return isLublin(config) ? lublinJobs(config, seed, where) : poissonJobs(config, seed, where);
}

/** Generates a workload with either model. */
export function generateWorkload(config: GeneratorConfig, seed: number | string, where?: string): Workload {
  return isLublin(config) ? generateLublin(config, seed, where) : generatePoisson(config, seed, where);
}
