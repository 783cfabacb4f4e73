/**
 * The loop of `clustergym slurm-agent`: a policy of clustergym schedules a live Slurm.
 *
 * The agent keeps a live mirror of the managed partitions: a `ClusterSimulator` on the platform
 * (one platform node per Slurm node) fed with what Slurm reports, observed by the env itself
 * (`ClusterEnv.attachLive`): the queue window, the mask, the observation and the action's
 * placement are the env's own code, so a policy sees exactly what it saw in training. Every poll
 * (`pollMs`):
 *
 * 1. `squeue --json`; the mirror's clock moves to now (Unix seconds minus the origin: the agent's
 *    first look at a non-empty queue);
 * 2. the changes, ends first: a job that ended (completed, failed, timed out, cancelled, or
 *    forgotten by slurmctld) leaves the mirror; a new held job of a managed partition joins its
 *    queue (its request: CPUs as tasks of an MPI job on any nodes, the time limit as the requested
 *    time, or the `req_time` limit without one); a job that runs but was not decided (started by
 *    someone else, or before a restart) is placed on its Slurm nodes; a decided job that started
 *    takes the CPUs per node Slurm gave it (`align`);
 * 3. after a poll that saw a change (the env's decision points: a job arrives, a job ends), as
 *    long as the env's state is a decision point (some job can start), the policy picks an action;
 *    a started job's nodes become `scontrol update jobid=J ReqNodeList=...` and
 *    `scontrol release J`; a `wait` ends the round.
 *
 * Jobs reach it held (`sbatch --hold`, or `deploy/slurm/job_submit.lua`). The agent never cancels
 * a job and changes nothing but the node list. `stop()` (SIGTERM/SIGINT) releases the held jobs of
 * the managed partitions unless `keepHeld`; a restarted agent takes the queue as it finds it.
 */
import { appendFileSync } from 'node:fs';
import { ClusterSimulator, type RunningJob } from '../../src/execution/simulator.js';
import type { Platform } from '../../src/platform/platform.js';
import { type Job, makeJob, perNodeCores } from '../../src/workload/job.js';
import type { ClusterEnv } from '../../envs/env.js';
import type { Observation } from '../../envs/observation.js';
import { SlurmCommandError, type SlurmClient, type SlurmJob } from '../../src/slurm/client.js';
import type { SlurmPlacement } from '../../src/slurm/mirror.js';
import type { SlurmRequest } from '../../src/slurm/request.js';
import { writeRecord } from './record.js';

/** A policy acting on the live env. */
export interface LivePolicy {
  readonly name: string;
  /** The action for the env's current state (`observation` as the env wrote it). */
  act(env: ClusterEnv, observation: Observation): number | Promise<number>;
  close?(): void | Promise<void>;
}

/** A policy failed to answer (the agent stops with its message). */
export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

/** One start the agent ordered. */
export interface Decision {
  /** Unix seconds. */
  t: number;
  job_id: string;
  nodes: string[];
}

/** What the agent knows of one job. */
export interface TrackedJob {
  slurm: SlurmJob;
  /** The mirror's job (rebased), null while the agent leaves the job to Slurm. */
  job: Job | null;
  /**
   * `blocked`: held, its dependency not met (not a candidate); `unplaceable`: held, Slurm could never run it
   * as asked on these nodes (reported, left held); `foreign`: left to Slurm.
   */
  phase: 'waiting' | 'reserved' | 'running' | 'ended' | 'foreign' | 'blocked' | 'unplaceable';
  /** What was reported about it (`unplaceable`, started elsewhere than decided, started without a decision). */
  note?: string;
  /** Its request as read while it pended (Slurm rewrites CPUs and nodes once a job runs). */
  request?: SlurmRequest;
  decision: Decision | null;
  /** Unix seconds, as Slurm reports them (0: not yet). */
  start: number;
  end: number;
  /**
   * Unix seconds at which it was released with a node list: by this agent's decision, or found so at a
   * restart (an earlier agent's); Slurm lays its CPUs out over those nodes when it starts it (`align`).
   */
  released?: number;
  /** Still pending `LAYOUT_WAIT` s after its release (reported once; its nodes are no longer closed). */
  overdue?: boolean;
  /** Its nodes were checked against the decision (once, when it starts). */
  checked?: boolean;
  /** The mirror holds the job's CPUs as Slurm laid them out (see `align`). */
  aligned?: boolean;
}

/** Options of the agent. */
export interface AgentOptions {
  client: SlurmClient;
  env: ClusterEnv;
  platform: Platform;
  /** Slurm node name of each platform node. */
  nodeNames: readonly string[];
  /** What Slurm accepts: each job's request on these nodes (`src/slurm/mirror.ts`). */
  placement: SlurmPlacement;
  /** Partitions whose held jobs the agent schedules (null: every partition). */
  partitions: ReadonlySet<string> | null;
  policy: LivePolicy;
  pollMs: number;
  dryRun: boolean;
  exitWhenIdle: boolean;
  keepHeld: boolean;
  /** JSON-lines file of the decisions (appended). */
  decisionsFile?: string | undefined;
  /** Directory of the record (workload.swf, platform.json, live.csv). */
  recordDir?: string | undefined;
  log: (line: string) => void;
}

/** Pending reasons of a released job that Slurm starts at its next pass that finds its nodes free. */
const STARTING_REASONS = new Set(['None', 'Resources', 'Priority']);
/** Seconds after its release past which a job still pending no longer closes its nodes (`aboutToStart`). */
const LAYOUT_WAIT = 30;

const ENDED = new Set(['COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'OUT_OF_MEMORY']);

/** The agent. */
export class SlurmAgent {
  readonly tracked = new Map<string, TrackedJob>();
  readonly decisions: Decision[] = [];
  /** The mirror (built at the first poll that finds a job: its clock starts there). */
  private sim!: ClusterSimulator;
  private readonly nodeIndex = new Map<string, number>();
  private origin = NaN;
  private stopping = false;
  private wake: (() => void) | null = null;
  private seen = 0;
  private lastSubmit = 0;
  private reserved: TrackedJob | null = null;
  /** A job joined or left the mirror since the last decision round (the env's decision points are events). */
  private changed = true;
  /** Decided jobs Slurm has not started whose CPUs per node it still chooses (their nodes take no new job meanwhile). */
  private unsettled = new Set<string>();

  constructor(readonly o: AgentOptions) {
    for (const [i, n] of o.nodeNames.entries()) this.nodeIndex.set(n, i);
  }

  /** Origin of the mirror's clock (Unix seconds), NaN before the first job. */
  get timeOrigin(): number {
    return this.origin;
  }

  /** Asks the loop to stop after the current poll. */
  stop(): void {
    this.stopping = true;
    this.wake?.();
  }

  /** Runs until `stop()` (or idle with `exitWhenIdle`); releases held jobs at the end unless `keepHeld`. */
  async run(): Promise<void> {
    let backoff = this.o.pollMs;
    while (!this.stopping) {
      let idle = false;
      try {
        idle = await this.poll();
        backoff = this.o.pollMs;
      } catch (e) {
        if (!(e instanceof SlurmCommandError) || !e.transient) throw e;
        backoff = Math.min(60_000, backoff * 2);
        this.o.log(`clustergym slurm-agent: ${e.message}; next try in ${(backoff / 1000).toFixed(1)} s`);
      }
      this.writeRecord();
      if (this.o.exitWhenIdle && (idle || this.o.dryRun)) break;
      if (this.stopping) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, backoff);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
    if (this.stopping && !this.o.keepHeld && !this.o.dryRun) await this.releaseHeld();
    this.writeRecord();
  }

  /** One poll; returns whether the managed partitions are idle (nothing pending or running). */
  async poll(): Promise<boolean> {
    const jobs = (await this.o.client.jobs()).filter((j) => this.manages(j));
    const now = Date.now() / 1000;
    if (Number.isNaN(this.origin)) {
      const live = jobs.filter((j) => !ENDED.has(j.state));
      if (live.length === 0) return true;
      // time 0 is the agent's first look at a queue: jobs that waited before are available from then
      this.origin = Math.floor(now);
      this.sim = new ClusterSimulator(this.o.platform, [], {
        models: this.o.env.config.models,
        enforceMemory: false,
        workloadName: 'live Slurm queue',
        timeOrigin: this.origin,
      });
      this.o.env.attachLive(this.sim, this.o.placement);
    }
    this.sim.liveAdvance(now - this.origin);
    const present = new Set<string>();
    // new jobs in the order Slurm's basic priority gives them (nice, then submission), then the known ones
    const fresh = jobs
      .filter((j) => !this.tracked.has(j.id))
      .sort((a, b) => a.request.nice - b.request.nice || a.submit - b.submit || Number(a.id) - Number(b.id));
    for (const j of fresh) this.discover(j);
    // ends first (they free CPUs), then the others, then the layouts of the jobs Slurm started
    for (const j of jobs) present.add(j.id);
    for (const t of this.tracked.values()) if (!present.has(t.slurm.id) && t.phase !== 'ended') this.leave(t, now);
    for (const j of jobs) if (ENDED.has(j.state)) this.update(j);
    for (const j of jobs) if (!ENDED.has(j.state)) this.update(j);
    for (const t of this.tracked.values()) if (t.phase === 'running' && t.released !== undefined && !t.aligned && t.slurm.allocation) this.align(t);
    // Slurm's view of the nodes now: decisions are made only where Slurm sees the resources free, and not
    // where a released job Slurm is about to start may take them (`SlurmPlacement.await`)
    const releasedPending = new Set<string>();
    const starting = new Set<string>();
    for (const t of this.tracked.values())
      if (t.phase === 'running' && t.released !== undefined && t.slurm.state === 'PENDING') {
        releasedPending.add(t.slurm.id);
        if (this.aboutToStart(t, now)) starting.add(t.slurm.id);
      }
    this.unsettled = this.o.placement.reconcile(this.sim, await this.o.client.nodes(), releasedPending, starting);
    await this.retryOrders();
    if (this.changed || this.reserved) {
      this.changed = false;
      await this.decide();
    }
    // idle: nothing left but jobs Slurm could never run as asked (left held, reported)
    return (
      jobs.every((j) => ENDED.has(j.state) || this.tracked.get(j.id)?.phase === 'unplaceable') && this.sim.queue.length === 0 && this.sim.runningCount === 0
    );
  }

  /**
   * Whether released job `t`, still pending, is one Slurm is about to start on its nodes: pending for
   * resources or priority only, released less than `LAYOUT_WAIT` s ago. Another (a node of its list drained,
   * a hold, a dry run's decision) holds its CPUs in the mirror but closes none of its nodes.
   */
  private aboutToStart(t: TrackedJob, now: number): boolean {
    if (this.o.dryRun || t.slurm.held || !STARTING_REASONS.has(t.slurm.reason)) return false;
    if (now - t.released! < LAYOUT_WAIT) return true;
    if (!t.overdue) {
      t.overdue = true;
      const why = `released ${Math.round(now - t.released!)} s ago and still pending (${t.slurm.reason})`;
      t.note = t.note ? `${t.note}; ${why}` : why;
      this.o.log(`clustergym slurm-agent: job ${t.slurm.id} was ${why}; its nodes take other jobs again`);
    }
    return false;
  }

  private manages(j: SlurmJob): boolean {
    if (j.composite) return false;
    return this.o.partitions === null || this.o.partitions.has(j.partition);
  }

  /** A job seen for the first time. */
  private discover(j: SlurmJob): void {
    if (ENDED.has(j.state)) return;
    const t: TrackedJob = { slurm: j, job: null, phase: 'foreign', decision: null, start: 0, end: 0 };
    this.tracked.set(j.id, t);
    if (j.state === 'PENDING' && j.held) {
      if (j.request.dependency !== '') t.phase = 'blocked';
      else if (this.submit(t)) t.phase = 'waiting';
    } else if (j.state === 'PENDING' && j.requiredNodes.length > 0) {
      // released with a node list (by an agent before a restart): it starts there
      if (this.submit(t) && this.place(t, j.requiredNodes)) {
        t.phase = 'running';
        t.released = Date.now() / 1000;
      } else t.phase = 'foreign';
    }
    // running jobs are placed by `update`
  }

  /**
   * The mirror's job for a Slurm job, of the shape its request gives (`SlurmPlacement.register`); false,
   * with the reason reported and the job left held, when Slurm could never run it as asked on these nodes.
   */
  private submit(t: TrackedJob): boolean {
    const j = t.slurm;
    const r = this.o.placement.register(j.id, j.request);
    if ('never' in r) {
      t.phase = 'unplaceable';
      t.note = r.never;
      this.o.log(`clustergym slurm-agent: job ${j.id} is left held: ${r.never}`);
      return false;
    }
    t.request = j.request;
    t.job = this.sim.liveSubmit(this.mirrorJob(j, r.shape.ntasks, r.shape.type, r.shape.type === 'seq' ? 1 : r.shape.nodes, r.shape.ntasksPerNode));
    this.changed = true;
    this.seen++;
    this.lastSubmit = Math.max(this.lastSubmit, j.submit - this.origin);
    return true;
  }

  /** A job's requested time: its time limit; without one, the normalisation limit `req_time` (the longest the env knows). */
  private reqTime(j: SlurmJob): number {
    return Number.isFinite(j.timeLimit) ? j.timeLimit : this.o.env.limits.req_time;
  }

  /**
   * Places a job of the mirror on Slurm nodes `nodes` (its CPUs on their free cores: as many on each
   * node as `allocation` says when Slurm says it; else, for a count of nodes, `perNodeCores` on each node
   * (`--ntasks-per-node`, or the tasks spread over the nodes); else filling the nodes in order); false when they
   * cannot hold it.
   */
  private place(t: TrackedJob, nodes: readonly string[], allocation: ReadonlyMap<string, number> | null = null): boolean {
    const job = t.job!;
    const p = this.o.platform;
    const cores: number[] = [];
    // (a job released with its node list before a restart has no layout from Slurm yet: its shape's)
    const perNode = allocation === null && job.type === 'mpi' && job.nodes > 0 ? perNodeCores(job) : 0;
    for (const name of nodes) {
      const n = this.nodeIndex.get(name);
      if (n === undefined) continue;
      const quota = allocation?.get(name) ?? (perNode > 0 ? perNode : job.ntasks);
      const here = cores.length + quota;
      for (let c = p.nodeFirstCore[n]!, end = c + p.nodeCoreCount[n]!; c < end && cores.length < Math.min(here, job.ntasks); c++)
        if (this.sim.coreOwner[c]! < 0) cores.push(c);
    }
    if (cores.length < job.ntasks || this.sim.placementError(job, cores) !== null) {
      this.o.log(
        `clustergym slurm-agent: job ${job.id} runs on ${nodes.join(',')}, which the mirror cannot hold (${job.ntasks} CPUs); it is left out of the mirror`,
      );
      if (this.sim.queue.indexOf(job) >= 0) this.sim.rejectJob(job);
      // (that mirror job is gone: if Slurm runs the job, a fresh one holds its CPUs once the mirror can, `foreign`)
      t.job = null;
      this.o.placement.forget(t.slurm.id);
      return false;
    }
    this.sim.startJob(job, cores);
    this.changed = true;
    return true;
  }

  /** Follows a known job's state. */
  private update(j: SlurmJob): void {
    const t = this.tracked.get(j.id);
    if (!t) return;
    t.slurm = j;
    if (t.phase === 'ended') return;
    const running = j.state === 'RUNNING' || j.state === 'COMPLETING' || j.state === 'SUSPENDED';
    if (running || ENDED.has(j.state)) {
      if (j.start > 0 && t.start === 0) t.start = j.start;
      if (t.decision && running && !t.checked) {
        t.checked = true;
        this.checkNodes(t, j);
      }
      // its nodes were closed to new jobs until Slurm laid it out: the env decides again
      if (running && this.unsettled.delete(j.id)) this.changed = true;
    }
    if (t.phase === 'blocked' || t.phase === 'unplaceable') {
      // held, not a candidate: its dependency may be met now; released or cancelled by someone else, it goes
      if (ENDED.has(j.state)) t.phase = 'ended';
      else if (running || !j.held) {
        t.phase = 'foreign';
        if (running) this.update(j);
      } else if (t.phase === 'blocked' && j.reason === 'DependencyNeverSatisfied') {
        if (t.note === undefined) {
          t.note = `dependency never satisfied (${j.request.dependency})`;
          this.o.log(`clustergym slurm-agent: job ${j.id} is left held: ${t.note}`);
        }
      } else if (t.phase === 'blocked' && j.request.dependency === '' && this.submit(t)) t.phase = 'waiting';
      return;
    }
    if (t.phase === 'waiting' || t.phase === 'reserved') {
      if (running) {
        t.note = `started on ${j.nodes.join(',')} without a decision`;
        this.o.log(`clustergym slurm-agent: job ${j.id} started on ${j.nodes.join(',')} without a decision of the agent`);
        if (this.reserved === t) this.reserved = null;
        t.phase = this.place(t, j.nodes, j.allocation) ? 'running' : 'foreign';
      } else if (ENDED.has(j.state)) {
        if (this.reserved === t) this.reserved = null;
        this.sim.rejectJob(t.job!);
        this.o.placement.forget(j.id);
        this.changed = true;
        t.phase = 'ended';
        t.end = j.end;
      } else if (!j.held && !this.o.dryRun) {
        // released by someone else: Slurm schedules it
        this.o.log(`clustergym slurm-agent: job ${j.id} was released by someone else; Slurm schedules it`);
        if (this.reserved === t) this.reserved = null;
        this.sim.rejectJob(t.job!);
        this.o.placement.forget(j.id);
        this.changed = true;
        t.phase = 'foreign';
        t.job = null;
      }
    } else if (t.phase === 'foreign') {
      if (running) {
        if (!t.job) this.mirrorForeign(t);
        t.phase = this.place(t, j.nodes, j.allocation) ? 'running' : 'ended';
      } else if (ENDED.has(j.state)) t.phase = 'ended';
    } else if (t.phase === 'running' && ENDED.has(j.state) && !this.o.dryRun) {
      this.sim.liveEnd(t.job!);
      this.o.placement.forget(j.id);
      this.changed = true;
      t.phase = 'ended';
      t.end = j.end > 0 ? j.end : Date.now() / 1000;
    }
  }

  /** A job Slurm runs without the agent (started by someone else, or before the agent): it holds its CPUs in the mirror. */
  private mirrorForeign(t: TrackedJob): void {
    const j = t.slurm;
    let cpus = j.cpus;
    if (j.allocation) {
      cpus = 0;
      for (const c of j.allocation.values()) cpus += c;
    }
    t.job = this.sim.liveSubmit(this.mirrorJob(j, cpus, 'mpi', 0, 0));
    this.changed = true;
  }

  /** A mirror job for Slurm job `j` (it ends only when Slurm says so: `runtime` Infinity). */
  private mirrorJob(j: SlurmJob, ntasks: number, type: 'seq' | 'mpi', nodes: number, ntasksPerNode: number): Job {
    return makeJob({
      id: j.id,
      subtime: j.submit,
      ntasks,
      reqTime: this.reqTime(j),
      type,
      runtime: Infinity,
      nodes,
      ntasksPerNode,
      source: `Slurm job ${j.id}`,
    });
  }

  /**
   * Slurm lays a job's CPUs out over its node list by its own rules (with a node freed meanwhile it
   * may put more on one node than the env did): the mirror follows Slurm's layout, so that later
   * decisions count the CPUs Slurm really has free. The job is taken off its cores and put on
   * Slurm's (an end, a submission and a start for the mirror's listeners: the observation after it
   * is the one of the new layout).
   */
  private align(t: TrackedJob): void {
    const j = t.slurm;
    const alloc = j.allocation!;
    let rj: RunningJob | null = null;
    for (const r of this.sim.running()) if (r.job === t.job) rj = r;
    if (!rj) return;
    let same = rj.nodes.length === alloc.size;
    for (let i = 0; same && i < rj.nodes.length; i++) same = alloc.get(this.o.nodeNames[rj.nodes[i]!]!) === rj.perNode[i];
    let sum = 0;
    for (const c of alloc.values()) sum += c;
    // the same layout; or one of another size (a job on whole nodes larger than the smallest it may use):
    // the mirror keeps its own, the nodes being held whole all the same
    if (same || sum !== t.job!.ntasks) {
      t.aligned = true;
      return;
    }
    // Slurm's layout must fit the mirror once the job's own CPUs are free (else a job that Slurm saw
    // end has not reached the mirror yet: the next poll tries again)
    const mine = new Map<string, number>();
    for (let i = 0; i < rj.nodes.length; i++) mine.set(this.o.nodeNames[rj.nodes[i]!]!, rj.perNode[i]!);
    for (const [name, cpus] of alloc) {
      const n = this.nodeIndex.get(name);
      if (n === undefined || this.sim.nodeFree[n]! + (mine.get(name) ?? 0) < cpus) return;
    }
    t.aligned = true;
    const env = [...mine].map(([n, c]) => `${n}:${c}`).join(',');
    const slurm = [...alloc].map(([n, c]) => `${n}:${c}`).join(',');
    this.o.log(`clustergym slurm-agent: Slurm laid job ${j.id} out as ${slurm} (the env: ${env}); the mirror follows Slurm`);
    this.sim.liveEnd(t.job!);
    t.job = this.sim.liveSubmit({ ...t.job!, subtime: j.submit });
    if (!this.place(t, [...alloc.keys()], alloc)) t.phase = 'ended';
  }

  private checkNodes(t: TrackedJob, j: SlurmJob): void {
    const want = [...t.decision!.nodes].sort().join(',');
    const got = [...j.nodes].sort().join(',');
    if (want === got) return;
    t.note = `started on ${got}, not on the decided ${want}`;
    this.o.log(`clustergym slurm-agent: job ${j.id} started on ${got}, not on the decided ${want}`);
  }

  /** A job slurmctld forgot (past MinJobAge) before the agent saw it end. */
  private leave(t: TrackedJob, now: number): void {
    if (t.phase === 'running' && t.job && !this.o.dryRun) this.sim.liveEnd(t.job);
    else if ((t.phase === 'waiting' || t.phase === 'reserved') && t.job) this.sim.rejectJob(t.job);
    this.o.placement.forget(t.slurm.id);
    this.changed = true;
    if (this.reserved === t) this.reserved = null;
    t.phase = 'ended';
    if (t.end === 0) t.end = now;
  }

  /** The decision round at the current state. */
  private async decide(): Promise<void> {
    const env = this.o.env;
    for (let guard = this.sim.queue.length + 1; guard > 0 && !this.stopping; guard--) {
      if (this.reserved) {
        // Job-v0 with unfit "reserve": the env starts the reserved job as soon as it fits, asking nothing
        const rj = env.liveStartReserved(this.reserved.job!);
        if (!rj) return;
        const t = this.reserved;
        this.reserved = null;
        await this.order(t, rj);
        continue;
      }
      const { observation, decision } = env.liveDecision({
        horizon: env.config.max_sim_time ?? this.lastSubmit + env.limits.req_time,
        length: this.seen,
      });
      if (!decision) return;
      const action = await this.o.policy.act(env, observation);
      const r = env.liveApply(action);
      if (!r) return;
      const t = this.tracked.get(r.job.id)!;
      if (!r.running) {
        t.phase = 'reserved';
        this.reserved = t;
        continue;
      }
      await this.order(t, r.running);
    }
  }

  /** Orders Slurm to start `t` on the nodes of `rj` (the env's placement). */
  private async order(t: TrackedJob, rj: RunningJob): Promise<void> {
    const nodes = Array.from(rj.nodes, (n) => this.o.nodeNames[n]!);
    const d: Decision = { t: Date.now() / 1000, job_id: t.slurm.id, nodes };
    t.decision = d;
    t.phase = 'running';
    this.decisions.push(d);
    if (this.o.decisionsFile) appendFileSync(this.o.decisionsFile, `${JSON.stringify(d)}\n`);
    this.o.log(`clustergym slurm-agent: ${this.o.dryRun ? '(dry run) would start' : 'start'} job ${d.job_id} on ${nodes.join(',')}`);
    if (this.o.dryRun) return;
    t.released = d.t;
    if (this.o.placement.await(rj)) this.unsettled.add(t.slurm.id);
    // a job gone meanwhile (cancelled) is seen gone at the next poll; a transient failure is ordered again then
    await this.apply(t.slurm.id, nodes);
  }

  /** Decided jobs that Slurm still holds (a release that failed after its retries): ordered again. */
  private async retryOrders(): Promise<void> {
    if (this.o.dryRun) return;
    for (const t of this.tracked.values())
      if (t.phase === 'running' && t.decision && t.slurm.state === 'PENDING' && t.slurm.held) {
        this.o.log(`clustergym slurm-agent: job ${t.slurm.id} is still held after its decision; releasing it again`);
        await this.apply(t.slurm.id, t.decision.nodes);
      }
  }

  /** `scontrol update ReqNodeList` then `scontrol release`; a job gone meanwhile (cancelled) is reported, not an error. */
  private async apply(id: string, nodes: readonly string[]): Promise<void> {
    try {
      await this.o.client.setNodes(id, nodes);
      await this.o.client.release(id);
    } catch (e) {
      if (!(e instanceof SlurmCommandError) || e.transient) throw e;
      this.o.log(`clustergym slurm-agent: ${e.message}`);
    }
  }

  /** Releases every held job of the managed partitions (they go to Slurm's own scheduler). */
  async releaseHeld(): Promise<string[]> {
    const released: string[] = [];
    let jobs: SlurmJob[];
    try {
      jobs = (await this.o.client.jobs()).filter((j) => this.manages(j));
    } catch (e) {
      this.o.log(`clustergym slurm-agent: cannot list the jobs to release them: ${(e as Error).message}`);
      return released;
    }
    for (const j of jobs)
      if (j.state === 'PENDING' && j.held) {
        try {
          await this.o.client.release(j.id);
          released.push(j.id);
        } catch (e) {
          this.o.log(`clustergym slurm-agent: could not release job ${j.id}: ${(e as Error).message}`);
        }
      }
    this.o.log(`clustergym slurm-agent: released ${released.length} held job(s) to Slurm's scheduler${released.length ? `: ${released.join(',')}` : ''}`);
    return released;
  }

  /** Writes the record (`record.ts`). */
  writeRecord(): void {
    const dir = this.o.recordDir;
    if (!dir || Number.isNaN(this.origin)) return;
    writeRecord(dir, this.origin, [...this.tracked.values()], this.o.platform, this.o.nodeNames, (j) => this.reqTime(j));
  }
}
