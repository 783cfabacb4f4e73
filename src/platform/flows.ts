/**
 * Flow-level network model: transfers (flows) share the links of their routes as SimGrid 3.32's CM02 and
 * LV08 models compute it (DESIGN §11), so completion times agree with SimGrid's.
 *
 * Over 600 lines: this is one solver (the maxmin system, its precision rules, the lazy component
 * updates and the completion heap share their arrays); split, each part would reach into the others'
 * state.
 *
 * A flow of `size` bytes from `src` to `dst` takes the route `R` (`routing.ts`) of latency `L = sum of
 * link latencies`. It first waits `L * latency_factor`, then transfers at the rate `x * bandwidth_factor`,
 * where the `x` of all transferring flows are the weighted max-min fair allocation (SimGrid's `maxmin`
 * solver, with its precision rules):
 *
 *     for every link l:   sum over flows f crossing l of  w(f, l) * x_f  <=  bandwidth(l)   (SHARED)
 *                         max over flows f crossing l of  w(f, l) * x_f  <=  bandwidth(l)   (FATPIPE)
 *     x_f <= bound_f = min(min bandwidth of R, gamma / (2 L))
 *
 * maximising the smallest `x_f * p_f` first, where the penalty `p_f = L + weight_S * sum over R of
 * 1/bandwidth` (1 when `L = 0`): flows with a shorter round trip get more (RTT unfairness). `w(f, l)` is 1
 * for each time `l` is on `R`, plus 0.05 for each time it is on the reverse route (crosstraffic: the
 * acknowledgements). Parameters: CM02 latency_factor 1, bandwidth_factor 1, weight_S 0; LV08 13.01, 0.97,
 * 20537; both gamma = 4194304 (`network/TCP-gamma`) and crosstraffic on (SimGrid's defaults).
 *
 * Events are incremental, as SimGrid's lazy update: when a flow starts transferring or completes, only
 * the flows connected to it through shared links (its component) are re-solved; their progress is brought
 * up to date and their completion dates rescheduled in a heap (stale entries skipped).
 *
 * A set of transfers run to completion (netsim's flows files) is `flowScenario.ts`.
 */
import type { RoutedNetwork } from './routing.js';

/** The parameters of a flow model. */
export interface FlowModelConfig {
  name: 'cm02' | 'lv08';
  latencyFactor: number;
  bandwidthFactor: number;
  weightS: number;
  /** TCP window bound: a flow's rate is at most `tcpGamma / (2 * latency)`. */
  tcpGamma: number;
  /** Reverse-route links carry 0.05 of the flow (acknowledgements). */
  crosstraffic: boolean;
}

/** SimGrid's CM02 (Casanova & Marchal 2002): no correction factors. */
export const CM02: FlowModelConfig = { name: 'cm02', latencyFactor: 1, bandwidthFactor: 1, weightS: 0, tcpGamma: 4194304, crosstraffic: true };
/** SimGrid's LV08 (Legrand & Velho 2008), its default network model. */
export const LV08: FlowModelConfig = { name: 'lv08', latencyFactor: 13.01, bandwidthFactor: 0.97, weightS: 20537, tcpGamma: 4194304, crosstraffic: true };

/** The flow model of a given name. */
export function flowModel(name: 'cm02' | 'lv08'): FlowModelConfig {
  return name === 'cm02' ? CM02 : LV08;
}

/** SimGrid's `maxmin/precision` and `surf/precision`. */
const MAXMIN_PRECISION = 1e-5;
const SURF_PRECISION = 1e-9;

const LATENCY = 0;
const TRANSFER = 1;
const DONE = 2;

/** Growable typed arrays indexed by flow id. */
function grow<T extends Float64Array | Int32Array | Uint8Array | Uint32Array>(a: T, n: number): T {
  if (a.length >= n) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/**
 * The flows of one network under one model. `start` adds a flow; `nextEventTime` and `advance` step
 * time; ids are dense (0, 1, 2, ... in start order).
 */
export class FlowSolver {
  readonly net: RoutedNetwork;
  readonly model: FlowModelConfig;

  /** Per flow. */
  private state = new Uint8Array(64);
  private remains = new Float64Array(64);
  private lastUpdate = new Float64Array(64);
  /** Rate (bytes/s, factor included) since `lastUpdate`. */
  private rate = new Float64Array(64);
  private penalty = new Float64Array(64);
  private bound = new Float64Array(64);
  private value = new Float64Array(64);
  private mark = new Uint32Array(64);
  private fixed = new Uint32Array(64);
  private listed = new Uint32Array(64);
  private listStamp = 0;
  /** The date its completion (or end of latency) is scheduled for, and its index in the heap (-1: none). */
  private eventDate = new Float64Array(64);
  private heapPos = new Int32Array(64).fill(-1);
  private finishTime = new Float64Array(64);
  /**
   * Elements (flow, link) in pools: flow `f` owns `[flowOff[f], flowOff[f] + flowLen[f])`, each with its
   * link (deduplicated per flow), its weight and its position in the link's flow list (-1: detached).
   */
  private flowOff = new Int32Array(64);
  private flowLen = new Int32Array(64);
  private elemLink = new Int32Array(256);
  private elemWeight = new Float64Array(256);
  private elemPos = new Int32Array(256);
  private elemCount = 0;
  private count = 0;

  /** Per link: the transferring flows on it and their elements (indexes into the element pools). */
  private linkFlows: number[][];
  private linkSlot: number[][];
  private readonly linkBw: Float64Array;
  private readonly linkFat: Uint8Array;
  private linkMark: Uint32Array;
  private epoch = 1;

  /** Indexed min-heap of the flows' next events (by `eventDate`): one entry per flow at most. */
  private heap: number[] = [];

  /** Scratch of the max-min solve. */
  private compLinks: Int32Array;
  private compFlows = new Int32Array(64);
  private remaining: Float64Array;
  private usage: Float64Array;
  private lightPos: Int32Array;
  private light: Int32Array;
  private rou: Float64Array;
  private saturated: Int32Array;
  private varList: number[] = [];

  /** Whether `takeChanged` lists the flows whose rate changed. */
  private readonly trackChanges: boolean;
  private changed: number[] = [];
  /** Scratch: the flows whose links `resolve` starts from (the first `nSeeds`). */
  private seeds = new Int32Array(64);
  private nSeeds = 0;
  /** Scratch: the flows `advance` completed. */
  private completed: number[] = [];

  /** `capacity`: the number of flows expected (the per-flow arrays are sized for it; they grow past it). */
  constructor(net: RoutedNetwork, model: FlowModelConfig, trackChanges = false, capacity = 64) {
    this.net = net;
    this.model = model;
    this.trackChanges = trackChanges;
    this.ensure(capacity);
    this.ensureElems(capacity * 8);
    const nl = net.linkCount;
    this.linkFlows = Array.from({ length: nl }, () => []);
    this.linkSlot = Array.from({ length: nl }, () => []);
    this.linkBw = net.linkBandwidth;
    this.linkFat = net.linkFatpipe;
    this.linkMark = new Uint32Array(nl);
    this.compLinks = new Int32Array(nl);
    this.remaining = new Float64Array(nl);
    this.usage = new Float64Array(nl);
    this.lightPos = new Int32Array(nl).fill(-1);
    this.light = new Int32Array(nl);
    this.rou = new Float64Array(nl);
    this.saturated = new Int32Array(nl);
  }

  /** Number of flows started. */
  get flowCount(): number {
    return this.count;
  }

  /** Whether a flow has completed. */
  done(f: number): boolean {
    return this.state[f] === DONE;
  }

  /** Completion time of a finished flow. */
  finish(f: number): number {
    return this.finishTime[f]!;
  }

  /** Current rate of a flow (bytes/s; 0 while in its latency phase). */
  currentRate(f: number): number {
    return this.state[f] === TRANSFER ? this.rate[f]! : 0;
  }

  /**
   * The load on a link right now, bytes/s: the sum over its transferring flows of their rate times their
   * weight on it (1 per crossing, 0.05 per crossing of the reverse route; the max for a fat pipe).
   */
  linkLoad(link: number): number {
    const list = this.linkFlows[link]!;
    const slots = this.linkSlot[link]!;
    let load = 0;
    for (let j = 0; j < list.length; j++) {
      const f = list[j]!;
      const w = this.elemWeight[slots[j]!]! * this.rate[f]!;
      load = this.linkFat[link] ? Math.max(load, w) : load + w;
    }
    return load;
  }

  /** The transferring flows on a link right now. */
  flowsOn(link: number): readonly number[] {
    return this.linkFlows[link]!;
  }

  private ensure(n: number): void {
    if (this.state.length >= n) return;
    n = Math.max(n, this.state.length * 2);
    this.state = grow(this.state, n);
    this.remains = grow(this.remains, n);
    this.lastUpdate = grow(this.lastUpdate, n);
    this.rate = grow(this.rate, n);
    this.penalty = grow(this.penalty, n);
    this.bound = grow(this.bound, n);
    this.value = grow(this.value, n);
    this.mark = grow(this.mark, n);
    this.fixed = grow(this.fixed, n);
    this.listed = grow(this.listed, n);
    this.flowOff = grow(this.flowOff, n);
    this.flowLen = grow(this.flowLen, n);
    this.eventDate = grow(this.eventDate, n);
    if (this.heapPos.length < n) {
      const old = this.heapPos.length;
      this.heapPos = grow(this.heapPos, n);
      this.heapPos.fill(-1, old);
    }
    this.finishTime = grow(this.finishTime, n);
    this.compFlows = grow(this.compFlows, n);
    this.seeds = grow(this.seeds, n);
  }

  /**
   * Starts a flow that transfers until `stop`, at most `demand` bytes/s, with no latency phase: a steady
   * stream (an MPI job's communication, `jobNetwork.ts`); returns its id. Its rate is `currentRate`.
   */
  startSteady(src: number, dst: number, demand: number, now: number): number {
    return this.start(src, dst, Infinity, now, demand, true);
  }

  /** Stops a flow at `now` (a steady stream, or a transfer cut short); the flows sharing its links are re-solved. */
  stop(f: number, now: number): void {
    if (this.state[f] === DONE) return;
    const transferring = this.state[f] === TRANSFER;
    this.state[f] = DONE;
    this.finishTime[f] = now;
    this.unschedule(f);
    if (transferring) {
      this.detach(f);
      this.resolveOne(f, now);
    }
  }

  /** The flows whose rate changed since the last call (when built with `trackChanges`). */
  takeChanged(): number[] {
    const out = this.changed;
    this.changed = [];
    return out;
  }

  /**
   * Starts a flow of `size` bytes from host `src` to host `dst` (indexes) at time `now`; returns its id.
   * `rate` caps its rate (bytes/s) as SimGrid's user rate does; `noLatency` skips the latency phase.
   */
  start(src: number, dst: number, size: number, now: number, rate = -1, noLatency = false): number {
    const f = this.count++;
    this.ensure(this.count);
    const m = this.model;
    const route = this.net.route(src, dst);
    // links and weights, merged as SimGrid's lmm expand merges repeated constraints (routes are short)
    const back = m.crosstraffic ? this.net.route(dst, src).links : [];
    const off = this.elemCount;
    this.ensureElems(off + route.links.length + back.length);
    let len = 0;
    for (let k = 0; k < route.links.length + back.length; k++) {
      const forward = k < route.links.length;
      const l = forward ? route.links[k]! : back[k - route.links.length]!;
      const w = forward ? 1 : 0.05;
      let e = off;
      while (e < off + len && this.elemLink[e] !== l) e++;
      if (e === off + len) {
        this.elemLink[e] = l;
        this.elemWeight[e] = w;
        this.elemPos[e] = -1;
        len++;
      } else if (this.linkFat[l]) this.elemWeight[e] = Math.max(this.elemWeight[e]!, w);
      else this.elemWeight[e]! += w;
    }
    this.elemCount = off + len;
    this.flowOff[f] = off;
    this.flowLen[f] = len;
    let penalty = route.latency;
    const links = route.links;
    if (m.weightS > 0) for (let k = 0; k < links.length; k++) penalty += m.weightS / this.linkBw[links[k]!]!;
    let userBound = -1;
    for (let k = 0; k < links.length; k++) {
      const bw = this.linkBw[links[k]!]!;
      if (userBound === -1 || bw < userBound) userBound = bw;
    }
    const userRate = rate / m.bandwidthFactor;
    if (userRate >= 0 && userRate < userBound) userBound = userRate;
    const latCurrent = route.latency;
    const latency = noLatency ? 0 : route.latency * m.latencyFactor;
    let bound: number;
    if (userBound < 0) bound = latCurrent > 0 ? m.tcpGamma / (2 * latCurrent) : -1;
    else bound = latCurrent > 0 ? Math.min(userBound, m.tcpGamma / (2 * latCurrent)) : userBound;
    this.bound[f] = bound;
    this.penalty[f] = latency > 0 || (noLatency && penalty > 0) ? penalty : 1;
    this.remains[f] = size;
    this.lastUpdate[f] = now;
    this.rate[f] = 0;
    this.value[f] = 0;
    if (len === 0) {
      // no link: SimGrid completes it when its latency is paid
      this.state[f] = LATENCY;
      this.schedule(f, now + latency);
    } else if (latency > 0) {
      this.state[f] = LATENCY;
      this.schedule(f, now + latency);
    } else {
      this.activate(f, now);
    }
    return f;
  }

  /** The date of the next completion or end of a latency phase (Infinity if none). */
  nextEventTime(): number {
    return this.heap.length > 0 ? this.eventDate[this.heap[0]!]! : Infinity;
  }

  /**
   * Processes every event at the next event date `now` (events within SimGrid's 1e-9 s of it happen
   * together); returns the flows completed at `now` (a list the next call reuses).
   */
  advance(now: number): readonly number[] {
    const completed = this.completed;
    completed.length = 0;
    this.nSeeds = 0;
    while (this.heap.length > 0 && Math.abs(this.eventDate[this.heap[0]!]! - now) < SURF_PRECISION) {
      const f = this.heap[0]!;
      this.unschedule(f);
      if (this.state[f] === LATENCY && this.flowLen[f]! > 0) {
        this.state[f] = TRANSFER;
        this.lastUpdate[f] = now;
        this.attach(f);
        this.seeds[this.nSeeds++] = f;
      } else {
        this.state[f] = DONE;
        this.finishTime[f] = now;
        if (this.flowLen[f]! > 0 && this.elemPos[this.flowOff[f]!]! >= 0) {
          this.detach(f);
          this.seeds[this.nSeeds++] = f;
        }
        completed.push(f);
      }
    }
    if (this.nSeeds > 0) this.resolve(now);
    return completed;
  }

  /** A flow with no latency starts transferring at once. */
  private activate(f: number, now: number): void {
    this.state[f] = TRANSFER;
    this.lastUpdate[f] = now;
    this.attach(f);
    this.resolveOne(f, now);
  }

  /** `resolve` from one flow's links. */
  private resolveOne(f: number, now: number): void {
    this.seeds[0] = f;
    this.nSeeds = 1;
    this.resolve(now);
  }

  private ensureElems(n: number): void {
    if (this.elemLink.length >= n) return;
    this.elemLink = grow(this.elemLink, n);
    this.elemWeight = grow(this.elemWeight, n);
    this.elemPos = grow(this.elemPos, n);
  }

  private attach(f: number): void {
    const end = this.flowOff[f]! + this.flowLen[f]!;
    for (let e = this.flowOff[f]!; e < end; e++) {
      const l = this.elemLink[e]!;
      this.elemPos[e] = this.linkFlows[l]!.length;
      this.linkFlows[l]!.push(f);
      this.linkSlot[l]!.push(e);
    }
  }

  private detach(f: number): void {
    const end = this.flowOff[f]! + this.flowLen[f]!;
    for (let e = this.flowOff[f]!; e < end; e++) {
      const l = this.elemLink[e]!;
      const list = this.linkFlows[l]!;
      const slots = this.linkSlot[l]!;
      const p = this.elemPos[e]!;
      const lastFlow = list[list.length - 1]!;
      const lastElem = slots[slots.length - 1]!;
      list[p] = lastFlow;
      slots[p] = lastElem;
      this.elemPos[lastElem] = p;
      list.pop();
      slots.pop();
      this.elemPos[e] = -1;
    }
  }

  /**
   * Re-solves the component of the links of the first `nSeeds` of `seeds` (the flows connected to them
   * through shared links, SimGrid's modified constraint set) and reschedules the completions of its flows.
   */
  private resolve(now: number): void {
    const epoch = ++this.epoch;
    const links = this.compLinks;
    const flows = this.compFlows;
    let nLinks = 0;
    let nFlows = 0;
    for (let k = 0; k < this.nSeeds; k++) {
      const s = this.seeds[k]!;
      for (let e = this.flowOff[s]!, end = e + this.flowLen[s]!; e < end; e++) {
        const l = this.elemLink[e]!;
        if (this.linkMark[l] !== epoch) {
          this.linkMark[l] = epoch;
          links[nLinks++] = l;
        }
      }
    }
    for (let i = 0; i < nLinks; i++) {
      const list = this.linkFlows[links[i]!]!;
      for (let j = 0; j < list.length; j++) {
        const f = list[j]!;
        if (this.mark[f] === epoch) continue;
        this.mark[f] = epoch;
        flows[nFlows++] = f;
        for (let e = this.flowOff[f]!, end = e + this.flowLen[f]!; e < end; e++) {
          const l = this.elemLink[e]!;
          if (this.linkMark[l] !== epoch) {
            this.linkMark[l] = epoch;
            links[nLinks++] = l;
          }
        }
      }
    }
    this.maxmin(links, nLinks, epoch);
    // flows whose rate changed: progress brought up to date at the old rate (SimGrid's
    // update_remains_lazy), completion rescheduled; the others keep their date
    const factor = this.model.bandwidthFactor;
    for (let k = 0; k < nFlows; k++) {
      const f = flows[k]!;
      const r = this.value[f]! * factor;
      if (r === this.rate[f] && this.lastUpdate[f] !== now) continue;
      const delta = now - this.lastUpdate[f]!;
      if (this.remains[f]! > 0) {
        this.remains[f] = this.remains[f]! - this.rate[f]! * delta;
        if (this.remains[f]! < MAXMIN_PRECISION * SURF_PRECISION) this.remains[f] = 0;
      }
      this.lastUpdate[f] = now;
      if (this.trackChanges && r !== this.rate[f]) this.changed.push(f);
      this.rate[f] = r;
      if (r > 0) this.schedule(f, now + (this.remains[f]! > 0 ? this.remains[f]! / r : 0));
      else this.unschedule(f);
    }
  }

  /** SimGrid's maxmin solver on the links of a component (`lmm::MaxMin::maxmin_solve`). */
  private maxmin(links: Int32Array, nLinks: number, epoch: number): void {
    const rem = this.remaining;
    const usage = this.usage;
    const lightPos = this.lightPos;
    const light = this.light;
    const rou = this.rou;
    let nLight = 0;
    const bw = this.linkBw;
    for (let k = 0; k < nLinks; k++) {
      const l = links[k]!;
      const list = this.linkFlows[l]!;
      for (let j = 0; j < list.length; j++) this.value[list[j]!] = 0;
      rem[l] = bw[l]!;
      if (!(rem[l]! > bw[l]! * MAXMIN_PRECISION)) continue;
      let u = 0;
      const slots = this.linkSlot[l]!;
      const fat = this.linkFat[l] === 1;
      for (let j = 0; j < list.length; j++) {
        const f = list[j]!;
        const w = this.elemWeight[slots[j]!]!;
        if (w > 0) {
          const q = w / this.penalty[f]!;
          if (!fat) u += q;
          else if (u < q) u = q;
        }
      }
      usage[l] = u;
      if (u > 0) {
        lightPos[l] = nLight;
        light[nLight] = l;
        rou[nLight++] = rem[l]! / u;
      }
    }
    const removeLight = (l: number) => {
      const i = lightPos[l]!;
      if (i < 0) return;
      const lastL = light[nLight - 1]!;
      light[i] = lastL;
      rou[i] = rou[nLight - 1]!;
      lightPos[lastL] = i;
      nLight--;
      lightPos[l] = -1;
    };
    const fixedMark = epoch;
    const varList = this.varList;
    const saturated = this.saturated;
    while (nLight > 0) {
      // the constraints that saturate first
      let minUsage = -1;
      let nSat = 0;
      for (let i = 0; i < nLight; i++) {
        const r = rou[i]!;
        if (minUsage < 0 || minUsage > r) {
          minUsage = r;
          nSat = 0;
          saturated[nSat++] = light[i]!;
        } else if (minUsage === r) saturated[nSat++] = light[i]!;
      }
      // their variables not yet fixed
      let nVar = 0;
      const stamp = ++this.listStamp;
      for (let si = 0; si < nSat; si++) {
        const l = saturated[si]!;
        const list = this.linkFlows[l]!;
        const slots = this.linkSlot[l]!;
        for (let j = 0; j < list.length; j++) {
          const f = list[j]!;
          if (this.fixed[f] === fixedMark) continue;
          if (this.elemWeight[slots[j]!]! > 0 && this.listed[f] !== stamp) {
            this.listed[f] = stamp;
            varList[nVar++] = f;
          }
        }
      }
      let minBound = -1;
      for (let vi = 0; vi < nVar; vi++) {
        const f = varList[vi]!;
        const b = this.bound[f]! * this.penalty[f]!;
        if (this.bound[f]! > 0 && b < minUsage) minBound = minBound < 0 ? b : Math.min(minBound, b);
      }
      for (let vi = 0; vi < nVar; vi++) {
        const f = varList[vi]!;
        if (minBound < 0) this.value[f] = minUsage / this.penalty[f]!;
        else if (Math.abs(minBound - this.bound[f]! * this.penalty[f]!) < MAXMIN_PRECISION) this.value[f] = this.bound[f]!;
        else continue;
        this.fixed[f] = fixedMark;
        for (let e = this.flowOff[f]!, end = e + this.flowLen[f]!; e < end; e++) {
          const l = this.elemLink[e]!;
          const w = this.elemWeight[e]!;
          if (this.linkFat[l] !== 1) {
            rem[l] = rem[l]! - w * this.value[f]!;
            if (rem[l]! < bw[l]! * MAXMIN_PRECISION) rem[l] = 0;
            usage[l] = usage[l]! - w / this.penalty[f]!;
            if (usage[l]! < MAXMIN_PRECISION) usage[l] = 0;
          } else {
            let u = 0;
            const list = this.linkFlows[l]!;
            const slots = this.linkSlot[l]!;
            for (let j = 0; j < list.length; j++) {
              const g = list[j]!;
              if (this.value[g]! > 0) continue;
              const wg = this.elemWeight[slots[j]!]!;
              if (wg > 0) u = Math.max(u, wg / this.penalty[g]!);
            }
            usage[l] = u;
          }
          if (!(usage[l]! > MAXMIN_PRECISION) || !(rem[l]! > bw[l]! * MAXMIN_PRECISION)) removeLight(l);
          else if (lightPos[l]! >= 0) rou[lightPos[l]!] = rem[l]! / usage[l]!;
        }
      }
    }
  }

  /** Sets (or moves) a flow's next event. */
  private schedule(f: number, date: number): void {
    this.eventDate[f] = date;
    let i = this.heapPos[f]!;
    if (i < 0) {
      i = this.heap.length;
      this.heap.push(f);
      this.heapPos[f] = i;
    }
    this.siftDown(this.siftUp(i));
  }

  /** Removes a flow's next event, if any. */
  private unschedule(f: number): void {
    const i = this.heapPos[f]!;
    if (i < 0) return;
    const h = this.heap;
    const last = h.pop()!;
    this.heapPos[f] = -1;
    if (last === f) return;
    h[i] = last;
    this.heapPos[last] = i;
    this.siftDown(this.siftUp(i));
  }

  private siftUp(i: number): number {
    const h = this.heap;
    const f = h[i]!;
    const d = this.eventDate[f]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const g = h[p]!;
      if (this.eventDate[g]! <= d) break;
      h[i] = g;
      this.heapPos[g] = i;
      i = p;
    }
    h[i] = f;
    this.heapPos[f] = i;
    return i;
  }

  private siftDown(i: number): void {
    const h = this.heap;
    const n = h.length;
    const f = h[i]!;
    const d = this.eventDate[f]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.eventDate[h[c + 1]!]! < this.eventDate[h[c]!]!) c++;
      const g = h[c]!;
      if (this.eventDate[g]! >= d) break;
      h[i] = g;
      this.heapPos[g] = i;
      i = c;
    }
    h[i] = f;
    this.heapPos[f] = i;
  }
}
