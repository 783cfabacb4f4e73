/**
 * Platforms for workloads that come without one: the machine of a trace rebuilt from its processor
 * count (SWF traces, Batsim workloads), else the embedded default.
 */
import { InputError } from '../core/errors.js';
import { DEFAULT_PLATFORM } from '../core/paths.js';
import { loadPlatform, parsePlatform } from './loader.js';
import { DEFAULT_NODE_MEMORY_GB, type ModelsConfig, type Platform } from './platform.js';

/**
 * A homogeneous cluster for a trace that names no platform: `maxProcs` single-core nodes would
 * make every MPI job span many nodes, so the cluster has nodes of `coresPerNode` cores
 * (`ceil(maxProcs / coresPerNode)` of them, the last one smaller when it does not divide), 1 GHz x
 * 1 op/cycle cores, no contention and no power figures. Jobs from traces are `delay` jobs, so speeds
 * do not matter.
 */
export function homogeneousPlatform(maxProcs: number, coresPerNode = 1, models: Partial<ModelsConfig> = {}): Platform {
  return parsePlatform(homogeneousPlatformJson(maxProcs, coresPerNode, models), `homogeneous platform of ${maxProcs} processors`);
}

/** The native platform JSON of `homogeneousPlatform` (what `--export` writes as `platform.json`). */
export function homogeneousPlatformJson(maxProcs: number, coresPerNode = 1, models: Partial<ModelsConfig> = {}): Record<string, unknown> {
  if (!(maxProcs > 0))
    throw new InputError('the workload does not say how many processors its machine had (no MaxProcs/MaxNodes header, no nb_res); give --platform');
  const full = Math.floor(maxProcs / coresPerNode);
  const rest = maxProcs - full * coresPerNode;
  const proc = (cores: number) => ({ cores, clock_rate: 1, dpflops_per_cycle: 1, static_power: 0, dynamic_power: 0, min_power: 0 });
  const nodes = [];
  if (full > 0) nodes.push({ count: full, memory_gb: DEFAULT_NODE_MEMORY_GB, processors: [proc(coresPerNode)] });
  if (rest > 0) nodes.push({ count: 1, memory_gb: DEFAULT_NODE_MEMORY_GB, processors: [proc(rest)] });
  return { name: `homogeneous-${maxProcs}`, models: { memory: 'none', comm: 'shared', ...models }, clusters: [{ nodes }] };
}

/**
 * The platform of a run that names none: for a workload that knows its machine's size (SWF
 * `MaxProcs`/`MaxNodes`, Batsim `nb_res`, a converted trace's `max_procs`, a Lublin generator's
 * `maxProcs`), a homogeneous cluster of that many cores (`coresPerNode` per node, default 1);
 * otherwise the embedded default platform (`data/platforms/hetero-20.json`). The CLI and the
 * environments use this one rule.
 */
export function defaultPlatformFor(maxProcs: number | undefined, models: Partial<ModelsConfig> = {}, coresPerNode = 1): Platform {
  if (maxProcs !== undefined) return homogeneousPlatform(maxProcs, coresPerNode, models);
  return loadPlatform(DEFAULT_PLATFORM, { models });
}
