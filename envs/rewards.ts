/**
 * Rewards (DESIGN §5; sign convention: higher is better). A reward is a weighted sum of terms:
 *
 * | term          | kind     | value                                                              |
 * |---------------|----------|--------------------------------------------------------------------|
 * | `bsld`        | terminal | `-mean bounded slowdown` of the episode (the default)               |
 * | `wait`        | terminal | `-mean wait` (s)                                                    |
 * | `slowdown`    | terminal | `-mean slowdown`                                                    |
 * | `makespan`    | terminal | `-makespan` (s)                                                     |
 * | `utilisation` | terminal | `+utilisation`                                                      |
 * | `flowtime`    | dense    | `-(jobs in the system) x dt`, summed over the time the step covered  |
 * | `energy`      | dense    | `-(energy drawn during the step)` (J)                               |
 * | `dt`          | dense    | `-(simulated time the step covered)` (s)                             |
 *
 * Terminal terms are paid once, on the step that terminates the episode (not on truncation), from
 * the same §2.5 summary that `info.metrics` carries; dense terms on every step. Summed over an
 * episode, `-flowtime` is minus the total time jobs spent in the system (the sum of their
 * turnarounds) and `-energy` is minus the episode's energy.
 */
import type { Summary } from '../src/metrics/summary.js';
import type { RewardTerm } from './config.js';

/** What the dense terms need about one step. */
export interface StepDeltas {
  /** Integral of the number of jobs in the system over the step (job-seconds). */
  flowtime: number;
  /** Energy drawn during the step (J). */
  energy: number;
  /** Simulated time the step covered (s). */
  dt: number;
}

/** A reward specification, compiled. */
export class RewardFunction {
  readonly wFlowtime: number;
  readonly wEnergy: number;
  readonly wDt: number;
  /** Terminal terms and weights. */
  readonly terminalTerms: [RewardTerm, number][];
  readonly hasDense: boolean;

  constructor(spec: RewardTerm | string | Partial<Record<string, number>>) {
    const weights: Record<string, number> = typeof spec === 'string' ? { [spec]: 1 } : (spec as Record<string, number>);
    this.wFlowtime = weights['flowtime'] ?? 0;
    this.wEnergy = weights['energy'] ?? 0;
    this.wDt = weights['dt'] ?? 0;
    this.terminalTerms = Object.entries(weights).filter(([k]) => k !== 'flowtime' && k !== 'energy' && k !== 'dt') as [RewardTerm, number][];
    this.hasDense = this.wFlowtime !== 0 || this.wEnergy !== 0 || this.wDt !== 0;
  }

  /** The dense part of a step's reward. */
  dense(d: StepDeltas): number {
    if (!this.hasDense) return 0;
    return -(this.wFlowtime * d.flowtime + this.wEnergy * d.energy + this.wDt * d.dt);
  }

  /** The terminal part, from the episode's summary. */
  terminal(s: Summary): number {
    let r = 0;
    for (const [term, w] of this.terminalTerms) r += w * terminalValue(term, s);
    return r;
  }
}

/** The signed value of a terminal term. */
export function terminalValue(term: RewardTerm, s: Summary): number {
  switch (term) {
    case 'bsld':
      return -s.mean_bsld;
    case 'wait':
      return -s.mean_wait;
    case 'slowdown':
      return -s.mean_slowdown;
    case 'makespan':
      return -s.makespan;
    case 'utilisation':
      return s.utilisation;
    default:
      return 0;
  }
}
