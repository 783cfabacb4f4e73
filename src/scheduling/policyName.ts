/**
 * Policy names, parsed in one place: `JOB[:RESOURCE][+BACKFILL]`, e.g. `sjf:first+easy`,
 * `f1:high_gflops`, `fcfs` (= `fcfs:first`, no backfilling). JOB is a job-selection name or alias
 * (`jobSelection.ts`), RESOURCE a resource-selection name (`resourceSelection.ts`, default `first`),
 * BACKFILL `none`, `easy` or `conservative` (default: the caller's default, else `none`). Names are
 * case-insensitive. A bad name is an `InputError` that lists every valid name (CLI exit code 2).
 */
import type { MultifactorOptions } from './multifactor.js';
import { InputError } from '../core/errors.js';
import { BACKFILL_NAMES, type BackfillName } from './backfilling.js';
import { canonicalJobSelection, JOB_SELECTION_ALIASES, JOB_SELECTION_NAMES, makeJobSelection, type JobSelectionName } from './jobSelection.js';
import type { NodeFit } from './placement.js';
import { isResourceSelection, makeResourcePolicy, RESOURCE_SELECTION_NAMES, type ResourceSelectionName } from './resourceSelection.js';
import { PolicyScheduler, policyRng, type ReservationEvent } from './scheduler.js';

/** A parsed policy name. */
export interface PolicySpec {
  job: JobSelectionName;
  resource: ResourceSelectionName;
  backfill: BackfillName;
  /** Canonical name: `job:resource` plus `+backfill` unless `none`. */
  name: string;
}

/** The valid names, for messages and `--help`. */
export function validPolicyNames(): string {
  const aliases = (n: string) => {
    const a = Object.entries(JOB_SELECTION_ALIASES)
      .filter(([, v]) => v === n)
      .map(([k]) => k);
    return a.length ? `${n} (${a.join(', ')})` : n;
  };
  return (
    `job selections: ${JOB_SELECTION_NAMES.map(aliases).join(', ')}; ` +
    `resource selections: ${RESOURCE_SELECTION_NAMES.join(', ')}; ` +
    `backfilling: ${BACKFILL_NAMES.join(', ')}; ` +
    `a policy is JOB[:RESOURCE][+BACKFILL], e.g. sjf:first+easy`
  );
}

/** Canonical name of a spec. */
export function policyName(job: JobSelectionName, resource: ResourceSelectionName, backfill: BackfillName): string {
  return `${job}:${resource}${backfill === 'none' ? '' : `+${backfill}`}`;
}

/**
 * Parses `JOB[:RESOURCE][+BACKFILL]`. `defaultBackfill` applies when the name has no `+BACKFILL`.
 * Throws an `InputError` naming the bad part and listing the valid names.
 */
export function parsePolicyName(text: string, defaultBackfill: BackfillName = 'none', where = 'policy'): PolicySpec {
  const raw = text.trim().toLowerCase();
  const bad = (what: string) => new InputError(`${what} in policy ${JSON.stringify(text)}; ${validPolicyNames()}`, where);
  if (raw === '') throw bad('empty policy name');
  const plus = raw.split('+');
  if (plus.length > 2) throw bad('more than one "+"');
  const [sel, bf] = plus as [string, string | undefined];
  const colon = sel.split(':');
  if (colon.length > 2) throw bad('more than one ":"');
  const [jobName, resName] = colon as [string, string | undefined];
  const job = canonicalJobSelection(jobName);
  if (!job) throw bad(`unknown job selection ${JSON.stringify(jobName)}`);
  const resource = resName === undefined ? 'first' : resName;
  if (!isResourceSelection(resource)) throw bad(`unknown resource selection ${JSON.stringify(resName)}`);
  const backfill = bf === undefined ? defaultBackfill : bf;
  if (!(BACKFILL_NAMES as readonly string[]).includes(backfill)) throw bad(`unknown backfilling ${JSON.stringify(bf)}`);
  const b = backfill as BackfillName;
  return { job, resource, backfill: b, name: policyName(job, resource, b) };
}

/** Options of `makeScheduler` besides the name. */
export interface MakeSchedulerOptions {
  /** Seed of the `random` policies' stream (`derive(seed, 'policy')`). */
  seed?: number | string;
  fit?: NodeFit;
  commitHead?: boolean;
  maxJobTest?: number;
  /** Backfilling for names without `+BACKFILL`. */
  defaultBackfill?: BackfillName;
  onReservation?: (r: ReservationEvent) => void;
  /** Options of the `multifactor` job selection (weights, shares, QOS; `engineConfig.ts`). */
  multifactor?: MultifactorOptions | undefined;
}

/** A fresh scheduler for a policy name or spec (one per simulation: it binds to its simulator). */
export function makeScheduler(policy: string | PolicySpec, options: MakeSchedulerOptions = {}): PolicyScheduler {
  const spec = typeof policy === 'string' ? parsePolicyName(policy, options.defaultBackfill) : policy;
  const rng = policyRng(options.seed ?? 0);
  return new PolicyScheduler({
    selection: makeJobSelection(spec.job, rng, options.multifactor),
    resources: makeResourcePolicy(spec.resource, rng),
    fit: options.fit ?? 'first_fit',
    backfill: spec.backfill,
    commitHead: options.commitHead ?? false,
    maxJobTest: options.maxJobTest,
    name: spec.name,
    onReservation: options.onReservation,
  });
}
