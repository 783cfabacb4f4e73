/**
 * Batsim's machines (resources) on a clustergym platform, with their power states and energy.
 *
 * A Batsim resource is a clustergym node (a SimGrid host): resource `i` is node `i` in platform
 * order. Each machine has power states (`pstates`) as SimGrid's energy plugin describes them: a
 * compute pstate has a core speed and two wattages, idle and full load; a sleep pstate has a wattage
 * and the two transition pstates that switch the machine off and back on (Batsim's `sleep_pstates`
 * host property `sleep:off:on`). Switching off (on) takes the time of one operation at the speed of
 * the off (on) transition pstate, as Batsim executes one flop in it, and draws its full wattage.
 *
 * Power of a machine, as Batsim's SimGrid energy plugin gives it:
 *
 *     P = full_p    while it computes a parallel-task job (its cores at full load)
 *     P = idle_p    while idle, sleeping (p a sleep pstate) or running a `delay` job (Batsim's delay
 *                   jobs sleep on their hosts)
 *     P = full_t    while switching (t the transition pstate)
 *
 * Energy is the integral of P over time, kept per machine and in total; each change of a machine's
 * state integrates that machine only (O(1)), never the whole platform.
 */
import type { Platform } from '../../src/platform/platform.js';
import { InputError } from '../../src/core/errors.js';
import { processorPower } from '../../src/platform/power.js';

/** One power state of a machine. */
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

/** What a machine is doing, with Batsim's names. */
export const MACHINE_STATES = ['sleeping', 'idle', 'computing', 'switching_on', 'switching_off'] as const;
export type MachineState = (typeof MACHINE_STATES)[number];
const SLEEPING = 0;
const IDLE = 1;
const COMPUTING = 2;
const SWITCHING_ON = 3;
const SWITCHING_OFF = 4;

/** The machines of a platform (Batsim's compute resources) and their power description. */
export interface MachinePowerModel {
  /** Per machine (resource id): its node in the platform. */
  nodes: number[];
  /** Per machine: its pstates, and the pstate it starts in. */
  pstates: PState[][];
  initial: number[];
  /** Per machine: SimGrid host properties (forwarded in SIMULATION_BEGINS). */
  properties: Record<string, string>[];
}

/** The processors' power of node `n` with no core busy and with all busy (`src/platform/power.ts`). */
function nodeWatts(platform: Platform, n: number): { idle: number; full: number } {
  let idle = 0;
  let full = 0;
  const p0 = platform.nodeFirstProc[n]!;
  for (let p = p0; p < p0 + platform.nodeProcCount[n]!; p++) {
    const s = platform.procStaticPower[p]!;
    const d = platform.procDynamicPower[p]!;
    const m = platform.procMinPower[p]!;
    idle += processorPower(0, s, d, m);
    full += processorPower(platform.procCoreCount[p]!, s, d, m);
  }
  return { idle, full };
}

/**
 * The machines of `platform` as Batsim sees them: every node but the master host (named
 * `masterHost`, Batsim's `--master-host`) and the hosts whose `role` property is `master` or
 * `storage`. A SimGrid host keeps its power states (`wattage_per_state`: idle and all-cores watts;
 * the `sleep_pstates` property `sleep:off:on` marks the sleep and transition states); a node of a
 * JSON platform has one compute pstate whose speed is its cores' speed and whose wattages are its
 * processors' power with no core busy and with all busy.
 */
export function machineModel(platform: Platform, masterHost = 'master_host'): MachinePowerModel {
  const model: MachinePowerModel = { nodes: [], pstates: [], initial: [], properties: [] };
  let n = 0;
  for (const c of platform.description.clusters)
    for (const d of c.nodes) {
      const node = n++;
      const props = d.properties ?? {};
      if (d.name === masterHost || props['role'] === 'master' || props['role'] === 'storage') continue;
      const w = nodeWatts(platform, node);
      let pstates: PState[];
      if (d.pstates && d.pstates.length > 0) {
        pstates = d.pstates.map((ps) => ({ kind: 'compute', speed: ps.speed, idleW: ps.idle ?? w.idle, fullW: ps.all_cores ?? ps.idle ?? w.full }));
        for (const group of (props['sleep_pstates'] ?? '').split(',').filter((g) => g.trim() !== '')) {
          const [sleep, off, on] = group.split(':').map((x) => Number(x.trim()));
          for (const k of [sleep, off, on])
            if (k === undefined || !Number.isInteger(k) || k < 0 || k >= pstates.length)
              throw new InputError(`host ${d.name}: prop sleep_pstates ${JSON.stringify(group)}: expected sleep:off:on, pstates below ${pstates.length}`);
          pstates[sleep!] = { ...pstates[sleep!]!, kind: 'sleep', off: off!, on: on! };
          pstates[off!] = { ...pstates[off!]!, kind: 'transition' };
          pstates[on!] = { ...pstates[on!]!, kind: 'transition' };
        }
      } else pstates = [{ kind: 'compute', speed: platform.coreMops[platform.nodeFirstCore[node]!]! * 1e6, idleW: w.idle, fullW: w.full }];
      model.nodes.push(node);
      model.pstates.push(pstates);
      model.initial.push(d.pstate ?? 0);
      model.properties.push(props);
    }
  return model;
}

/** The machines: state, pstate, energy, and the time spent in each state. */
export class Machines {
  readonly count: number;
  readonly names: string[];
  /** Per machine: its node in the platform. */
  readonly node: Int32Array;
  readonly model: MachinePowerModel;
  /** Per machine: current pstate, state (index in MACHINE_STATES), power now (W), energy so far (J) at `last`. */
  readonly pstate: Int32Array;
  readonly state: Uint8Array;
  readonly watts: Float64Array;
  private readonly energyAt: Float64Array;
  private readonly last: Float64Array;
  /** Per machine: the job holding it, or null. */
  readonly holder: (string | null)[];
  /** Per machine: 1 while it computes at full load (a parallel-task job). */
  private readonly fullLoad: Uint8Array;
  /** Total time spent in each state, summed over the machines (up to each machine's last change). */
  private readonly timeIn = new Float64Array(MACHINE_STATES.length);
  private totalW = 0;
  private totalE = 0;
  private totalLast = 0;

  constructor(platform: Platform, model: MachinePowerModel) {
    this.count = model.nodes.length;
    this.names = model.nodes.map((n) => platform.nodeName[n]!);
    this.node = Int32Array.from(model.nodes);
    this.model = model;
    this.pstate = Int32Array.from(model.initial);
    this.state = new Uint8Array(this.count);
    this.watts = new Float64Array(this.count);
    this.energyAt = new Float64Array(this.count);
    this.last = new Float64Array(this.count);
    this.holder = new Array<string | null>(this.count).fill(null);
    this.fullLoad = new Uint8Array(this.count);
    for (let m = 0; m < this.count; m++) {
      const ps = model.pstates[m]![model.initial[m]!]!;
      this.state[m] = ps.kind === 'sleep' ? SLEEPING : IDLE;
      this.watts[m] = ps.idleW;
      this.totalW += ps.idleW;
    }
  }

  /** The pstates of machine `m`. */
  pstates(m: number): PState[] {
    return this.model.pstates[m]!;
  }

  /** Batsim's name of the state of machine `m`. */
  stateName(m: number): MachineState {
    return MACHINE_STATES[this.state[m]!]!;
  }

  /** Whether machine `m` can start a job now: idle (not held), in a compute pstate. */
  canCompute(m: number): boolean {
    return this.state[m] === IDLE && this.pstates(m)[this.pstate[m]!]!.kind === 'compute';
  }

  /** Core speed of machine `m` in its current pstate (operations per second). */
  speed(m: number): number {
    return this.pstates(m)[this.pstate[m]!]!.speed;
  }

  /** Energy consumed by machine `m` up to `t` (J). */
  energyOf(m: number, t: number): number {
    return this.energyAt[m]! + this.watts[m]! * (t - this.last[m]!);
  }

  /** Energy consumed by all machines up to `t` (J). */
  energy(t: number): number {
    return this.totalE + this.totalW * (t - this.totalLast);
  }

  /** Total time the machines spent in each state up to `t`. */
  timeInStates(t: number): Record<MachineState, number> {
    const out = new Float64Array(this.timeIn);
    for (let m = 0; m < this.count; m++) out[this.state[m]!]! += t - this.last[m]!;
    return Object.fromEntries(MACHINE_STATES.map((s, i) => [s, out[i]!])) as Record<MachineState, number>;
  }

  /** Machine `m` starts computing job `job` at `t` (`full`: at full load, a parallel-task job). */
  startJob(m: number, job: string, full: boolean, t: number): void {
    const ps = this.pstates(m)[this.pstate[m]!]!;
    this.holder[m] = job;
    this.fullLoad[m] = full ? 1 : 0;
    this.change(m, COMPUTING, full ? ps.fullW : ps.idleW, t);
  }

  /** Machine `m` is released by its job at `t`. */
  endJob(m: number, t: number): void {
    this.holder[m] = null;
    this.fullLoad[m] = 0;
    this.change(m, IDLE, this.pstates(m)[this.pstate[m]!]!.idleW, t);
  }

  /** Machine `m` goes to compute pstate `p` at once (from a compute pstate). */
  setComputePState(m: number, p: number, t: number): void {
    this.pstate[m] = p;
    const ps = this.pstates(m)[p]!;
    this.change(m, this.state[m]!, this.fullLoad[m] ? ps.fullW : ps.idleW, t);
  }

  /** Machine `m` begins switching to pstate `p` through transition pstate `via`; returns the switch duration. */
  beginSwitch(m: number, p: number, via: number, t: number): number {
    const tr = this.pstates(m)[via]!;
    this.pstate[m] = via;
    this.change(m, this.pstates(m)[p]!.kind === 'sleep' ? SWITCHING_OFF : SWITCHING_ON, tr.fullW, t);
    return 1 / tr.speed;
  }

  /** Machine `m` ends its switch in pstate `p`. */
  endSwitch(m: number, p: number, t: number): void {
    this.pstate[m] = p;
    const ps = this.pstates(m)[p]!;
    this.change(m, ps.kind === 'sleep' ? SLEEPING : IDLE, ps.idleW, t);
  }

  private change(m: number, state: number, watts: number, t: number): void {
    const e = this.energyOf(m, t);
    this.timeIn[this.state[m]!]! += t - this.last[m]!;
    this.totalE = this.energy(t);
    this.totalLast = t;
    this.totalW += watts - this.watts[m]!;
    this.energyAt[m] = e;
    this.last[m] = t;
    this.state[m] = state;
    this.watts[m] = watts;
  }
}
