/**
 * The counted backfill planner of the Slurm engine (`backfill.ts`): Slurm's pass with units counted per
 * group, written once in `src/scheduling/countedBackfill.ts` (the one engine runs the same pass) and read
 * here through the engine's `BackfillView`: a job's group is its partition's, its expected end its time
 * limit (`timeLeft`: an operator-suspended job resumes first), its GPUs those of its group's type.
 */
import { CountedBackfill, type CountedBackfillView } from '../scheduling/countedBackfill.js';
import { type BackfillPlanner, type BackfillView, gpuFits, timeLeft } from './backfill.js';

/** The counted planner (`BackfillPlanner`) over the Slurm engine's job table. */
export class CountedPlanner implements BackfillPlanner, CountedBackfillView {
  private v!: BackfillView;
  private readonly counted = new CountedBackfill();

  pass(v: BackfillView, p: number[], n: number): number {
    this.v = v;
    const c = v.config;
    return this.counted.pass(this, { window: c.bfWindow, resolution: c.bfResolution, slurmRounding: c.bfSlurmRounding, reserveIdle: c.bfReserveIdle }, p, n);
  }

  get now(): number {
    return this.v.now;
  }
  get groupCount(): number {
    return this.v.platform.groupNames.length;
  }
  get hasGpus(): boolean {
    return this.v.platform.gpuTypes.length > 0;
  }
  freeCores(g: number): number {
    return this.v.free[g]!;
  }
  freeGpus(g: number): number {
    return this.v.freeGpus[g]!;
  }
  groupGpus(g: number): number {
    return this.v.platform.gpusPerNode[g]! * this.v.platform.nodes[g]!;
  }
  forEachHolding(hold: (group: number, cores: number, gpus: number, timeLeft: number) => void): void {
    const v = this.v;
    const J = v.jobs;
    for (let i = 0; i < v.runningCount; i++) {
      const r = v.runningSlots[i]!;
      hold(J.group[r]!, J.cores[r]!, J.gpus[r]!, timeLeft(v, r));
    }
  }
  cores(h: number): number {
    return this.v.jobs.cores[h]!;
  }
  gpus(h: number): number {
    return this.v.jobs.gpus[h]!;
  }
  timeLimit(h: number): number {
    return this.v.jobs.timeLimit[h]!;
  }
  groupsOf(h: number): readonly number[] {
    return this.v.platform.partitions[this.v.jobs.part[h]!]!.groups;
  }
  gpuFits(h: number, g: number, free: number): boolean {
    return gpuFits(this.v, h, g, free);
  }
  start(h: number, g: number): boolean {
    this.v.startByBackfill(h, g, null);
    return true;
  }
}
