/**
 * Jobs on specific nodes (`nodeSelect`): what each node has free (`NodeMap`: units, which are CPUs, or
 * whole nodes of one unit on a whole-node platform, memory, and GPUs: issue 45), what each running job holds there, and
 * which nodes a job gets, as Slurm 22.05's select plugin chooses them without topology, node weights or
 * GRES placement (`evalNodes`: cons_tres `choose_nodes` and `_eval_nodes`; `pickNodes`, the whole-node case).
 * GPUs (`--gres=gpu[:TYPE]:N`, N on each node of the job) only make a node usable or not: a node is usable
 * by a GPU job when it has N GPUs of the job's type free (`NodeMap.gpusFor`, `usableUnits`).
 *
 * Node order is the platform's: groups in order, the nodes of a group consecutive (slurm.conf order when
 * each group's nodes are consecutive there, as on the measured clusters). A job's candidate nodes are
 * those of its partition's groups, in that order; consecutive runs of usable nodes do not cross a node
 * outside the partition.
 */
import type { JobShape } from './config.js';
import type { SlurmPlatform } from './platform.js';

/** A running job's share of the nodes: node indices (ascending), units, memory (MB) and GPUs on each. */
export interface NodeAlloc {
  nodes: Int32Array;
  units: Int32Array;
  mem: Float64Array;
  gpus: Int32Array;
  /** Held whole (`--exclusive`, or a whole-node platform): nothing else may use these nodes. */
  whole: boolean;
}

/** Which nodes hold what (see the module comment). */
export class NodeMap {
  /** First node of each group, and the node count at the end (`base[G]`). */
  readonly base: Int32Array;
  /** The group of each node. */
  readonly groupOf: Int32Array;
  /** Units (CPUs, or 1 for a whole node) and memory (MB; Infinity: not consumable) of each node. */
  readonly cap: Int32Array;
  readonly memCap: Float64Array;
  /** Units and memory free on each node now. */
  readonly free: Int32Array;
  readonly memFree: Float64Array;
  /** GPUs of each node, their type (index into the platform's `gpuTypes`, -1: none) and GPUs free now. */
  readonly gpuCap: Int32Array;
  readonly gpuTypeOf: Int32Array;
  readonly gpuFree: Int32Array;
  /** Jobs on each node. */
  readonly jobsOn: Int32Array;
  /** The slot holding each node whole (-1: none). */
  readonly slotOn: Int32Array;
  /** What each running slot holds. */
  readonly held = new Map<number, NodeAlloc>();
  /** Per partition: its nodes (ascending). */
  readonly partitionNodes: Int32Array[];

  /** Nodes as the platform's groups give them (a whole-node platform's groups are nodes of one unit). */
  constructor(platform: SlurmPlatform) {
    const G = platform.groupNames.length;
    this.base = new Int32Array(G + 1);
    for (let g = 0; g < G; g++) this.base[g + 1] = this.base[g]! + platform.nodes[g]!;
    const N = this.base[G]!;
    this.groupOf = new Int32Array(N);
    this.cap = new Int32Array(N);
    this.memCap = new Float64Array(N);
    this.gpuCap = new Int32Array(N);
    this.gpuTypeOf = new Int32Array(N);
    for (let g = 0; g < G; g++)
      for (let x = this.base[g]!; x < this.base[g + 1]!; x++) {
        this.groupOf[x] = g;
        this.cap[x] = platform.coresPerNode[g]!;
        this.memCap[x] = platform.memoryPerNode[g]!;
        this.gpuCap[x] = platform.gpusPerNode[g]!;
        this.gpuTypeOf[x] = platform.groupGpuType[g]!;
      }
    this.free = Int32Array.from(this.cap);
    this.memFree = Float64Array.from(this.memCap);
    this.gpuFree = Int32Array.from(this.gpuCap);
    this.jobsOn = new Int32Array(N);
    this.slotOn = new Int32Array(N).fill(-1);
    this.partitionNodes = platform.partitions.map((p) => {
      const xs: number[] = [];
      for (const g of [...p.groups].sort((a, b) => a - b)) for (let x = this.base[g]!; x < this.base[g + 1]!; x++) xs.push(x);
      return Int32Array.from(xs);
    });
  }

  /** Whether node `x` runs nothing. */
  idle(x: number): boolean {
    return this.jobsOn[x] === 0;
  }

  /** Gives slot `s` the allocation `a` (its units and memory must be free, its nodes not held whole). */
  assign(s: number, a: NodeAlloc, id: (slot: number) => number): void {
    for (let i = 0; i < a.nodes.length; i++) {
      const x = a.nodes[i]!;
      if (this.slotOn[x]! >= 0) throw new Error(`nodeSelect: job ${id(s)} given node ${x}, which job ${id(this.slotOn[x]!)} holds`);
      if (a.whole && this.jobsOn[x]! > 0) throw new Error(`nodeSelect: job ${id(s)} given node ${x} whole, which runs another job`);
      if (this.free[x]! < a.units[i]!) throw new Error(`nodeSelect: job ${id(s)} given ${a.units[i]} units of node ${x}, which has ${this.free[x]} free`);
      if (this.gpuFree[x]! < a.gpus[i]!) throw new Error(`nodeSelect: job ${id(s)} given ${a.gpus[i]} GPUs of node ${x}, which has ${this.gpuFree[x]} free`);
      this.free[x]! -= a.units[i]!;
      this.memFree[x]! -= a.mem[i]!;
      this.gpuFree[x]! -= a.gpus[i]!;
      this.jobsOn[x]! += 1;
      if (a.whole) this.slotOn[x] = s;
    }
    this.held.set(s, a);
  }

  /**
   * What a job of `units` units in partition `part` asks of the nodes: its `shape`, or by default whole nodes
   * (`units` of them) when the partition's nodes are one unit each (a whole-node platform), else `units`
   * units anywhere; with `gpus` GPUs (of type `gpuType`, -1: any) on each of its nodes.
   */
  request(units: number, part: number, shape: JobShape, gpus = 0, gpuType = -1): NodeRequest {
    const whole = shape.whole ?? this.partitionNodes[part]!.every((x) => this.cap[x] === 1);
    const minNodes = Math.max(1, shape.minNodes ?? (whole ? units : 1));
    return {
      units: whole ? minNodes : units,
      minNodes,
      maxNodes: shape.maxNodes ?? 0,
      whole,
      cpusPerTask: Math.max(1, shape.cpusPerTask ?? 1),
      memPerNode: shape.memPerNode ?? 0,
      memPerUnit: shape.memPerCpu ?? 0,
      gpus,
      gpuType,
    };
  }

  /** GPUs of node `x` that `req` may use when `free` of them are free: `free`, or 0 when they are not of its type or it asks for none. */
  gpusFor(req: NodeRequest, x: number, free: number): number {
    if (req.gpus === 0 || this.gpuTypeOf[x]! < 0 || (req.gpuType >= 0 && req.gpuType !== this.gpuTypeOf[x])) return 0;
    return free;
  }

  /**
   * Where the select plugin would put `req` now among the nodes of partition `part` (but those of groups `off` and
   * the nodes with `offNodes[x] > 0`), or null.
   */
  fit(req: NodeRequest, part: number, off: Uint8Array | null = null, offNodes: Int32Array | null = null): NodeAlloc | null {
    const P = this.partitionNodes[part]!;
    const avail = Int32Array.from(P, (x) =>
      off?.[this.groupOf[x]!] || (offNodes !== null && offNodes[x]! > 0)
        ? 0
        : usableUnits(req, this.cap[x]!, this.free[x]!, this.memFree[x]!, this.jobsOn[x] === 0, this.gpusFor(req, x, this.gpuFree[x]!)),
    );
    const pick = evalNodes(avail, req);
    return pick === null ? null : allocOf(req, pick, P, this);
  }

  /** Whether `req` would fit among the nodes of partition `part` with the jobs of `slots` gone. */
  fitsWithout(req: NodeRequest, part: number, slots: readonly number[]): boolean {
    const P = this.partitionNodes[part]!;
    const at = new Map<number, number>();
    for (let i = 0; i < P.length; i++) at.set(P[i]!, i);
    const free = Int32Array.from(P, (x) => this.free[x]!);
    const mem = Float64Array.from(P, (x) => this.memFree[x]!);
    const jobs = Int32Array.from(P, (x) => this.jobsOn[x]!);
    const gpus = Int32Array.from(P, (x) => this.gpuFree[x]!);
    for (const s of slots) {
      const a = this.held.get(s)!;
      for (let k = 0; k < a.nodes.length; k++) {
        const i = at.get(a.nodes[k]!);
        if (i === undefined) continue;
        free[i]! += a.units[k]!;
        mem[i]! += a.mem[k]!;
        jobs[i]! -= 1;
        gpus[i]! += a.gpus[k]!;
      }
    }
    return (
      evalNodes(
        Int32Array.from(P, (x, i) => usableUnits(req, this.cap[x]!, free[i]!, mem[i]!, jobs[i] === 0, this.gpusFor(req, x, gpus[i]!))),
        req,
      ) !== null
    );
  }

  /** Frees what slot `s` holds (if anything). */
  release(s: number): void {
    const a = this.held.get(s);
    if (a === undefined) return;
    for (let i = 0; i < a.nodes.length; i++) {
      const x = a.nodes[i]!;
      this.free[x]! += a.units[i]!;
      this.memFree[x]! += a.mem[i]!;
      this.gpuFree[x]! += a.gpus[i]!;
      this.jobsOn[x]! -= 1;
      if (this.slotOn[x] === s) this.slotOn[x] = -1;
    }
    this.held.delete(s);
  }
}

/** What a job asks of the nodes (a whole-node job asks for `minNodes` nodes whole). */
export interface NodeRequest {
  /** Units (CPUs; nodes on a whole-node platform) in all. */
  units: number;
  minNodes: number;
  /** 0: no maximum. */
  maxNodes: number;
  /** Whole nodes (`--exclusive`). */
  whole: boolean;
  /** CPUs per task (units on a node come in multiples of it). */
  cpusPerTask: number;
  /** Memory (MB) per node, per unit (0: none). */
  memPerNode: number;
  memPerUnit: number;
  /** GPUs on each of its nodes, of type `gpuType` (index into the platform's `gpuTypes`; -1: any). */
  gpus: number;
  gpuType: number;
}

/**
 * Units job `r` may use on node `x` given what is free there (`free`, `memFree`, and `gpus` of its GPU
 * type, `NodeMap.gpusFor`; the caller's view, now or in the future): all of them for a whole-node job on
 * an idle node (`idle`), else the free units in whole tasks, as many as the free memory allows; 0 when it
 * cannot use the node (or its GPUs are fewer than the job asks for on each node).
 */
export function usableUnits(r: NodeRequest, cap: number, free: number, memFree: number, idle: boolean, gpus: number): number {
  if (gpus < r.gpus) return 0;
  if (r.whole) return idle ? cap : 0;
  let u = free - (free % r.cpusPerTask);
  if (r.memPerUnit > 0) {
    const byMem = Math.floor((memFree + 1e-9) / r.memPerUnit);
    if (byMem < u) u = byMem - (byMem % r.cpusPerTask);
  }
  if (r.memPerNode > 0 && memFree + 1e-9 < r.memPerNode) return 0;
  return u > 0 ? u : 0;
}

/**
 * The nodes (positions into `avail`, ascending) and units on each that a job gets, among the positions
 * with `avail[i] > 0` units usable by it, as cons_tres's `choose_nodes` / `_eval_nodes` choose them
 * (no required nodes, weights, topology or GRES): runs of consecutive usable positions; while the job
 * needs more, the run that is sufficient (enough units and nodes) with the fewest units (none
 * sufficient: the one with the most) gives its nodes in order, each taking what it has up to what the
 * job still needs, keeping one unit for each node still to come (`_cpus_to_use`; a whole-node job takes
 * every unit); a job with one node left takes the node of that run with the fewest units that still
 * hold it. The count of nodes aimed at is the largest allowed (`req_nodes`: the maximum when one is
 * given), at least `minNodes`. If that fails, nodes with few units are left out step by step and the
 * choice is made again (`choose_nodes`). Null when the job does not fit.
 */
export function evalNodes(avail: Int32Array, r: NodeRequest): { pos: Int32Array; units: Int32Array } | null {
  let maxNodes = r.maxNodes > 0 ? r.maxNodes : avail.length;
  const tasks = Math.max(1, Math.floor(r.units / r.cpusPerTask));
  if (!r.whole && maxNodes > tasks) maxNodes = Math.max(tasks, r.minNodes);
  const reqNodes = r.maxNodes > 0 ? maxNodes : r.minNodes;
  let first = evalOnce(avail, r, maxNodes, reqNodes);
  if (first !== null) return first;
  let most = 0;
  let usable = 0;
  for (let i = 0; i < avail.length; i++) {
    if (avail[i]! > most) most = avail[i]!;
    if (avail[i]! > 0) usable++;
  }
  if (usable <= r.minNodes) return null;
  const a = Int32Array.from(avail);
  for (let count = 1; count < most; count++) {
    let changed = false;
    for (let i = 0; i < a.length && usable > r.minNodes; i++)
      if (a[i]! > 0 && a[i]! <= count) {
        a[i] = 0;
        usable--;
        changed = true;
      }
    if (!changed && count !== 1) continue;
    first = evalOnce(a, r, maxNodes, reqNodes);
    if (first !== null) return first;
    if (usable <= r.minNodes) break;
  }
  return null;
}

function evalOnce(avail: Int32Array, r: NodeRequest, maxNodesIn: number, reqNodes: number): { pos: Int32Array; units: Int32Array } | null {
  const n = avail.length;
  let usable = 0;
  for (let i = 0; i < n; i++) if (avail[i]! > 0) usable++;
  if (usable < r.minNodes) return null;
  // runs of consecutive usable positions
  const start: number[] = [];
  const end: number[] = [];
  const runUnits: number[] = [];
  const runNodes: number[] = [];
  for (let i = 0; i < n; ) {
    if (avail[i]! <= 0) {
      i++;
      continue;
    }
    let j = i;
    let u = 0;
    while (j < n && avail[j]! > 0) u += avail[j++]!;
    start.push(i);
    end.push(j - 1);
    runUnits.push(u);
    runNodes.push(j - i);
    i = j;
  }
  const use = Int32Array.from(avail);
  const taken = new Int32Array(n);
  let remUnits = r.units;
  let remMaxUnits = r.units;
  let remNodes = Math.max(r.minNodes, reqNodes);
  let minRemNodes = r.minNodes;
  let maxNodes = maxNodesIn;
  const enough = (avNodes: number, rem: number) => avNodes >= (reqNodes > r.minNodes ? rem + r.minNodes - reqNodes : rem);
  let ok = false;
  while (start.length > 0 && maxNodes > 0) {
    let best = -1;
    let bestUnits = 0;
    let bestSuff = false;
    for (let k = 0; k < start.length; k++) {
      if (runNodes[k] === 0) continue;
      const suff = runUnits[k]! >= remUnits && enough(runNodes[k]!, remNodes);
      if (best < 0 || (suff && !bestSuff) || (suff && runUnits[k]! < bestUnits) || (!suff && runUnits[k]! > bestUnits)) {
        best = k;
        bestUnits = runUnits[k]!;
        bestSuff = suff;
      }
    }
    if (best < 0) break;
    const a = start[best]!;
    const b = end[best]!;
    if (remNodes <= 1) {
      // one node left: the node of this run with the fewest units that still holds the rest
      let bf = -1;
      for (let i = a; i <= b; i++) {
        if (taken[i]! > 0 || use[i]! < remUnits) continue;
        if (bf < 0 || use[i]! < use[bf]!) {
          bf = i;
          if (use[i] === remUnits) break;
        }
      }
      if (bf >= 0) for (let i = a; i <= b; i++) if (i !== bf) use[i] = 0;
    }
    for (let i = a; i <= b; i++) {
      if (maxNodes === 0 || (remNodes <= 0 && remUnits <= 0)) break;
      if (taken[i]! > 0 || use[i]! <= 0) continue;
      let u = use[i]!;
      if (maxNodes === 1 && u < remUnits) continue;
      if (!r.whole) {
        // _cpus_to_use: keep one unit for each node still to come
        const lim = remMaxUnits - Math.max(minRemNodes - 1, 0);
        if (u > lim) u = Math.max(lim, r.cpusPerTask);
      }
      taken[i] = u;
      remNodes--;
      minRemNodes--;
      maxNodes--;
      remUnits -= u;
      remMaxUnits -= u;
    }
    if (remNodes <= 0 && remUnits <= 0) {
      ok = true;
      break;
    }
    runUnits[best] = 0;
    runNodes[best] = 0;
  }
  if (!ok && remUnits <= 0 && enough(0, remNodes)) ok = true;
  if (!ok) return null;
  let c = 0;
  for (let i = 0; i < n; i++) if (taken[i]! > 0) c++;
  const pos = new Int32Array(c);
  const units = new Int32Array(c);
  c = 0;
  for (let i = 0; i < n; i++)
    if (taken[i]! > 0) {
      pos[c] = i;
      units[c++] = taken[i]!;
    }
  return { pos, units };
}

/** The allocation of `req` on the positions `pick` chose among the nodes `P` (memory: a whole node's, else the request's). */
export function allocOf(req: NodeRequest, pick: { pos: Int32Array; units: Int32Array }, P: Int32Array, nm: NodeMap): NodeAlloc {
  const nodes = new Int32Array(pick.pos.length);
  const mem = new Float64Array(pick.pos.length);
  // GPUs: a whole node's all, else what the job asks for on each node
  const gpus = new Int32Array(pick.pos.length);
  for (let i = 0; i < nodes.length; i++) {
    const x = P[pick.pos[i]!]!;
    nodes[i] = x;
    gpus[i] = req.whole ? nm.gpuCap[x]! : req.gpus;
    const cap = nm.memCap[x]!;
    if (!Number.isFinite(cap)) mem[i] = 0;
    else if (req.whole) mem[i] = cap;
    else mem[i] = Math.min(cap, req.memPerNode > 0 ? req.memPerNode : req.memPerUnit * pick.units[i]!);
  }
  return { nodes, units: Int32Array.from(pick.units), mem, gpus, whole: req.whole };
}

/** Whole nodes `nodes` (global indices) of a whole-node platform (one unit each) as an allocation. */
export function wholeAlloc(nodes: Int32Array, nm: NodeMap): NodeAlloc {
  return {
    nodes,
    units: Int32Array.from(nodes, (x) => nm.cap[x]!),
    mem: Float64Array.from(nodes, (x) => (Number.isFinite(nm.memCap[x]!) ? nm.memCap[x]! : 0)),
    gpus: Int32Array.from(nodes, (x) => nm.gpuCap[x]!),
    whole: true,
  };
}

/**
 * The nodes (indices into `avail`, ascending) a whole-node job of `n` nodes gets among the available
 * ones (`avail[i] = 1`), as Slurm's select plugins choose without topology (select/linear `_job_test`,
 * cons_tres `_eval_nodes`): runs of consecutive available nodes; the shortest run that holds all `n`
 * (the first on ties) gives its first `n` nodes; if no run does, the longest run is taken whole (the
 * first on ties) and the choice repeats for the rest. null when fewer than `n` are available.
 */
export function pickNodes(avail: Uint8Array, n: number): Int32Array | null {
  const starts: number[] = [];
  const lens: number[] = [];
  let total = 0;
  for (let i = 0; i < avail.length; ) {
    if (!avail[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < avail.length && avail[j]) j++;
    starts.push(i);
    lens.push(j - i);
    total += j - i;
    i = j;
  }
  if (total < n) return null;
  const out = new Int32Array(n);
  let got = 0;
  while (got < n) {
    const rem = n - got;
    let best = -1;
    for (let r = 0; r < starts.length; r++) {
      const L = lens[r]!;
      if (L === 0) continue;
      if (best < 0) best = r;
      else {
        const bl = lens[best]!;
        const suff = L >= rem;
        const bsuff = bl >= rem;
        if ((suff && !bsuff) || (suff && bsuff && L < bl) || (!suff && !bsuff && L > bl)) best = r;
      }
    }
    const take = Math.min(rem, lens[best]!);
    for (let t = 0; t < take; t++) out[got++] = starts[best]! + t;
    lens[best] = 0;
  }
  out.sort();
  return out;
}
