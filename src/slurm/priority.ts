/**
 * Slurm's multifactor priority (`priority/multifactor`), as Slurm's documentation states it
 * (https://slurm.schedmd.com/priority_multifactor.html and, for fair share, the classic algorithm of
 * https://slurm.schedmd.com/classic_fair_share.html). Seed 004 ran Slurm 16.05 (Table 3.2) on Raijin's
 * workload; the seed does not give its weights, so the defaults below are Slurm's defaults where Slurm
 * has one and documented choices otherwise.
 *
 *     priority = floor( W_age * age + W_fs * fairshare + W_size * jobsize + W_part * partition + W_qos * qos )
 *
 * every factor a number in [0, 1]:
 *
 * - **age** = `min(1, (now - submit) / PriorityMaxAge)` (`PriorityMaxAge` default 7 days): the time the
 *   job has been eligible, capped.
 * - **job size** = `cores / total cores` (a job asking for the whole machine gets 1.0); with
 *   `PriorityFavorSmall=YES` it is `(total - cores + 1) / total`, so a one-core job gets 1.0.
 * - **partition** = the partition's `PriorityJobFactor` / the largest `PriorityJobFactor` of the platform.
 * - **QOS** = the QOS's priority / the largest QOS priority.
 * - **fair share** (classic): `F = 2^(-U / S / d)`, `U` the user's share of the cluster's decayed usage
 *   (`usage_u / sum usage`), `S` the user's normalised shares (`shares_u / sum shares`), `d`
 *   `PriorityDampeningFactor` (default 1). A user who used exactly their share gets 0.5, one who used
 *   nothing 1.0. Usage is cores x seconds of running jobs, decayed with half-life
 *   `PriorityDecayHalfLife` (default 7 days): every `PriorityCalcPeriod` (default 300 s)
 *   `usage <- usage * 2^(-period / half_life) + cores x seconds run during the period`.
 *
 * Slurm truncates the sum to an integer; the scheduler then orders pending jobs by partition
 * `PriorityTier` (higher first), priority (higher first), submit time, job id.
 */
// the formula lives with the priority dimension (src/scheduling/multifactor.ts), for every preset
export {
  ageFactor,
  DEFAULT_PRIORITY,
  jobPriority,
  NO_PRIORITY_WEIGHTS,
  jobSizeFactor,
  jobSizeFactor22,
  type PriorityConfig,
} from '../scheduling/multifactor.js';
export { fairShareFactor } from '../scheduling/userLedger.js';
