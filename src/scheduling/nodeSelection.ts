/**
 * Slurm's node selection as pure functions (the select plugin cons_tres without topology, node weights or
 * GRES placement; Slurm 22.05's `choose_nodes` and `_eval_nodes`, and select/linear's `_job_test` for whole
 * nodes), used by the one engine's Slurm selection (`SlurmNodeSelection`, `slurmSelect.ts`) and backfill
 * passes (`willRunBackfill.ts`, `nodeProfileBackfill.ts`):
 * - `nodeRequestOf`: what a job asks of the nodes (its shape, or the defaults of its partition);
 * - `usableUnits`: the units a job may use on one node given what is free there (`usableGpus`: the GPUs);
 * - `evalNodes`: the nodes and units a job gets among candidate nodes in order (runs of consecutive usable
 *   nodes; the shortest sufficient run first), the units its tasks' CPUs there (`distTasks`: cons_tres's
 *   `dist_tasks_compute_c_b`, the relief valve that oversubscribes included);
 * - `neverPlaced`: why a request can never be placed on a partition's idle nodes (refused at submission);
 * - `pickNodes`: the whole-node case of a backfill reservation (runs of available nodes).
 *
 * Checked against a live Slurm 22.05 with node ranges and `-c` (docs/slurm.md "Node ranges and CPUs per task",
 * test/slurm/nodeRangesLive.test.ts); one CPU per core (no threads), no `--ntasks-per-node`.
 */

/** How a job asks for nodes (`sbatch` options in the comments; `SlurmJobInput.shape`'s `JobShape`, src/slurm/config.ts). */
export interface NodeShape {
  /** `--exclusive`: whole nodes, `minNodes` of them. */
  whole?: boolean | undefined;
  /** `-N MIN-MAX` (default 1; whole nodes: `cores`). */
  minNodes?: number | undefined;
  /** 0 or absent: no maximum. */
  maxNodes?: number | undefined;
  /** `-c` (units on a node come in multiples of it). */
  cpusPerTask?: number | undefined;
  /** `--mem` (MB per node), `--mem-per-cpu` (MB per unit); absent or 0: none. */
  memPerNode?: number | undefined;
  memPerCpu?: number | undefined;
}

/** A running job's share of the nodes: node indices (ascending), units, memory (MB) and GPUs on each. */
export interface NodeAlloc {
  nodes: Int32Array;
  units: Int32Array;
  mem: Float64Array;
  gpus: Int32Array;
  /** Held whole (`--exclusive`, or a whole-node platform): nothing else may use these nodes. */
  whole: boolean;
}

/**
 * Gives back what allocation `a` holds onto the per-node arrays of a set of nodes (`at`: a global node index
 * to its index there; nodes not in the set are skipped): its units to `free`, its memory to `mem`, its GPUs to
 * `gpus`, and one job fewer to `jobs`. The select plugin's view of those nodes with the job gone (a will-run
 * test's release of a running job; a preemption's test with its victims gone).
 */
export function giveBack(
  a: NodeAlloc,
  at: ReadonlyMap<number, number>,
  free: Int32Array | Float64Array,
  mem: Float64Array,
  jobs: Int32Array | Float64Array,
  gpus: Int32Array | Float64Array,
): void {
  for (let k = 0; k < a.nodes.length; k++) {
    const i = at.get(a.nodes[k]!);
    if (i === undefined) continue;
    free[i]! += a.units[k]!;
    mem[i]! += a.mem[k]!;
    jobs[i]! -= 1;
    gpus[i]! += a.gpus[k]!;
  }
}

/** What each node offers whole: its memory (MB; Infinity: not consumable) and GPUs, by global node index. */
export interface NodeCapacities {
  readonly memCap: ArrayLike<number>;
  readonly gpuCap: ArrayLike<number>;
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
 * The GPUs of a node whose GPUs are of type `nodeType` (an index into the platform's GPU types, -1: the node
 * has none) that request `r` may use when `free` of them are free: `free`, or 0 when they are not of its type
 * or it asks for none (`--gres=gpu[:TYPE]:N`: a node is usable by a GPU job when it has N of its type free).
 */
export function usableGpus(r: NodeRequest, nodeType: number, free: number): number {
  if (r.gpus === 0 || nodeType < 0 || (r.gpuType >= 0 && r.gpuType !== nodeType)) return 0;
  return free;
}

/**
 * Units job `r` may use on node `x` given what is free there (`free`, `memFree`, and `gpus` of its GPU
 * type, `usableGpus`; the caller's view, now or in the future): all of them for a whole-node job on
 * an idle node (`idle`), else its free units (cons_tres `can_job_run_on_node`: not rounded to whole tasks),
 * with memory per unit as many as the free memory allows, in whole tasks; 0 when it cannot use the node:
 * fewer units than one task (`-c`), or than all its tasks when it asks for one node at most (`-N 1`:
 * `min_cpus_per_node`), its memory per node not free, or fewer GPUs than it asks for on each node.
 */
export function usableUnits(r: NodeRequest, cap: number, free: number, memFree: number, idle: boolean, gpus: number): number {
  if (gpus < r.gpus) return 0;
  if (r.whole) return idle ? cap : 0;
  let u = free;
  if (r.memPerUnit > 0) {
    const byMem = Math.floor((memFree + 1e-9) / r.memPerUnit);
    if (byMem < u) u = byMem;
    u -= u % r.cpusPerTask;
  }
  if (r.memPerNode > 0 && memFree + 1e-9 < r.memPerNode) return 0;
  return u >= (r.maxNodes === 1 ? Math.max(r.units, r.cpusPerTask) : r.cpusPerTask) ? u : 0;
}

/**
 * The nodes (positions into `avail`, ascending) and units on each that a job gets, among the positions
 * with `avail[i] > 0` units usable by it, as cons_tres's `choose_nodes` / `_eval_nodes` choose them
 * (no required nodes, weights, topology or GRES): runs of consecutive usable positions; while the job
 * needs more, the run that is sufficient (enough units and nodes) with the fewest units (none
 * sufficient: the one with the most) gives its nodes in order, each taking what it has up to what the
 * job still needs, keeping one unit for each node still to come (`_cpus_to_use`, which also lowers the
 * node's count for the later tries; a whole-node job takes every unit); a job with one node left takes
 * the node of that run with the fewest units that still hold it. The count of nodes aimed at is the
 * largest allowed (`req_nodes`: the maximum when one is given), at least `minNodes`. If that fails,
 * nodes with few units are left out step by step and the choice is made again (`choose_nodes`). Null
 * when the job does not fit.
 *
 * The units the job then holds on each chosen node are its tasks' (`distTasks`), not the units chosen:
 * a job of several nodes may be chosen more units than it asks for (a node range aims at its maximum
 * count, each node at least one unit; `-c` keeps one unit, not a task, for each node to come).
 */
export function evalNodes(avail: Int32Array, r: NodeRequest): { pos: Int32Array; units: Int32Array } | null {
  let maxNodes = r.maxNodes > 0 ? r.maxNodes : avail.length;
  const tasks = Math.max(1, Math.floor(r.units / r.cpusPerTask));
  if (!r.whole && maxNodes > tasks) maxNodes = Math.max(tasks, r.minNodes);
  const reqNodes = r.maxNodes > 0 ? maxNodes : r.minNodes;
  // the nodes' units as `avail_res_array` holds them: `_cpus_to_use` lowers a node's count for the later tries
  const a = Int32Array.from(avail);
  let first = evalOnce(a, r, maxNodes, reqNodes);
  if (first !== null) return distributed(first, r);
  let most = 0;
  let usable = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i]! > most) most = a[i]!;
    if (a[i]! > 0) usable++;
  }
  if (usable <= r.minNodes) return null;
  const off = new Uint8Array(a.length);
  for (let count = 1; count < most; count++) {
    let changed = false;
    for (let i = 0; i < a.length && usable > r.minNodes; i++)
      if (off[i] === 0 && a[i]! > 0 && a[i]! <= count) {
        off[i] = 1;
        usable--;
        changed = true;
      }
    if (!changed && count !== 1) continue;
    first = evalOnce(a, r, maxNodes, reqNodes, off);
    if (first !== null) return distributed(first, r);
    if (usable <= r.minNodes) break;
  }
  return null;
}

/** `pick` with each node's units the job's tasks there (`distTasks`; a whole-node job keeps its nodes whole). */
function distributed(pick: { pos: Int32Array; units: Int32Array }, r: NodeRequest): { pos: Int32Array; units: Int32Array } {
  if (!r.whole) pick.units = distTasks(pick.units, r);
  return pick;
}

/**
 * The units a job holds on the nodes `_eval_nodes` chose with `avail[n]` units each: its tasks laid out as
 * cons_tres's `dist_tasks_compute_c_b` lays them (block and cyclic alike; one CPU per core): `ncpus =
 * max(nodes, units, nodes x cpusPerTask)` in all, so `ncpus / cpusPerTask` tasks; one task on each node in
 * order, then one more on each node in turn while its units hold another whole task; when none does and
 * tasks are left, Slurm's relief valve (`over_subscribe`) puts them on the nodes in turn all the same, each
 * task's units capped by what the node was chosen (the job then holds fewer units than its tasks ask for).
 */
export function distTasks(avail: Int32Array, r: NodeRequest): Int32Array {
  const n = avail.length;
  const cpt = r.cpusPerTask;
  const ncpus = Math.max(n, r.units, n * cpt);
  const maxTasks = Math.max(1, cpt > 1 ? Math.floor(ncpus / cpt) : ncpus);
  const cpus = new Int32Array(n);
  const add = (i: number) => {
    cpus[i] = Math.min(avail[i]!, cpus[i]! + cpt);
  };
  let tid = 0;
  let space = false;
  for (let i = 0; i < n && tid < maxTasks; i++) {
    if (avail[i]! <= 0) continue;
    tid++;
    add(i);
    if (cpus[i]! < avail[i]!) space = true;
  }
  let over = !space;
  while (tid < maxTasks) {
    space = false;
    for (let i = 0; i < n && tid < maxTasks; i++) {
      if (!over && avail[i]! - cpus[i]! < cpt) continue;
      tid++;
      add(i);
      if (avail[i]! - cpus[i]! >= cpt) space = true;
    }
    if (!space) over = true;
  }
  return cpus;
}

/**
 * One `_eval_nodes` over the nodes' units `counts` (but those `off` leaves out); a node whose units
 * `_cpus_to_use` lowers keeps the lower count in `counts` (cons_tres writes it to `avail_res_array`).
 */
function evalOnce(
  counts: Int32Array,
  r: NodeRequest,
  maxNodesIn: number,
  reqNodes: number,
  off: Uint8Array | null = null,
): { pos: Int32Array; units: Int32Array } | null {
  const n = counts.length;
  const avail = off === null ? counts : Int32Array.from(counts, (u, i) => (off[i] ? 0 : u));
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
        if (u > lim) {
          u = Math.max(lim, r.cpusPerTask);
          counts[i] = u;
        }
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

/**
 * Why the select plugin can never place `r` (a sentence after "it"), given `idle`, the units it may use on
 * each of its partition's nodes when every node is idle (`usableUnits` of an idle node), or null when it
 * can: Slurm refuses such a job at submission ("Requested node configuration is not available").
 */
export function neverPlaced(idle: Int32Array, r: NodeRequest): string | null {
  if (evalNodes(idle, r) !== null) return null;
  const tasks = r.cpusPerTask > 1 ? ` (${Math.floor(r.units / r.cpusPerTask)} tasks of ${r.cpusPerTask})` : '';
  const nodes = r.maxNodes > r.minNodes ? `${r.minNodes}-${r.maxNodes}` : r.maxNodes === r.minNodes ? `${r.minNodes}` : `at least ${r.minNodes}`;
  const what = r.whole ? `${r.minNodes} whole nodes` : `${r.units} CPUs${tasks} on ${nodes} nodes`;
  return `asks for ${what}, which Slurm's select plugin cannot place on its partition's nodes even when all are idle (Slurm refuses it: "Requested node configuration is not available")`;
}

/**
 * What a job of `units` units asks of the nodes: its `shape`, or by default whole nodes (`units` of them)
 * when its partition's nodes are one unit each (`oneUnitNodes`: a whole-node platform), else `units` units
 * anywhere; with `gpus` GPUs (of type `gpuType`, -1: any) on each of its nodes.
 */
export function nodeRequestOf(units: number, oneUnitNodes: boolean, shape: NodeShape, gpus = 0, gpuType = -1): NodeRequest {
  const whole = shape.whole ?? oneUnitNodes;
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

/** The allocation of `req` on the positions `pick` chose among the nodes `P` (memory: a whole node's, else the request's). */
export function allocOf(req: NodeRequest, pick: { pos: Int32Array; units: Int32Array }, P: Int32Array, nm: NodeCapacities): NodeAlloc {
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
