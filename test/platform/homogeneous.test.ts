/**
 * Platforms for workloads that name none: a homogeneous cluster of the trace's processor count,
 * else the embedded default.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { defaultPlatformFor, homogeneousPlatform } from '../../src/platform/homogeneous.js';

describe('homogeneous platforms', () => {
  it('10 processors at 4 cores per node: nodes of 4, 4 and 2 cores of 1000 MOPS, no contention, no power', () => {
    const p = homogeneousPlatform(10, 4);
    expect(p.name).toBe('homogeneous-10');
    expect(Array.from(p.nodeCoreCount)).toEqual([4, 4, 2]);
    expect(p.coreCount).toBe(10);
    expect(new Set(p.coreMops)).toEqual(new Set([1000]));
    expect(p.maxPower()).toBe(0);
    expect(p.models).toEqual({ memory: 'none', comm: 'shared', comm_penalty: 0.8 });
    expect(homogeneousPlatform(3).nodeCount).toBe(3); // one core per node by default
    // two node groups: the full nodes, then the smaller last one
    expect([p.groupNames, Array.from(p.groupNodeCount), p.nodeName]).toEqual([
      ['node[0-1]', 'node2'],
      [2, 1],
      ['node0', 'node1', 'node2'],
    ]);
    expect(homogeneousPlatform(57_600, 16).groupCount).toBe(1);
    expect(homogeneousPlatform(8, 4, { comm: 'step' }).models.comm).toBe('step');
  });

  it('a trace without a processor count is an error that asks for a platform', () => {
    expect(() => homogeneousPlatform(0)).toThrow(InputError);
    expect(() => homogeneousPlatform(Number.NaN)).toThrow(/give --platform/);
  });

  it('defaultPlatformFor: the homogeneous cluster when the size is known, else the embedded default', () => {
    expect(defaultPlatformFor(6, {}, 2).nodeCount).toBe(3);
    const d = defaultPlatformFor(undefined, { memory: 'none' });
    expect(d.name).toBe('hetero-20');
    expect(d.nodeCount).toBe(20);
    expect(d.models.memory).toBe('none');
  });
});
