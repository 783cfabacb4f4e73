/**
 * Power states of a node, as SimGrid's energy plugin and Batsim describe them (DESIGN §12): the
 * pstates a machine can be switched between and the power it draws in each.
 *
 * A **compute** pstate has a core speed (operations per second) and two wattages, idle and full load;
 * a **sleep** pstate has a wattage (its idle one) and the two **transition** pstates that switch the
 * machine off and back on (Batsim's `sleep_pstates` host property, `sleep:off:on` per sleep state,
 * comma-separated). Switching off (on) takes the time of one operation at the speed of the off (on)
 * transition pstate, `1 / speed` seconds, as Batsim executes one flop in it, and draws its full wattage.
 *
 * Where the states come from:
 * - a SimGrid host keeps every power state of its `speed` list and `wattage_per_state`
 *   (`PowerStateDescription`): `idleW = idle`, `fullW = all_cores` (a state without wattages takes the
 *   node's processor figures below);
 * - a node without power states (native and IRMaSim JSON) has one compute pstate: its cores' speed,
 *   `idleW` and `fullW` its processors' power (`power.ts`) with no core busy and with all busy.
 *
 * Power of a machine in pstate `p` (transition pstate `t` while it switches):
 *
 *     P = fullW_p    while it computes a parallel-task job (its cores at full load)
 *     P = idleW_p    while idle, sleeping (p a sleep pstate) or running a `delay` job (Batsim's delay
 *                    jobs sleep on their hosts)
 *     P = fullW_t    while switching
 *
 * Energy is the integral of P over time. The model is pure: `Platform.powerStates(node)` gives a node's
 * states (computed once per node group), and the machines (`machines.ts`) keep the state of each machine
 * over time.
 */
import { InputError } from '../core/errors.js';
import { processorPower } from './power.js';

/**
 * One power state of a SimGrid host as described: its speed (flop/s per core) and, when the platform
 * gives them (`wattage_per_state`), its power when idle, with one core busy ("epsilon") and with all
 * cores busy, W.
 */
export interface PowerStateDescription {
  speed: number;
  idle?: number | undefined;
  epsilon?: number | undefined;
  all_cores?: number | undefined;
}

/** One power state of a machine, compiled. */
export interface PState {
  /** `compute`: runs jobs; `sleep`: a sleep state; `transition`: a switching-off or -on state. */
  kind: 'compute' | 'sleep' | 'transition';
  /** Core speed in operations per second in this state. */
  speed: number;
  /** Watts when idle (or asleep). */
  idleW: number;
  /** Watts at full load. */
  fullW: number;
  /** For a sleep pstate: the pstates that switch the machine off and on. */
  off?: number;
  on?: number;
}

/** What the power states of a node are computed from (a node group's description). */
export interface PowerSource {
  processors: readonly { cores: number; static_power: number; dynamic_power: number; min_power: number }[];
  pstates?: readonly PowerStateDescription[] | undefined;
  properties?: Readonly<Record<string, string>> | undefined;
}

/** The processors' power (`power.ts`) of a node with no core busy and with all busy, W. */
export function idleAndFullWatts(node: PowerSource): { idle: number; full: number } {
  let idle = 0;
  let full = 0;
  for (const p of node.processors) {
    idle += processorPower(0, p.static_power, p.dynamic_power, p.min_power);
    full += processorPower(p.cores, p.static_power, p.dynamic_power, p.min_power);
  }
  return { idle, full };
}

/**
 * The power states of `node` (named `name` in errors), whose cores run `coreSpeed` operations per
 * second in its current state (see the module comment). A malformed `sleep_pstates` is an `InputError`
 * naming the host.
 */
export function nodePowerStates(node: PowerSource, name: string, coreSpeed: number): PState[] {
  const w = idleAndFullWatts(node);
  if (!node.pstates || node.pstates.length === 0) return [{ kind: 'compute', speed: coreSpeed, idleW: w.idle, fullW: w.full }];
  const pstates: PState[] = node.pstates.map((ps) => ({
    kind: 'compute',
    speed: ps.speed,
    idleW: ps.idle ?? w.idle,
    fullW: ps.all_cores ?? ps.idle ?? w.full,
  }));
  for (const group of (node.properties?.['sleep_pstates'] ?? '').split(',').filter((g) => g.trim() !== '')) {
    const [sleep, off, on] = group.split(':').map((x) => Number(x.trim()));
    for (const k of [sleep, off, on])
      if (k === undefined || !Number.isInteger(k) || k < 0 || k >= pstates.length)
        throw new InputError(`host ${name}: prop sleep_pstates ${JSON.stringify(group)}: expected sleep:off:on, pstates below ${pstates.length}`);
    pstates[sleep!] = { ...pstates[sleep!]!, kind: 'sleep', off: off!, on: on! };
    pstates[off!] = { ...pstates[off!]!, kind: 'transition' };
    pstates[on!] = { ...pstates[on!]!, kind: 'transition' };
  }
  return pstates;
}

/** Power of a machine in pstate `ps`: `fullW` at full load (a parallel-task job), else `idleW`. */
export function pstateWatts(ps: PState, fullLoad: boolean): number {
  return fullLoad ? ps.fullW : ps.idleW;
}

/** Time to switch through transition pstate `tr`: one operation at its speed, s. */
export function switchDuration(tr: PState): number {
  return 1 / tr.speed;
}
