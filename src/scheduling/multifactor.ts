/**
 * Slurm's multifactor priority (`priority/multifactor`) as a priority dimension of the one engine
 * (DESIGN §15): the formula, as Slurm's documentation states it
 * (https://slurm.schedmd.com/priority_multifactor.html; fair share by the classic algorithm of
 * https://slurm.schedmd.com/classic_fair_share.html, kept in the user ledger, `userLedger.ts`):
 *
 *     priority = floor( W_age * age + W_fs * fairshare + W_size * jobsize + W_part * partition + W_qos * qos )
 *
 * every factor a number in [0, 1]:
 * - **age** = `min(1, (now - submit) / PriorityMaxAge)`;
 * - **job size** = `cores / total cores` (`PriorityFavorSmall=YES`: `(total - cores + 1) / total`);
 * - **partition** = the partition's `PriorityJobFactor` / the platform's largest;
 * - **QOS** = the QOS's priority / the largest QOS priority;
 * - **fair share** = `2^(-U / S / d)` of the job's user (`userLedger.ts`).
 *
 * Slurm truncates the sum to an integer and orders pending jobs by partition `PriorityTier` (higher
 * first), then priority (higher first), submit time, job id. The Slurm preset (src/slurm/preset.ts) and the job
 * selection `multifactor` of the batch schedulers (`MultifactorSelection` below) use this one formula.
 *
 * **Usage accounting** (`MultifactorSelection`): each user's running jobs add their cores x seconds;
 * every `PriorityCalcPeriod` the ledger's usage decays by `2^(-period / half_life)` and takes the period's
 * core-seconds, and priorities are recomputed then (between ticks they hold, as in Slurm). A resized job
 * accrues at its new size from the resize decision on (docs/model.md).
 *
 * **Reconfiguration** (`reconfigure`: an operator's `scontrol reconfigure` of the weights, `PriorityMaxAge`,
 * `PriorityFavorSmall` or the dampening mid-run): every waiting job's priority is recomputed at the change and
 * the queue order re-keyed at the next pass (only a pass reads the order; the retired Slurm engine re-sorted at
 * once, to the same schedules: test/golden/slurmEngine.ts).
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import { holdsItsPlacement, type Job } from '../workload/job.js';
import { grown } from '../core/arrays.js';
import { nextGridPoint } from '../core/grid.js';
import type { Partition } from '../platform/partitions.js';
import type { Platform } from '../platform/platform.js';
import type { JobSelection } from './selection.js';
import { UsageLedger, UserLedger } from './userLedger.js';

/** Multifactor weights and parameters (slurm.conf names in the comments). */
export interface PriorityConfig {
  /** PriorityWeightAge. */
  weightAge: number;
  /** PriorityWeightFairshare. */
  weightFairshare: number;
  /** PriorityWeightJobSize. */
  weightJobSize: number;
  /** PriorityWeightPartition. */
  weightPartition: number;
  /** PriorityWeightQOS. */
  weightQos: number;
  /** PriorityMaxAge (s). */
  maxAge: number;
  /** PriorityFavorSmall. */
  favorSmall: boolean;
  /** PriorityDecayHalfLife (s); 0 = no decay. */
  decayHalfLife: number;
  /** PriorityCalcPeriod (s): how often usage decays and priorities are recomputed. */
  calcPeriod: number;
  /** PriorityDampeningFactor. */
  dampening: number;
  /**
   * The job size factor: `cores` (`jobSizeFactor`, seed 004's model) or `slurm22` (Slurm 22.05's
   * `set_priority_factors`: nodes and CPUs averaged, `jobSizeFactor22`). Absent: `cores`.
   */
  jobSize?: 'cores' | 'slurm22';
  /**
   * Where the `PriorityCalcPeriod` ticks fall: at `calcPhase + k x calcPeriod` of the engine's clock (Slurm's
   * decay thread ticks from slurmctld's start); absent: one period after the first event (the selection's
   * attachment), then every period.
   */
  calcPhase?: number;
}

/**
 * Defaults: Slurm's for `PriorityMaxAge` (7-0), `PriorityDecayHalfLife` (7-0), `PriorityCalcPeriod`
 * (5 min), `PriorityDampeningFactor` (1), `PriorityFavorSmall` (NO). Slurm's weights default to 0
 * (FIFO); these are a typical production setting where fair share dominates, then age, size, partition.
 */
export const DEFAULT_PRIORITY: PriorityConfig = {
  weightAge: 1000,
  weightFairshare: 10000,
  weightJobSize: 1000,
  weightPartition: 1000,
  weightQos: 0,
  maxAge: 7 * 86400,
  favorSmall: false,
  decayHalfLife: 7 * 86400,
  calcPeriod: 300,
  dampening: 1,
};

/** Every factor's weight 0 (slurm.conf's default `PriorityWeight*`): spread over a configuration before the weights it sets. */
export const NO_PRIORITY_WEIGHTS = { weightAge: 0, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, weightQos: 0 } as const;

/**
 * The settings a run's multifactor priority may change mid-run (`MultifactorSelection.reconfigure`): what a
 * waiting job's priority reads when it is computed, not the tick grid (`calcPeriod`, `calcPhase`), the decay
 * (`decayHalfLife`) nor the size formula (`jobSize`).
 */
export const RECONFIGURABLE_PRIORITY = [
  'weightAge',
  'weightFairshare',
  'weightJobSize',
  'weightPartition',
  'weightQos',
  'maxAge',
  'favorSmall',
  'dampening',
] as const;

/** Age factor: `min(1, age / maxAge)` (0 before submission). */
export function ageFactor(age: number, maxAge: number): number {
  if (age <= 0) return 0;
  return maxAge <= 0 ? 1 : Math.min(1, age / maxAge);
}

/** Job size factor: `cores / total`, or `(total - cores + 1) / total` favouring small jobs. */
export function jobSizeFactor(cores: number, totalCores: number, favorSmall: boolean): number {
  const f = favorSmall ? (totalCores - cores + 1) / totalCores : cores / totalCores;
  return Math.min(1, Math.max(0, f));
}

/**
 * Slurm 22.05's job size factor (`set_priority_factors` without `PriorityFlags=SMALL_RELATIVE_TO_TIME`):
 * `(minNodes / nodes + cpus / totalCpus) / 2`, or with `PriorityFavorSmall`
 * `((nodes - minNodes) / nodes + (totalCpus - cpus) / totalCpus) / 2`, in [0, 1].
 */
export function jobSizeFactor22(minNodes: number, cpus: number, nodes: number, totalCpus: number, favorSmall: boolean): number {
  const f = favorSmall ? ((nodes - minNodes) / nodes + (totalCpus - cpus) / totalCpus) / 2 : (minNodes / nodes + cpus / totalCpus) / 2;
  return Math.min(1, Math.max(0, f));
}

/** The weighted, truncated sum of the factors (each in [0, 1]). */
export function jobPriority(cfg: PriorityConfig, f: { age: number; fairshare: number; jobSize: number; partition: number; qos: number }): number {
  return weightedPriority(cfg, f.age, f.fairshare, f.jobSize, f.partition, f.qos);
}

/** `jobPriority` of the factors given one by one (an engine's hot path: no object made per job). */
export function weightedPriority(cfg: PriorityConfig, age: number, fairshare: number, jobSize: number, partition: number, qos: number): number {
  return Math.floor(
    cfg.weightAge * age + cfg.weightFairshare * fairshare + cfg.weightJobSize * jobSize + cfg.weightPartition * partition + cfg.weightQos * qos,
  );
}

/** Options of the `multifactor` job selection (`PriorityConfig` plus what the cluster and the users give). */
export interface MultifactorOptions {
  priority?: Partial<PriorityConfig> | undefined;
  /** Shares by user name (Slurm's `Shares`; default 1). */
  shares?: Readonly<Record<string, number>> | undefined;
  /** Priority of each QOS by name (default 0; a job without `qos` has 0). */
  qos?: Readonly<Record<string, number>> | undefined;
  /**
   * A decision point at every `PriorityCalcPeriod` tick while jobs wait (`ClusterSimulator.requestPass`),
   * as the Slurm preset runs its main pass after recomputing the priorities (`SlurmPassClock`'s priority ticks;
   * the retired Slurm engine's rule, test/golden/slurmEngine.ts); off: the new priorities
   * order the next decision point that comes anyway.
   */
  passAtTick?: boolean | undefined;
  /** The CPUs Slurm counts on the platform (threads included) for Slurm 22.05's job size factor; absent: its cores. */
  totalCpus?: number | undefined;
}

/**
 * The job selection `multifactor` (module comment): attached to an engine (`attach`), it accounts each
 * user's usage from the engine's starts, resizes and ends, and orders the waiting jobs by partition tier
 * then priority (higher first); ties keep arrival order.
 */
export class MultifactorSelection implements JobSelection {
  readonly name = 'multifactor';
  /** Priorities hold between `PriorityCalcPeriod` ticks: the epoch is the tick count. */
  readonly kind = 'epoch' as const;
  readonly config: PriorityConfig;
  private ledger: UserLedger | null = null;
  private sim: ClusterSimulator | null = null;
  /** Cores each user's running jobs hold and their usage since the last tick (by ledger index). */
  private usage = new UsageLedger();
  private nextTick = 0;
  /** When the selection was attached (jobs that waited before: their priority is set then). */
  private attachedAt = 0;
  private totalCores = 1;
  private maxQos = 1;
  private maxPartitionFactor = 1;
  /**
   * Priority of each waiting job by its waiting slot (`WaitingQueue`), computed at the last tick (or when it
   * was first keyed), valid where `priorityJob` holds that job; a started or rejected job's goes.
   */
  private priority = new Float64Array(64);
  private readonly priorityJob: (Job | null)[] = [];
  /**
   * What a job's priority reads that holds while it waits, by its waiting slot (valid where `factorJob` holds
   * that job): its user (ledger index), and its job size, partition and QOS factors and its partition's tier
   * (`slotFactors[4 * slot ..]`). A waiting job's priority is recomputed at every tick: these are read there,
   * not looked up again.
   */
  private readonly factorJob: (Job | null)[] = [];
  private slotUser = new Int32Array(64);
  private slotFactors = new Float64Array(64 * 4);
  /** Each user's fair-share factor (by ledger index), as of the ledger's `version` in `fairShareAt`. */
  private fairShares = new Float64Array(16);
  private fairShareAt = new Float64Array(16).fill(-1);
  /** The factors of a job that is not waiting (`compute` without a slot). */
  private readonly scratchFactors = new Float64Array(4);
  /** The partition `partitionOf` found last (of the attached engine's platform). */
  private lastPartition: Partition | undefined = undefined;
  /** Ticks so far (the order's epoch). */
  private ticks = 0;
  /** Where the ticks start when a reconfiguration came before the attachment (NaN: at the attachment; `reconfigure`). */
  private tickOrigin = Number.NaN;

  constructor(readonly options: MultifactorOptions = {}) {
    this.config = { ...DEFAULT_PRIORITY, ...(options.priority ?? {}) };
    const q = Object.values(options.qos ?? {});
    this.maxQos = Math.max(1, ...q);
  }

  /** The user ledger (after `attach`). */
  get users(): UserLedger {
    if (this.ledger === null) throw new Error('multifactor: not attached to an engine');
    return this.ledger;
  }

  /** Follows `sim`'s starts, resizes and ends for usage (once per engine). */
  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    this.sim = sim;
    const p = sim.platform;
    this.totalCores = p.coreCount;
    this.maxPartitionFactor = Math.max(1, ...p.partitions.map((x) => x.priorityJobFactor));
    this.ledger = new UserLedger(p.coreCount, p.totalMemoryMb, this.options.shares ?? {});
    this.usage = new UsageLedger(0);
    for (const name of Object.keys(this.options.shares ?? {})) this.userOf(name);
    this.attachedAt = sim.now;
    // (a reconfiguration before the attachment started the ticks then: `reconfigure`)
    this.nextTick = Number.isNaN(this.tickOrigin) ? this.tickAfter(sim.now) : nextGridPoint(sim.now, this.config.calcPeriod, this.tickOrigin);
    this.priorityJob.length = 0;
    this.lastPartition = undefined;
    // cores each running job accrues for (by slot: a slot is its job's from its start to its end), and a
    // suspended job's (it accrues none while suspended)
    const held: number[] = [];
    const suspendedHeld: number[] = [];
    // each running job's user (its ledger index), by slot
    const userAt: number[] = [];
    sim.addListener({
      // a user is known from its first submission (its share normalised over the users known)
      onSubmit: (s, job) => {
        const slot = s.queue.slotOf(job);
        if (slot >= 0) this.factorsAt(job, slot);
        else this.userOf(job.user ?? '');
        if (this.options.passAtTick) s.requestPass(this.nextTick);
      },
      onStart: (s, rj) => {
        // (the ticks due first, as for any change of holdings: a user first known here joins after them)
        this.advance(s.now);
        const w = rj.waitingSlot;
        const u = w >= 0 && this.factorJob[w] === rj.job ? this.slotUser[w]! : this.userOf(rj.job.user ?? '');
        this.forget(w);
        held[rj.slot] = rj.cores.length;
        suspendedHeld[rj.slot] = 0;
        userAt[rj.slot] = u;
        this.hold(s, u, rj.cores.length);
      },
      onResize: (s, rj, _from, to) => {
        // a resized job accrues at its new size from the decision (docs/model.md)
        const now = to * (rj.malleable?.tasksPerNode ?? 1);
        this.hold(s, userAt[rj.slot]!, now - held[rj.slot]!);
        held[rj.slot] = now;
      },
      // a suspended job accrues no usage (Slurm's decay thread counts running jobs only; docs/model.md)
      onSuspend: (s, rj) => {
        const h = held[rj.slot]!;
        held[rj.slot] = 0;
        suspendedHeld[rj.slot] = h;
        this.hold(s, userAt[rj.slot]!, -h);
      },
      onResume: (s, rj) => {
        // (a job that holds its placement may resume elsewhere on another count: the cores it holds now)
        const h = holdsItsPlacement(rj.job) ? rj.cores.length : suspendedHeld[rj.slot]!;
        suspendedHeld[rj.slot] = 0;
        held[rj.slot] = h;
        this.hold(s, userAt[rj.slot]!, h);
      },
      onEnd: (s, rec, rj) => {
        if (rj !== null) this.hold(s, userAt[rj.slot]!, -held[rj.slot]!);
        else {
          this.advance(s.now);
          this.hold(s, this.userOf(rec.job.user ?? ''), -rec.cores.length);
        }
      },
      onReject: (s, rec) => {
        // (a job rejected at its submission never waited; one rejected from the queue holds its slot until its listeners ran)
        const slot = s.queue.slotOf(rec.job);
        if (slot >= 0) this.forget(slot);
      },
      // a preempted job back in the queue accrues nothing until it starts again; its priority is set anew
      // then (its age from its submission), as Slurm sets a requeued job's
      onRequeue: (s, rj) => {
        this.hold(s, userAt[rj.slot]!, -held[rj.slot]!);
        held[rj.slot] = 0;
        {
          const slot = s.queue.slotOf(rj.job);
          this.remember(slot, rj.job, this.compute(rj.job, s.now, slot));
        }
      },
    });
  }

  /** Keeps priority `prio` for `job`, waiting in slot `slot`. */
  private remember(slot: number, job: Job, prio: number): void {
    if (slot >= this.priority.length) this.priority = grown(this.priority, Math.max(slot + 1, this.priority.length * 2));
    this.priority[slot] = prio;
    this.priorityJob[slot] = job;
  }

  /** Drops the priority kept for the job of waiting slot `slot`, which leaves the queue. */
  private forget(slot: number): void {
    if (slot < this.priorityJob.length) this.priorityJob[slot] = null;
    if (slot < this.factorJob.length) this.factorJob[slot] = null;
  }

  /** Keeps the factors of waiting `job` in slot `slot` that hold while it waits (`factorJob`), on first need. */
  private factorsAt(job: Job, slot: number): void {
    if (this.factorJob[slot] === job) return;
    if (slot >= this.slotUser.length) {
      const n = Math.max(slot + 1, this.slotUser.length * 2);
      this.slotUser = grown(this.slotUser, n);
      this.slotFactors = grown(this.slotFactors, n * 4);
    }
    while (this.factorJob.length <= slot) this.factorJob.push(null);
    this.slotUser[slot] = this.userOf(job.user ?? '');
    this.factorsInto(job, this.slotFactors, 4 * slot);
    this.factorJob[slot] = job;
  }

  /** `job`'s factors that hold while it waits, into `f[i..i+3]`: job size, partition, QOS, its partition's tier. */
  private factorsInto(job: Job, f: Float64Array, i: number): void {
    const sim = this.sim!;
    const part = this.partitionOf(job, sim.platform);
    const c = this.config;
    // (its CPUs: its cores, or a requeued job's last run's, `ClusterSimulator.cpusOf`)
    f[i] = c.jobSize === 'slurm22' ? this.sizeFactor22(job, part) : jobSizeFactor(sim.cpusOf(job), this.totalCores, c.favorSmall);
    f[i + 1] = (part?.priorityJobFactor ?? 1) / this.maxPartitionFactor;
    f[i + 2] = job.qos !== undefined ? (this.options.qos?.[job.qos] ?? 0) / this.maxQos : 0;
    f[i + 3] = part?.priorityTier ?? 1;
  }

  /** User `u`'s fair-share factor now (kept until the ledger changes). */
  private fairShareOf(u: number): number {
    const L = this.ledger!;
    if (u >= this.fairShares.length) {
      const n = Math.max(u + 1, this.fairShares.length * 2);
      this.fairShares = grown(this.fairShares, n);
      this.fairShareAt = grown(this.fairShareAt, n, -1);
    }
    if (this.fairShareAt[u] !== L.version) {
      this.fairShares[u] = L.fairShare(u, L.totalUsage(), this.config.dampening);
      this.fairShareAt[u] = L.version;
    }
    return this.fairShares[u]!;
  }

  private userOf(name: string): number {
    return this.ledger!.id(name);
  }

  /** A running job of user `u` (its ledger index) holds `dCores` more cores from now. */
  private hold(sim: ClusterSimulator, u: number, dCores: number): void {
    this.advance(sim.now);
    if (dCores !== 0) this.usage.addCores(u, dCores, sim.now);
  }

  /** The tick after one at (or the attachment at) `t`: a period later, or the next point of the `calcPhase` grid (the retired Slurm engine's arithmetic, to the bit: test/golden/slurmEngine.ts). */
  private tickAfter(t: number): number {
    const { calcPeriod: P, calcPhase: phase } = this.config;
    return phase === undefined ? t + P : nextGridPoint(t, P, phase);
  }

  /**
   * Every waiting job's priority at `t`, kept by its waiting slot (a tick's recomputation, or a reconfiguration's).
   * Read in place, position by position: a snapshot of the queue would be a new array each time, and a callback
   * would box each priority it passes on.
   */
  private recomputeWaiting(t: number): void {
    const q = this.sim!.queue;
    for (let i = q.nextAt(q.start); i < q.end; i = q.nextAt(i + 1)) {
      const slot = q.slotAt(i);
      const job = q.at(i)!;
      this.remember(slot, job, this.compute(job, t, slot));
    }
  }

  /** Runs the calc-period ticks up to `now`: each decays the ledger, folds in the usage accrued since the last, and recomputes the waiting jobs' priorities. */
  private advance(now: number): void {
    const L = this.ledger!;
    while (this.nextTick <= now) {
      this.usage.tick(this.nextTick, L, this.config.calcPeriod, this.config.decayHalfLife);
      // every waiting job's priority is recomputed at the tick, and holds until the next one
      this.recomputeWaiting(this.nextTick);
      this.nextTick = this.tickAfter(this.nextTick);
      this.ticks++;
    }
    // (usage runs on in the usage ledger: it is charged when a user's cores change, and folded at the ticks)
  }

  /** The multifactor priority of waiting `job` now (Slurm's integer); `slot`: its waiting slot, when the caller knows it. */
  priorityOf(job: Job, now: number, slot = -1): number {
    const sim = this.sim;
    if (sim === null) throw new Error('multifactor: not attached to an engine');
    const s = slot >= 0 ? slot : sim.queue.slotOf(job);
    if (s >= 0 && this.priorityJob[s] === job) return this.priority[s]!;
    // Slurm sets a job's priority at its submission, then at every tick (which recomputes the waiting jobs,
    // `advance`): a job not yet cached has seen no tick since it came, so the ledger is as it was then, and its
    // age is its age at submission (a job that waited before the selection was attached: now). Its user's
    // normalised share counts the users known now (the users of its own instant included).
    const prio = this.compute(job, Math.max(job.subtime, Math.min(now, this.attachedAt)), s);
    if (s >= 0) this.remember(s, job, prio);
    return prio;
  }

  /** The partition `job` asks for (undefined: none of `p`'s), the last one asked for first (most jobs ask for the same one). */
  private partitionOf(job: Job, p: Platform): Partition | undefined {
    if (job.partition === undefined) return p.partitions[p.defaultPartition];
    const last = this.lastPartition;
    if (last !== undefined && last.name === job.partition) return last;
    const part = p.partitions[p.partitionIndex(job.partition)];
    this.lastPartition = part;
    return part;
  }

  /** The multifactor priority of `job` at `now`, from the ledger as it is; `slot`: its waiting slot (-1: not waiting). */
  private compute(job: Job, now: number, slot: number): number {
    const c = this.config;
    if (slot >= 0) {
      this.factorsAt(job, slot);
      const f = this.slotFactors;
      const i = 4 * slot;
      return weightedPriority(c, ageFactor(now - job.subtime, c.maxAge), this.fairShareOf(this.slotUser[slot]!), f[i]!, f[i + 1]!, f[i + 2]!);
    }
    const f = this.scratchFactors;
    this.factorsInto(job, f, 0);
    return weightedPriority(c, ageFactor(now - job.subtime, c.maxAge), this.fairShareOf(this.userOf(job.user ?? '')), f[0]!, f[1]!, f[2]!);
  }

  /**
   * Slurm 22.05's job size factor of `job` in partition `part`: its minimum nodes (its Slurm node request's,
   * `slurmRequest`, as the select plugin reads it: `-N`, else 1; else its cores over the cores of a node of
   * the partition's first group) and its CPUs (an exclusive request's: one per node; else `cpusOf`), of the platform's nodes and cores.
   */
  private sizeFactor22(job: Job, part: Partition | undefined): number {
    const p = this.sim!.platform;
    const g = part?.groups[0] ?? 0;
    const r = job.slurmRequest;
    const minNodes = r !== undefined ? Math.max(1, r.minNodes ?? 1) : Math.ceil(job.ntasks / p.nodeCoreCount[p.groupFirstNode[g]!]!);
    const cpus = r?.exclusive === true ? minNodes : this.sim!.cpusOf(job);
    return jobSizeFactor22(minNodes, cpus, p.nodeCount, this.options.totalCpus ?? p.coreCount, this.config.favorSmall);
  }

  /**
   * Changes the weights and parameters from `now` on, as an operator's `scontrol reconfigure` does (the Slurm
   * engine's `setScheduling`): the ticks due by `now` run first under the old ones; then every waiting job's
   * priority is recomputed at `now` under the new ones (its factors that hold while it waits read again: the
   * job size factor reads `favorSmall`), and the order's epoch moves on, so that the next pass re-keys the queue
   * (`StaticOrder`). A change before the attachment (the first submission) starts the ticks at `now` when no
   * `calcPhase` places them, as a stepped Slurm run's first event starts its ticks (`SlurmPresetRun`). Only what is read at a tick or a key may change (`RECONFIGURABLE_PRIORITY`); a change of
   * anything else (the tick grid, the decay, the size formula) is an `Error` naming it.
   */
  reconfigure(change: Partial<PriorityConfig>, now: number): void {
    const c = this.config;
    for (const k of Object.keys(change) as (keyof PriorityConfig)[])
      if (change[k] !== undefined && change[k] !== c[k] && !(RECONFIGURABLE_PRIORITY as readonly string[]).includes(k))
        throw new Error(`multifactor: ${k} cannot change during a run (only ${RECONFIGURABLE_PRIORITY.join(', ')})`);
    if (this.sim !== null) this.advance(now);
    for (const k of RECONFIGURABLE_PRIORITY) {
      const v = change[k];
      if (v !== undefined) (c as unknown as Record<string, unknown>)[k] = v;
    }
    if (this.sim === null) {
      // before the first submission: a stepped Slurm run's ticks start at its first event, this change
      if (c.calcPhase === undefined && Number.isNaN(this.tickOrigin)) this.tickOrigin = now;
      return;
    }
    // (the factors kept by waiting slot and the fair shares kept by user are read again)
    this.factorJob.fill(null);
    this.fairShareAt.fill(-1);
    this.recomputeWaiting(now);
    this.ticks++;
  }

  key(job: Job, now: number, _origin?: number, slot?: number): number {
    if (this.sim === null) throw new Error('the multifactor job selection orders the jobs of an engine: attach it first (`attach(sim)`)');
    this.advance(now);
    const s = slot !== undefined && slot >= 0 ? slot : this.sim.queue.slotOf(job);
    const prio = this.priorityOf(job, now, s);
    if (s >= 0) this.factorsAt(job, s);
    // higher tier first, then higher priority (the key is ascending)
    const tier = s >= 0 ? this.slotFactors[4 * s + 3]! : (this.partitionOf(job, this.sim.platform)?.priorityTier ?? 1);
    return -(tier * 2 ** 40 + prio);
  }

  epoch(now: number): number {
    if (this.sim === null) throw new Error('the multifactor job selection orders the jobs of an engine: attach it first (`attach(sim)`)');
    this.advance(now);
    // while jobs wait, the next tick is a decision point (`passAtTick`)
    if (this.options.passAtTick && this.sim.queue.length > 0) this.sim.requestPass(this.nextTick);
    return this.ticks;
  }

  order(queue: readonly Job[], now: number): Job[] {
    const keys = new Map<Job, number>();
    for (const j of queue) keys.set(j, this.key(j, now));
    // while jobs wait, the next tick is a decision point (`passAtTick`)
    if (this.options.passAtTick && queue.length > 0) this.sim!.requestPass(this.nextTick);
    return queue
      .map((j, i) => ({ j, i }))
      .sort((a, b) => keys.get(a.j)! - keys.get(b.j)! || a.i - b.i)
      .map((x) => x.j);
  }
}
