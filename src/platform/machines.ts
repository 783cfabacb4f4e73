/**
 * Machines over time: the nodes of a platform seen as powered hosts (Batsim's compute resources),
 * each with its power states, what it is doing, and its energy.
 *
 * Machine `i` is the `i`-th node that computes (`machineModel`). Each machine has the power states of
 * its node (`powerStates.ts`: compute, sleep and transition pstates, Batsim's `sleep_pstates`, and the
 * power drawn in each); this module keeps what each machine is doing over time: its state (Batsim's
 * names), its pstate, and its energy, the integral of its power. Switching between pstates follows
 * Batsim's rules (`requestPState`). Each change of a machine's state integrates that machine only
 * (O(1)), never the whole platform. `bridge/batsim/session.ts` drives it from the protocol.
 */
import type { Platform } from './platform.js';
import { type PState, pstateWatts, switchDuration } from './powerStates.js';

export type { PState } from './powerStates.js';

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
  /** Per machine: its pstates (shared by the machines of a node group), and the pstate it starts in. */
  pstates: (readonly PState[])[];
  initial: number[];
  /** Per machine: SimGrid host properties (forwarded in SIMULATION_BEGINS). */
  properties: Record<string, string>[];
}

/**
 * The machines of `platform` as Batsim sees them: every node but the master host (named
 * `masterHost`, Batsim's `--master-host`) and the hosts whose `role` property is `master` or
 * `storage`, each with its node's power states (`Platform.powerStates`) and initial pstate.
 */
export function machineModel(platform: Platform, masterHost = 'master_host'): MachinePowerModel {
  const model: MachinePowerModel = { nodes: [], pstates: [], initial: [], properties: [] };
  for (let node = 0; node < platform.nodeCount; node++) {
    const props = platform.nodeDescription(node).properties ?? {};
    if (platform.nodeName[node] === masterHost || props['role'] === 'master' || props['role'] === 'storage') continue;
    model.nodes.push(node);
    model.pstates.push(platform.powerStates(node));
    model.initial.push(platform.initialPState(node));
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
      this.watts[m] = pstateWatts(ps, false);
      this.totalW += this.watts[m]!;
    }
  }

  /** The pstates of machine `m`. */
  pstates(m: number): readonly PState[] {
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
    this.change(m, COMPUTING, pstateWatts(ps, full), t);
  }

  /** Machine `m` is released by its job at `t`. */
  endJob(m: number, t: number): void {
    this.holder[m] = null;
    this.fullLoad[m] = 0;
    this.change(m, IDLE, pstateWatts(this.pstates(m)[this.pstate[m]!]!, false), t);
  }

  /** Machine `m` goes to compute pstate `p` at once (from a compute pstate). */
  setComputePState(m: number, p: number, t: number): void {
    this.pstate[m] = p;
    const ps = this.pstates(m)[p]!;
    this.change(m, this.state[m]!, pstateWatts(ps, this.fullLoad[m] === 1), t);
  }

  /** Machine `m` begins switching to pstate `p` through transition pstate `via`; returns the switch duration. */
  beginSwitch(m: number, p: number, via: number, t: number): number {
    const tr = this.pstates(m)[via]!;
    this.pstate[m] = via;
    this.change(m, this.pstates(m)[p]!.kind === 'sleep' ? SWITCHING_OFF : SWITCHING_ON, pstateWatts(tr, true), t);
    return switchDuration(tr);
  }

  /** Machine `m` ends its switch in pstate `p`. */
  endSwitch(m: number, p: number, t: number): void {
    this.pstate[m] = p;
    const ps = this.pstates(m)[p]!;
    this.change(m, ps.kind === 'sleep' ? SLEEPING : IDLE, pstateWatts(ps, false), t);
  }

  /**
   * Machine `m` is asked at `t` to go to pstate `p`, by Batsim's rules: from a compute pstate to
   * another at once; an idle machine from a compute pstate to a sleep pstate through the sleep
   * pstate's `off` transition, a sleeping one to a compute pstate through its sleep pstate's `on`
   * transition (`beginSwitch`; `endSwitch` ends it at the returned time). Refused (with the reason,
   * nothing changed): a pstate it does not have, a machine switching or computing (to sleep), sleep to
   * sleep, a transition pstate.
   */
  requestPState(m: number, p: number, t: number): { switchEnd: number | null } | { refused: string } {
    const ps = this.pstates(m);
    if (p >= ps.length) return { refused: `machine ${m} has no pstate ${p} (it has ${ps.length}: 0-${ps.length - 1})` };
    const target = ps[p]!;
    const cur = ps[this.pstate[m]!]!;
    const st = this.stateName(m);
    if (st === 'switching_on' || st === 'switching_off')
      return { refused: `machine ${m} ('${this.names[m]}') is ${st.replace('_', ' ')}: its pstate cannot change before the switch ends` };
    if (cur.kind === 'compute' && target.kind === 'compute') {
      this.setComputePState(m, p, t);
      return { switchEnd: null };
    }
    if (cur.kind === 'compute' && target.kind === 'sleep') {
      if (st === 'computing') return { refused: `machine ${m} ('${this.names[m]}') is computing job ${this.holder[m]}: it cannot be switched off` };
      return { switchEnd: t + this.beginSwitch(m, p, target.off!, t) };
    }
    if (cur.kind === 'sleep' && target.kind === 'compute') return { switchEnd: t + this.beginSwitch(m, p, cur.on!, t) };
    if (cur.kind === 'sleep' && target.kind === 'sleep')
      return {
        refused: `Switching from a sleep pstate to a non-computation pstate on machine ${m} ('${this.names[m]}') : ${this.pstate[m]} -> ${p}, which is forbidden`,
      };
    return { refused: `machine ${m}: pstate ${p} is a transition pstate, which a scheduler cannot request` };
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
