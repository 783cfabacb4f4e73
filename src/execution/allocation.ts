/**
 * Allocation state of a running simulation: who holds each core (`coreOwner`, `coreTask`), what is
 * free on each node (`nodeFree`, `nodeFreeMem`, and the free-core segment trees resource policies
 * search), how many cores of each processor are busy (`procBusy`) and the platform's power, kept as
 * a running sum updated when a processor's busy count changes. It also answers the placement
 * questions: whether a set of cores is a valid placement for a job now (`placementError`: the shape
 * rules of its type and node memory) and whether a job could ever fit the empty platform. A job holds
 * on each of its nodes its tasks' memory there, or, when it asks Slurm's `--exclusive` or `--mem`
 * (`slurmRequest`), the node's whole memory or that much on each node, whatever its tasks there (`nodeMemOf`),
 * as Slurm's select plugin holds it (`SlurmNodeSelection`, src/scheduling/slurmSelect.ts).
 *
 * The engine (`simulator.ts`) takes and frees cores through `move` (a whole placement, batched per
 * node and processor) and `releaseCore` (one core of a `seq` task); nothing else writes this state.
 * A system that changes what a running job holds (a resize, a suspension that frees cores) goes
 * through the same two calls.
 *
 * **GPUs** (DESIGN §16) are units like cores: ids dense over the platform (`Platform.nodeFirstGpu`),
 * each on one node and of its node's GPU type; `gpuOwner` says who holds each, `nodeFreeGpus` and
 * `freeGpusByType` what is free. A job with a `gpus` facet gets its GPUs with its cores, all at once
 * (gang), checked by `gpuPlacementError` against the cores the last `placementError` accepted: the
 * right count, free, each on a node of the job's cores, of the job's type (and of one type for a
 * deep-learning job, whose rate needs one), `count` on each of its nodes when the request is per
 * node (on each node of its cores when it has no exact node count). `moveGpus` takes and frees them. A GPU draws its type's idle power always and its busy
 * power while held, in the same running power sum as the processors.
 *
 * **Nodes COMPLETING** (`completing`, a job's `completing` facet): after such a job's end its cores and memory
 * are free, but its nodes stay `COMPLETING` until the engine releases them (`markCompleting`); a placement
 * with a core on such a node is not valid (Slurm's select plugin places no job on a node in completion).
 * The count of jobs completing on each node is what the placements read (`completingNodes`); nothing is kept
 * while no job ever completed.
 *
 * Over 600 lines: cores, node memory and GPUs are one capacity, whose placements are checked, taken and
 * released together (a split would pass the same per-node state between modules at every start and end).
 */
import { Int32Arena } from '../core/int32Arena.js';
import { coversAllNodes, partitionRefusal } from '../platform/partitions.js';
import type { Platform } from '../platform/platform.js';
import { processorPower } from '../platform/power.js';
import { jobGpus } from '../workload/gpuRequest.js';
import { holdsItsPlacement, holdsNodeMemory, nodeMemOf, nodeTaskShare, perNodeCores, taskMem, type Job, wholeNodeMem } from '../workload/job.js';
import type { Capacity } from './capacity.js';
import { NodeFreeTree } from './nodeFreeTree.js';
import type { RunningTask } from './running.js';

/** When an idle processor draws `min_power * static_power`: always (documented), or once it has run a task (IRMaSim). */
export type IdlePowerAccounting = 'always' | 'after-first-task';

/** Distinct node shapes, for O(types) "can this job ever fit" checks. */
interface NodeClass {
  cores: number;
  memMb: number;
  count: number;
}

/** Cores, memory and power of a running simulation (see the module comment); the engine's default capacity. */
export class Allocation implements Capacity {
  /** Per core: owner slot or -1 when free. */
  readonly coreOwner: Int32Array;
  /** Per core: the task running there (tasks of jobs tracked per task). */
  readonly coreTask: (RunningTask | null)[];
  /** Per node: free cores, free memory (MB). */
  readonly nodeFree: Int32Array;
  /** Per node group (`Platform.groupNames`): free cores (Slurm's counted view of a group). */
  readonly groupFree: Int32Array;
  readonly nodeFreeMem: Float64Array;
  /** Per processor: busy (held) cores. */
  readonly procBusy: Int32Array;
  /** Free cores per node in platform order. */
  readonly freeTree: NodeFreeTree;
  /** Free-core trees over other node orders (see `freeTreeInOrder`), kept in step with `freeTree`. */
  private readonly orderedTrees: { key: string; pos: Int32Array; tree: NodeFreeTree }[] = [];
  freeCores: number;
  busyCores = 0;
  /** Nodes with every core free. */
  idleNodes: number;
  /** Platform power now, W. */
  power = 0;
  /** Per GPU: owner slot or -1 when free. */
  readonly gpuOwner: Int32Array;
  /** Per node: free GPUs. */
  readonly nodeFreeGpus: Int32Array;
  /** Per GPU type (`Platform.gpuTypes`): free GPUs. */
  readonly freeGpusByType: Int32Array;
  busyGpus = 0;
  /** Per GPU type: busy minus idle power of one GPU, W. */
  private readonly gpuPowerStep: Float64Array;
  private readonly gpuMark: Int32Array;
  private gpuGen = 0;
  private readonly nodeGpuTally: Int32Array;

  private readonly nodeClasses: NodeClass[];
  /** Node classes of each partition that does not hold every node (built on first use). */
  private readonly partitionClasses = new Map<number, NodeClass[]>();
  /** Whether some partition leaves nodes out (else partitions restrict no placement). */
  private readonly restricted: boolean;
  /** `after-first-task` idle power: processors that have run a task. */
  private readonly procUsed: Uint8Array | null;
  /** No processor draws power (no power figures): the power stays 0 and its updates are skipped. */
  private readonly powerless: boolean;
  // scratch of placement checks (no allocation per start): marks by generation, per-node tallies
  private scratchGen = 0;
  /** Distinct nodes found by the last `placementError` (its tally is in the scratch arrays). */
  private lastTally = -1;
  private readonly coreMark: Int32Array;
  private readonly nodeMark: Int32Array;
  private readonly scratchNodes: Int32Array;
  private readonly scratchCount: Int32Array;
  private readonly scratchMem: Float64Array;
  /** Where the nodes and tasks per node of placements are allocated (one array per start). */
  readonly arena = new Int32Arena();

  constructor(
    readonly platform: Platform,
    readonly enforceMemory: boolean,
    idlePower: IdlePowerAccounting,
  ) {
    const C = platform.coreCount;
    const N = platform.nodeCount;
    this.coreOwner = new Int32Array(C).fill(-1);
    this.coreTask = new Array<RunningTask | null>(C).fill(null);
    this.nodeFree = Int32Array.from(platform.nodeCoreCount);
    this.groupFree = new Int32Array(platform.groupCount);
    for (let n = 0; n < N; n++) this.groupFree[platform.nodeGroup[n]!]! += platform.nodeCoreCount[n]!;
    this.nodeFreeMem = Float64Array.from(platform.nodeMemoryMb);
    this.procBusy = new Int32Array(platform.procCount);
    this.freeTree = new NodeFreeTree(this.nodeFree);
    this.coreMark = new Int32Array(C);
    this.nodeMark = new Int32Array(N);
    this.scratchNodes = new Int32Array(N);
    this.scratchCount = new Int32Array(N);
    this.scratchMem = new Float64Array(N);
    this.freeCores = C;
    this.idleNodes = N;
    this.procUsed = idlePower === 'after-first-task' ? new Uint8Array(platform.procCount) : null;
    this.gpuOwner = new Int32Array(platform.gpuCount).fill(-1);
    this.nodeFreeGpus = Int32Array.from(platform.nodeGpuCount);
    this.freeGpusByType = Int32Array.from(platform.gpuTypeSpecs, (t) => t.count);
    this.gpuPowerStep = Float64Array.from(platform.gpuTypeSpecs, (t) => t.busyPower - t.idlePower);
    this.gpuMark = new Int32Array(platform.gpuCount);
    this.nodeGpuTally = new Int32Array(N);
    this.powerless = !platform.processorsDrawPower;
    this.power = this.idlePowerNow();
    this.nodeClasses = nodeClassesOf(platform, null);
    this.restricted = platform.partitions.some((q) => !coversAllNodes(q, N));
  }

  /**
   * The nodes `job` may use (its partition's mask: its `partition`, else the platform's default), or null
   * when that partition holds every node (or the job names no known partition: `unfitReason` says so).
   */
  partitionMask(job: Job): Uint8Array | null {
    if (!this.restricted && job.partition === undefined) return null;
    const p = this.platform;
    const i = p.partitionOf(job);
    if (typeof i === 'string') return null;
    const q = p.partitions[i]!;
    return coversAllNodes(q, p.nodeCount) ? null : q.nodeMask;
  }

  /** The node classes `job` may use (its partition's), and why it may use none at all (an unknown partition, its limits). */
  private classesFor(job: Job): NodeClass[] | string {
    if (!this.restricted && job.partition === undefined) return this.nodeClasses;
    const p = this.platform;
    const i = p.partitionOf(job);
    if (typeof i === 'string') return i;
    const q = p.partitions[i]!;
    const refusal = partitionRefusal(q, job);
    if (refusal !== null) return refusal;
    if (coversAllNodes(q, p.nodeCount)) return this.nodeClasses;
    let c = this.partitionClasses.get(i);
    if (!c) {
      c = nodeClassesOf(p, q.nodeMask);
      this.partitionClasses.set(i, c);
    }
    return c;
  }

  /**
   * A free-core tree over the nodes in another order (position `i` holds node `order[i]`; `order` is a
   * permutation of the node ids), which the engine keeps up to date from now on, as it does
   * `freeTree`. Resource policies with a static node order use it to find "the first node in my order
   * with k free cores" in O(log N). Calls with the same `key` return the same tree.
   */
  freeTreeInOrder(key: string, order: Int32Array): NodeFreeTree {
    const have = this.orderedTrees.find((o) => o.key === key);
    if (have) return have.tree;
    const N = this.platform.nodeCount;
    if (order.length !== N) throw new Error(`freeTreeInOrder(${key}): the order has ${order.length} nodes, the platform ${N}`);
    const pos = new Int32Array(N).fill(-1);
    for (let i = 0; i < N; i++) {
      const n = order[i]!;
      if (!(n >= 0 && n < N) || pos[n] !== -1) throw new Error(`freeTreeInOrder(${key}): not a permutation of the node ids`);
      pos[n] = i;
    }
    const tree = new NodeFreeTree(Int32Array.from(order, (n) => this.nodeFree[n]!));
    this.orderedTrees.push({ key, pos, tree });
    return tree;
  }

  /**
   * Jobs `COMPLETING` on each node (the module comment), or null while none is: null until the first job
   * completes, and again once every node is released, so that a placement reads nothing more then.
   */
  get completingNodes(): Int32Array | null {
    return this.completingJobs > 0 ? this.completing : null;
  }

  /** Per node, the jobs completing there (allocated at the first), and how many (job, node) pairs complete now. */
  private completing: Int32Array | null = null;
  private completingJobs = 0;

  /** The `nodes` of an ended job enter `COMPLETING` (`by` 1) or leave it (`by` -1; the module comment). */
  markCompleting(nodes: ArrayLike<number>, by: 1 | -1): void {
    this.completing ??= new Int32Array(this.platform.nodeCount);
    for (let i = 0; i < nodes.length; i++) this.completing[nodes[i]!]! += by;
    this.completingJobs += by * nodes.length;
  }

  /** Whether `job` fits the platform when it is empty (under the placement constraints). */
  canEverFit(job: Job): boolean {
    return this.unfitReason(job) === null;
  }

  /** Why `job` can never fit the platform, or null when it can. */
  unfitReason(job: Job): string | null {
    if (job.gpus !== undefined) {
      const why = this.gpuUnfitReason(job);
      if (why !== null) return why;
    }
    if (job.cpusPerTask !== undefined && job.cpusPerTask !== 1)
      return `asks for ${job.cpusPerTask} cores per task; the core allocation runs one task per core (the vector capacity holds fractions)`;
    const classes = this.classesFor(job);
    if (typeof classes === 'string') return classes;
    const where =
      classes === this.nodeClasses ? 'the platform' : `partition ${job.partition ?? this.platform.partitions[this.platform.defaultPartition]!.name}`;
    const mem = this.enforceMemory ? job.mem : 0;
    const memPerNode = this.enforceMemory ? job.slurmRequest?.memPerNode : undefined;
    if (memPerNode !== undefined && !classes.some((c) => c.memMb >= memPerNode))
      return `asks for ${memPerNode} MB on each of its nodes (--mem); ${where === 'the platform' ? 'the largest node' : `the largest node of ${where}`} has ${largestMem(classes)} MB`;
    if (job.tasks && this.enforceMemory) {
      // heterogeneous tasks: check with the largest task memory (conservative for seq, exact enough otherwise)
      let total = 0;
      for (const t of job.tasks) total += t.mem;
      if (job.type === 'seq') {
        if (!classes.some((c) => c.cores >= job.ntasks && c.memMb >= total))
          return `needs one node with ${job.ntasks} cores and ${total} MB of memory; ${where === 'the platform' ? 'the largest node' : `the largest node of ${where}`} has ${largestCores(classes)} cores and ${largestMem(classes)} MB`;
        return null;
      }
    }
    if (job.type === 'seq') {
      if (!classes.some((c) => c.cores >= job.ntasks && c.memMb >= mem * job.ntasks))
        return `needs one node with ${job.ntasks} cores${mem > 0 ? ` and ${mem * job.ntasks} MB of memory` : ''}; ${where === 'the platform' ? 'the largest node' : `the largest node of ${where}`} has ${largestCores(classes)} cores and ${largestMem(classes)} MB`;
      return null;
    }
    if (job.nodes > 0) {
      const per = perNodeCores(job);
      if (job.nodes > job.ntasks) return `cannot spread ${job.ntasks} tasks over exactly ${job.nodes} nodes`;
      const most = nodeTaskShare(job, 0);
      let ok = 0;
      for (const c of classes) if (c.cores >= per && c.memMb >= mem * most) ok += c.count;
      if (ok < job.nodes) return `needs ${job.nodes} nodes with ${per} cores${mem > 0 ? ` and ${mem * most} MB` : ''} each; ${where} has ${ok}`;
      return null;
    }
    let capacity = 0;
    for (const c of classes) capacity += c.count * (mem > 0 ? Math.min(c.cores, Math.floor(c.memMb / mem)) : c.cores);
    if (capacity < job.ntasks) return `needs ${job.ntasks} cores${mem > 0 ? ` with ${mem} MB each` : ''}; ${where} offers ${capacity}`;
    return null;
  }

  /**
   * Whether `cores` is a valid placement for `job` now: right count (`ntasks`; a job with a Slurm node
   * request, any: `holdsItsPlacement`), all free, the shape rules of its type (one node for `seq`; exactly
   * `nodes` nodes with `ntasks_per_node` each when set), and node memory. Returns null when valid, else the reason.
   */
  placementError(job: Job, cores: ArrayLike<number>): string | null {
    // (a job with a Slurm node request holds what the select plugin gives it: `holdsItsPlacement`)
    if (cores.length !== job.ntasks && !(cores.length > 0 && holdsItsPlacement(job))) return `expected ${job.ntasks} cores, got ${cores.length}`;
    const p = this.platform;
    const owner = this.coreOwner;
    for (let t = 0; t < cores.length; t++) {
      const c = cores[t]!;
      if (owner[c] === -1) continue; // exists (typed-array read of an index in range) and is free
      if (!(c >= 0 && c < p.coreCount) || !Number.isInteger(c)) return `core ${c} does not exist`;
      return `core ${c} is busy`;
    }
    const nt = this.tallyNodes(job, cores);
    this.lastTally = nt;
    if (nt < 0) return 'a core is given twice';
    const touched = this.scratchNodes;
    const mask = this.partitionMask(job);
    if (mask !== null)
      for (let i = 0; i < nt; i++)
        if (!mask[touched[i]!])
          return `node ${touched[i]} is not in the job's partition ${job.partition ?? this.platform.partitions[this.platform.defaultPartition]!.name}`;
    if (this.completingJobs > 0)
      for (let i = 0; i < nt; i++)
        if (this.completing![touched[i]!]! > 0) return `node ${touched[i]} is COMPLETING (a job ended there and the node is not released yet)`;
    if (job.type === 'seq' && nt !== 1) return `a seq job runs on one node; the placement spans ${nt}`;
    if (job.type === 'mpi' && job.nodes > 0) {
      if (nt !== job.nodes) return `the job asks for exactly ${job.nodes} nodes; the placement spans ${nt}`;
      const per = perNodeCores(job);
      for (let i = 0; i < nt; i++) {
        const n = touched[i]!;
        const k = this.scratchCount[n]!;
        if (k > per) return `node ${n} gets ${k} tasks; the job asks for at most ${per} per node`;
      }
    }
    if (this.enforceMemory)
      for (let i = 0; i < nt; i++) {
        const n = touched[i]!;
        const m = this.scratchMem[n]!;
        if (m > this.nodeFreeMem[n]! + 1e-9) return `node ${n} has ${this.nodeFreeMem[n]} MB free; the job's tasks there need ${m} MB`;
      }
    return null;
  }

  /**
   * Tallies the distinct nodes of a placement without allocating: fills `scratchNodes[0..k)` with
   * them (first-seen order) and, per node, `scratchCount` (tasks) and `scratchMem` (MB). Returns k, or
   * -1 when a core is given twice. Cores must exist.
   */
  private tallyNodes(job: Job, cores: ArrayLike<number>): number {
    if (++this.scratchGen >= 0x7fffffff) {
      this.scratchGen = 1;
      this.coreMark.fill(0);
      this.nodeMark.fill(0);
    }
    const gen = this.scratchGen;
    const coreNode = this.platform.coreNode;
    let nt = 0;
    for (let t = 0; t < cores.length; t++) {
      const c = cores[t]!;
      if (this.coreMark[c] === gen) return -1;
      this.coreMark[c] = gen;
      const n = coreNode[c]!;
      if (this.nodeMark[n] !== gen) {
        this.nodeMark[n] = gen;
        this.scratchCount[n] = 0;
        this.scratchMem[n] = 0;
        this.scratchNodes[nt++] = n;
      }
      this.scratchCount[n]!++;
      this.scratchMem[n]! += taskMem(job, t);
    }
    if (holdsNodeMemory(job))
      for (let i = 0; i < nt; i++) {
        const n = this.scratchNodes[i]!;
        this.scratchMem[n] = nodeMemOf(job, 0, 1, this.platform.nodeMemoryMb[n]!);
      }
    return nt;
  }

  /**
   * Takes all the cores of a placement for `owner` (a slot), or releases them (`owner` -1), batched
   * over runs of consecutive cores on the same node and processor (placements list a node's cores
   * together): one free-tree leaf per run, the trees' inner nodes recomputed at their next search
   * (`NodeFreeTree.setLeaf`), and one power update per processor run: the same result as
   * core by core without the per-core tree walks. From task `from` on only (`Capacity.move`).
   */
  move(job: Job, cores: Int32Array, owner: number, from = 0): void {
    const p = this.platform;
    const coreNode = p.coreNode;
    const coreProc = p.coreProc;
    const nodeCoreCount = p.nodeCoreCount;
    const nodeGroup = p.nodeGroup;
    const coreOwner = this.coreOwner;
    const nodeFree = this.nodeFree;
    const nodeFreeMem = this.nodeFreeMem;
    const groupFree = this.groupFree;
    const procBusy = this.procBusy;
    const tree = this.freeTree;
    const powered = !this.powerless;
    const take = owner >= 0;
    const k = cores.length;
    const tasks = job.tasks;
    const memEach = job.mem;
    // Slurm's --exclusive (the whole node's) or --mem (so much on each node), whatever the tasks there (a job
    // with them moves whole: from 0)
    const exclusive = job.slurmRequest?.exclusive === true;
    const memPerNode = job.slurmRequest?.memPerNode;
    const ordered = this.orderedTrees.length > 0;
    let idle = this.idleNodes;
    let t = from;
    while (t < k) {
      // a run of cores on one node, made of runs on one processor
      const node = coreNode[cores[t]!]!;
      let nodeCount = 0;
      let nodeMem = 0;
      do {
        const proc = coreProc[cores[t]!]!;
        let procCount = 0;
        do {
          const c = cores[t]!;
          coreOwner[c] = owner;
          nodeMem += tasks === null ? memEach : tasks[t]!.mem;
          procCount++;
          t++;
        } while (t < k && coreProc[cores[t]!] === proc);
        nodeCount += procCount;
        const b = procBusy[proc]!;
        const b2 = take ? b + procCount : b - procCount;
        if (powered) {
          const before = this.procPowerNow(proc, b);
          if (this.procUsed) this.procUsed[proc] = 1;
          this.power += this.procPowerNow(proc, b2) - before;
        }
        procBusy[proc] = b2;
      } while (t < k && coreNode[cores[t]!] === node);
      if (exclusive) nodeMem = wholeNodeMem(p.nodeMemoryMb[node]!);
      else if (memPerNode !== undefined) nodeMem = memPerNode;
      let f: number;
      if (take) {
        f = nodeFree[node]!;
        if (f === nodeCoreCount[node]) idle--;
        f -= nodeCount;
        nodeFree[node] = f;
        nodeFreeMem[node]! -= nodeMem;
        groupFree[nodeGroup[node]!]! -= nodeCount;
      } else {
        groupFree[nodeGroup[node]!]! += nodeCount;
        f = nodeFree[node]! + nodeCount;
        nodeFree[node] = f;
        nodeFreeMem[node]! += nodeMem;
        if (f === nodeCoreCount[node]) {
          nodeFreeMem[node] = p.nodeMemoryMb[node]!; // no drift
          idle++;
        }
      }
      tree.setLeaf(node, f);
      if (ordered)
        for (let j = 0; j < this.orderedTrees.length; j++) {
          const o = this.orderedTrees[j]!;
          o.tree.setLeaf(o.pos[node]!, f);
        }
    }
    this.idleNodes = idle;
    this.freeCores += take ? from - k : k - from;
    this.busyCores += take ? k - from : from - k;
    if (!take && this.busyCores === 0 && this.busyGpus === 0 && !this.powerless) this.power = this.idlePowerNow();
  }

  /** Takes core `c` and `mem` MB of its node for `owner` (a preempted `seq` job's task takes its core again): `releaseCore` undone. */
  takeCore(c: number, mem: number, owner: number): void {
    const p = this.platform;
    this.coreOwner[c] = owner;
    const n = p.coreNode[c]!;
    if (this.nodeFree[n] === p.nodeCoreCount[n]) this.idleNodes--;
    this.nodeFree[n]!--;
    this.groupFree[p.nodeGroup[n]!]!--;
    this.nodeFreeMem[n]! -= mem;
    this.freeTree.update(n, this.nodeFree[n]!);
    for (let i = 0; i < this.orderedTrees.length; i++) {
      const o = this.orderedTrees[i]!;
      o.tree.update(o.pos[n]!, this.nodeFree[n]!);
    }
    this.freeCores--;
    this.busyCores++;
    const proc = p.coreProc[c]!;
    const b = this.procBusy[proc]!;
    if (!this.powerless) {
      if (this.procUsed) this.procUsed[proc] = 1;
      this.power += this.procPowerNow(proc, b + 1) - this.procPowerNow(proc, b);
    }
    this.procBusy[proc] = b + 1;
  }

  /** Frees core `c` and `mem` MB of its node (a `seq` task that ended). */
  releaseCore(c: number, mem: number): void {
    const p = this.platform;
    this.coreOwner[c] = -1;
    const n = p.coreNode[c]!;
    this.nodeFree[n]!++;
    this.groupFree[p.nodeGroup[n]!]!++;
    this.nodeFreeMem[n]! += mem;
    if (this.nodeFree[n] === p.nodeCoreCount[n]) {
      this.nodeFreeMem[n] = p.nodeMemoryMb[n]!; // no drift
      this.idleNodes++;
    }
    this.freeTree.update(n, this.nodeFree[n]!);
    for (let i = 0; i < this.orderedTrees.length; i++) {
      const o = this.orderedTrees[i]!;
      o.tree.update(o.pos[n]!, this.nodeFree[n]!);
    }
    this.freeCores++;
    this.busyCores--;
    const proc = p.coreProc[c]!;
    const b = this.procBusy[proc]!;
    if (!this.powerless) this.power += this.procPowerNow(proc, b - 1) - this.procPowerNow(proc, b);
    this.procBusy[proc] = b - 1;
    if (this.busyCores === 0 && this.busyGpus === 0 && !this.powerless) this.power = this.idlePowerNow();
  }

  /**
   * A suspended job's cores stop drawing busy power (`paused`), or draw it again: they stay held (owner,
   * free counts and memory unchanged); only their processors' busy counts and the power move.
   */
  pause(_job: Job, cores: Int32Array, paused: boolean): void {
    const coreProc = this.platform.coreProc;
    for (let i = 0; i < cores.length; i++) {
      const proc = coreProc[cores[i]!]!;
      const b = this.procBusy[proc]!;
      const b2 = paused ? b - 1 : b + 1;
      if (!this.powerless) this.power += this.procPowerNow(proc, b2) - this.procPowerNow(proc, b);
      this.procBusy[proc] = b2;
    }
  }

  /** Held GPUs stop drawing their busy power (`paused`), or draw it again: only the power moves. */
  pauseGpus(gpus: Int32Array, paused: boolean): void {
    const p = this.platform;
    for (let i = 0; i < gpus.length; i++) {
      const step = this.gpuPowerStep[p.nodeGpuType[p.gpuNode[gpus[i]!]!]!]!;
      this.power += paused ? -step : step;
    }
  }

  /** Power of processor `proc` with `busy` busy cores under the idle-power accounting in use. */
  private procPowerNow(proc: number, busy: number): number {
    if (this.procUsed && this.procUsed[proc] === 0) return 0;
    const p = this.platform;
    return processorPower(busy, p.procStaticPower[proc]!, p.procDynamicPower[proc]!, p.procMinPower[proc]!);
  }

  /** Power of the platform when no core is busy (exact, to reset the running sum's drift). */
  idlePowerNow(): number {
    let w = 0;
    for (let q = 0; q < this.platform.procCount; q++) w += this.procPowerNow(q, 0);
    for (const t of this.platform.gpuTypeSpecs) w += t.idlePower * t.count;
    return w;
  }

  /** Why `job`'s GPU request can never be met on the empty platform (count and type; per node: nodes with that many), or null. */
  private gpuUnfitReason(job: Job): string | null {
    const g = job.gpus!;
    const p = this.platform;
    const type = g.type === undefined ? -1 : p.gpuTypeIndex(g.type);
    if (g.type !== undefined && type < 0)
      return `asks for GPUs of type ${JSON.stringify(g.type)}; the platform has ${p.gpuTypes.length > 0 ? p.gpuTypes.join(', ') : 'no GPU'}`;
    const need = jobGpus(job);
    if (g.perNode) {
      // (no exact node count: at least one node, its placement gives the rest)
      const want = Math.max(1, job.nodes);
      let nodes = 0;
      for (let n = 0; n < p.nodeCount; n++) if (p.nodeGpuCount[n]! >= g.count && (type < 0 || p.nodeGpuType[n] === type)) nodes++;
      if (nodes < want) return `needs ${want} nodes with ${g.count} GPUs${g.type ? ` of type ${g.type}` : ''} each; the platform has ${nodes}`;
      return null;
    }
    // a deep-learning job runs on GPUs of one type
    const one = type >= 0 || g.dl !== undefined;
    let most = 0;
    for (let t = 0; t < p.gpuTypeSpecs.length; t++)
      if (type < 0 || t === type) most = one ? Math.max(most, p.gpuTypeSpecs[t]!.count) : most + p.gpuTypeSpecs[t]!.count;
    if (most < need) return `needs ${need} GPUs${g.type ? ` of type ${g.type}` : one ? ' of one type' : ''}; the platform has ${most}`;
    return null;
  }

  /**
   * Whether `gpus` are a valid GPU placement for `job` with the cores the last `placementError` accepted
   * (see the module comment); null when valid, else the reason.
   */
  gpuPlacementError(job: Job, gpus: ArrayLike<number>): string | null {
    // (a per-node request without an exact node count: on each node of the cores just accepted)
    const need = job.gpus?.perNode === true && job.nodes === 0 ? jobGpus(job, this.lastTally) : jobGpus(job);
    if (gpus.length !== need) return `expected ${need} GPUs, got ${gpus.length}`;
    if (need === 0) return null;
    const p = this.platform;
    const g = job.gpus!;
    const gen = this.scratchGen;
    if (++this.gpuGen >= 0x7fffffff) {
      this.gpuGen = 1;
      this.gpuMark.fill(0);
    }
    const mark = this.gpuGen;
    const type = g.type === undefined ? -1 : p.gpuTypeIndex(g.type);
    let first = -1;
    for (let i = 0; i < gpus.length; i++) {
      const u = gpus[i]!;
      if (!(Number.isInteger(u) && u >= 0 && u < p.gpuCount)) return `GPU ${u} does not exist`;
      if (this.gpuOwner[u] !== -1) return `GPU ${u} is busy`;
      if (this.gpuMark[u] === mark) return 'a GPU is given twice';
      this.gpuMark[u] = mark;
      const n = p.gpuNode[u]!;
      if (this.nodeMark[n] !== gen) return `GPU ${u} is on node ${n}, where the job has no core`;
      const t = p.nodeGpuType[n]!;
      if (type >= 0 && t !== type) return `GPU ${u} is a ${p.gpuTypes[t]}; the job asks for ${g.type}`;
      if (i === 0) first = t;
      else if (g.dl !== undefined && t !== first) return `a deep-learning job runs on GPUs of one type; found ${p.gpuTypes[first]} and ${p.gpuTypes[t]}`;
    }
    if (g.perNode) {
      const nt = this.lastTally;
      for (let i = 0; i < nt; i++) this.nodeGpuTally[this.scratchNodes[i]!] = 0;
      for (let i = 0; i < gpus.length; i++) this.nodeGpuTally[p.gpuNode[gpus[i]!]!]!++;
      for (let i = 0; i < nt; i++) {
        const n = this.scratchNodes[i]!;
        if (this.nodeGpuTally[n] !== g.count) return `node ${n} gets ${this.nodeGpuTally[n]} GPUs; the job asks for ${g.count} on each of its nodes`;
      }
    }
    return null;
  }

  /** Takes `gpus` for `owner` (a slot), or releases them (`owner` -1); power follows. */
  moveGpus(gpus: Int32Array, owner: number): void {
    const p = this.platform;
    const take = owner >= 0;
    for (let i = 0; i < gpus.length; i++) {
      const u = gpus[i]!;
      const n = p.gpuNode[u]!;
      const t = p.nodeGpuType[n]!;
      this.gpuOwner[u] = owner;
      this.nodeFreeGpus[n]! += take ? -1 : 1;
      this.freeGpusByType[t]! += take ? -1 : 1;
      this.power += take ? this.gpuPowerStep[t]! : -this.gpuPowerStep[t]!;
    }
    this.busyGpus += take ? gpus.length : -gpus.length;
    if (!take && this.busyCores === 0 && this.busyGpus === 0) this.power = this.idlePowerNow();
  }

  /**
   * The distinct nodes (ascending) and tasks per node of the placement the last `placementError`
   * checked (valid until the next check).
   */
  lastPlacement(): { nodes: Int32Array; perNode: Int32Array } {
    const nt = this.lastTally;
    const both = this.arena.alloc(2 * nt);
    both.set(this.scratchNodes.subarray(0, nt));
    const nodes = both.subarray(0, nt);
    // placements usually list nodes in ascending order already (the sort is a native call)
    let sorted = true;
    for (let i = 1; i < nt && sorted; i++) if (nodes[i - 1]! > nodes[i]!) sorted = false;
    if (!sorted) nodes.sort();
    const perNode = both.subarray(nt);
    for (let i = 0; i < nt; i++) perNode[i] = this.scratchCount[nodes[i]!]!;
    return { nodes, perNode };
  }
}

/** The distinct node shapes (cores, memory) of the platform's nodes, or of those `mask` selects. */
function nodeClassesOf(platform: Platform, mask: Uint8Array | null): NodeClass[] {
  const classes = new Map<string, NodeClass>();
  for (let n = 0; n < platform.nodeCount; n++) {
    if (mask !== null && !mask[n]) continue;
    const key = `${platform.nodeCoreCount[n]}/${platform.nodeMemoryMb[n]}`;
    const c = classes.get(key);
    if (c) c.count++;
    else classes.set(key, { cores: platform.nodeCoreCount[n]!, memMb: platform.nodeMemoryMb[n]!, count: 1 });
  }
  return [...classes.values()];
}

function largestCores(classes: readonly NodeClass[]): number {
  return classes.reduce((m, c) => Math.max(m, c.cores), 0);
}

function largestMem(classes: readonly NodeClass[]): number {
  return classes.reduce((m, c) => Math.max(m, c.memMb), 0);
}
