/**
 * Batsim's side of the Batsim protocol, on clustergym's engine, independent of the transport: a
 * `BatsimSession` produces the requests Batsim sends (`start()`, then `reply(text)` for each reply of
 * the scheduler) and carries out the scheduler's decisions on a `ClusterSimulator`. `run.ts` puts it
 * on a ZeroMQ REQ socket as Batsim does.
 *
 * Over 600 lines: it is one protocol state machine (Batsim's clock, its twelve decision events and
 * the job states they move, each with Batsim's own refusal); split, each part would need the others'
 * state.
 *
 * Time goes as in Batsim: a reply `{"now": T, "events": [...]}` applies each decision at its
 * timestamp (the simulation runs up to it first), then the simulation runs to `T` (the scheduler was
 * busy until then); what happened meanwhile is sent at once, else the simulation runs to the next
 * thing that happens (job ends, submissions, requested calls, machine switches), all of one instant in
 * one request. When every job has been submitted and has completed (or was rejected) and nothing
 * else is pending, `SIMULATION_ENDS` is sent; its reply ends the session.
 *
 * A job runs on clustergym's model (docs/batsim.md), which lives below the protocol: resource `i` is
 * machine `i` (`src/platform/machines.ts`: states, pstates, energy); the job's executors (one per
 * allocated resource, or as `mapping` says) become the tasks of an engine job
 * (`batsimExecutorJob` in `src/workload/batsim.ts`: executors onto cores, work at the pstate's speed,
 * the L07 time of a parallel task alone). Walltimes kill (`COMPLETED_WALLTIME_REACHED`). This module
 * keeps the protocol: requests, replies, the decisions applied, and Batsim's error messages.
 *
 * Anything Batsim refuses (an unknown or finished job, a busy, sleeping or unknown resource, a
 * malformed message, an unknown event) throws a `BatsimProtocolError` with Batsim's message: Batsim
 * aborts the simulation then, and so does the caller. A simulation that cannot go on (jobs wait, and
 * nothing runs, nothing is left to arrive, no call is requested) is an error too, never a hang.
 */
import { InputError } from '../../src/core/errors.js';
import { ClusterSimulator, type JobRecord, type RunningJob } from '../../src/execution/simulator.js';
import { Machines, type MachinePowerModel, machineModel } from '../../src/platform/machines.js';
import type { Platform } from '../../src/platform/platform.js';
import { type BatsimWork, batsimExecutorJob, batsimProfileAnySize, batsimProfileProgress, batsimProfileWork } from '../../src/workload/batsim.js';
import { formatIntervalSet, parseIntervalSet } from './intervalSet.js';
import type { BatsimJobRow } from './outputs.js';
import { BatsimProtocolError, DATA_SCHEMAS, EventSchema, issuesText, MessageSchema, type OutEvent, UNSUPPORTED_EVENTS } from './protocol.js';

/** One input workload: its name (`w0`...), its file and its content. */
export interface SessionWorkload {
  name: string;
  path: string;
  jobs: Record<string, unknown>[];
  /** Profiles by name, as in the file (`type` and the type's fields). */
  profiles: Record<string, { type: string; [field: string]: unknown }>;
}

/** Options of a session, named after Batsim's command-line options. */
export interface SessionOptions {
  platform: Platform;
  workloads: SessionWorkload[];
  /** Power states of the machines (default: one compute pstate per node from the platform's power figures). */
  power?: MachinePowerModel | undefined;
  /** `--master-host`: the host that is not a compute resource (default `master_host`). */
  masterHost?: string | undefined;
  /** `--energy`: SET_RESOURCE_STATE and QUERY consumed_energy are allowed (Batsim refuses them otherwise). */
  energy?: boolean | undefined;
  /** `--forward-profiles-on-submission`. */
  forwardProfiles?: boolean | undefined;
  /** `--enable-dynamic-jobs`, `--acknowledge-dynamic-jobs`, `--enable-profile-reuse`. */
  dynamicJobs?: boolean | undefined;
  acknowledgeDynamicJobs?: boolean | undefined;
  profileReuse?: boolean | undefined;
  /**
   * `--latency`: seconds between an event and the request that tells it (default 0). Batsim's
   * internal messages cross the master host's loopback in SimGrid, so its requests come slightly
   * after the events; pybatsim's `batsim.sched` schedulers rely on it (their allocations need a
   * start time > 0, which a job submitted at 0 and told at 0 does not give).
   */
  latency?: number | undefined;
  /** `--sched-cfg`: forwarded as `sched-config`. */
  schedConfig?: string | undefined;
}

/** A job state as Batsim names it on the wire (its `job_state` values). */
type BatsimJobState = 'SUBMITTED' | 'RUNNING' | 'COMPLETED_SUCCESSFULLY' | 'COMPLETED_FAILED' | 'COMPLETED_WALLTIME_REACHED' | 'COMPLETED_KILLED' | 'REJECTED';

/** A Batsim job in the session. */
interface SessionJob {
  id: string;
  workload: string;
  name: string;
  description: Record<string, unknown>;
  profile: string;
  res: number;
  walltime: number;
  subtime: number;
  state: BatsimJobState | 'NOT_SUBMITTED';
  alloc: number[];
  start: number;
  energyAtStart: number;
  metadata: string;
  killRequested: boolean;
  running: RunningJob | null;
  /** The state a CHANGE_JOB_STATE gave a running job (its end then sends no JOB_COMPLETED), else null. */
  forcedState: BatsimJobState | null;
  /** Parallel-task profile (full load on its machines) rather than a delay, known when it starts. */
  ptask: boolean;
}

/** The ids of the events Batsim sends, for `sentTypes`. */
const JOB_SEPARATOR = '!';

/** Batsim's numbers in its messages: JSON numbers. */
const BATSIM_VERSION = 'clustergym-batsim-protocol-4.2';

/** The session. See the module comment. */
export class BatsimSession {
  readonly sim: ClusterSimulator;
  readonly machines: Machines;
  /** Every event sent so far, in order (types only), for tests and the summary. */
  readonly sentTypes: string[] = [];
  /** Jobs that completed or were rejected, in that order (the `_jobs.csv` rows). */
  readonly rows: BatsimJobRow[] = [];
  /** Counters of `_schedule.csv`. */
  groupedSwitches = 0;
  machineSwitches = 0;
  /** Time of the last job end and the energy then (Batsim's `consumed_joules` is measured up to it). */
  lastCompletion = 0;
  energyAtLastCompletion = 0;
  /** Energy at the first submission (Batsim's `consumed_joules` is measured from it). */
  energyAtFirstSubmission = 0;

  private readonly opts: SessionOptions;
  private readonly jobs = new Map<string, SessionJob>();
  private readonly profiles = new Map<string, Record<string, { type: string }>>();
  private readonly workloadPaths: Record<string, string> = {};
  /** Static jobs in submission order, and the next one to submit. */
  private readonly arrivals: SessionJob[] = [];
  private nextArrival = 0;
  private registrationFinished = false;
  private readonly outbox: OutEvent[] = [];
  /** Requested calls (times, ascending). */
  private readonly waiters: number[] = [];
  /** Machine switches in progress: end time, machine, target pstate, group. */
  private switches: { t: number; m: number; p: number; group: { left: number; ids: number[]; state: string } }[] = [];
  private submitted = 0;
  private completed = 0;
  private endSent = false;
  private done = false;
  private readonly byEngineJob = new Map<string, SessionJob>();
  /** The `_jobs.csv` row of each job that completed or was rejected. */
  private readonly rowOf = new Map<string, BatsimJobRow>();

  constructor(options: SessionOptions) {
    this.opts = options;
    const platform = options.platform;
    const power = options.power ?? machineModel(platform, options.masterHost);
    this.machines = new Machines(platform, power);
    this.sim = new ClusterSimulator(platform, [], { walltimeKill: true, enforceMemory: false, workloadName: 'batsim' });
    this.sim.addListener({ onEnd: (_s, rec) => this.jobEnded(rec), onReject: (_s, rec) => this.jobEnded(rec) });
    for (const w of options.workloads) {
      this.profiles.set(w.name, w.profiles);
      this.workloadPaths[w.name] = w.path;
      w.jobs.forEach((raw, i) => {
        const job = this.newJob(w.name, raw, `${w.path}: $.jobs[${i}]`);
        this.arrivals.push(job);
      });
    }
    this.arrivals.sort((a, b) => a.subtime - b.subtime);
  }

  /** Whether the session is over (the reply to SIMULATION_ENDS was received). */
  get finished(): boolean {
    return this.done;
  }

  /** The current simulated time. */
  get now(): number {
    return this.sim.now;
  }

  /** Energy consumed so far (J). */
  get energy(): number {
    return this.machines.energy(this.sim.now);
  }

  /** The first request: SIMULATION_BEGINS at time 0. */
  start(): string {
    const resources = [];
    for (let m = 0; m < this.machines.count; m++)
      resources.push({
        id: m,
        name: this.machines.names[m],
        state: this.machines.stateName(m),
        properties: this.machines.model.properties[m] ?? {},
        zone_properties: {},
      });
    const profiles: Record<string, unknown> = {};
    for (const [w, prof] of this.profiles) profiles[w] = prof;
    this.push('SIMULATION_BEGINS', {
      nb_resources: this.machines.count,
      nb_compute_resources: this.machines.count,
      nb_storage_resources: 0,
      allow_compute_sharing: false,
      allow_storage_sharing: true,
      config: {
        'redis-enabled': false,
        'redis-hostname': '127.0.0.1',
        'redis-port': 6379,
        'redis-prefix': 'default',
        'profiles-forwarded-on-submission': this.opts.forwardProfiles ?? false,
        'dynamic-jobs-enabled': this.opts.dynamicJobs ?? false,
        'dynamic-jobs-acknowledged': this.opts.acknowledgeDynamicJobs ?? false,
        'profile-reuse-enabled': this.opts.profileReuse ?? false,
        'sched-config': this.opts.schedConfig ?? '',
        'forward-unknown-events': false,
      },
      compute_resources: resources,
      storage_resources: [],
      workloads: { ...this.workloadPaths },
      profiles,
    });
    if (this.arrivals.length === 0) this.push('NOTIFY', { type: 'no_more_static_job_to_submit' });
    return this.flush();
  }

  /**
   * Carries out the scheduler's reply `text` and returns the next request, or null when the reply
   * acknowledged SIMULATION_ENDS. Throws `BatsimProtocolError` when Batsim would abort.
   */
  reply(text: string): string | null {
    if (this.done) throw new BatsimProtocolError('the simulation is over: no reply was expected');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new BatsimProtocolError(`Invalid JSON message: cannot parse the message (${(e as Error).message}): ${excerpt(text)}`);
    }
    const msg = MessageSchema.safeParse(data);
    if (!msg.success) throw new BatsimProtocolError(`Invalid JSON message: ${issuesText(msg.error)} in ${excerpt(text)}`);
    const { now, events } = msg.data;
    let previous = -Infinity;
    const parsed = events.map((raw, i) => {
      const ev = EventSchema.safeParse(raw);
      if (!ev.success) throw new BatsimProtocolError(`Invalid JSON message: event ${i}: ${issuesText(ev.error)}`);
      if (ev.data.timestamp > now)
        throw new BatsimProtocolError(`Invalid JSON message: event ${i} has a timestamp (${ev.data.timestamp}) after the message's now (${now})`);
      if (ev.data.timestamp < previous)
        throw new BatsimProtocolError(`Invalid JSON message: the timestamps of the events are not in ascending order (event ${i})`);
      previous = ev.data.timestamp;
      return ev.data;
    });
    if (this.endSent) {
      if (parsed.length > 0) throw new BatsimProtocolError(`the reply to SIMULATION_ENDS must have no event, got ${parsed.map((e) => e.type).join(', ')}`);
      this.done = true;
      return null;
    }
    parsed.forEach((ev, i) => {
      this.runTo(ev.timestamp);
      this.apply(ev.type, ev.data ?? {}, i);
    });
    this.runTo(now);
    return this.nextRequest();
  }

  // ------------------------------------------------------------------ time

  /** Time of the next thing that happens (engine events, arrivals, calls, switches). */
  private nextTime(): number {
    let t = this.sim.nextEventTime();
    if (this.nextArrival < this.arrivals.length) t = Math.min(t, this.arrivals[this.nextArrival]!.subtime);
    if (this.waiters.length > 0) t = Math.min(t, this.waiters[0]!);
    for (const s of this.switches) if (s.t < t) t = s.t;
    return t;
  }

  /** Runs everything due up to `t`, then moves the clock to `t` (never backwards). */
  private runTo(t: number): void {
    for (;;) {
      const next = this.nextTime();
      if (next > t) break;
      this.step(Math.max(next, this.sim.now));
    }
    if (t > this.sim.now) this.sim.advanceUntil(t);
  }

  /** Runs everything due at `t` (>= now). */
  private step(t: number): void {
    this.sim.advanceUntil(t);
    const now = this.sim.now;
    if (this.switches.some((s) => s.t <= now)) {
      const due = this.switches.filter((s) => s.t <= now);
      this.switches = this.switches.filter((s) => s.t > now);
      for (const s of due) {
        this.machines.endSwitch(s.m, s.p, now);
        s.group.left--;
        if (s.group.left === 0) this.push('RESOURCE_STATE_CHANGED', { resources: formatIntervalSet(s.group.ids), state: s.group.state });
      }
    }
    while (this.nextArrival < this.arrivals.length && this.arrivals[this.nextArrival]!.subtime <= now) {
      this.submit(this.arrivals[this.nextArrival++]!, true);
      if (this.nextArrival === this.arrivals.length) {
        this.push('NOTIFY', { type: 'no_more_static_job_to_submit' });
      }
    }
    while (this.waiters.length > 0 && this.waiters[0]! <= now) {
      this.waiters.shift();
      this.push('REQUESTED_CALL', {});
    }
  }

  /** The next request: what is pending, else what happens next, else SIMULATION_ENDS. */
  private nextRequest(): string {
    for (;;) {
      if (this.outbox.length > 0) {
        const latency = this.opts.latency ?? 0;
        if (latency > 0) this.runTo(this.sim.now + latency);
        return this.flush();
      }
      if (this.isOver()) {
        this.endSent = true;
        this.push('SIMULATION_ENDS', {});
        return this.flush();
      }
      const t = this.nextTime();
      if (t === Infinity) throw new BatsimProtocolError(this.deadlockMessage());
      this.step(t);
    }
  }

  private isOver(): boolean {
    return (
      this.nextArrival === this.arrivals.length &&
      (!this.opts.dynamicJobs || this.registrationFinished) &&
      this.completed === this.submitted &&
      this.sim.runningCount === 0 &&
      this.switches.length === 0 &&
      this.waiters.length === 0
    );
  }

  private deadlockMessage(): string {
    const list = (ids: string[]) => `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}`;
    const waiting = [...this.jobs.values()].filter((j) => j.state === 'SUBMITTED').map((j) => j.id);
    const marked = [...this.jobs.values()].filter((j) => j.state === 'RUNNING' && !j.running).map((j) => j.id);
    const why =
      waiting.length > 0
        ? `${waiting.length} submitted job(s) were neither executed nor rejected (${list(waiting)})`
        : marked.length > 0
          ? `${marked.length} job(s) set RUNNING by CHANGE_JOB_STATE never completed (${list(marked)})`
          : 'dynamic job registration is enabled and the scheduler did not send NOTIFY registration_finished';
    return `the simulation cannot go on at t=${this.sim.now}: ${why}, and nothing is left to happen (no job runs, no job is left to submit, no call is requested, no machine is switching); Batsim would end in a SimGrid deadlock`;
  }

  // ------------------------------------------------------------------ outgoing

  private push(type: string, data: Record<string, unknown>): void {
    this.outbox.push({ timestamp: this.sim.now, type, data });
  }

  private flush(): string {
    const events = this.outbox.splice(0);
    for (const e of events) this.sentTypes.push(e.type);
    return JSON.stringify({ now: this.sim.now, events });
  }

  // ------------------------------------------------------------------ jobs

  /**
   * A job of `workload` from its description `raw`; `validate`: its profile is resolved now (static
   * jobs: a type clustergym cannot model fails at load), else at `EXECUTE_JOB` (a registered job's
   * composed profile may name parts registered after it, as pybatsim does).
   */
  private newJob(workload: string, raw: Record<string, unknown>, where: string, validate = true): SessionJob {
    const name = String(raw['id']);
    const id = `${workload}${JOB_SEPARATOR}${name}`;
    if (this.jobs.has(id)) throw new InputError(`duplicate job id ${JSON.stringify(id)}`, where);
    const profile = String(raw['profile']);
    const profiles = this.profiles.get(workload);
    if (!profiles || !(profile in profiles)) throw new InputError(`unknown profile ${JSON.stringify(profile)} in workload ${workload}`, where);
    const res = Number(raw['res']);
    if (validate) batsimProfileWork(profiles, profile, res, where);
    const walltime = typeof raw['walltime'] === 'number' ? (raw['walltime'] as number) : -1;
    const job: SessionJob = {
      id,
      workload,
      name,
      description: { ...raw, id },
      profile,
      res,
      walltime,
      subtime: Number(raw['subtime'] ?? 0),
      state: 'NOT_SUBMITTED',
      alloc: [],
      start: NaN,
      energyAtStart: 0,
      metadata: '',
      killRequested: false,
      running: null,
      forcedState: null,
      ptask: false,
    };
    this.jobs.set(id, job);
    return job;
  }

  private submit(job: SessionJob, forwardDescription: boolean): void {
    job.state = 'SUBMITTED';
    job.subtime = this.sim.now;
    if (this.submitted === 0) this.energyAtFirstSubmission = this.machines.energy(this.sim.now);
    this.submitted++;
    if (!forwardDescription) return;
    const data: Record<string, unknown> = { job_id: job.id, job: job.description };
    if (this.opts.forwardProfiles) data['profile'] = this.profiles.get(job.workload)?.[job.profile];
    this.push('JOB_SUBMITTED', data);
  }

  private jobEnded(rec: JobRecord): void {
    const job = this.byEngineJob.get(rec.job.id);
    if (!job) return;
    this.byEngineJob.delete(rec.job.id);
    const now = this.sim.now;
    let energy = 0;
    for (const m of job.alloc) {
      energy += this.machines.energyOf(m, now);
      this.machines.endJob(m, now);
    }
    job.running = null;
    if (job.forcedState) {
      this.complete(job, job.forcedState, energy - job.energyAtStart);
      return;
    }
    if (rec.state === 'killed') this.complete(job, job.killRequested ? 'COMPLETED_KILLED' : 'COMPLETED_WALLTIME_REACHED', energy - job.energyAtStart);
    else this.complete(job, this.returnCode(job) === 0 ? 'COMPLETED_SUCCESSFULLY' : 'COMPLETED_FAILED', energy - job.energyAtStart);
    this.push('JOB_COMPLETED', {
      job_id: job.id,
      job_state: job.state,
      return_code: job.state === 'COMPLETED_SUCCESSFULLY' || job.state === 'COMPLETED_FAILED' ? this.returnCode(job) : -1,
      alloc: formatIntervalSet(job.alloc),
    });
  }

  /** A job that ran leaves with `state` now: counters and its `_jobs.csv` row. */
  private complete(job: SessionJob, state: BatsimJobState, energy: number): void {
    const now = this.sim.now;
    job.state = state;
    this.completed++;
    this.lastCompletion = now;
    this.energyAtLastCompletion = this.machines.energy(now);
    this.addRow(job, { finalState: state, start: job.start, finish: now, alloc: formatIntervalSet(job.alloc), energy });
  }

  /** The `_jobs.csv` row of `job`, which left with `end` (its final state, times, machines, energy). */
  private addRow(job: SessionJob, end: Pick<BatsimJobRow, 'finalState' | 'start' | 'finish' | 'alloc' | 'energy'>): void {
    const row: BatsimJobRow = {
      name: job.name,
      workload: job.workload,
      profile: job.profile,
      submission: job.subtime,
      res: job.res,
      walltime: job.walltime,
      ...end,
      metadata: job.metadata,
    };
    this.rows.push(row);
    this.rowOf.set(job.id, row);
  }

  private returnCode(job: SessionJob): number {
    const ret = (this.profiles.get(job.workload)?.[job.profile] as { ret?: unknown } | undefined)?.ret;
    return typeof ret === 'number' ? ret : 0;
  }

  // ------------------------------------------------------------------ decisions

  private apply(type: string, data: Record<string, unknown>, i: number): void {
    if (type in UNSUPPORTED_EVENTS) throw new BatsimProtocolError(`event ${i} (${type}) is not supported by clustergym: ${UNSUPPORTED_EVENTS[type]}`);
    if (!(type in DATA_SCHEMAS)) throw new BatsimProtocolError(`Invalid JSON message: event ${i}: unknown event type ${JSON.stringify(type)}`);
    const schema = DATA_SCHEMAS[type as keyof typeof DATA_SCHEMAS];
    const r = schema.safeParse(data);
    if (!r.success) throw new BatsimProtocolError(`Invalid JSON message: the 'data' value of event ${i} (${type}) is invalid: ${issuesText(r.error)}`);
    const d = r.data as Record<string, unknown>;
    switch (type) {
      case 'EXECUTE_JOB':
        this.execute(d as { job_id: string; alloc: string; mapping?: Record<string, string | number> }, i);
        return;
      case 'REJECT_JOB': {
        const job = this.job(d['job_id'] as string, i, type);
        if (job.state !== 'SUBMITTED')
          throw new BatsimProtocolError(
            `Invalid rejection received: job '${job.id}' cannot be rejected at the present time. To be rejected, a job must be submitted and not allocated yet.`,
          );
        this.reject(job);
        return;
      }
      case 'CHANGE_JOB_STATE':
        this.changeJobState(this.job(d['job_id'] as string, i, type), d['job_state'] as string);
        return;
      case 'KILL_JOB':
        this.killJobs(d['job_ids'] as string[], i);
        return;
      case 'CALL_ME_LATER': {
        const t = d['timestamp'] as number;
        if (!(t > this.sim.now)) throw new BatsimProtocolError(`You asked to be awaken in the past! (you ask: ${t}, it is: ${this.sim.now})`);
        const k = this.waiters.findIndex((w) => w > t);
        this.waiters.splice(k < 0 ? this.waiters.length : k, 0, t);
        return;
      }
      case 'SET_RESOURCE_STATE':
        this.setResourceState(d['resources'] as string, d['state'] as string, i);
        return;
      case 'QUERY': {
        const requests = d['requests'] as Record<string, unknown>;
        for (const key of Object.keys(requests)) {
          if (key !== 'consumed_energy')
            throw new BatsimProtocolError(`Invalid JSON message: event ${i} (QUERY): unknown request ${JSON.stringify(key)} (supported: consumed_energy)`);
          if (!this.opts.energy)
            throw new BatsimProtocolError(
              'Received a QUERY of consumed_energy, which is forbidden as Batsim has not been launched with energy support (--energy)',
            );
          this.push('ANSWER', { consumed_energy: this.machines.energy(this.sim.now) });
        }
        return;
      }
      case 'NOTIFY': {
        const t = d['type'];
        if (t === 'registration_finished') this.registrationFinished = true;
        else if (t === 'continue_registration') this.registrationFinished = false;
        else throw new BatsimProtocolError(`Invalid JSON message: event ${i} (NOTIFY): unknown notification type ${JSON.stringify(t)}`);
        return;
      }
      case 'SET_JOB_METADATA': {
        const job = this.job(d['job_id'] as string, i, type);
        job.metadata = d['metadata'] as string;
        const row = this.rowOf.get(job.id);
        if (row) row.metadata = job.metadata;
        return;
      }
      case 'REGISTER_PROFILE':
        this.registerProfile(d as { workload_name: string; profile_name: string; profile: Record<string, unknown> }, i);
        return;
      case 'REGISTER_JOB':
        this.registerJob(d as { job_id: string; job?: Record<string, unknown> }, i);
        return;
      case 'ANSWER':
        // Batsim sends no QUERY in this version: an ANSWER answers nothing and is ignored
        return;
    }
  }

  private reject(job: SessionJob): void {
    job.state = 'REJECTED';
    this.completed++;
    this.addRow(job, { finalState: 'REJECTED', start: NaN, finish: NaN, alloc: '', energy: 0 });
  }

  /**
   * CHANGE_JOB_STATE as Batsim does it: a submitted job becomes RUNNING (without machines, started
   * now) or REJECTED; a running job becomes COMPLETED_* now (an executing one is stopped and its
   * machines freed; no JOB_COMPLETED is sent).
   */
  private changeJobState(job: SessionJob, state: string): void {
    const completed = ['COMPLETED_SUCCESSFULLY', 'COMPLETED_FAILED', 'COMPLETED_WALLTIME_REACHED', 'COMPLETED_KILLED'];
    if (job.state === 'SUBMITTED') {
      if (state === 'RUNNING') {
        job.state = 'RUNNING';
        job.start = this.sim.now;
      } else if (state === 'REJECTED') this.reject(job);
      else throw new BatsimProtocolError(`Invalid requested job state modification to '${state}': can only be running or rejected.`);
    } else if (job.state === 'RUNNING') {
      if (!completed.includes(state))
        throw new BatsimProtocolError(`Can only change the state of a running job to completed (successfully, failed, and killed). State was ${job.state}`);
      if (job.running) {
        job.forcedState = state as BatsimJobState;
        this.sim.kill(job.running);
      } else this.complete(job, state as BatsimJobState, 0);
    } else throw new BatsimProtocolError(`Can only change the state of a submitted or running job. State was ${job.state}`);
  }

  private job(id: string, i: number, type: string): SessionJob {
    const job = this.jobs.get(id);
    if (!job || job.state === 'NOT_SUBMITTED') throw new BatsimProtocolError(`Invalid JSON message: in event ${i} (${type}): the job '${id}' does not exist`);
    return job;
  }

  private execute(d: { job_id: string; alloc: string; mapping?: Record<string, string | number> }, i: number): void {
    const job = this.job(d.job_id, i, 'EXECUTE_JOB');
    if (job.state !== 'SUBMITTED') throw new BatsimProtocolError(`Cannot execute job '${job.id}': its state (${job.state}) is not JOB_STATE_SUBMITTED.`);
    const alloc = parseIntervalSet(d.alloc);
    if (typeof alloc === 'string')
      throw new BatsimProtocolError(`Invalid JSON message: in event ${i} (EXECUTE_JOB): invalid allocation '${d.alloc}': ${alloc}`);
    for (const m of alloc) {
      if (m >= this.machines.count)
        throw new BatsimProtocolError(
          `Invalid JSON message: in event ${i} (EXECUTE_JOB): the allocation '${d.alloc}' of job '${job.id}' contains machine ${m}, which does not exist (there are ${this.machines.count} machines: 0-${this.machines.count - 1})`,
        );
      if (this.machines.holder[m] !== null)
        throw new BatsimProtocolError(
          `Job '${job.id}': Invalid allocation ('${formatIntervalSet(alloc)}'): machine ${m} (hostname='${this.machines.names[m]}') is currently computing jobs (these ones: {${this.machines.holder[m]}}) whereas time-sharing on compute machines is disabled`,
        );
      if (!this.machines.canCompute(m))
        throw new BatsimProtocolError(
          `Job '${job.id}': Invalid job allocation ('${formatIntervalSet(alloc)}'): machine ${m} (hostname='${this.machines.names[m]}') cannot compute jobs now (the machine is not computing nor idle, its state is '${this.machines.stateName(m)}', pstate ${this.machines.pstate[m]})`,
        );
    }
    let executors: number[];
    if (d.mapping) {
      const entries = Object.entries(d.mapping).map(([k, v]) => [Number(k), Number(v)] as const);
      entries.sort((a, b) => a[0] - b[0]);
      executors = [];
      entries.forEach(([k, v], n) => {
        if (!Number.isInteger(k) || !Number.isInteger(v))
          throw new BatsimProtocolError(
            `Invalid JSON message: Invalid 'mapping' object of event ${i} (EXECUTE_JOB): all keys and values must be integers (or strings representing integers)`,
          );
        if (k !== n)
          throw new BatsimProtocolError(`Invalid JSON message: Invalid 'mapping' object of event ${i} (EXECUTE_JOB): no resource associated to executor ${n}.`);
        if (v < 0 || v >= alloc.length)
          throw new BatsimProtocolError(
            `Invalid JSON message: Invalid 'mapping' object of event ${i} (EXECUTE_JOB): executor ${k} should use the ${v}-th resource within the allocation, but there are only ${alloc.length} allocated resources.`,
          );
        executors.push(alloc[v]!);
      });
    } else executors = alloc.slice();
    if (!batsimProfileAnySize(this.profiles.get(job.workload)!, job.profile) && executors.length !== job.res)
      throw new BatsimProtocolError(
        d.mapping
          ? `Job '${job.id}' allocation ('${formatIntervalSet(alloc)}') is invalid. The decision process set a custom mapping for this job, but the custom mapping size (${executors.length}) does not match the job requested number of machines (${job.res}).`
          : `Job '${job.id}' allocation ('${formatIntervalSet(alloc)}') is invalid. The job requires ${job.res} machines but only ${alloc.length} were given. Using a different number of machines than the one requested is prevented by default. If you meant to use multiple executors per machine, please specify a custom execution mapping specifying which allocated machine each executor should use.`,
      );
    const profiles = this.profiles.get(job.workload)!;
    let work: BatsimWork;
    try {
      work = batsimProfileWork(profiles, job.profile, executors.length, `workload ${job.workload}`);
    } catch (e) {
      throw new BatsimProtocolError(`Job '${job.id}' cannot run on ${executors.length} executor(s): ${(e as Error).message}`);
    }
    const { job: engineJob, cores } = batsimExecutorJob(
      job.id,
      this.sim.now,
      job.walltime,
      work,
      executors.map((m) => this.machines.node[m]!),
      executors.map((m) => this.machines.speed(m)),
      this.opts.platform,
    );
    job.ptask = work.kind === 'ops';
    job.state = 'RUNNING';
    job.alloc = alloc;
    job.start = this.sim.now;
    let e = 0;
    for (const m of alloc) {
      e += this.machines.energyOf(m, this.sim.now);
      this.machines.startJob(m, job.id, job.ptask, this.sim.now);
    }
    job.energyAtStart = e;
    this.byEngineJob.set(engineJob.id, job);
    this.sim.submitNow(engineJob);
    job.running = this.sim.startJob(engineJob, cores);
  }

  private killJobs(ids: string[], i: number): void {
    const progress: Record<string, unknown> = {};
    for (const id of ids) {
      const job = this.job(id, i, 'KILL_JOB');
      if (job.killRequested) continue;
      if (job.state === 'SUBMITTED' || job.state === 'REJECTED')
        throw new BatsimProtocolError(`Invalid KILL_JOB: job_id '${id}' refers to a job not being executed nor completed.`);
      if (job.state !== 'RUNNING') continue;
      job.killRequested = true;
      if (!job.running) {
        // running by CHANGE_JOB_STATE, without machines
        progress[id] = { profile: job.profile, progress: 0 };
        this.complete(job, 'COMPLETED_KILLED', 0);
        this.push('JOB_COMPLETED', { job_id: job.id, job_state: job.state, return_code: -1, alloc: '' });
        continue;
      }
      progress[id] = this.progressOf(job);
      this.sim.kill(job.running);
    }
    if (Object.keys(progress).length > 0) this.push('JOB_KILLED', { job_ids: ids, job_progress: progress });
    else this.push('JOB_KILLED', { job_ids: ids, job_progress: {} });
  }

  /** Batsim's `job_progress` of a running job: the fraction of its work done (its slowest task). */
  private progressOf(job: SessionJob): Record<string, unknown> {
    const done = job.running!.workDone(this.sim.now);
    return batsimProfileProgress(this.profiles.get(job.workload)!, job.profile, job.alloc.length, done, `workload ${job.workload}`);
  }

  private setResourceState(resources: string, state: string, i: number): void {
    if (!this.opts.energy)
      throw new BatsimProtocolError(
        'Receiving a pstate modification request, which is forbidden as Batsim has not been launched with energy support (--energy).',
      );
    if (!/^\d+$/.test(state))
      throw new BatsimProtocolError(
        `Invalid JSON message: the 'state' value in the 'data' value of event ${i} (SET_RESOURCE_STATE) should be a string corresponding to an integer (got '${state}')`,
      );
    const p = Number(state);
    const ids = parseIntervalSet(resources);
    if (typeof ids === 'string')
      throw new BatsimProtocolError(`Invalid JSON message: in event ${i} (SET_RESOURCE_STATE): invalid resources '${resources}': ${ids}`);
    const now = this.sim.now;
    const group = { left: 0, ids, state };
    this.groupedSwitches++;
    this.machineSwitches += ids.length;
    for (const m of ids) {
      if (m >= this.machines.count) throw new BatsimProtocolError(`Invalid JSON message: in event ${i} (SET_RESOURCE_STATE): machine ${m} does not exist`);
      const r = this.machines.requestPState(m, p, now);
      if ('refused' in r) throw new BatsimProtocolError(r.refused);
      if (r.switchEnd !== null) {
        group.left++;
        this.switches.push({ t: r.switchEnd, m, p, group });
      }
    }
    if (group.left === 0) this.push('RESOURCE_STATE_CHANGED', { resources: formatIntervalSet(ids), state });
  }

  private registerProfile(d: { workload_name: string; profile_name: string; profile: Record<string, unknown> }, i: number): void {
    if (!this.opts.dynamicJobs)
      throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_PROFILE): dynamic job registration is disabled (--enable-dynamic-jobs)`);
    const profiles = this.profiles.get(d.workload_name) ?? {};
    if (d.profile_name in profiles && JSON.stringify(profiles[d.profile_name]) !== JSON.stringify(d.profile))
      throw new BatsimProtocolError(
        `Invalid JSON message: event ${i} (REGISTER_PROFILE): profile '${d.profile_name}' already exists in workload '${d.workload_name}'`,
      );
    if (typeof d.profile['type'] !== 'string') throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_PROFILE): the profile has no 'type'`);
    profiles[d.profile_name] = d.profile as { type: string };
    this.profiles.set(d.workload_name, profiles);
  }

  private registerJob(d: { job_id: string; job?: Record<string, unknown> }, i: number): void {
    if (!this.opts.dynamicJobs)
      throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_JOB): dynamic job registration is disabled (--enable-dynamic-jobs)`);
    if (this.registrationFinished)
      throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_JOB): the scheduler already notified registration_finished`);
    const sep = d.job_id.indexOf(JOB_SEPARATOR);
    if (sep <= 0) throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_JOB): the job id '${d.job_id}' is not WORKLOAD!NAME`);
    const workload = d.job_id.slice(0, sep);
    const name = d.job_id.slice(sep + 1);
    if (!this.profiles.has(workload)) throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_JOB): workload '${workload}' does not exist`);
    if (this.jobs.has(d.job_id)) throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_JOB): job '${d.job_id}' already exists`);
    const raw = d.job;
    if (!raw || typeof raw['res'] !== 'number' || !Number.isInteger(raw['res']) || (raw['res'] as number) < 1 || typeof raw['profile'] !== 'string')
      throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_JOB): the job needs 'res' (an integer >= 1) and 'profile'`);
    let job: SessionJob;
    try {
      job = this.newJob(workload, { ...raw, id: name, subtime: this.sim.now }, `REGISTER_JOB ${d.job_id}`, false);
    } catch (e) {
      throw new BatsimProtocolError(`Invalid JSON message: event ${i} (REGISTER_JOB): ${(e as Error).message}`);
    }
    job.description = { ...raw, id: d.job_id, subtime: this.sim.now };
    this.submit(job, this.opts.acknowledgeDynamicJobs ?? false);
  }

  /** Batsim's version string in `_schedule.csv`. */
  static readonly version = BATSIM_VERSION;
}

/** The first characters of a message, for error messages. */
function excerpt(text: string): string {
  return text.length > 120 ? `${JSON.stringify(text.slice(0, 120))}...` : JSON.stringify(text);
}
