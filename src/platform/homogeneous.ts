/**
 * Homogeneous platforms for workloads that come without one (SWF traces, Batsim workloads): the
 * machine of the trace rebuilt from its processor count.
 */
import { InputError } from '../core/errors.js';
import { parsePlatform } from './loader.js';
import type { ModelsConfig, Platform } from './platform.js';

/**
 * A homogeneous cluster for a trace that names no platform: `maxProcs` single-core nodes would
 * make every MPI job span many nodes, so the cluster has nodes of `coresPerNode` cores
 * (`ceil(maxProcs / coresPerNode)` of them, the last one smaller when it does not divide), 1 GHz x
 * 1 op/cycle cores, no contention and no power figures. Jobs from traces are `delay` jobs, so speeds
 * do not matter.
 */
export function homogeneousPlatform(maxProcs: number, coresPerNode = 1, models: Partial<ModelsConfig> = {}): Platform {
  if (!(maxProcs > 0)) throw new InputError('the workload does not say how many processors its machine had (no MaxProcs/MaxNodes header, no nb_res); give --platform');
  const full = Math.floor(maxProcs / coresPerNode);
  const rest = maxProcs - full * coresPerNode;
  const proc = (cores: number) => ({ cores, clock_rate: 1, dpflops_per_cycle: 1, static_power: 0, dynamic_power: 0, min_power: 0 });
  const nodes = [];
  if (full > 0) nodes.push({ count: full, memory_gb: 1024, processors: [proc(coresPerNode)] });
  if (rest > 0) nodes.push({ count: 1, memory_gb: 1024, processors: [proc(rest)] });
  return parsePlatform({ name: `homogeneous-${maxProcs}`, models: { memory: 'none', comm: 'shared', ...models }, clusters: [{ nodes }] }, `homogeneous platform of ${maxProcs} processors`);
}
