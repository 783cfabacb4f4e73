/**
 * The compiled platform (dense arrays in platform order), by hand on tfg-2x2x4: 2 nodes x 2
 * processors x 4 cores, 2 GHz x 1 op/cycle, 64 GB, static 20 W and dynamic 10 W per processor.
 */
import { describe, expect, it } from 'vitest';
import { processorMops } from '../../src/platform/platform.js';
import { tfg2x2x4 } from '../helpers.js';

describe('Platform', () => {
  it('numbers nodes, processors and cores in platform order', () => {
    const p = tfg2x2x4();
    expect([p.nodeCount, p.procCount, p.coreCount, p.maxNodeCores]).toEqual([2, 4, 16, 8]);
    expect(Array.from(p.nodeFirstCore)).toEqual([0, 8]);
    expect(Array.from(p.procFirstCore)).toEqual([0, 4, 8, 12]);
    expect(Array.from(p.procNode)).toEqual([0, 0, 1, 1]);
    expect(Array.from(p.coreProc.subarray(6, 10))).toEqual([1, 1, 2, 2]);
    expect(Array.from(p.coreNode.subarray(6, 10))).toEqual([0, 0, 1, 1]);
    expect(p.corePath(13)).toBe('platform.cluster0.node1.processor1.core1');
  });

  it('derives speeds, memory and peak power', () => {
    const p = tfg2x2x4();
    expect(processorMops({ clock_rate: 2, dpflops_per_cycle: 1 })).toBe(2000);
    expect(processorMops({ clock_rate: 3.5, dpflops_per_cycle: 4 })).toBe(14000);
    expect(p.coreMops[15]).toBe(2000);
    expect(p.nodeMops[1]).toBe(8 * 2000);
    expect(p.nodeMemoryMb[0]).toBe(64 * 1024);
    // 4 processors x (20 W static + 4 cores x 10 W)
    expect(p.maxPower()).toBe(240);
  });

  it('withModels changes the models and nothing else', () => {
    const p = tfg2x2x4();
    const q = p.withModels({ comm: 'step' });
    expect(q.models).toEqual({ memory: 'none', comm: 'step', comm_penalty: 0.8 });
    expect(p.models.comm).toBe('shared');
    expect(Array.from(q.coreMops)).toEqual(Array.from(p.coreMops));
  });
});
