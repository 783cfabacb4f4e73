/**
 * The live matrix's cells and workloads (src/slurm/liveMatrix.ts) without a cluster; the live runs are
 * `npm run bench -- slurm-live` and, for one cell, test/slurm/live.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseSlurmConf } from '../../src/slurm/slurmConf.js';
import { MATRIX_CPUS, MATRIX_NODES, cellConfLines, cellWorkload, matrixCell, matrixCells } from '../../src/slurm/liveMatrix.js';

describe('the live matrix', () => {
  it('24 cells: every combination of bf_interval, bf_resolution, priority and jobs; each job kind sees both scheduler timings', () => {
    const cells = matrixCells();
    expect(cells).toHaveLength(24);
    expect(new Set(cells.map((c) => c.name)).size).toBe(24);
    expect(new Set(cells.map((c) => `${c.bfInterval}/${c.bfResolution}/${c.priority}/${c.jobs}`)).size).toBe(24);
    for (const jobs of ['nodes', 'tasks', 'mixed']) expect(cells.filter((c) => c.jobs === jobs && c.sched === 'changed')).toHaveLength(4);
    expect(matrixCell('bfi1-bfr60-basic-mixed-changed')).toMatchObject({ bfInterval: 1, bfResolution: 60, priority: 'basic', jobs: 'mixed' });
    expect(() => matrixCell('bfi2')).toThrow(/no matrix cell "bfi2"; cells: bfi1-bfr1-basic-nodes-default/);
  });

  it("a cell's slurm.conf lines configure what its name says", () => {
    const c = cellConfLines(matrixCell('bfi30-bfr1-multifactor-mixed-default'));
    expect(c).toMatch(/^SchedulerParameters=bf_interval=30,bf_resolution=1$/m);
    expect(c).toMatch(/^PriorityType=priority\/multifactor$/m);
    expect(c).toMatch(/^SelectTypeParameters=CR_CPU_Memory$/m);
    expect(c).toMatch(/^PartitionName=short Nodes=n\[5-8\]/m);
    const d = cellConfLines(matrixCell('bfi1-bfr60-basic-nodes-changed'));
    expect(d).toMatch(/^SchedulerParameters=bf_interval=1,bf_resolution=60,sched_interval=20,batch_sched_delay=1$/m);
    expect(d).toMatch(/OverSubscribe=EXCLUSIVE/);
    expect(d).toMatch(/^PriorityType=priority\/basic$/m);
    // the engine reads them (with the nodes local-cluster.sh writes)
    const nodes = `NodeName=n[1-${MATRIX_NODES}] CPUs=${MATRIX_CPUS} RealMemory=4000 State=UNKNOWN\n`;
    const conf = parseSlurmConf(`SelectType=select/cons_tres\n${nodes}${cellConfLines(matrixCell('bfi30-bfr1-multifactor-mixed-default'))}`);
    expect(conf.config).toMatchObject({ bfInterval: 30, bfResolution: 1, schedInterval: 60, batchSchedDelay: 3 });
    expect(conf).toMatchObject({ memory: true, defMemPerCpu: 500, wholeNodes: false });
    expect(conf.partitions.map((p) => p.name)).toEqual(['main', 'short']);
  });

  it('workloads: a fresh draw per seed, of the kind the cell asks, valid sizes and limits', () => {
    for (const kind of ['nodes', 'tasks', 'mixed'] as const) {
      const a = cellWorkload(kind, 1);
      expect(a).toHaveLength(30);
      expect(cellWorkload(kind, 1)).toEqual(a);
      expect(cellWorkload(kind, 2)).not.toEqual(a);
      for (const [i, j] of a.entries()) {
        if (i > 0) expect(j.submit).toBeGreaterThanOrEqual(a[i - 1]!.submit);
        expect(j.runTime).toBeGreaterThanOrEqual(5);
        expect(j.runTime).toBeLessThanOrEqual(30);
        expect(j.timeLimit).toBeGreaterThanOrEqual(j.runTime);
        expect(j.timeLimit).toBeLessThanOrEqual(180);
        if (j.exclusive) expect(j.cpus).toBe(j.nodes * MATRIX_CPUS);
        if (kind === 'nodes') expect(j.exclusive).toBe(true);
        if (kind === 'tasks') expect(j.exclusive).toBeUndefined();
        if (kind === 'mixed') expect(['main', 'short']).toContain(j.partition);
      }
    }
  });
});
