/**
 * What an environment follows of its simulation, as a listener, so that nothing per step walks the
 * queue, the platform or the finished jobs:
 *
 * - the flowtime integral (jobs in the system x time) and the pending work (sum of ntasks x
 *   observed duration over waiting jobs: the requested time, or the actual one under
 *   `observe.durations: "actual"`), for the `flowtime` reward and the `pending_work` feature;
 * - the jobs submitted so far and the last submission time, the `seen` horizon of the global
 *   features (`observe.horizon`);
 * - the nodes whose observation row may have changed: the nodes of jobs that started or ended, and,
 *   when time moved, those of running jobs with task-level events (tasks of `seq` jobs free their
 *   cores one by one; `ops` tasks change memory and link loads when they end);
 * - the arrival-order window: the first K waiting jobs, kept up to date on arrivals and starts (a
 *   start refills the window from the queue position after its last job).
 */
import type { ClusterSimulator, JobRecord, RunningJob, SimulationListener } from '../src/execution/simulator.js';
import type { Job } from '../src/workload/job.js';

/** Listener state of one episode (reset with `reset` for the next). */
export class EpisodeTracker implements SimulationListener {
  /** Integral of the number of jobs in the system over time (job-seconds). */
  flow = 0;
  /** Sum of ntasks * observed duration over the waiting jobs. */
  pendingWork = 0;
  /** Jobs submitted so far in the episode. */
  submitted = 0;
  /** Simulated time of the last submission so far (s; 0 before the first). */
  lastSubmit = 0;
  /** The first K waiting jobs in arrival order (`window[0 .. count)`), when tracked. */
  readonly window: Job[] = [];
  count = 0;

  private readonly mark: Uint8Array;
  private dirty: Int32Array;
  private dirtyCount = 0;
  private allDirty = true;
  private moved = false;
  private readonly volatile = new Set<RunningJob>();
  /** Queue position of the window's last job (valid for queue generation `lastGen`). */
  private lastPos = -1;
  private lastGen = -1;

  constructor(
    private readonly nodeCount: number,
    private readonly k: number,
    /** Keep the arrival-order window. */
    readonly trackWindow: boolean,
    /** A job's duration as the policy observes it (observation.ts `observedDuration`). */
    private readonly duration: (job: Job) => number = (job) => job.reqTime,
  ) {
    this.mark = new Uint8Array(nodeCount);
    this.dirty = new Int32Array(nodeCount);
  }

  /** Forgets everything (a new episode). */
  reset(): void {
    this.flow = 0;
    this.pendingWork = 0;
    this.submitted = 0;
    this.lastSubmit = 0;
    this.count = 0;
    this.window.length = 0;
    this.lastPos = -1;
    this.lastGen = -1;
    this.clearDirty();
    this.allDirty = true;
    this.volatile.clear();
    this.moved = false;
  }

  onAdvance(sim: ClusterSimulator, from: number, to: number): void {
    this.flow += (sim.queue.length + sim.runningCount) * (to - from);
    this.moved = true;
  }

  onSubmit(sim: ClusterSimulator, job: Job): void {
    this.pendingWork += job.ntasks * this.duration(job);
    this.submitted++;
    this.lastSubmit = sim.now;
    if (this.trackWindow && this.count < this.k) {
      this.window[this.count++] = job;
      this.lastPos = sim.queue.end - 1;
      this.lastGen = sim.queue.generation;
    }
  }

  onStart(sim: ClusterSimulator, rj: RunningJob): void {
    this.pendingWork = sim.queue.length === 0 ? 0 : this.pendingWork - rj.job.ntasks * this.duration(rj.job);
    this.markNodes(rj.nodes);
    if (rj.tasks) this.volatile.add(rj);
    if (this.trackWindow) this.leaveWindow(sim, rj.job);
  }

  onEnd(_sim: ClusterSimulator, rec: JobRecord, rj: RunningJob | null): void {
    this.markNodes(rec.nodes);
    if (rj) this.volatile.delete(rj);
  }

  onReject(sim: ClusterSimulator, rec: JobRecord): void {
    this.onEnd(sim, rec, null);
  }

  /**
   * The nodes to refresh for the next observation: `null` for all of them, else `dirty[0 .. n)`.
   * Call `clearDirty` once they are written.
   */
  nodesToRefresh(): { all: boolean; list: Int32Array; count: number } {
    if (this.moved && !this.allDirty) for (const rj of this.volatile) this.markNodes(rj.nodes);
    return { all: this.allDirty, list: this.dirty, count: this.dirtyCount };
  }

  /** Marks every node clean. */
  clearDirty(): void {
    for (let i = 0; i < this.dirtyCount; i++) this.mark[this.dirty[i]!] = 0;
    this.dirtyCount = 0;
    this.allDirty = false;
    this.moved = false;
  }

  private markNodes(nodes: Int32Array): void {
    if (this.allDirty) return;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (this.mark[n] === 0) {
        this.mark[n] = 1;
        this.dirty[this.dirtyCount++] = n;
      }
    }
    if (this.dirtyCount * 2 > this.nodeCount) this.allDirty = true;
  }

  /** `job` left the queue: drops it from the window and refills from the queue. */
  private leaveWindow(sim: ClusterSimulator, job: Job): void {
    const w = this.window;
    let i = 0;
    while (i < this.count && w[i] !== job) i++;
    if (i === this.count) return; // it was not visible
    const last = w[this.count - 1]!;
    for (; i < this.count - 1; i++) w[i] = w[i + 1]!;
    this.count--;
    const q = sim.queue;
    if (this.lastGen !== q.generation) {
      // the queue was compacted: find the position after which to refill again
      this.lastPos = last === job ? -1 : q.indexOf(last);
      if (this.lastPos < 0) {
        // the last visible job is the one that left: rescan from the front for the jobs after the window
        this.lastPos = q.start - 1;
        for (let seen = 0, p = q.start; p < q.end && seen < this.count; p++)
          if (q.at(p)) {
            seen++;
            this.lastPos = p;
          }
      }
      this.lastGen = q.generation;
    }
    let p = this.lastPos + 1;
    const end = q.end;
    while (this.count < this.k && p < end) {
      const j = q.at(p);
      if (j) w[this.count++] = j;
      p++;
    }
    this.lastPos = p - 1;
  }
}
