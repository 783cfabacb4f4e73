/**
 * Power of a processor, IRMaSim modelV1 (DESIGN §2.4).
 *
 * With `static_core = static_power / cores`:
 *
 *     P = min_power * static_power                               if no core is busy
 *     P = busy * dynamic_power + cores * static_core             otherwise (= busy * dynamic + static_power)
 *
 * A core is busy while a task holds it (for an MPI job, until the whole job releases its cores).
 * Energy is the integral of the platform's power over time, from the trajectory's first submission
 * to the makespan; the simulator keeps the platform's power as a running sum updated when a
 * processor's busy count changes, so integrating is O(1) per event.
 */

/** Power (W) of a processor with `busy` of its cores busy. */
export function processorPower(busy: number, staticPower: number, dynamicPower: number, minPower: number): number {
  if (busy <= 0) return minPower * staticPower;
  return busy * dynamicPower + staticPower;
}

/** Energy-delay product. */
export function edp(energy: number, makespan: number): number {
  return energy * makespan;
}
