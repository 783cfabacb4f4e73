/**
 * Slurm's backfill scheduler (`sched/backfill`) on the one engine: the counted pass of
 * `countedBackfill.ts` over the engine's running jobs and its queue in a scheduler's order, run by
 * `SlurmPassClock` every `bf_interval` seconds while jobs wait (after the main pass of that instant), as
 * slurmctld's backfill thread runs it (`_attempt_backfill`; docs/slurm.md; the retired Slurm engine's schedules to
 * the bit, test/golden/slurmEngine.ts).
 *
 * What the pass reads of the one engine:
 * - **groups**: the platform's node groups as Slurm counts them (`slurmGroups.ts`): a job may run on the
 *   groups its partition's nodes touch, and a backfill start places it within one group;
 * - **free cores** per group (`ClusterSimulator.groupFree`), taken at the start of each pass and kept as
 *   the pass starts jobs;
 * - **holdings**: every running job and every job suspended on its cores, by group (a job the main pass
 *   spread over several groups counts on each), expected to end at its time limit (`reqTime`) counted in
 *   run time; a job suspended by an operator event resumes at the event's end first (`expectedTimeLeft`);
 *   the pass reads them from dense arrays the engine's listeners keep (`RunningHoldings`);
 * - **the queue**: the first `bf_max_job_test` waiting jobs in the scheduler's order (`JobOrderSource`),
 *   each asking for one core per task and its `reqTime`.
 *
 * A start the count allows but the resource selection cannot place (memory, a node-shape rule) is left
 * waiting, its buckets held for the rest of the pass. GPU jobs are backfilled by the counted pass on the counted
 * capacity (their GPUs counted per group beside their cores, as the Slurm model counts them), not on the core
 * capacity (whose resource selection places no GPUs); under `within: "nodes"` the whole-node passes hold them on
 * each node (the will-run test reads each node's free GPUs and what each running job holds there; the
 * node-profile pass tries only the groups whose nodes have the job's GPUs), as the select plugin holds them
 * (`slurmSelect.ts`).
 */
import { ScratchIndexList, ScratchList } from '../core/scratchList.js';
import type { ClusterSimulator, RunningJob } from '../execution/simulator.js';
import type { StartOptions } from '../execution/simulatorOptions.js';
import { type Job, nodeMemOf } from '../workload/job.js';
import { CountedBackfill, type CountedBackfillSettings, type CountedBackfillView } from './countedBackfill.js';
import type { NodeFit, ResourcePolicy } from './placement.js';
import { nodeProfilePass, type NodeProfileView } from './nodeProfileBackfill.js';
import { lastRun } from './preemption.js';
import { SlurmNodeSelection } from './slurmSelect.js';
import { usableGpus } from './nodeSelection.js';
import { wallClockEnd, type WillRunJob, type WillRunView, willRunPass } from './willRunBackfill.js';
import { SlurmGroups } from './slurmGroups.js';
import type { SlurmPlacementScope } from './slurmMainPass.js';

/** A scheduler whose queue order the backfill pass walks, and whose resource selection places its starts. */
export interface JobOrderSource {
  /**
   * The first `k` waiting jobs in its order now, into `into`; with `slots`, their waiting slots when the order
   * keeps them (`PolicyScheduler.inOrder`: both lists emptied first, kept by the caller).
   */
  inOrder(sim: ClusterSimulator, k: number, into: ScratchList<Job>, slots?: ScratchIndexList): void;
  readonly resources: ResourcePolicy;
  readonly fit: NodeFit;
  /** Where its main pass places jobs (Slurm's main pass): `nodes` makes the backfill pass the whole-node one. */
  readonly within?: SlurmPlacementScope;
}

/** Whether `s` has a queue order and a resource selection (a `PolicyScheduler`). */
export function isJobOrderSource(s: object): s is JobOrderSource {
  return typeof (s as Partial<JobOrderSource>).inOrder === 'function' && (s as Partial<JobOrderSource>).resources !== undefined;
}

/** The backfill scheduler's settings: the pass's, and its timer (slurm.conf's names). */
export interface SlurmBackfillSettings extends CountedBackfillSettings {
  /** bf_interval (s): the time between passes. */
  interval: number;
  /** Passes on the grid `k x interval` (slurmctld's own timer) instead of `interval` after a job came to an empty queue. */
  grid: boolean;
  /** bf_max_job_test: waiting jobs tested per pass. */
  maxJobTest: number;
  /**
   * With whole-node allocation (`within: "nodes"`): Slurm 22.05's own pass with the select plugin's will-run
   * test (`willRunBackfill.ts`; the Slurm preset's `SlurmConfig.bfWillRun`), instead of the node-profile pass of whole
   * one-core nodes (`nodeProfileBackfill.ts`).
   */
  willRun?: boolean;
}

/** Slurm 16.05's defaults (those of `DEFAULT_SLURM`, src/slurm/config.ts). */
export const DEFAULT_SLURM_BACKFILL: SlurmBackfillSettings = {
  interval: 30,
  window: 1440 * 60,
  resolution: 60,
  maxJobTest: 100,
  grid: false,
  slurmRounding: false,
  reserveIdle: 'none',
};

/** The engine whose backfill pass runs now (`inBackfillPass`; null: none). */
let passing: ClusterSimulator | null = null;

/** Whether a Slurm backfill pass runs on `sim` now: a job it starts is a backfill start (Slurm's `Scheduler=Backfill`; slurm-replay's `backfilled`). */
export function inBackfillPass(sim: ClusterSimulator): boolean {
  return passing === sim;
}

/** Seconds until running job `rj` is expected to end by its time limit (an operator-suspended job resumes first), at least 0. */
export function expectedTimeLeft(rj: RunningJob, now: number): number {
  let left = rj.job.reqTime - rj.ranFor(now);
  const s = rj.sus;
  if (s !== null && s.at === s.at) {
    const ev = rj.job.operatorEvents?.[s.opNext - 1];
    if (ev !== undefined) left += Math.max(0, s.at + ev.duration - now);
  }
  return Math.max(0, left);
}

/**
 * The running jobs of one engine as the backfill pass reads them, kept as dense typed arrays from the
 * engine's starts, suspensions, resumptions and ends (the pass walks every running job at every pass: a
 * struct-of-arrays walk rather than one over `RunningJob` records). A job of one group,
 * neither `seq` nor suspended, is read from the arrays; any other from its record (`expectedTimeLeft`).
 */
class RunningHoldings {
  /** Per running job (dense): its slot, group (-1: read its record), cores, time limit, start, time suspended. */
  slot = new Int32Array(256);
  group = new Int32Array(256);
  cores = new Float64Array(256);
  gpus = new Float64Array(256);
  limit = new Float64Array(256);
  start = new Float64Array(256);
  suspended = new Float64Array(256);
  count = 0;
  /** Per engine slot: its position in the arrays (-1: none). */
  private pos = new Int32Array(256).fill(-1);

  constructor(readonly sim: ClusterSimulator) {
    for (const rj of sim.running()) this.add(rj);
    sim.addListener({
      onStart: (_s, rj) => this.add(rj),
      onSuspend: (_s, rj) => this.update(rj),
      onResume: (_s, rj) => this.update(rj),
      onResize: (_s, rj) => this.update(rj),
      onRequeue: (_s, rj) => this.remove(rj.slot),
      onEnd: (_s, _rec, rj) => {
        if (rj !== null) this.remove(rj.slot);
      },
    });
  }

  private add(rj: RunningJob): void {
    if (this.count === this.slot.length) {
      const n = 2 * this.count;
      const grow = <A extends Int32Array | Float64Array>(a: A, b: A): A => {
        b.set(a);
        return b;
      };
      this.slot = grow(this.slot, new Int32Array(n));
      this.group = grow(this.group, new Int32Array(n));
      this.cores = grow(this.cores, new Float64Array(n));
      this.gpus = grow(this.gpus, new Float64Array(n));
      this.limit = grow(this.limit, new Float64Array(n));
      this.start = grow(this.start, new Float64Array(n));
      this.suspended = grow(this.suspended, new Float64Array(n));
    }
    if (rj.slot >= this.pos.length) {
      const p = new Int32Array(Math.max(2 * this.pos.length, rj.slot + 1)).fill(-1);
      p.set(this.pos);
      this.pos = p;
    }
    const i = this.count++;
    this.pos[rj.slot] = i;
    this.slot[i] = rj.slot;
    this.update(rj);
  }

  /** Takes `rj`'s fields again (its group, its suspension). */
  private update(rj: RunningJob): void {
    const i = this.pos[rj.slot]!;
    if (i < 0) return;
    const nodes = rj.nodes;
    const ng = this.sim.counted !== null ? null : this.sim.platform.nodeGroup;
    const g0 = ng === null ? nodes[0]! : ng[nodes[0]!]!;
    const oneGroup = nodes.length === 1 || (ng !== null && g0 === ng[nodes[nodes.length - 1]!]);
    const plain = oneGroup && rj.job.type !== 'seq' && !rj.suspended;
    this.group[i] = plain ? g0 : -1;
    this.cores[i] = rj.cores.length;
    this.gpus[i] = rj.gpus.length;
    this.limit[i] = rj.job.reqTime;
    this.start[i] = rj.start;
    this.suspended[i] = rj.suspendedTime;
  }

  private remove(slot: number): void {
    const i = this.pos[slot]!;
    if (i < 0) return;
    const last = --this.count;
    if (i !== last) {
      const s = this.slot[last]!;
      this.slot[i] = s;
      this.group[i] = this.group[last]!;
      this.cores[i] = this.cores[last]!;
      this.gpus[i] = this.gpus[last]!;
      this.limit[i] = this.limit[last]!;
      this.start[i] = this.start[last]!;
      this.suspended[i] = this.suspended[last]!;
      this.pos[s] = i;
    }
    this.pos[slot] = -1;
  }
}

/** Slurm's backfill pass on the one engine (see the module comment). */
export class SlurmBackfill implements CountedBackfillView {
  private readonly counted = new CountedBackfill();
  private sim!: ClusterSimulator;
  /** The jobs the pass tests (one list, refilled at each pass), and their handles for the counted pass (`0 .. n - 1`; a start sets its own to -1). */
  private readonly jobs = new ScratchList<Job>();
  private handles = new Int32Array(64);
  /** The waiting slots of `jobs` (`WaitingQueue`), when the order keeps them (else empty). */
  private readonly jobSlots = new ScratchIndexList();
  private free = new Float64Array(0);
  /** Free GPUs per group, taken at the start of each pass (the counted capacity's). */
  private freeG = new Float64Array(0);
  private groups!: SlurmGroups;
  private holdings: RunningHoldings | null = null;
  /**
   * With the will-run pass: each job's place in slurmctld's job list (`job_list`, appended at submission, kept
   * through requeues), by which the will-run test walks running jobs of equal expected ends (`WillRunJob.key`);
   * null without it (no listener, nothing kept).
   */
  private listPos: WeakMap<Job, number> | null = null;
  /** The options of the counted pass's starts, one object for every start (`startJob` reads them and keeps none). */
  private readonly startOptions: StartOptions = { transfer: true, gpus: undefined, queuePosition: undefined };
  /** Passes run, and jobs they started. */
  passes = 0;
  started = 0;

  /** Its settings (its own copy: `setWindow` changes the window). */
  readonly settings: SlurmBackfillSettings;

  constructor(
    readonly order: JobOrderSource,
    settings: SlurmBackfillSettings,
  ) {
    const s = settings;
    this.settings = { ...settings };
    if (!(s.interval > 0)) throw new RangeError(`backfill: bf_interval must be > 0, found ${s.interval}`);
    if (!(Number.isInteger(s.maxJobTest) && s.maxJobTest >= 0))
      throw new RangeError(`backfill: bf_max_job_test must be an integer >= 0, found ${s.maxJobTest}`);
    if (!(s.window > 0 && s.resolution > 0)) throw new RangeError(`backfill: bf_window and bf_resolution must be > 0, found ${s.window} and ${s.resolution}`);
  }

  /** Changes `bf_window` from the next pass on (seconds, > 0: else a `RangeError`): an operator's reconfiguration. */
  setWindow(window: number): void {
    if (!(window > 0)) throw new RangeError(`backfill: bf_window must be > 0, found ${window}`);
    this.settings.window = window;
  }

  /**
   * Follows `sim`'s submissions before its run (`SlurmPassClock.attach`): with the will-run pass, numbers each job
   * as it arrives (`listPos`; jobs already there, in the queue's order, first).
   */
  attach(sim: ClusterSimulator): void {
    if (!this.settings.willRun || this.listPos !== null) return;
    const pos = new WeakMap<Job, number>();
    this.listPos = pos;
    let n = 0;
    for (const rj of sim.running()) pos.set(rj.job, n++);
    sim.queue.forEach((job) => void pos.set(job, n++));
    sim.addListener({ onSubmit: (_s, job) => void pos.set(job, n++) });
  }

  /** The time of the pass after one at `now`: on the grid, or `interval` later. */
  nextPassAfter(now: number): number {
    const I = this.settings.interval;
    return this.settings.grid ? (Math.floor(now / I + 1e-9) + 1) * I : now + I;
  }

  /** One pass over `sim`'s queue now; returns the jobs it started. */
  pass(sim: ClusterSimulator): number {
    this.passes++;
    if (sim.queue.length === 0) return 0;
    const outer = passing;
    passing = sim;
    try {
      return this.passOver(sim);
    } finally {
      passing = outer;
    }
  }

  private passOver(sim: ClusterSimulator): number {
    this.bind(sim);
    this.order.inOrder(sim, this.settings.maxJobTest, this.jobs, this.jobSlots);
    let n: number;
    if (this.order.within === 'nodes')
      n = this.settings.willRun
        ? willRunPass(this.willRunView(sim), this.settings, this.jobs.length)
        : nodeProfilePass(this.nodeView(sim), this.settings, this.jobs.length);
    else {
      const k = this.jobs.length;
      if (k > this.handles.length) this.handles = new Int32Array(Math.max(k, 2 * this.handles.length));
      const handles = this.handles;
      for (let i = 0; i < k; i++) handles[i] = i;
      n = this.counted.pass(this, this.settings, handles, k);
    }
    this.started += n;
    return n;
  }

  /**
   * The engine as the whole-node pass reads it (`within: "nodes"`, one-core nodes only: a platform of larger
   * nodes is an error here): a node's holder is the running job owning its core, expected to end at its time limit.
   */
  private nodeView(sim: ClusterSimulator): NodeProfileView {
    const p = sim.platform;
    if (p.coreCount !== p.nodeCount)
      throw new RangeError(
        `Slurm's whole-node backfill pass (pass_clock.slurm.within: "nodes") holds whole nodes of one core each; platform ${p.name} has nodes of several cores`,
      );
    const base = Int32Array.from({ length: p.groupCount + 1 }, (_, g) => (g < p.groupCount ? p.groupFirstNode[g]! : p.nodeCount));
    const owner = sim.coreOwner;
    const slots = sim.runningBySlot;
    const jobs = this.jobs;
    const select = this.order.resources;
    return {
      now: sim.now,
      groupBase: base,
      heldFor: (x) => {
        const slot = owner[p.nodeFirstCore[x]!]!;
        return slot < 0 ? -1 : expectedTimeLeft(slots[slot]!, sim.now);
      },
      // (whole nodes, one per CPU it counts for: a requeued job's last run's, `ClusterSimulator.cpusOf`)
      units: (h) => sim.cpusOf(jobs.at(h)),
      timeLimit: (h) => jobs.at(h).reqTime,
      groupsOf: (h) => this.groups.groupsOf(jobs.at(h)),
      // nodes of a group are alike: all or none have the job's GPUs (on each node, of its type)
      groupUsable: (h, g) => {
        const job = jobs.at(h);
        if (job.gpus === undefined || !(select instanceof SlurmNodeSelection)) return true;
        const req = select.request(sim, job, this.groups.partitionOf(job));
        const x = p.groupFirstNode[g]!;
        return usableGpus(req, p.nodeGpuType[x]!, p.nodeGpuCount[x]!) >= req.gpus;
      },
      start: (h, _g, nodes) => {
        const job = jobs.at(h);
        const cores = Int32Array.from(nodes, (x) => p.nodeFirstCore[x]!);
        sim.startJob(job, cores, { transfer: true, gpus: this.groups.gpusFor(job, cores), queuePosition: this.queuePosition(sim, h) });
      },
    };
  }

  /** The queue position of the pass's job `h` when its slot is known (a hint for `startJob`), else undefined. */
  private queuePosition(sim: ClusterSimulator, h: number): number | undefined {
    const slots = this.jobSlots;
    return slots.length === this.jobs.length ? sim.queue.positionOf(slots.at(h)) : undefined;
  }

  /**
   * The engine as the will-run pass reads it (`within: "nodes"`, `willRun`): the nodes' free cores, memory and
   * GPUs, the jobs on each, and every job holding cores (running, or suspended on them by an operator) with its
   * nodes and the tasks and GPUs on each, expected to end at its time limit; jobs placed by Slurm's select plugin.
   */
  private willRunView(sim: ClusterSimulator): WillRunView {
    const select = this.order.resources;
    if (!(select instanceof SlurmNodeSelection))
      throw new RangeError('Slurm\'s will-run backfill pass places jobs by Slurm\'s select plugin (within: "nodes")');
    const p = sim.platform;
    const N = p.nodeCount;
    const now = sim.now;
    const jobsOn = new Int32Array(N);
    const holds: WillRunJob[] = [];
    if (this.listPos === null) this.attach(sim);
    const listPos = this.listPos!;
    const holdingOf = (rj: RunningJob): WillRunJob => {
      const real = now + expectedTimeLeft(rj, now);
      const running = !rj.suspended;
      // the memory it holds on each node (`nodeMemOf`: a whole node's, its `--mem`, else its tasks'), which its end gives back
      const mem = Float64Array.from(rj.perNode, (k, i) => nodeMemOf(rj.job, 0, k, p.nodeMemoryMb[rj.nodes[i]!]!));
      // the GPUs it holds on each node
      const gpus = new Int32Array(rj.nodes.length);
      for (let i = 0; i < rj.gpus.length; i++) gpus[rj.nodes.indexOf(p.gpuNode[rj.gpus[i]!]!)]!++;
      const hold = { nodes: rj.nodes, units: rj.perNode, mem, gpus, whole: false };
      return { real, end: wallClockEnd(real, lastRun(rj), running), hold, key: listPos.get(rj.job)! };
    };
    for (const rj of sim.running()) {
      if (rj.suspended && !rj.holding) continue;
      for (let k = 0; k < rj.nodes.length; k++) jobsOn[rj.nodes[k]!]!++;
      holds.push(holdingOf(rj));
    }
    const jobs = this.jobs;
    const gpuType = p.nodeGpuType;
    return {
      now,
      nodeCount: N,
      nodes: {
        cap: p.nodeCoreCount,
        free: sim.nodeFree,
        memFree: sim.nodeFreeMem,
        jobsOn,
        gpuFree: sim.allocation.nodeFreeGpus,
        memCap: p.nodeMemoryMb,
        gpuCap: p.nodeGpuCount,
        gpusFor: (req, x, free) => usableGpus(req, gpuType[x]!, free),
      },
      running: () => holds.slice(),
      // nodes still COMPLETING: the will-run test may choose them (their CPUs are free), a start there waits
      completing: sim.completingNodes,
      request: (h) => select.request(sim, jobs.at(h), this.groups.partitionOf(jobs.at(h))),
      timeLimit: (h) => jobs.at(h).reqTime,
      partitionNodes: (h) => p.partitions[this.groups.partitionOf(jobs.at(h))]!.nodes,
      start: (h, alloc) => {
        const job = jobs.at(h);
        const cores = select.cores(sim, job, alloc.nodes, alloc.units);
        if (cores === null) throw new Error(`Slurm's will-run pass chose nodes that are not job ${job.id}'s tasks`);
        const rj = sim.startJob(job, cores, { transfer: true, gpus: this.groups.gpusFor(job, cores), queuePosition: this.queuePosition(sim, h) });
        for (let k = 0; k < rj.nodes.length; k++) jobsOn[rj.nodes[k]!]!++;
        return holdingOf(rj);
      },
    };
  }

  private bind(sim: ClusterSimulator): void {
    if (this.sim !== sim) {
      this.sim = sim;
      this.holdings = new RunningHoldings(sim);
      this.free = new Float64Array(sim.platform.groupCount);
      this.freeG = new Float64Array(sim.platform.groupCount);
      this.groups = new SlurmGroups(sim);
    }
    this.free.set(sim.groupFree);
    if (sim.counted !== null) this.freeG.set(sim.counted.groupFreeGpus);
  }

  get now(): number {
    return this.sim.now;
  }
  get groupCount(): number {
    return this.sim.platform.groupCount;
  }
  get hasGpus(): boolean {
    return this.sim.counted?.groupGpus.some((n) => n > 0) ?? false;
  }
  freeCores(g: number): number {
    return this.free[g]!;
  }
  freeGpus(g: number): number {
    return this.freeG[g]!;
  }
  groupGpus(g: number): number {
    return this.sim.counted?.groupGpus[g] ?? 0;
  }
  forEachHolding(hold: (group: number, cores: number, gpus: number, timeLeft: number) => void): void {
    const sim = this.sim;
    const now = sim.now;
    const r = this.holdings!;
    const { group, cores, gpus, limit, start, suspended } = r;
    const slots = sim.runningBySlot;
    for (let i = 0; i < r.count; i++) {
      const g = group[i]!;
      if (g >= 0) {
        // `expectedTimeLeft` of a job that runs: its limit less its run time, the same arithmetic
        const left = limit[i]! - (now - start[i]! - suspended[i]! - 0);
        hold(g, cores[i]!, gpus[i]!, left > 0 ? left : 0);
      } else this.holdRecord(slots[r.slot[i]!]!, now, hold);
    }
  }

  /** What running job `rj` holds, read from its record: by group, expected to end at its time limit (none when suspended off its cores). */
  private holdRecord(rj: RunningJob, now: number, hold: (group: number, cores: number, gpus: number, timeLeft: number) => void): void {
    if (rj.suspended && !rj.holding) return;
    const left = expectedTimeLeft(rj, now);
    const nodes = rj.nodes;
    const held = rj.job.type === 'seq' ? rj.tasksLeft : rj.cores.length;
    // a running job's nodes are node ids (the core capacity) or its groups themselves (the counted capacity)
    if (this.sim.counted !== null) {
      if (nodes.length === 1) hold(nodes[0]!, held, rj.gpus.length, left);
      else for (let k = 0; k < nodes.length; k++) hold(nodes[k]!, rj.perNode[k]!, 0, left);
      return;
    }
    const nodeGroup = this.sim.platform.nodeGroup;
    const g0 = nodeGroup[nodes[0]!]!;
    if (g0 === nodeGroup[nodes[nodes.length - 1]!]) hold(g0, held, 0, left);
    else for (let k = 0; k < nodes.length; k++) hold(nodeGroup[nodes[k]!]!, rj.perNode[k]!, 0, left);
  }

  cores(h: number): number {
    return this.jobs.at(h).ntasks;
  }
  gpus(h: number): number {
    return this.jobs.at(h).gpus?.count ?? 0;
  }
  timeLimit(h: number): number {
    return this.jobs.at(h).reqTime;
  }
  groupsOf(h: number): readonly number[] {
    const job = this.jobs.at(h);
    // (GPU jobs on the counted capacity only: the core capacity's resource selection places no GPUs)
    return job.gpus !== undefined && this.sim.counted === null ? [] : this.groups.groupsOf(job);
  }
  gpuFits(h: number, g: number, free: number): boolean {
    const job = this.jobs.at(h);
    const n = job.gpus?.count ?? 0;
    return n === 0 || (this.sim.counted!.gpuTypeFits(job, g) && free >= n);
  }
  start(h: number, g: number): boolean {
    const job = this.jobs.at(h);
    const cores = this.groups.place(job, g, this.order.resources, this.order.fit);
    if (cores === null) return false;
    const gpus = this.groups.gpusFor(job, cores);
    const o = this.startOptions;
    o.gpus = gpus;
    o.queuePosition = this.queuePosition(this.sim, h);
    this.sim.startJob(job, cores, o);
    this.free[g]! -= job.ntasks;
    if (gpus !== undefined) this.freeG[g]! -= gpus.length;
    return true;
  }
}
