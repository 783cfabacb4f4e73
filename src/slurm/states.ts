/**
 * Slurm's names of the job phases (the one enum, `JobPhase` of src/core/engine.ts), indexed by phase, for
 * outputs: a job preempted with `PreemptMode=SUSPEND` (cores released, resumed when they are free) is
 * `suspended`, one suspended by an operator (`scontrol suspend`: cores kept, resumed at the timed event)
 * is `op_suspended`, a job refused at submission (partition limits) is `refused`.
 */
import { JobPhase } from '../core/engine.js';

export const STATE_NAMES: readonly string[] = (() => {
  const names: string[] = [];
  names[JobPhase.None] = 'free';
  names[JobPhase.Waiting] = 'pending';
  names[JobPhase.Running] = 'running';
  names[JobPhase.Suspended] = 'op_suspended';
  names[JobPhase.Preempted] = 'suspended';
  names[JobPhase.Resizing] = 'resizing';
  names[JobPhase.Completed] = 'completed';
  names[JobPhase.TimedOut] = 'timeout';
  names[JobPhase.Cancelled] = 'cancelled';
  names[JobPhase.Rejected] = 'refused';
  return names;
})();
