/**
 * The `flow` communication model (DESIGN §11): an MPI job's communication as flows on the platform's
 * network, sharing links with every other job's by CM02 max-min fairness (`flows.ts`).
 *
 * Volumes (seed 000 §3): `comm_vol` is exchanged between every two tasks of the job on different nodes
 * (the seed's example: 2 + 2 tasks on two nodes exchange 4 x 200 MB). With `n_a` tasks on node `a` and
 * `n_b` on node `b`, the pair of nodes exchanges `V_ab = comm_vol * n_a * n_b`, half each way: a flow
 * `a -> b` and a flow `b -> a` of `V_ab / 2` each. The job communicates throughout its nominal duration
 * `T` (the longest uncontended duration of its tasks), so each flow is a steady stream that needs the rate
 * `d = V_ab / (2 T)`; it gets `r <= d` from the max-min sharing of all streams (its bound is `d`, so a
 * stream never takes more than it needs, and what it leaves goes to the others).
 *
 * Latency: a stream pays its route's latency `L` (the sum of its links' latencies, times the model's
 * latency factor: 1 under CM02) once, as a SimGrid transfer of its whole volume `d T` would: at rate `r` it
 * takes `L + d T / r` instead of the nominal `T`, so its factor is `phi = T / (L + d T / r) = 1 / (L / T + d / r)`
 * (`r / d` exactly when `L = 0`; 0 when `r = 0`). Uncontended (`r = d`) that is `1 / (1 + L / T)`.
 *
 * The job's communication factor is `S_comm = min over its streams of phi` (the slowest pair holds the
 * job back: MPI tasks synchronise), combined with memory contention as in the `shared` model:
 * `S = 1 / (t_compute / S_mem + (1 - t_compute) / S_comm)`. Streams start when the job starts and stop when
 * it ends; each start or stop re-solves only the streams that share links with it.
 */
import { CM02, FlowSolver } from './flows.js';
import type { Platform } from './platform.js';
import { platformNetwork } from './routing.js';

interface JobStreams {
  flows: number[];
  demand: number[];
  /** Per stream: its latency charge `L / T`. */
  latency: number[];
  factor: number;
}

/** A stream's factor: `r / d` without latency, else `1 / (L / T + d / r)` (module comment). */
function streamFactor(rate: number, demand: number, latencyOverT: number): number {
  if (latencyOverT === 0 || rate === 0) return rate / demand;
  return 1 / (latencyOverT + demand / rate);
}

/** The streams of the running jobs of one simulation, keyed by the caller's job object. */
export class JobNetwork<K extends object> {
  private readonly solver: FlowSolver;
  private readonly nodeHost: Int32Array;
  private readonly jobs = new Map<K, JobStreams>();
  private readonly flowJob: K[] = [];

  constructor(platform: Platform) {
    const net = platformNetwork(platform);
    this.solver = new FlowSolver(net, CM02, true);
    this.nodeHost = Int32Array.from(platform.nodeName, (n) => net.host(n));
  }

  /** Host index (in the routed network) of each platform node. */
  get hosts(): Int32Array {
    return this.nodeHost;
  }

  /**
   * Starts the streams of a job placed with `perNode[k]` tasks on `nodes[k]`, nominal duration `T` s;
   * returns the job's factor when no stream is throttled, `min over its streams of 1 / (1 + L / T)` (1
   * without latency): below it, the job is limited by contention (its communication time counts).
   */
  add(job: K, nodes: ArrayLike<number>, perNode: ArrayLike<number>, commVol: number, T: number, now: number): number {
    const s: JobStreams = { flows: [], demand: [], latency: [], factor: 1 };
    this.jobs.set(job, s);
    if (!(T > 0) || !(commVol > 0)) return 1;
    const net = this.solver.net;
    const latencyFactor = this.solver.model.latencyFactor;
    let free = 1;
    for (let a = 0; a < nodes.length; a++)
      for (let b = 0; b < nodes.length; b++) {
        if (a === b || nodes[a] === nodes[b]) continue;
        const d = (commVol * perNode[a]! * perNode[b]!) / (2 * T);
        if (!(d > 0)) continue;
        const src = this.nodeHost[nodes[a]!]!;
        const dst = this.nodeHost[nodes[b]!]!;
        const f = this.solver.startSteady(src, dst, d, now);
        const latency = (net.route(src, dst).latency * latencyFactor) / T;
        s.flows.push(f);
        s.demand.push(d);
        s.latency.push(latency);
        free = Math.min(free, streamFactor(d, d, latency));
        this.flowJob[f] = job;
      }
    return free;
  }

  /** Stops the streams of a job. */
  remove(job: K, now: number): void {
    const s = this.jobs.get(job);
    if (!s) return;
    this.jobs.delete(job);
    for (const f of s.flows) this.solver.stop(f, now);
  }

  /** The jobs whose communication factor changed since the last call, with their new factors. */
  changed(): Map<K, number> {
    const touched = new Set<K>();
    for (const f of this.solver.takeChanged()) {
      const j = this.flowJob[f];
      if (j !== undefined && this.jobs.has(j)) touched.add(j);
    }
    const out = new Map<K, number>();
    for (const j of touched) {
      const s = this.jobs.get(j)!;
      let factor = 1;
      for (let i = 0; i < s.flows.length; i++) factor = Math.min(factor, streamFactor(this.solver.currentRate(s.flows[i]!), s.demand[i]!, s.latency[i]!));
      if (factor !== s.factor) {
        s.factor = factor;
        out.set(j, factor);
      }
    }
    return out;
  }

  /** The communication factor of a running job (1 when it has no stream). */
  factor(job: K): number {
    return this.jobs.get(job)?.factor ?? 1;
  }

  /** Load on each link now (bytes/s; `FlowSolver.linkLoad`) over its bandwidth, per link of the routed network. */
  linkUtilisation(): Float64Array {
    const net = this.solver.net;
    const out = new Float64Array(net.linkCount);
    for (let l = 0; l < net.linkCount; l++) out[l] = net.linkBandwidth[l]! > 0 ? this.solver.linkLoad(l) / net.linkBandwidth[l]! : 0;
    return out;
  }
}
