/**
 * Time-sharing engine of a non-dedicated cluster (seed 003: §2.1 model, §2.2 simulator, chapter 3
 * CSC), on the event core (core/eventLoop.ts) and seeded streams (core/rng.ts).
 *
 * Over 600 lines: one engine, the quantum dispatcher of the exact reproduction (admission, RQ and WQ,
 * quanta, communication, paging, and each policy's hooks into them all act on the same node and task
 * state), and a tenth of it is the model's description below; split, each part would reach into the
 * others' state.
 *
 * Model. n homogeneous single-CPU nodes. Each node has a ready queue RQ (tasks ordered by priority;
 * the running task is taken off it, §2.1.1 "RQ[0]"), a wait queue WQ (tasks blocked on a message,
 * an acknowledgement, a page fault, an interactive wait, or stopped by CSC), main memory node.M with
 * demand paging, and room for at most `MPL_TOTAL` tasks, local and parallel alike (§2.2). Jobs come
 * from one stream (workload.ts) and are admitted in stream order over a window of the first
 * `model.lookahead` jobs not yet admitted (a job that does not fit is passed by later ones that do):
 * a local job on a node with room, a parallel job of size m on m distinct nodes with room chosen
 * uniformly at random (at most one task per node, §2.1). A node has a local user (node.LOCAL_USER) while it runs a local task.
 *
 * CPU. The running task keeps the CPU until its quantum expires (it goes back to RQ with a fresh
 * quantum, §2.2), it blocks (WQ), it finishes, or a policy preempts it. The quantum is
 * `quantum` (DEF_QUANTUM), `quantum * L` for a parallel task on a node with a local user (eq. 2.7;
 * L = 1 by default, so this is a no-op unless L is set) and, under CSC, the values of §3.4 below.
 * A task that blocks keeps the rest of its quantum (Linux's counter; the thesis's epochs are folded
 * into this per-task rule: an epoch is one turn of RQ).
 *
 * Communication (§2.2 freq_com). A parallel task of CPU time W has a communication point every
 * `quantum / freq_com` u.t. of CPU (strictly before W). At point e it sends message e to every
 * cooperating task (one to all; one network event, latency `model.latency`, a round trip of
 * 2 x latency = 10 u.t.), then waits until it holds message e of every other task and, with
 * `send: blocking`, every acknowledgement of its own message. A receiver acknowledges a message
 * when it is on the CPU (at once if it runs when the message arrives, else when it is next
 * dispatched). Waiting (config `wait`, Anglano's Table 1.4 in §1.3.2; each policy has its own,
 * config.ts DEFAULT_WAIT): `spin` polls on the CPU until the message is there (RR, the uncoordinated
 * reference: the quantum still expires, and the task polls again when next dispatched), `spin_block`
 * spins `model.spin` u.t. (one round trip, §2.2) and then blocks (IMPLI), `block` leaves the CPU at
 * once (DYN, DYN_MOD, CSC: §3.3 "bloqueo inmediato"). task.com (eq. 2.1)
 * is the number of messages pending in its receive queue plus the acknowledgements it awaits.
 * The text states the wait for the acknowledgements (§2.2 freq_com) and that a reply needs the
 * receiver on the CPU (§2.3.1: "no esté planificado en el nodo remoto y por tanto no pueda
 * responder"); the wait for every partner's message of the exchange is this model's (removing it
 * changes no finding: docs/timesharing.md, "How RR waits decides which findings hold").
 *
 * Memory (§2.1.2). node.mem is the sum of the vmem of the node's tasks, node.mem_par that of its
 * parallel tasks. An admitted task gets min(vmem, free) MB resident at once; when node.mem <= M no
 * task ever faults. A task with rss < vmem faults after `fault_gap * vmem / (vmem - rss)` u.t. of
 * CPU (more often the more pages it misses); a fault brings `page_chunk` MB in and blocks it in WQ
 * for `fault_time` u.t. When memory is full, pages are taken from a victim: the least recently run
 * task (global LRU, §2.1.2), or under CSC the task §3.2 names (below). task.flt is faults per u.t.
 * since launch.
 *
 * Policies (how a task enters RQ; MNO = `model.mno`):
 * - rr: at the tail, always; waits by polling.
 * - dyn (§2.2, [Sol02]): a task that receives a message (or is woken by one) is moved ahead of
 *   every task not yet overtaken MNO times (local tasks, and parallel tasks with fewer pending
 *   messages, §2.1.1 task.de), up to preempting the running task (scheduled at once); every task
 *   it passes counts one overtake (task.de).
 * - impli (§2.2, [AD01]): RR order; a task waiting for a message spins one round trip, then blocks.
 * - dyn_mod (§2.3.2): dyn while node.mem <= M; on an overflowed node every insertion orders RQ by
 *   ascending task.flt (fewest page faults first), passing no local task overtaken MNO times.
 * - csc (chapter 3): on a node that fits in memory, a task with com > 0 passes RQ[i] while
 *   RQ[i].de < MNO and (RQ[i].com < task.com or (equal and RQ[i].jid < task.jid)) (eqs. 3.6, 3.7),
 *   up to the running task; on an overflowed node, the flt order of dyn_mod (Insertar_RQ_2,
 *   §3.3.2). Quanta (§3.4, Fig. 3.5): a parallel task gets quantum x L on a node with a local user
 *   and when its job has a task on such a node (state LOCAL), so all of a job's tasks get the same
 *   quantum; on an overflowed node without a local user every task gets quantum x STEP (§3.4.1).
 *   Memory (§3.2): parallel tasks are guaranteed M^D = M x L (eq. 3.1); page victims: if node.mem_par
 *   > M^D, a stopped task, else the parallel task with the largest vmem; otherwise the task with the
 *   largest vmem. When a node with a local user overflows because node.mem_par > M^D, it stops the
 *   parallel job of its largest parallel task (quantum 0 on every node, its pages evicted here:
 *   the MPL drops by one) unless a job is already stopped there; it resumes it when the local user
 *   leaves or node.mem <= MEM_MIN x M (§3.4). A node holding a stopped task admits no new parallel
 *   task (the MPL follows the free memory). Remote events (LOCAL, STOP, RESUME, §3.5) reach the
 *   other nodes at once.
 *
 * Invariants (tested): every task's CPU time is exactly its work; a node's busy time is the sum of
 * its tasks' CPU and spin times; RQ, WQ and the running slot partition a node's live tasks.
 */
import type { DiscreteEventEngine, EngineListener } from '../core/engine.js';
import { EventLoop } from '../core/eventLoop.js';
import { derive, type Rng } from '../core/rng.js';
import { type Policy, type TimeSharingConfig, type WaitMode, waitMode } from './config.js';
import { generateJobs, type JobSpec } from './workload.js';

/** Why a task is in WQ. */
export type WaitReason = 'none' | 'comm' | 'fault' | 'io' | 'stop';

/** A task on a node (mutable engine state; read it, never write it). */
export interface Task {
  readonly id: number;
  readonly job: TimeSharedJob;
  readonly node: number;
  readonly local: boolean;
  readonly work: number;
  readonly vmem: number;
  done: number;
  rss: number;
  state: 'ready' | 'running' | 'blocked' | 'done';
  wait: WaitReason;
  /** Overtakes suffered since the last insertion in RQ (task.de). */
  de: number;
  quantumLeft: number;
  insertedAt: number;
  /** Sum of the waits in RQ and their number (task.trq = rqWait / rqStays). */
  rqWait: number;
  rqStays: number;
  lastRan: number;
  faults: number;
  cpuSinceFault: number;
  start: number;
  finish: number;
  spinTime: number;
  /** CSC: stopped with its job. */
  stopped: boolean;
  // parallel tasks
  phase: number;
  readonly nEx: number;
  readonly interval: number;
  sent: boolean;
  recvCur: number;
  recvNext: number;
  acksPending: number;
  pendingAcks: Task[];
  spinLeft: number;
  spinning: boolean;
  // local tasks
  burstLeft: number;
  ioTotal: number;
}

/** A parallel or local job in the system: its tasks and how far they are. */
export interface TimeSharedJob {
  readonly spec: JobSpec;
  readonly tasks: Task[];
  admitted: number;
  doneTasks: number;
  /** CSC: the node that stopped it, or -1. */
  stoppedBy: number;
}

/** A node's state. */
export interface NodeState {
  readonly index: number;
  rq: Task[];
  running: Task | null;
  /** Live tasks (ready, running or blocked). */
  tasks: Task[];
  /** node.mem and node.mem_par (MB of requirements), and the resident MB. */
  mem: number;
  memPar: number;
  rssUsed: number;
  locals: number;
  parallels: number;
  sliceStart: number;
  sliceVersion: number;
  busy: number;
  cpu: number;
  spin: number;
  memIntegral: number;
  memSince: number;
  stoptask: Task | null;
}

/** A finished job's record. */
export interface JobRecord {
  id: number;
  kind: 'local' | 'parallel';
  size: number;
  /** Turnaround (slowest task), dedicated time, fastest task's turnaround. */
  tr: number;
  tc: number;
  trFast: number;
}

/** A finished task's record (per node metrics). */
export interface TaskRecord {
  node: number;
  local: boolean;
  trq: number;
  faults: number;
  cpu: number;
  spin: number;
  work: number;
}

/** Event kinds (the `k` of each event; every kind ranks the same within an instant). */
const EV_SLICE = 0;
const EV_MSG = 1;
const EV_ACK = 2;
const EV_WAKE = 3;

type Ev = { k: 'slice'; node: number; v: number } | { k: 'msg'; from: Task; phase: number } | { k: 'ack'; to: Task } | { k: 'wake'; task: Task };

const EPS = 1e-9;
/** Relative resolution of the clock: a few ulps of a double (2^-52 each). */
const TIME_RESOLUTION = 2 ** -48;

/**
 * Observers of a time-sharing run: the engine listener of `core/engine.ts`. A job is submitted when it
 * enters the admission window, starts when it is admitted (its tasks placed), ends with its record.
 */
export type TimeSharingListener = EngineListener<TimeSharingSimulator, JobSpec, JobSpec, JobRecord>;

/** The time-sharing simulator of one configuration. */
export class TimeSharingSimulator implements DiscreteEventEngine {
  readonly cfg: TimeSharingConfig;
  readonly nodes: NodeState[];
  readonly jobs: JobSpec[];
  readonly records: JobRecord[] = [];
  readonly taskRecords: TaskRecord[] = [];
  /** Events processed. */
  events = 0;
  now = 0;
  /** Admission limit of parallel tasks per node (the agent's MPL; MPL_TOTAL by default). */
  parallelCap: number;
  /** The share L in force (the agent may change it). */
  L: number;
  /** Quantum ends, messages, acknowledgements and wake-ups, in scheduling order within an instant. */
  private readonly q = new EventLoop<Ev>({ capacity: 4096 });
  private readonly listeners: TimeSharingListener[] = [];
  private readonly rngPlace: Rng;
  private readonly rngLocal: Rng;
  private nextJob = 0;
  private readonly pending: JobSpec[] = [];
  private admittedJobs = 0;
  private taskIds = 0;
  private readonly policy: Policy;
  /** How parallel tasks wait for messages (config `wait`, else the policy's own). */
  readonly wait: WaitMode;
  private readonly mno: number;
  private readonly M: number;

  /**
   * @param listeners observers from the start: the first admissions happen in the constructor (a
   *   listener added later with `addListener` hears only what follows).
   */
  constructor(cfg: TimeSharingConfig, jobs: JobSpec[] = generateJobs(cfg), listeners: readonly TimeSharingListener[] = []) {
    this.listeners.push(...listeners);
    this.cfg = cfg;
    this.jobs = jobs;
    this.policy = cfg.policy;
    this.wait = waitMode(cfg);
    this.mno = cfg.model.mno;
    this.M = cfg.model.memory;
    this.parallelCap = cfg.MPL_TOTAL;
    this.L = cfg.L;
    this.rngPlace = derive(cfg.seed, 'timesharing/placement');
    this.rngLocal = derive(cfg.seed, 'timesharing/local');
    this.nodes = Array.from({ length: cfg.n }, (_, index) => ({
      index,
      rq: [],
      running: null,
      tasks: [],
      mem: 0,
      memPar: 0,
      rssUsed: 0,
      locals: 0,
      parallels: 0,
      sliceStart: 0,
      sliceVersion: 0,
      busy: 0,
      cpu: 0,
      spin: 0,
      memIntegral: 0,
      memSince: 0,
      stoptask: null,
    }));
    this.admit();
  }

  /** Whether every job has finished. */
  get finished(): boolean {
    return this.records.length === this.jobs.length;
  }

  /** Jobs admitted so far. */
  get admitted(): number {
    return this.admittedJobs;
  }

  /** Time of the next event (Infinity when none). */
  nextEventTime(): number {
    return this.q.peekTime();
  }

  /** Runs to the end. */
  run(): this {
    this.runUntil(Number.POSITIVE_INFINITY);
    return this;
  }

  /**
   * The engine contract's `runUntil` (`core/engine.ts`): processes every event up to `time` (inclusive), then sets the clock to `time` (when finite and
   * some job is still unfinished: once every job has finished the clock stays at the last finish, so
   * the makespan and the time averages (mem_load, busy) do not depend on how far a caller advanced).
   */
  runUntil(time: number): number {
    const q = this.q;
    while (q.peekTime() <= time && q.next()) {
      this.now = q.time;
      this.events++;
      this.handle(q.payload!);
    }
    if (Number.isFinite(time) && time > this.now && !this.finished) this.now = time;
    if (q.size === 0 && !this.finished && this.admittedJobs < this.jobs.length) this.admit();
    return this.now;
  }

  /** Adds an observer (window entries, admissions, job ends). */
  addListener(l: TimeSharingListener): void {
    this.listeners.push(l);
  }

  /** Whether every job has finished (`finished`; the engine contract's name). */
  get done(): boolean {
    return this.finished;
  }

  /** Tries to admit jobs again (after the agent raised `parallelCap`). */
  readmit(): void {
    this.admit();
  }

  // ---------------------------------------------------------------- admission

  private admit(): void {
    const cfg = this.cfg;
    const window = cfg.model.lookahead;
    const cands: number[] = [];
    for (let w = 0; w < window; ) {
      // the admission window: the first `lookahead` jobs not admitted yet, in stream order
      while (this.pending.length < window && this.nextJob < this.jobs.length) {
        const next = this.jobs[this.nextJob++]!;
        this.pending.push(next);
        for (const l of this.listeners) l.onSubmit?.(this, next);
      }
      if (w >= this.pending.length) return;
      const spec = this.pending[w]!;
      cands.length = 0;
      for (const nd of this.nodes) {
        if (nd.tasks.length >= cfg.MPL_TOTAL) continue;
        if (spec.kind === 'parallel' && (nd.parallels >= this.parallelCap || (this.policy === 'csc' && nd.stoptask !== null))) continue;
        cands.push(nd.index);
      }
      if (cands.length < spec.size) {
        w++;
        continue;
      }
      this.pending.splice(w, 1);
      // choose spec.size distinct nodes uniformly (partial Fisher-Yates)
      for (let i = 0; i < spec.size; i++) {
        const j = i + this.rngPlace.int(cands.length - i);
        const tmp = cands[i]!;
        cands[i] = cands[j]!;
        cands[j] = tmp;
      }
      this.admittedJobs++;
      const job: TimeSharedJob = { spec, tasks: [], admitted: this.now, doneTasks: 0, stoppedBy: -1 };
      for (const l of this.listeners) l.onStart?.(this, spec);
      const local = spec.kind === 'local';
      const interval = !local && cfg.freq_com > 0 && spec.size > 1 ? cfg.quantum / cfg.freq_com : Infinity;
      const nEx = Number.isFinite(interval) ? Math.max(0, Math.ceil(spec.work / interval) - 1) : 0;
      for (let i = 0; i < spec.size; i++) {
        const nd = this.nodes[cands[i]!]!;
        const rss = Math.min(spec.vmem, Math.max(0, this.M - nd.rssUsed));
        const t: Task = {
          id: this.taskIds++,
          job,
          node: nd.index,
          local,
          work: spec.work,
          vmem: spec.vmem,
          done: 0,
          rss,
          state: 'ready',
          wait: 'none',
          de: 0,
          quantumLeft: 0,
          insertedAt: this.now,
          rqWait: 0,
          rqStays: 0,
          lastRan: this.now,
          faults: 0,
          cpuSinceFault: 0,
          start: this.now,
          finish: Number.NaN,
          spinTime: 0,
          stopped: false,
          phase: 0,
          nEx,
          interval,
          sent: false,
          recvCur: 0,
          recvNext: 0,
          acksPending: 0,
          pendingAcks: [],
          spinLeft: 0,
          spinning: false,
          burstLeft: local ? this.drawBurst() : Infinity,
          ioTotal: 0,
        };
        job.tasks.push(t);
        this.memChange(nd, spec.vmem, local);
        nd.rssUsed += rss;
        nd.tasks.push(t);
      }
      for (const t of job.tasks) {
        this.insertReady(t, false);
        this.dispatch(this.nodes[t.node]!);
      }
    }
  }

  private drawBurst(): number {
    return Math.max(EPS * 1e3, this.rngLocal.exponential(1 / this.cfg.model.local_burst));
  }

  private memChange(nd: NodeState, delta: number, local: boolean): void {
    nd.memIntegral += (nd.mem / this.M) * (this.now - nd.memSince);
    nd.memSince = this.now;
    nd.mem += delta;
    if (local) nd.locals += Math.sign(delta);
    else {
      nd.memPar += delta;
      nd.parallels += Math.sign(delta);
    }
    if (Math.abs(nd.mem) < 1e-6) nd.mem = 0;
    if (Math.abs(nd.memPar) < 1e-6) nd.memPar = 0;
  }

  // ---------------------------------------------------------------- queries

  /** Whether node.mem exceeds node.M (swapping). */
  overflowed(nd: NodeState): boolean {
    return nd.mem > this.M + EPS;
  }

  /** task.com: messages in the receive queue plus awaited acknowledgements (eq. 2.1). */
  com(t: Task): number {
    return t.recvCur + t.recvNext + t.acksPending;
  }

  /** task.flt: page faults per u.t. since launch. */
  flt(t: Task): number {
    return t.faults / Math.max(1, this.now - t.start);
  }

  private satisfied(t: Task): boolean {
    return t.sent && t.recvCur >= t.job.spec.size - 1 && t.acksPending === 0;
  }

  private jobHasLocalUser(job: TimeSharedJob): boolean {
    for (const t of job.tasks) if (t.state !== 'done' && this.nodes[t.node]!.locals > 0) return true;
    return false;
  }

  /** The quantum a task gets when it starts a new one (eq. 2.7, §3.4). */
  quantumFor(t: Task): number {
    const nd = this.nodes[t.node]!;
    const q = this.cfg.quantum;
    if (this.policy === 'csc') {
      if (nd.locals === 0 && this.overflowed(nd)) return q * this.cfg.model.step;
      if (!t.local && (nd.locals > 0 || this.jobHasLocalUser(t.job))) return q * this.L;
      return q;
    }
    if (!t.local && nd.locals > 0) return q * this.L;
    return q;
  }

  // ---------------------------------------------------------------- ready queue

  /** A task enters RQ (reason: `boosted` when a message woke it or reached it). */
  private insertReady(t: Task, boosted: boolean): void {
    const nd = this.nodes[t.node]!;
    if (t.stopped) {
      t.state = 'blocked';
      t.wait = 'stop';
      return;
    }
    t.state = 'ready';
    t.wait = 'none';
    t.insertedAt = this.now;
    t.de = 0;
    this.place(nd, t, boosted);
  }

  private place(nd: NodeState, t: Task, boosted: boolean): void {
    const rq = nd.rq;
    const over = this.overflowed(nd);
    const mno = this.mno;
    const p = this.policy;
    let i = rq.length;
    if ((p === 'dyn_mod' || p === 'csc') && over) {
      const f = this.flt(t);
      while (i > 0) {
        const o = rq[i - 1]!;
        if (o.local && o.de >= mno) break;
        if (!(this.flt(o) > f)) break;
        i--;
      }
      this.overtake(rq, i, t);
      return;
    }
    if (boosted && (p === 'dyn' || p === 'dyn_mod')) {
      const c = this.com(t);
      const passes = (o: Task) => o.de < mno && (o.local || this.com(o) < c);
      while (i > 0 && passes(rq[i - 1]!)) i--;
      this.overtake(rq, i, t);
      if (i === 0) this.maybePreempt(nd, passes);
      return;
    }
    // eqs. 3.6/3.7 order EVERY insertion of a parallel task with com > 0 (woken by a message, back
    // from a quantum, a page fault or a resume), not only boosted ones
    if (p === 'csc' && !t.local && this.com(t) > 0) {
      const c = this.com(t);
      const passes = (o: Task) => {
        const oc = this.com(o);
        return o.de < mno && (oc < c || (oc === c && o.job.spec.id < t.job.spec.id));
      };
      while (i > 0 && passes(rq[i - 1]!)) i--;
      this.overtake(rq, i, t);
      if (i === 0) this.maybePreempt(nd, passes);
      return;
    }
    rq.push(t);
  }

  private overtake(rq: Task[], i: number, t: Task): void {
    for (let j = i; j < rq.length; j++) rq[j]!.de++;
    rq.splice(i, 0, t);
  }

  /** The task at RQ's head takes the CPU from the running task when `passes(running)`. */
  private maybePreempt(nd: NodeState, passes: (o: Task) => boolean): void {
    const r = nd.running;
    if (r === null || !passes(r)) return;
    this.advanceRunning(nd);
    nd.running = null;
    r.spinning = false;
    r.de++;
    r.state = 'ready';
    r.insertedAt = this.now;
    nd.rq.splice(1, 0, r);
    nd.sliceVersion++;
    this.dispatch(nd);
  }

  /** A ready task already in RQ receives a message: it moves as a boosted insertion (keeping de). */
  private reboost(t: Task): void {
    const nd = this.nodes[t.node]!;
    const i = nd.rq.indexOf(t);
    if (i < 0) return;
    nd.rq.splice(i, 1);
    const de = t.de;
    this.place(nd, t, true);
    t.de = de;
  }

  // ---------------------------------------------------------------- CPU

  private dispatch(nd: NodeState): void {
    if (nd.running !== null || nd.rq.length === 0) return;
    const t = nd.rq.shift()!;
    t.rqWait += this.now - t.insertedAt;
    t.rqStays++;
    t.state = 'running';
    nd.running = t;
    t.lastRan = this.now;
    if (t.pendingAcks.length > 0) {
      for (const s of t.pendingAcks) this.q.schedule(this.now + this.cfg.model.latency, EV_ACK, { k: 'ack', to: s });
      t.pendingAcks.length = 0;
    }
    if (t.quantumLeft <= EPS) t.quantumLeft = this.quantumFor(t);
    this.continueRunning(nd);
  }

  /** Charges the running task with the time since its slice started. */
  private advanceRunning(nd: NodeState): void {
    const t = nd.running;
    if (t === null) return;
    const dt = this.now - nd.sliceStart;
    nd.sliceStart = this.now;
    if (dt <= 0) return;
    nd.busy += dt;
    t.quantumLeft -= dt;
    t.lastRan = this.now;
    if (t.spinning) {
      t.spinLeft -= dt;
      t.spinTime += dt;
      nd.spin += dt;
    } else {
      t.done += dt;
      nd.cpu += dt;
      t.cpuSinceFault += dt;
      if (t.local) t.burstLeft -= dt;
    }
  }

  /** Decides what the running task does next at `now`, and schedules the end of its slice. */
  private continueRunning(nd: NodeState): void {
    const t = nd.running!;
    const m = this.cfg.model;
    // amounts left below the clock's resolution count as none: `now + dt` would equal `now`, and a
    // slice that never advances the clock would be scheduled forever
    const eps = Math.max(EPS, this.now * TIME_RESOLUTION);
    nd.sliceStart = this.now;
    nd.sliceVersion++;
    for (;;) {
      if (t.spinning) {
        if (this.satisfied(t)) {
          t.spinning = false;
          continue;
        }
        if (t.quantumLeft <= eps && this.wait === 'spin') {
          // a polling task is preempted like any other: it resumes its poll when next dispatched
          t.spinning = false;
          this.yieldQuantum(nd, t);
          return;
        }
        if (t.spinLeft <= eps || t.quantumLeft <= eps) {
          t.spinning = false;
          this.block(nd, t, 'comm');
          return;
        }
        const dt = Math.min(t.spinLeft, t.quantumLeft);
        this.q.schedule(this.now + dt, EV_SLICE, { k: 'slice', node: nd.index, v: nd.sliceVersion });
        return;
      }
      // communication point reached
      if (!t.local && t.phase < t.nEx && t.done >= (t.phase + 1) * t.interval - eps) {
        if (!t.sent) this.send(t);
        if (this.satisfied(t)) {
          this.completeExchange(t);
          continue;
        }
        if (this.wait === 'spin') {
          // with no quantum left, the spinning branch above yields at once
          t.spinning = true;
          t.spinLeft = Infinity;
          continue;
        }
        if (this.wait === 'spin_block' && m.spin > 0 && t.quantumLeft > eps) {
          t.spinning = true;
          t.spinLeft = m.spin;
          continue;
        }
        this.block(nd, t, 'comm');
        return;
      }
      if (t.done >= t.work - eps) {
        this.finishTask(nd, t);
        return;
      }
      if (t.local && t.burstLeft <= eps) {
        t.burstLeft = this.drawBurst();
        const w = m.local_wait > 0 ? this.rngLocal.exponential(1 / m.local_wait) : 0;
        if (w > 0) {
          t.ioTotal += w;
          this.block(nd, t, 'io');
          this.q.schedule(this.now + w, EV_WAKE, { k: 'wake', task: t });
          return;
        }
        continue;
      }
      if (t.quantumLeft <= eps) {
        this.yieldQuantum(nd, t);
        return;
      }
      const missing = t.vmem - t.rss;
      let toFault = Infinity;
      if (missing > EPS) {
        const gap = (m.fault_gap * t.vmem) / missing;
        toFault = gap - t.cpuSinceFault;
        if (toFault <= eps) {
          this.pageFault(nd, t);
          return;
        }
      }
      let dt = Math.min(t.quantumLeft, t.work - t.done, toFault);
      if (!t.local && t.phase < t.nEx) dt = Math.min(dt, (t.phase + 1) * t.interval - t.done);
      if (t.local) dt = Math.min(dt, t.burstLeft);
      this.q.schedule(this.now + dt, EV_SLICE, { k: 'slice', node: nd.index, v: nd.sliceVersion });
      return;
    }
  }

  /** The running task's quantum expired: back to RQ with a fresh quantum. */
  private yieldQuantum(nd: NodeState, t: Task): void {
    nd.running = null;
    t.quantumLeft = 0;
    this.insertReady(t, false);
    this.dispatch(nd);
  }

  private block(nd: NodeState, t: Task, why: WaitReason): void {
    t.state = 'blocked';
    t.wait = why;
    if (nd.running === t) {
      nd.running = null;
      nd.sliceVersion++;
      this.dispatch(nd);
    }
  }

  private send(t: Task): void {
    t.sent = true;
    const others = t.job.spec.size - 1;
    t.acksPending = this.cfg.send === 'blocking' ? others : 0;
    this.q.schedule(this.now + this.cfg.model.latency, EV_MSG, { k: 'msg', from: t, phase: t.phase });
  }

  private completeExchange(t: Task): void {
    t.phase++;
    t.recvCur = t.recvNext;
    t.recvNext = 0;
    t.sent = false;
    t.acksPending = 0;
  }

  private pageFault(nd: NodeState, t: Task): void {
    const m = this.cfg.model;
    t.faults++;
    t.cpuSinceFault = 0;
    if (this.policy === 'csc') this.cscMemoryManager(nd);
    if (t.stopped) {
      this.dispatch(nd);
      return;
    }
    const need = Math.min(m.page_chunk, t.vmem - t.rss);
    let free = this.M - nd.rssUsed;
    while (free < need - EPS) {
      const v = this.victim(nd, t);
      if (v === null) break;
      const take = Math.min(v.rss, need - free);
      v.rss -= take;
      nd.rssUsed -= take;
      free += take;
    }
    const got = Math.min(need, Math.max(0, free));
    t.rss += got;
    nd.rssUsed += got;
    this.block(nd, t, 'fault');
    this.q.schedule(this.now + m.fault_time, EV_WAKE, { k: 'wake', task: t });
  }

  /** The task whose pages are taken (global LRU; CSC's §3.2 rule). */
  private victim(nd: NodeState, self: Task): Task | null {
    let best: Task | null = null;
    if (this.policy === 'csc') {
      const parOver = nd.memPar > this.M * this.L + EPS;
      for (const o of nd.tasks) {
        if (o === self || o.rss <= EPS) continue;
        if (parOver) {
          if (o.local) continue;
          if (o.stopped) return o;
        }
        if (best === null || o.vmem > best.vmem) best = o;
      }
      if (best !== null) return best;
    }
    for (const o of nd.tasks) {
      if (o === self || o.rss <= EPS) continue;
      if (best === null || o.lastRan < best.lastRan) best = o;
    }
    return best;
  }

  /** CSC's memory manager (§3.2, Fig. 3.2; §3.4.1 swapping with a local user). */
  private cscMemoryManager(nd: NodeState): void {
    if (!this.overflowed(nd) || nd.locals === 0 || nd.stoptask !== null) return;
    if (!(nd.memPar > this.M * this.L + EPS)) return;
    for (const o of nd.tasks) if (o.stopped) return;
    let big: Task | null = null;
    for (const o of nd.tasks) if (!o.local && (big === null || o.vmem > big.vmem)) big = o;
    if (big === null) return;
    nd.stoptask = big;
    big.job.stoppedBy = nd.index;
    for (const o of big.job.tasks) {
      if (o.state === 'done') continue;
      o.stopped = true;
      const on = this.nodes[o.node]!;
      if (on.running === o) {
        this.advanceRunning(on);
        on.running = null;
        o.spinning = false;
        on.sliceVersion++;
        o.state = 'blocked';
        o.wait = 'stop';
        if (on !== nd) this.dispatch(on);
      } else if (o.state === 'ready') {
        on.rq.splice(on.rq.indexOf(o), 1);
        o.state = 'blocked';
        o.wait = 'stop';
      }
    }
    nd.rssUsed -= big.rss;
    big.rss = 0;
  }

  private cscResumeCheck(nd: NodeState): void {
    const st = nd.stoptask;
    if (st === null) return;
    if (st.state !== 'done' && nd.locals > 0 && nd.mem > this.cfg.model.mem_min * this.M) return;
    nd.stoptask = null;
    st.job.stoppedBy = -1;
    for (const o of st.job.tasks) {
      if (!o.stopped) continue;
      o.stopped = false;
      if (o.state === 'blocked' && o.wait === 'stop') {
        this.insertReady(o, false);
        this.dispatch(this.nodes[o.node]!);
      }
    }
  }

  private finishTask(nd: NodeState, t: Task): void {
    t.state = 'done';
    t.finish = this.now;
    nd.running = null;
    nd.sliceVersion++;
    nd.tasks.splice(nd.tasks.indexOf(t), 1);
    this.memChange(nd, -t.vmem, t.local);
    nd.rssUsed -= t.rss;
    if (nd.rssUsed < 1e-6) nd.rssUsed = Math.max(0, nd.rssUsed);
    this.taskRecords.push({
      node: nd.index,
      local: t.local,
      trq: t.rqStays > 0 ? t.rqWait / t.rqStays : 0,
      faults: t.faults,
      cpu: t.done,
      spin: t.spinTime,
      work: t.work,
    });
    const job = t.job;
    job.doneTasks++;
    if (job.doneTasks === job.tasks.length) {
      let slow = 0;
      let fast = Infinity;
      for (const o of job.tasks) {
        const tr = o.finish - job.admitted;
        if (tr > slow) slow = tr;
        if (tr < fast) fast = tr;
      }
      const spec = job.spec;
      const lat = this.cfg.model.latency;
      const tc = spec.kind === 'local' ? spec.work + t.ioTotal : spec.work + t.nEx * (this.cfg.send === 'blocking' ? 2 * lat : lat);
      const record: JobRecord = { id: spec.id, kind: spec.kind, size: spec.size, tr: slow, tc, trFast: fast };
      this.records.push(record);
      for (const l of this.listeners) l.onEnd?.(this, record, spec);
    }
    if (this.policy === 'csc') {
      for (const o of this.nodes) if (o.stoptask !== null && (o === nd || o.stoptask === t)) this.cscResumeCheck(o);
    }
    this.admit();
    this.dispatch(nd);
  }

  // ---------------------------------------------------------------- events

  private handle(ev: Ev): void {
    switch (ev.k) {
      case 'slice': {
        const nd = this.nodes[ev.node]!;
        if (ev.v !== nd.sliceVersion || nd.running === null) return;
        this.advanceRunning(nd);
        this.continueRunning(nd);
        return;
      }
      case 'msg': {
        const from = ev.from;
        for (const t of from.job.tasks) {
          if (t === from || t.state === 'done') continue;
          if (ev.phase === t.phase) t.recvCur++;
          else t.recvNext++;
          let needsCpu = false;
          if (this.cfg.send === 'blocking') {
            // the receiver acknowledges when it is on the CPU: at once if it runs, else when it is
            // next dispatched (a receiver blocked in its own receive is woken to take the message)
            if (t.state === 'running') this.q.schedule(this.now + this.cfg.model.latency, EV_ACK, { k: 'ack', to: from });
            else {
              t.pendingAcks.push(from);
              needsCpu = true;
            }
          }
          this.onMessage(t, needsCpu);
        }
        return;
      }
      case 'ack': {
        const t = ev.to;
        if (t.state === 'done') return;
        t.acksPending--;
        this.onMessage(t, false);
        return;
      }
      case 'wake': {
        const t = ev.task;
        if (t.state !== 'blocked' || (t.wait !== 'fault' && t.wait !== 'io')) return;
        this.insertReady(t, false);
        this.dispatch(this.nodes[t.node]!);
        return;
      }
    }
  }

  private onMessage(t: Task, needsCpu: boolean): void {
    const nd = this.nodes[t.node]!;
    if (t.state === 'blocked' && t.wait === 'comm') {
      if (needsCpu || this.satisfied(t)) {
        this.insertReady(t, true);
        this.dispatch(nd);
      }
    } else if (t.state === 'running') {
      if (t.spinning && this.satisfied(t)) {
        this.advanceRunning(nd);
        this.continueRunning(nd);
      }
    } else if (t.state === 'ready' && !t.stopped) {
      if (this.policy === 'dyn' || this.policy === 'dyn_mod' || this.policy === 'csc') {
        this.reboost(t);
        this.dispatch(nd);
      }
    }
  }

  // ---------------------------------------------------------------- accounting

  /** Time-averaged node.mem / node.M of each node up to now. */
  memLoads(): number[] {
    return this.nodes.map((nd) => {
      const integral = nd.memIntegral + (nd.mem / this.M) * (this.now - nd.memSince);
      return this.now > 0 ? integral / this.now : nd.mem / this.M;
    });
  }
}

/** Builds and runs a simulator to the end. */
export function simulate(cfg: TimeSharingConfig, jobs?: JobSpec[]): TimeSharingSimulator {
  return new TimeSharingSimulator(cfg, jobs).run();
}
