/**
 * Replays jobs on a live Slurm (the one of `SLURM_CONF`) as seed 004's runworkload does (§3.3.2):
 * each job is an `sbatch --wrap "sleep RUN"` submitted at its replay time on the wall clock (a grid
 * from the start of the replay, not from the previous submission), with its time limit in whole minutes
 * (`-t`), `-N NODES --exclusive` (whole nodes) or `-n CPUS`, in its partition, with `--gres=gpu[:TYPE]:N`
 * (and `-N` its nodes) when it has GPUs. The schedule is then read
 * back from Slurm (through `client.ts`): `squeue --json --states=all` (every job's submit/start/end in whole seconds, its node
 * list and state) and, when slurmctld's log is readable, the millisecond times of the log lines
 * `_slurm_rpc_submit_batch_job: JobId=N`, `sched: Allocate JobId=N` (main scheduler), `_start_job:
 * Started JobId=N` (backfill) and `_job_complete: JobId=N done`. Times are relative to the first
 * job's submission, as the engine's are. Each `sbatch` starts once the previous one has returned (late if
 * that one was slow), so slurmctld receives the jobs in the workload's order: its job ids, and with them
 * the order of jobs of equal priority, follow that order (concurrent `sbatch` processes 0.2 s apart
 * arrived in the other order in 3 of 26 saved runs: docs/slurm.md). With `alignTo` the first submission waits
 * for the next multiple of that many seconds of the wall clock, where the engine's time 0 is (Slurm's backfill
 * grid and will-run windows are on absolute time); the run's measured phase is returned (`clockPhase`).
 *
 * Jobs must stay in slurmctld's memory until they are read (`MinJobAge` above the replay's length,
 * or the log). Everything runs through `SlurmClient` (`sbatch`, `squeue`, `scancel`); on failure or
 * interruption the replay's jobs are cancelled.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import { SlurmClient, type SlurmJob } from './client.js';
import { expandHostList } from './hostList.js';
import type { ReplayJob, ScheduleSummary, ScheduledJob } from './trace.js';

/** Options of a live replay. */
export interface LiveOptions {
  /** The slurm.conf of the live cluster (its `SLURM_CONF`). */
  slurmConf: string;
  /** Whole nodes (`-N n --exclusive`) or CPUs (`-n c`). */
  wholeNodes: boolean;
  partitions: readonly string[];
  /** Seconds to wait for the jobs after the last submission, beyond their run times (default 120). */
  grace?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * Submit the first job just after the wall clock reaches a multiple of this many seconds (0 or absent: at
   * once). Slurm's backfill grid (`bf_resolution`) and the will-run test's 30 s windows are on absolute time, so
   * a run's schedule depends on where in the minute it starts; the engine runs with its time 0 on a multiple of
   * `bf_resolution` (`engineSchedule`'s `clockPhase` 0), and a run started there is comparable with it.
   */
  alignTo?: number;
}

/** A live run: the schedule, and where its time 0 fell on the wall clock. */
export interface LiveRun {
  jobs: ScheduledJob[];
  /** The first submission's epoch time modulo `alignTo` (modulo 60 s without it): what `engineSchedule` calls `clockPhase`. */
  clockPhase: number;
  /**
   * When slurmctld last started, in the run's time (s, negative: before its first submission), from its log;
   * undefined without the log. Slurm's priority decay thread ticks every `PriorityCalcPeriod` from there.
   */
  ctldStart?: number;
  /**
   * slurmctld's timers as its log shows them (`SlurmctldDebug=debug2`), in the run's time: ticks of the
   * background thread (`Testing job time limits`, every 30 s, and the main passes it runs: `ctldTimers`) and every
   * backfill pass (`jobs to backfill`). Undefined without that log level. They drift with the machine's load;
   * `engineSchedule` follows them.
   */
  bgTicks?: number[];
  bfTicks?: number[];
}

/** A live run as saved (`live-N.json` of `slurm-replay --out` and `npm run bench -- slurm-live`) and compared. */
export interface SavedLiveRun {
  jobs: ScheduledJob[];
  summary: ScheduleSummary;
  clock_phase: number;
  ctld_start?: number;
  bg_ticks?: number[];
  bf_ticks?: number[];
}

/** `run` with its summary, as saved. */
export function savedRun(run: LiveRun, summary: ScheduleSummary): SavedLiveRun {
  return {
    jobs: run.jobs,
    summary,
    clock_phase: run.clockPhase,
    ...(run.ctldStart !== undefined ? { ctld_start: run.ctldStart } : {}),
    ...(run.bgTicks ? { bg_ticks: run.bgTicks } : {}),
    ...(run.bfTicks ? { bf_ticks: run.bfTicks } : {}),
  };
}

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'TIMEOUT', 'CANCELLED', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE']);

/** Millisecond times of slurmctld's log lines per Slurm job id (`submit`, `start`, `end`, `backfill`). */
export function readCtldLog(text: string): Map<number, { submit?: number; start?: number; end?: number; backfill?: boolean }> {
  const out = new Map<number, { submit?: number; start?: number; end?: number; backfill?: boolean }>();
  const re = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$/;
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (!m) continue;
    const t = Date.parse(`${m[1]}Z`) / 1000;
    const msg = m[2]!;
    const rec = (id: string) => {
      const n = Number(id);
      if (!out.has(n)) out.set(n, {});
      return out.get(n)!;
    };
    const submit = /_slurm_rpc_submit_batch_job: JobId=(\d+)/.exec(msg);
    const main = /sched: Allocate JobId=(\d+)/.exec(msg);
    const backfill = /_start_job: Started JobId=(\d+)/.exec(msg);
    const end = /_job_complete: JobId=(\d+) done/.exec(msg);
    if (submit) rec(submit[1]!).submit = t;
    else if (main) Object.assign(rec(main[1]!), { start: t, backfill: false });
    else if (backfill) Object.assign(rec(backfill[1]!), { start: t, backfill: true });
    else if (end) rec(end[1]!).end = t;
  }
  return out;
}

/**
 * When each job's nodes left `COMPLETING`, from slurmctld's log at `debug2` (epoch s, per Slurm job id), and
 * whether by an epilog message. After `_job_complete: JobId=N done` slurmctld
 * sends `REQUEST_TERMINATE_JOB` to the job's nodes (`Spawning RPC agent for msg_type REQUEST_TERMINATE_JOB`,
 * one agent per job, in the order of the ends); a node whose processes are gone answers "already complete"
 * (`node_did_resp NODE`: agent.c releases the node, `job_epilog_complete`, and queues a main pass), otherwise
 * it answers, waits for the step and sends `MESSAGE_EPILOG_COMPLETE` (`_slurm_rpc_epilog_complete: JobId=N
 * Node=NODE`: the node is released then, and the main scheduler runs at once). The job's nodes come from its
 * start line (`sched: Allocate JobId=N NodeList=...`, `_start_job: Started JobId=N in P on ...`). A job
 * without these lines (an older log level) is left out.
 */
export function ctldCompletions(text: string): Map<number, { released: number; epilog: boolean }> {
  const nodesOf = new Map<number, string[]>();
  const ended: number[] = [];
  let spawned = 0;
  /** Terminate agents in the order spawned: the job and its nodes not yet answered. */
  const open: { job: number; waiting: Set<string> }[] = [];
  const answered = new Map<number, Map<string, number>>();
  const epilogs = new Map<number, Map<string, number>>();
  const re = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const t = Date.parse(`${m[1]}Z`) / 1000;
    const msg = m[2]!;
    let x = /sched: Allocate JobId=(\d+) NodeList=(\S+)/.exec(msg) ?? /_start_job: Started JobId=(\d+) in \S+ on (\S+)/.exec(msg);
    if (x) {
      nodesOf.set(Number(x[1]), expandHostList(x[2]!));
      continue;
    }
    // an end and its terminate agent, logged in either order within the same millisecond
    x = /_job_complete: JobId=(\d+) done/.exec(msg);
    if (x) ended.push(Number(x[1]));
    else if (msg.includes('Spawning RPC agent for msg_type REQUEST_TERMINATE_JOB')) spawned++;
    if (x || msg.includes('REQUEST_TERMINATE_JOB')) {
      while (ended.length > 0 && spawned > 0) {
        const job = ended.shift()!;
        spawned--;
        if (nodesOf.has(job)) {
          open.push({ job, waiting: new Set(nodesOf.get(job)) });
          answered.set(job, new Map());
        }
      }
      continue;
    }
    x = /node_did_resp (\S+)/.exec(msg);
    if (x) {
      const i = open.findIndex((a) => a.waiting.has(x![1]!));
      if (i >= 0) {
        const a = open[i]!;
        a.waiting.delete(x[1]!);
        answered.get(a.job)!.set(x[1]!, t);
        if (a.waiting.size === 0) open.splice(i, 1);
      }
      continue;
    }
    x = /_slurm_rpc_epilog_complete: JobId=(\d+) Node=(\S+)/.exec(msg);
    if (x) {
      const job = Number(x[1]);
      if (!epilogs.has(job)) epilogs.set(job, new Map());
      epilogs.get(job)!.set(x[2]!, t);
    }
  }
  const out = new Map<number, { released: number; epilog: boolean }>();
  for (const [job, got] of answered) {
    const ep = epilogs.get(job);
    if (ep !== undefined) {
      // the nodes that answered "already complete" were released as each answer came (agent.c
      // `_thread_per_group_rpc`), though `node_did_resp` is logged when the whole agent is done, after the
      // slower node that sends the epilog message: the job's last node leaves COMPLETING with that message
      out.set(job, { released: Math.max(...ep.values()), epilog: true });
      continue;
    }
    const nodes = nodesOf.get(job)!;
    if (nodes.every((n) => got.has(n))) out.set(job, { released: Math.max(...nodes.map((n) => got.get(n)!)), epilog: false });
  }
  return out;
}

/** The epoch times (s) at which slurmctld started, from its log (`slurmctld version ... started`). */
export function ctldStarts(text: string): number[] {
  const out: number[] = [];
  const re = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] slurmctld version \S+ started/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(Date.parse(`${m[1]}Z`) / 1000);
  return out;
}

/**
 * slurmctld's timer ticks from its log (epoch s): the background thread's and the backfill passes. The background
 * thread's are every line it logs on a tick: `Testing job time limits` (every 30 s) and each main pass it runs
 * (`sched: Running job scheduler`: a queued pass or the periodic `sched_interval` one), but not the passes an
 * epilog message runs (`_slurm_rpc_epilog_complete` up to 0.3 s before: proc_req.c runs `schedule()` itself); of
 * lines less than 0.5 s apart (the same tick) the first. Measured on the saved matrix runs (docs/slurm.md,
 * "Denser tick samples"), these place the ticks between samples far better than the 30 s ones alone.
 */
export function ctldTimers(text: string): { bg: number[]; bf: number[] } {
  const bg: number[] = [];
  const bf: number[] = [];
  let epilog = Number.NEGATIVE_INFINITY;
  const re = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const t = Date.parse(`${m[1]}Z`) / 1000;
    const msg = m[2]!;
    if (msg.includes('_slurm_rpc_epilog_complete')) epilog = t;
    else if (msg.includes('Testing job time limits') || (msg.includes('sched: Running job scheduler') && t - epilog > 0.3)) {
      if (bg.length === 0 || t - bg[bg.length - 1]! >= 0.5) bg.push(t);
    } else if (/jobs to backfill/.test(msg)) bf.push(t);
  }
  return { bg, bf };
}

/** `SlurmctldLogFile` of a slurm.conf, if any. */
function ctldLogFile(conf: string): string | undefined {
  try {
    return /^\s*SlurmctldLogFile\s*=\s*(\S+)/im.exec(readFileSync(conf, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Replays `jobs` on the live Slurm of `o.slurmConf` and returns its schedule (see the module comment). */
export async function liveReplay(jobs: readonly ReplayJob[], o: LiveOptions): Promise<LiveRun> {
  const log = o.log ?? (() => {});
  const client = new SlurmClient({ env: { ...process.env, SLURM_CONF: o.slurmConf }, log });
  try {
    await client.run('squeue', ['-h']);
  } catch (e) {
    throw new InputError(
      `the Slurm of SLURM_CONF=${o.slurmConf} does not answer (${(e as Error).message.split('\n')[0]}); start one with deploy/slurm/local-cluster.sh start DIR`,
    );
  }
  const tag = `cg${process.pid}x${Date.now() % 100000}`;
  const slurmIds = new Array<number>(jobs.length).fill(-1);
  const sorted = [...jobs].sort((a, b) => a.submit - b.submit || a.index - b.index);
  const period = o.alignTo ?? 0;
  if (period > 0) {
    const ms = period * 1000;
    const wait = ms - (Date.now() % ms);
    log(`live: first submission at the next multiple of ${period} s of the wall clock (in ${(wait / 1000).toFixed(1)} s)`);
    await sleep(wait);
  }
  const t0 = performance.now();
  const submissions: Promise<void>[] = [];
  /** The previous `sbatch` (submissions are serialised so that they reach slurmctld in order). */
  let previous: Promise<void> = Promise.resolve();
  let failed: Error | null = null;
  const cancel = async () => {
    const ids = slurmIds.filter((x) => x >= 0).map(String);
    await client.cancel(ids).catch(() => {});
  };
  const onSignal = () => {
    void cancel().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  try {
    for (const j of sorted) {
      await sleep(t0 + j.submit * 1000 - performance.now());
      if (failed) break;
      const args = [
        `--job-name=${tag}-${j.index}`,
        `--time=${j.limitMinutes}`,
        `--partition=${o.partitions[j.partition]}`,
        ...(o.wholeNodes
          ? [`--nodes=${j.units}`, '--exclusive']
          : j.nodes > 0
            ? [`--nodes=${j.nodes}`, '--exclusive']
            : [`--ntasks=${j.units}`, ...(j.memMb > 0 ? [`--mem=${j.memMb}`] : []), ...(j.gpuNodes !== undefined ? [`--nodes=${j.gpuNodes}`] : [])]),
        ...(j.gpus !== undefined ? [`--gres=gpu${j.gpuType !== undefined ? `:${j.gpuType}` : ''}:${j.gpus}`] : []),
        '--output=/dev/null',
        `--wrap=exec sleep ${j.runTime.toFixed(3)}`,
      ];
      previous = previous.then(() =>
        client.submit(args).then(
          (id) => {
            slurmIds[j.index] = id;
          },
          (e: Error) => {
            failed = new Error(`sbatch of job ${j.id} failed: ${e.message.split('\n').slice(0, 2).join(' ')}`);
          },
        ),
      );
      submissions.push(previous);
    }
    await Promise.all(submissions);
    if (failed) throw failed;
    log(`live: ${jobs.length} jobs submitted in ${((performance.now() - t0) / 1000).toFixed(1)} s; waiting for them to end`);
    const budget = (o.grace ?? 120) * 1000 + jobs.reduce((a, j) => a + j.runTime, 0) * 1000 + 1000 * Math.max(0, ...jobs.map((j) => j.submit));
    const mine = new Set(slurmIds);
    let records: SlurmJob[] = [];
    for (;;) {
      records = (await client.jobs(true)).filter((r) => mine.has(Number(r.id)));
      const done = records.filter((r) => TERMINAL.has(r.state)).length;
      if (done === jobs.length) break;
      if (performance.now() - t0 > budget)
        throw new Error(`live: ${jobs.length - done} jobs still not finished after ${(budget / 1000).toFixed(0)} s (squeue)`);
      await sleep(1000);
    }
    const logFile = ctldLogFile(o.slurmConf);
    let ctld = new Map<number, { submit?: number; start?: number; end?: number; backfill?: boolean }>();
    let starts: number[] = [];
    let timers: { bg: number[]; bf: number[] } = { bg: [], bf: [] };
    let completions = new Map<number, { released: number; epilog: boolean }>();
    if (logFile) {
      try {
        const text = readFileSync(logFile, 'utf8');
        ctld = readCtldLog(text);
        starts = ctldStarts(text);
        timers = ctldTimers(text);
        completions = ctldCompletions(text);
      } catch {
        log(`live: cannot read ${logFile}; times in whole seconds`);
      }
    }
    const byId = new Map(records.map((r) => [Number(r.id), r]));
    const first = sorted[0]!;
    const firstId = slurmIds[first.index]!;
    const useLog = slurmIds.every((id) => ctld.get(id)?.submit !== undefined && ctld.get(id)?.start !== undefined && ctld.get(id)?.end !== undefined);
    const origin = useLog ? ctld.get(firstId)!.submit! - first.submit : byId.get(firstId)!.submit - first.submit;
    const grid = period > 0 ? period : 60;
    const clockPhase = ((origin % grid) + grid) % grid;
    const scheduled = jobs.map((j): ScheduledJob => {
      const id = slurmIds[j.index]!;
      const r = byId.get(id)!;
      const c = ctld.get(id);
      const start = useLog ? c!.start! : r.start;
      const done = useLog ? completions.get(id) : undefined;
      return {
        id: j.id,
        submit: (useLog ? c!.submit! : r.submit) - origin,
        start: start - origin,
        end: (useLog ? c!.end! : r.end) - origin,
        nodes: r.nodeCount,
        state: r.state.toLowerCase(),
        backfilled: c?.backfill ?? null,
        nodelist: r.nodeList,
        ...(done !== undefined ? { released: done.released - origin, epilog: done.epilog } : {}),
      };
    });
    const started = starts.filter((t) => t <= origin + first.submit + 1).pop();
    // the timers over the run (from a minute before it to its end)
    const last = Math.max(...scheduled.map((j) => j.end));
    const within = (xs: number[]) => xs.map((t) => t - origin).filter((t) => t >= -60 && t <= last + 5);
    const bgTicks = within(timers.bg);
    const bfTicks = within(timers.bf);
    return {
      jobs: scheduled,
      clockPhase,
      ...(useLog && started !== undefined ? { ctldStart: started - origin } : {}),
      ...(useLog && bgTicks.length >= 2 ? { bgTicks } : {}),
      ...(useLog && bfTicks.length >= 2 ? { bfTicks } : {}),
    };
  } catch (e) {
    await cancel();
    throw e;
  } finally {
    process.removeListener('SIGINT', onSignal);
  }
}
