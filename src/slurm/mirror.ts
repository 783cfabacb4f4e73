/**
 * Placements a live Slurm accepts exactly as decided, on a mirror of its nodes (`clustergym
 * slurm-agent`; docs/slurm-agent.md, "What a job asks for"). The mirror is a `ClusterSimulator` whose
 * platform has one node per Slurm node and whose jobs hold cores; a Slurm job's request (`SlurmRequest`)
 * becomes a mirror job of a shape the placement rules of `src/scheduling/placement.ts` can hold
 * (`mirrorShape`), and `SlurmPlacement` constrains any resource policy so that it only returns placements
 * Slurm will run on exactly those nodes (`ReqNodeList` of the placement's nodes, then release):
 *
 * - eligible nodes: in one of the job's partitions (all nodes of a placement in one of them), not
 *   excluded (`-x`), with the features of its constraint (`-C a&b`, `a|b`, `a,b`), big enough (CPUs per
 *   task, tasks per node, memory per node);
 * - usable now, in Slurm's view as the last poll saw it (`reconcile`): the node is up and not draining,
 *   drained, completing, reserved or powered down, and the CPUs and memory that Slurm has allocated
 *   beyond the mirror's own jobs (other partitions' jobs, jobs the agent left to Slurm) are not free;
 *   and a decided job that Slurm is about to start may not take the node's CPUs otherwise at its start
 *   (`await`: Slurm's select plugin gives a job of tasks the first nodes of its list as many CPUs as they
 *   have free when it starts, which a job ending meanwhile changes);
 * - the node count: whole nodes (`--exclusive`, or an `OverSubscribe=EXCLUSIVE` partition) get exactly
 *   their minimum node count of idle nodes; a job with a node count or tasks per node exactly that many
 *   nodes; a job of tasks alone at most one node per task;
 * - on each node whole tasks (multiples of `-c`), at most `--ntasks-per-node` of them, and the memory it
 *   asks (`--mem`, `--mem-per-cpu`, else the partition's or the cluster's default, else, when memory is
 *   consumable, the whole node's, as Slurm gives a job that names none).
 *
 * Mirror shapes (what the env's observation sees as a job's size, docs/environments.md): CPUs = tasks x
 * CPUs per task; a whole-node job holds `nodes x` the CPUs of the smallest node it may use; a job with a
 * node count is an MPI job on exactly that many nodes (`nodes`); one of several tasks with tasks per node `P`
 * holds `P x` CPUs per task on each of exactly `max(-N, ceil(tasks / P))` nodes (`ntasks_per_node`), as
 * Slurm 22.05 runs it (its tasks rounded up to `P` on every node).
 */
import type { ClusterSimulator, RunningJob } from '../execution/simulator.js';
import type { Platform } from '../platform/platform.js';
import type { PlacementLimit, ResourcePolicy } from '../scheduling/placement.js';
import type { Job } from '../workload/job.js';
import type { SlurmNode, SlurmPartition } from './client.js';
import type { SlurmRequest } from './request.js';

/** What the agent knows of the cluster beyond its nodes' sizes. */
export interface SlurmClusterView {
  /** The Slurm nodes, by name (features and partitions). */
  nodes: readonly SlurmNode[];
  partitions: readonly SlurmPartition[];
  /** Memory is a consumable resource (`SelectTypeParameters=CR_*_Memory`). */
  memory: boolean;
  /** The cluster's `DefMemPerCPU`, `DefMemPerNode` (MB; null: unlimited or not set). */
  defMemPerCpu: number | null;
  defMemPerNode: number | null;
}

/** A constraint (`-C`) as a test of a node's features: AND of ORs (`a&b|c` is `a and (b or c)`). */
export function parseConstraint(expr: string): (features: readonly string[]) => boolean {
  const e = expr.trim();
  if (e === '') return () => true;
  if (/[*()!]/.test(e)) throw new Error(`constraint ${JSON.stringify(expr)}: counts (*N), parentheses and negation are not supported`);
  const groups = e
    .replace(/[[\]]/g, '')
    .split(/[&,]/)
    .map((g) => g.split('|').map((f) => f.trim()));
  if (groups.some((g) => g.some((f) => f === ''))) throw new Error(`constraint ${JSON.stringify(expr)}: an empty feature`);
  return (features) => groups.every((g) => g.some((f) => features.includes(f)));
}

/** The mirror job's shape for a request (see the module comment). */
export interface MirrorShape {
  ntasks: number;
  type: 'seq' | 'mpi';
  /** Exact node count (0: any). */
  nodes: number;
  ntasksPerNode: number;
  /** Whole nodes. */
  whole: boolean;
}

/** What a registered job needs, per partition it may run in. */
interface Entry {
  req: SlurmRequest;
  shape: MirrorShape;
  /** Per alternative (a partition of the job): the nodes it may use (1). */
  eligible: Uint8Array[];
  /** Union of `eligible` (placements of parts of the job: JobNode-v0's first node, then the rest). */
  any: Uint8Array;
  /** Memory on a node for `cpus` CPUs there (MB; 0 when memory is not consumable). */
  memFor: (node: number, cpus: number) => number;
}

/** Node states in which Slurm starts nothing (`sinfo` base states and flags). */
const UNUSABLE = /down|drain|fail|maint|reserved|power|not_responding|completing|future|unknown|no_respond|reboot|inval/i;

/** Placements Slurm accepts exactly (see the module comment). */
export class SlurmPlacement {
  private readonly entries = new Map<string, Entry>();
  private readonly nodeIndex = new Map<string, number>();
  private readonly features: string[][];
  /** Memory of each node as Slurm counts it (`RealMemory`, MB). */
  private readonly mem: Float64Array;
  /** Slurm's view beyond the mirror, from the last `reconcile`: unusable nodes, CPUs and memory held by others. */
  private readonly unusable: Uint8Array;
  private readonly extCpus: Int32Array;
  private readonly extMem: Float64Array;
  /** Nodes of decided jobs that Slurm has not started and whose CPUs per node it chooses at the start (`reconcile`). */
  private readonly unsettled: Uint8Array;
  /** Nodes with CPUs of decided jobs that Slurm has not started (`reconcile`). */
  private readonly awaited: Uint8Array;
  /** Each node's place in Slurm's node table (`sinfo`'s order), the order its select plugin fills a job's nodes in. */
  private readonly slurmRank: Int32Array;

  constructor(
    readonly platform: Platform,
    readonly nodeNames: readonly string[],
    readonly cluster: SlurmClusterView,
  ) {
    for (const [i, n] of nodeNames.entries()) this.nodeIndex.set(n, i);
    const byName = new Map(cluster.nodes.map((n) => [n.name, n]));
    this.features = nodeNames.map((n) => byName.get(n)?.features ?? []);
    this.mem = Float64Array.from(nodeNames, (n) => byName.get(n)?.memoryMb ?? 0);
    const N = nodeNames.length;
    this.unusable = new Uint8Array(N);
    this.extCpus = new Int32Array(N);
    this.extMem = new Float64Array(N);
    this.unsettled = new Uint8Array(N);
    this.awaited = new Uint8Array(N);
    const rank = new Map(cluster.nodes.map((n, i) => [n.name, i]));
    this.slurmRank = Int32Array.from(nodeNames, (n, i) => rank.get(n) ?? cluster.nodes.length + i);
  }

  /** Memory of node `n` (MB) as Slurm counts it. */
  private memCap(n: number): number {
    return this.mem[n]!;
  }

  /**
   * Registers a job (its mirror `id`) with its request; its mirror shape, or the reason Slurm can never
   * run it as asked on these nodes (then it is not registered).
   */
  register(id: string, req: SlurmRequest): { shape: MirrorShape } | { never: string } {
    const p = this.platform;
    const N = this.nodeNames.length;
    let constraint: (f: readonly string[]) => boolean;
    try {
      constraint = parseConstraint(req.features);
    } catch (e) {
      return { never: (e as Error).message };
    }
    const parts = req.partitions.map((name) => this.cluster.partitions.find((q) => q.name === name));
    const known = parts.filter((q): q is SlurmPartition => q !== undefined);
    if (known.length === 0) return { never: `partition ${req.partitions.join(',')} has none of the managed nodes` };
    const whole = req.exclusive || known.every((q) => q.exclusive);
    const cpt = req.cpusPerTask;
    const mem = (q: SlurmPartition) => {
      if (!this.cluster.memory) return { perCpu: 0, perNode: 0, wholeNode: false };
      if (req.memPerNode !== null && req.memPerNode > 0) return { perCpu: 0, perNode: req.memPerNode, wholeNode: false };
      if (req.memPerCpu !== null && req.memPerCpu > 0) return { perCpu: req.memPerCpu, perNode: 0, wholeNode: false };
      const dc = q.defMemPerCpu ?? this.cluster.defMemPerCpu;
      const dn = q.defMemPerNode ?? this.cluster.defMemPerNode;
      if (dc !== null) return { perCpu: dc, perNode: 0, wholeNode: false };
      if (dn !== null) return { perCpu: 0, perNode: dn, wholeNode: false };
      return { perCpu: 0, perNode: 0, wholeNode: true };
    };
    const m0 = mem(known[0]!);
    const excluded = new Set(req.excludedNodes);
    const eligible = known.map((q) => {
      const e = new Uint8Array(N);
      const inQ = new Set(q.nodes);
      for (let n = 0; n < N; n++) {
        const name = this.nodeNames[n]!;
        if (!inQ.has(name) || excluded.has(name) || !constraint(this.features[n]!)) continue;
        const cores = p.nodeCoreCount[n]!;
        if (cores < cpt || (req.tasksPerNode > 0 && cores < req.tasksPerNode * cpt)) continue;
        if (this.cluster.memory && m0.perNode > this.memCap(n)) continue;
        if (this.cluster.memory && m0.perCpu * cpt > this.memCap(n)) continue;
        e[n] = 1;
      }
      return e;
    });
    const any = new Uint8Array(N);
    for (const e of eligible) for (let n = 0; n < N; n++) if (e[n]) any[n] = 1;
    let minCores = Number.POSITIVE_INFINITY;
    let count = 0;
    for (let n = 0; n < N; n++)
      if (any[n]) {
        count++;
        minCores = Math.min(minCores, p.nodeCoreCount[n]!);
      }
    if (count === 0)
      return { never: `no node of partition ${req.partitions.join(',')} has what it asks (features ${req.features || 'none'}, memory, CPUs per task)` };
    let shape: MirrorShape;
    const cpus = req.tasks * cpt;
    if (whole) {
      const k = req.minNodes;
      shape = { ntasks: k * minCores, type: k === 1 ? 'seq' : 'mpi', nodes: k, ntasksPerNode: minCores, whole: true };
    } else if (req.tasksPerNode > 0) {
      // Slurm 22.05 gives a job of several tasks exactly P tasks on each of its nodes (its tasks become that
      // many: `-n 3 --ntasks-per-node 2` runs 4 tasks on 2 nodes, checked on a live Slurm); one task, one CPU set
      const k = Math.max(req.minNodes, Math.ceil(req.tasks / req.tasksPerNode));
      const per = req.tasks > 1 ? req.tasksPerNode * cpt : cpus;
      shape = { ntasks: k * per, type: k === 1 ? 'seq' : 'mpi', nodes: k, ntasksPerNode: k === 1 ? 0 : per, whole: false };
    } else if (req.minNodes > 1) shape = { ntasks: cpus, type: 'mpi', nodes: req.minNodes, ntasksPerNode: 0, whole: false };
    else if (req.maxNodes === 1) shape = { ntasks: cpus, type: 'seq', nodes: 1, ntasksPerNode: 0, whole: false };
    else shape = { ntasks: cpus, type: 'mpi', nodes: 0, ntasksPerNode: 0, whole: false };
    if (shape.nodes > count) return { never: `it asks for ${shape.nodes} nodes; its partition has ${count} that can hold it` };
    this.entries.set(id, {
      req,
      shape,
      eligible,
      any,
      memFor: (n, c) => (m0.wholeNode || whole ? this.memCap(n) : m0.perNode > 0 ? m0.perNode : m0.perCpu * c),
    });
    return { shape };
  }

  /** Forgets a job (ended, or left to Slurm). */
  forget(id: string): void {
    this.entries.delete(id);
  }

  /** Whether `id` is registered. */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Per node: CPUs and memory the mirror's running jobs hold there, and whether a whole-node job holds it. */
  private mirrorUse(sim: ClusterSimulator): { mem: Float64Array; whole: Uint8Array } {
    const N = this.nodeNames.length;
    const mem = new Float64Array(N);
    const whole = new Uint8Array(N);
    for (const rj of sim.running()) {
      const e = this.entries.get(rj.job.id);
      if (!e) continue;
      for (let i = 0; i < rj.nodes.length; i++) {
        const n = rj.nodes[i]!;
        mem[n]! += this.cluster.memory ? e.memFor(n, rj.perNode[i]!) : 0;
        if (e.shape.whole) whole[n] = 1;
      }
    }
    return { mem, whole };
  }

  /**
   * Whether Slurm may lay mirror job `e`, placed as `perNode` on `nodes`, out otherwise when it starts it.
   * Slurm's select plugin fills the job's nodes in its node order, each with as many whole tasks as it has
   * CPUs free, less a task for each node after it (`_cpus_to_use` in select/cons_tres); the last node takes
   * the rest. A node's free CPUs at the start are at least those the decision gave it (the mirror holds the
   * others' CPUs, and jobs only end meanwhile), so the layout is Slurm's for sure when every node but the last
   * already holds all it could (its CPUs, or the rest less a task for each later node). Whole-node jobs,
   * one-node jobs and jobs with a count per node (`--ntasks-per-node`: the shape holds it) start as decided.
   */
  private layoutOpen(e: Entry, nodes: ArrayLike<number>, perNode: ArrayLike<number>): boolean {
    const k = nodes.length;
    if (e.shape.whole || k < 2 || e.req.tasksPerNode > 0) return false;
    const cpt = e.req.cpusPerTask;
    const order = Array.from({ length: k }, (_, i) => i).sort((a, b) => this.slurmRank[nodes[a]!]! - this.slurmRank[nodes[b]!]!);
    let rest = 0;
    for (let i = 0; i < k; i++) rest += perNode[i]!;
    for (let j = 0; j < k - 1; j++) {
      const i = order[j]!;
      const cores = this.platform.nodeCoreCount[nodes[i]!]!;
      const most = Math.min(cores - (cores % cpt), rest - cpt * (k - 1 - j));
      if (perNode[i]! < most) return true;
      rest -= perNode[i]!;
    }
    return false;
  }

  /**
   * Slurm's view of the nodes at a poll (`sinfo`), against the mirror then (`sim`): a node in a state where
   * Slurm starts nothing is unusable, and the CPUs and memory Slurm has allocated beyond what the mirror's
   * jobs hold there (minus what the mirror holds for `pending`: decided jobs Slurm has not started yet)
   * are held by others until the next poll. Of the pending jobs, those Slurm is about to start (`starting`:
   * released, pending for resources or priority, decided moments ago) are awaited (`await`). Returns the
   * awaited jobs whose layout Slurm still chooses (the agent decides again once one of them starts).
   */
  reconcile(sim: ClusterSimulator, nodes: readonly SlurmNode[], pending: ReadonlySet<string>, starting: ReadonlySet<string> = pending): Set<string> {
    const use = this.mirrorUse(sim);
    const pendCpus = new Int32Array(this.nodeNames.length);
    const pendMem = new Float64Array(this.nodeNames.length);
    const open = new Set<string>();
    this.unsettled.fill(0);
    this.awaited.fill(0);
    for (const rj of sim.running()) {
      if (!pending.has(rj.job.id)) continue;
      const e = this.entries.get(rj.job.id);
      for (let i = 0; i < rj.nodes.length; i++) {
        pendCpus[rj.nodes[i]!]! += rj.perNode[i]!;
        pendMem[rj.nodes[i]!]! += e && this.cluster.memory ? e.memFor(rj.nodes[i]!, rj.perNode[i]!) : 0;
      }
      if (starting.has(rj.job.id) && this.await(rj)) open.add(rj.job.id);
    }
    this.unusable.fill(1);
    this.extCpus.fill(0);
    this.extMem.fill(0);
    for (const s of nodes) {
      const n = this.nodeIndex.get(s.name);
      if (n === undefined) continue;
      const state = [s.state, ...s.stateFlags].join(' ');
      this.unusable[n] = UNUSABLE.test(state) ? 1 : 0;
      const busy = this.platform.nodeCoreCount[n]! - sim.nodeFree[n]! - pendCpus[n]!;
      this.extCpus[n] = Math.max(0, s.allocCpus - busy);
      this.extMem[n] = this.cluster.memory ? Math.max(0, s.allocMemoryMb - (use.mem[n]! - pendMem[n]!)) : 0;
    }
    return open;
  }

  /**
   * A decided job (`rj`, a running job of the mirror) that Slurm is about to start, from its decision until
   * it runs or the next `reconcile` (docs/slurm-agent.md, "Layouts Slurm chooses at the start"):
   * - its nodes take a new job that Slurm may lay out over several nodes (`spreads`) only as that job's last
   *   node in Slurm's order (`overAwaited`): Slurm's pass may take such a job first and give it, on every
   *   node of its list but the last, as many CPUs as it sees free there, this one's included;
   * - when Slurm chooses its own layout at the start (`layoutOpen`), its nodes take no new job at all: a
   *   job that ends there before the start changes that layout.
   * Returns whether its layout is open.
   */
  await(rj: RunningJob): boolean {
    const e = this.entries.get(rj.job.id);
    const open = e !== undefined && this.layoutOpen(e, rj.nodes, rj.perNode);
    for (let i = 0; i < rj.nodes.length; i++) {
      this.awaited[rj.nodes[i]!] = 1;
      if (open) this.unsettled[rj.nodes[i]!] = 1;
    }
    return open;
  }

  /** Whether Slurm lays job `e` out over its nodes at its start: several tasks, not whole nodes, no count per node. */
  private spreads(e: Entry): boolean {
    return !e.shape.whole && e.req.tasks > 1 && e.req.tasksPerNode === 0;
  }

  /** Whether a placement (`per`: CPUs by node) of job `e` has an awaited node before its last in Slurm's order (`await`). */
  private overAwaited(e: Entry, per: ReadonlyMap<number, number>): boolean {
    if (per.size < 2 || !this.spreads(e)) return false;
    let last = -1;
    for (const n of per.keys()) if (last < 0 || this.slurmRank[n]! > this.slurmRank[last]!) last = n;
    for (const n of per.keys()) if (n !== last && this.awaited[n]) return true;
    return false;
  }

  /** Most cores job `e` may take on each node now, restricted to `eligible` (and off the awaited nodes with `offAwaited`). */
  private limit(sim: ClusterSimulator, e: Entry, eligible: Uint8Array, offAwaited = false): PlacementLimit {
    const use = this.mirrorUse(sim);
    const cores = this.platform.nodeCoreCount;
    const cpt = e.req.cpusPerTask;
    const room = (n: number): number => {
      if (!eligible[n] || this.unusable[n] || this.unsettled[n] || use.whole[n] || (offAwaited && this.awaited[n])) return 0;
      const free = sim.nodeFree[n]! - this.extCpus[n]!;
      const memFree = this.memCap(n) - use.mem[n]! - this.extMem[n]!;
      if (e.shape.whole) return free === cores[n]! && (!this.cluster.memory || memFree >= this.memCap(n) - 1e-6) ? Number.POSITIVE_INFINITY : 0;
      let u = free - (free % cpt);
      if (e.req.tasksPerNode > 0) u = Math.min(u, e.req.tasksPerNode * cpt);
      if (this.cluster.memory) {
        // the most CPUs whose memory fits (per node: all or none)
        while (u > 0 && e.memFor(n, u) > memFree + 1e-6) u -= cpt;
      }
      return Math.max(0, u);
    };
    return { cores: room, mem: () => Number.POSITIVE_INFINITY };
  }

  /**
   * Whether `cores` (a placement of mirror job `job`) is one Slurm runs exactly: the node count, whole tasks
   * and memory on each node, all nodes in one of its partitions (see the module comment).
   */
  accepts(job: Job, cores: ArrayLike<number>): boolean {
    const e = this.entries.get(job.id);
    if (!e) return true;
    const p = this.platform;
    const per = this.layout(cores);
    const k = per.size;
    if (e.shape.whole || e.shape.nodes > 0 ? k !== Math.max(1, e.shape.nodes) : k < e.req.minNodes || k > Math.min(e.req.maxNodes, e.req.tasks)) return false;
    if (!e.eligible.some((el) => [...per.keys()].every((n) => el[n] === 1))) return false;
    const cpt = e.req.cpusPerTask;
    for (const [n, c] of per) {
      if (e.shape.whole) continue;
      if (c % cpt !== 0 || c < cpt) return false;
      if (e.req.tasksPerNode > 0 && c > e.req.tasksPerNode * cpt) return false;
      if (c > p.nodeCoreCount[n]!) return false;
    }
    return !this.overAwaited(e, per);
  }

  /** `policy` constrained to what Slurm accepts (for the env's live mode and for replays of a record). */
  constrain(policy: ResourcePolicy): ResourcePolicy {
    return {
      name: policy.name,
      place: (sim, job, fit, limit) => {
        const e = this.entries.get(job.id);
        if (!e) return policy.place(sim, job, fit, limit);
        // a part of the job (JobNode-v0 places its first node, then the rest): any of its partitions; the
        // whole placement is checked by `accepts`
        const part = job.ntasks !== e.shape.ntasks;
        for (const el of part ? [e.any] : e.eligible) {
          // (a placement with an awaited node before its last is tried again off the awaited nodes)
          for (const offAwaited of [false, true]) {
            const mine = this.limit(sim, e, el, offAwaited);
            const both: PlacementLimit = limit ? { cores: (n) => Math.min(limit.cores(n), mine.cores(n)), mem: (n) => limit.mem(n) } : mine;
            const cores = policy.place(sim, job, fit, both);
            if (cores !== null && (part || this.accepts(job, cores))) return cores;
            if (cores === null || part || !this.overAwaited(e, this.layout(cores))) break;
          }
        }
        return null;
      },
    };
  }

  /** Per node of a placement (`cores` of mirror job `id`): the node index and the CPUs there. */
  layout(cores: ArrayLike<number>): Map<number, number> {
    const per = new Map<number, number>();
    for (let i = 0; i < cores.length; i++) {
      const n = this.platform.coreNode[cores[i]!]!;
      per.set(n, (per.get(n) ?? 0) + 1);
    }
    return per;
  }
}
