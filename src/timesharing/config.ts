/**
 * Input format of the time-sharing simulator (seed 003, §2.2 "Entorno de Simulación", Fig. 2.2).
 *
 * The thesis's simulator takes `n` (nodes, default 8), `n_jobs` (jobs served, 10,000 in every
 * experiment), the local `policy` (RR, DYN, IMPLI; DYN_MOD in §2.3.2 and CSC in chapter 3),
 * `MPL_TOTAL` (the maximum multiprogramming level of a node, local and parallel tasks alike),
 * `plt` (probability that a generated job is local), `pms` (probability that a task has a high
 * memory requirement: above 25 % of main memory), `freq_com` (frequency of the one-to-all sends of
 * a parallel task, blocking or non-blocking), `quantum` (100 u.t.) and `L` (share of the computing
 * resources of parallel tasks on nodes with a local user, 100 % by default). Those keys keep the
 * thesis's names.
 *
 * The distributions of Appendix A (working sets, virtual memory, job lengths) are not in the
 * seed file: the `model` block holds the values chosen for them, each documented below and in
 * docs/timesharing.md ("Parameters not in the seed file"). The constants the chapters do give are
 * defaults here: the spin of IMPLI equals one round trip, 10 u.t. (§2.2), so the one-way latency
 * is 5 u.t.; MNO = 2 (§2.2, §3.3); MEM_MIN = 95 % of main memory (§3.4); STEP = 4 in the
 * simulation of §3.6.
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { readJsonFile } from '../core/json.js';

/** The local scheduling policies (§2.2, §2.3.2, chapter 3). */
export const POLICIES = ['rr', 'dyn', 'impli', 'dyn_mod', 'csc'] as const;
/** A local scheduling policy. */
export type Policy = (typeof POLICIES)[number];

/**
 * How a parallel task waits for a message (Anglano's taxonomy, §1.3.2, Table 1.4): `spin` polls on
 * the CPU until the message arrives (its quantum still expires), `block` leaves the CPU at once,
 * `spin_block` spins `model.spin` u.t. and then blocks (implicit coscheduling).
 */
export const WAIT_MODES = ['spin', 'block', 'spin_block'] as const;
/** A waiting strategy. */
export type WaitMode = (typeof WAIT_MODES)[number];

/**
 * The waiting strategy of each policy when the config does not set `wait`: RR is the uncoordinated
 * reference (Loc-S: "cota mínima de coscheduling", §2.3.1), IMPLI spins one round trip then blocks
 * (Loc-IM, §2.2), DYN is Sobalvarro's pure dynamic coscheduling (Dyn-B, §1.3.2), and DYN_MOD and CSC
 * block at once ("bloqueo inmediato", §3.3).
 */
export const DEFAULT_WAIT: Readonly<Record<Policy, WaitMode>> = { rr: 'spin', dyn: 'block', impli: 'spin_block', dyn_mod: 'block', csc: 'block' };

/** The waiting strategy a configuration runs with. */
export function waitMode(cfg: { policy: Policy; wait?: WaitMode | undefined }): WaitMode {
  return cfg.wait ?? DEFAULT_WAIT[cfg.policy];
}

const range = z.tuple([z.number().positive(), z.number().positive()]).refine(([a, b]) => a <= b, { message: 'expected [low, high] with low <= high' });

/** The constants of the model that Appendix A would fix (see the module comment). */
export const modelSchema = z
  .object({
    /** Main memory of a node, MB (node.M). */
    memory: z.number().positive().default(256),
    /** vmem of a low-memory task as fractions of node.M: within 25 % (§2.2), and five of them fit. */
    low_mem: range.default([0.02, 0.2]),
    /** vmem of a high-memory task as fractions of node.M: above 25 % (§2.2). */
    high_mem: range.default([0.4, 0.7]),
    /** Mean CPU time of a parallel job's tasks, u.t. (exponential; every task of a job has the same). */
    parallel_work: z.number().positive().default(2000),
    /** Mean CPU time of a local task, u.t. (exponential). */
    local_work: z.number().positive().default(1000),
    /** Mean CPU burst of a local task between two interactive waits, u.t. (exponential). */
    local_burst: z.number().positive().default(50),
    /** Mean interactive wait (keyboard, I/O) of a local task after a burst, u.t. (exponential; 0 = CPU-bound local tasks). */
    local_wait: z.number().nonnegative().default(50),
    /** Smallest and largest parallel job size (tasks); the largest is capped at n. */
    job_size: z.tuple([z.number().int().min(1), z.number().int().min(1)]).default([2, 8]),
    /** Admission window: the first `lookahead` waiting jobs are tried in order (1 = strict FCFS). */
    lookahead: z.number().int().min(1).default(16),
    /** One-way network latency, u.t. (a round trip is 10 u.t., §2.2). */
    latency: z.number().nonnegative().default(5),
    /** IMPLI's spin before blocking, u.t. (one round trip, §2.2). */
    spin: z.number().nonnegative().default(10),
    /** Maximum number of overtakes a (local) task may suffer in the ready queue (MNO = 2). */
    mno: z.number().int().nonnegative().default(2),
    /** Factor of the quantum on overflowed nodes without a local user under CSC (§3.4.1, §3.6: 4). */
    step: z.number().positive().default(4),
    /** CSC resumes a stopped task when node.mem falls below MEM_MIN x node.M (§3.4: 0.95). */
    mem_min: z.number().positive().default(0.95),
    /** Pages brought in by one page fault, MB. */
    page_chunk: z.number().positive().default(16),
    /** Service time of a page fault (the task waits in WQ), u.t. */
    fault_time: z.number().positive().default(20),
    /** CPU time between two faults of a task with all its pages missing, u.t. (scaled by vmem/missing). */
    fault_gap: z.number().positive().default(20),
  })
  .strict();

/** The simulator's input (Fig. 2.2) plus the model constants. */
export const timeSharingConfigSchema = z
  .object({
    /** Number of nodes (8). */
    n: z.number().int().min(1).max(1024).default(8),
    /** Jobs served; the run ends when all have finished (10,000). */
    n_jobs: z.number().int().min(1).default(10000),
    /** Local scheduling policy. */
    policy: z.enum(POLICIES).default('rr'),
    /** Maximum tasks (local + parallel) per node. */
    MPL_TOTAL: z.number().int().min(1).max(64).default(3),
    /** Probability that a generated job is local. */
    plt: z.number().min(0).max(1).default(0.3),
    /** Probability that a job's tasks have a high memory requirement. */
    pms: z.number().min(0).max(1).default(0),
    /** One-to-all sends of a parallel task per DEF_QUANTUM of its CPU time (a send every quantum / freq_com u.t.). */
    freq_com: z.number().nonnegative().default(4),
    /** Send primitive: non-blocking, or blocking until every receiver acknowledges. */
    send: z.enum(['non_blocking', 'blocking']).default('blocking'),
    /** How a task waits for a message; absent: the policy's own (DEFAULT_WAIT). */
    wait: z.enum(WAIT_MODES).optional(),
    /** Quantum length DEF_QUANTUM, u.t. (100). */
    quantum: z.number().positive().default(100),
    /** Share of the resources of parallel tasks on nodes with a local user, in (0, 1] (1 = 100 %). */
    L: z.number().gt(0).max(1).default(1),
    /** Seed of every random draw. */
    seed: z.number().int().nonnegative().default(1),
    /** Appendix-A constants (see modelSchema). */
    model: modelSchema.default({}),
  })
  .strict();

/** A validated configuration, every default filled in. */
export type TimeSharingConfig = z.infer<typeof timeSharingConfigSchema>;
/** A configuration as written (any key may be omitted). */
export type TimeSharingConfigInput = z.input<typeof timeSharingConfigSchema>;

/** Validates a configuration object; `where` names it in errors (a file name). */
export function parseTimeSharingConfig(raw: unknown, where = 'time-sharing config'): TimeSharingConfig {
  const r = timeSharingConfigSchema.safeParse(raw);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const c = r.data;
  if (c.model.job_size[0] > c.model.job_size[1]) throw new InputError('$.model.job_size: expected [min, max] with min <= max', where);
  return c;
}

/** Reads and validates a JSON configuration file. */
export function readTimeSharingConfig(file: string): TimeSharingConfig {
  return parseTimeSharingConfig(readJsonFile(file), file);
}

/** The defaults with some keys overridden (validated). */
export function timeSharingConfig(overrides: TimeSharingConfigInput = {}): TimeSharingConfig {
  return parseTimeSharingConfig(overrides);
}
