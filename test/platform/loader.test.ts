/**
 * Platform files: the native format and IRMaSim's group format describe the same machine, defaults
 * are filled in, node names follow ids and counts, and every error names the file and the JSON path.
 */
import { describe, expect, it } from 'vitest';
import { parsePlatform } from '../../src/platform/loader.js';

const COEFFS = { b: -1.85e-5, c: 32000, da: 1.75, db: 2000, dc: 50000, dd: 6000 };
const FAST = { cores: 4, clock_rate: 2, dpflops_per_cycle: 1, static_power: 20, dynamic_power: 10, min_power: 0.05, ...COEFFS };
const SLOW = { cores: 2, clock_rate: 1, dpflops_per_cycle: 2 };

/** Two nodes: `big` (2 FAST processors, 64 GB) then one of `small` (1 SLOW, 8 GB, 1 Gb/s by default). */
const NATIVE = {
  name: 'two',
  clusters: [
    {
      id: 'c',
      nodes: [
        { id: 'big', type: 'big', memory_gb: 64, comm_bw: 1e9, processors: [{ count: 2, type: 'fast', ...FAST }] },
        { type: 'small', memory_gb: 8, processors: [{ type: 'slow', ...SLOW }] },
      ],
    },
  ],
};
const IRMASIM = {
  platform: { two: { clusters: [{ id: 'c', nodes: [{ type: 'big', id: 'big' }, { type: 'small' }] }] } },
  node: {
    big: { processors: [{ type: 'fast', number: 2 }], memory: { capacity: 64 }, comm_bw: 1e9 },
    small: { processors: [{ type: 'slow' }], memory: { capacity: 8 } },
  },
  processor: { fast: FAST, slow: SLOW },
};

describe('platform files', () => {
  it('the native and the IRMaSim group format give the same machine', () => {
    for (const p of [parsePlatform(NATIVE, 'n.json'), parsePlatform(IRMASIM, 'i.json')]) {
      expect(p.name).toBe('two');
      expect([p.nodeCount, p.procCount, p.coreCount]).toEqual([2, 3, 10]);
      expect(p.nodeName).toEqual(['big', 'node1']);
      expect(p.nodeType).toEqual(['big', 'small']);
      expect(Array.from(p.procMops)).toEqual([2000, 2000, 2000]);
      expect(Array.from(p.nodeMemoryMb)).toEqual([64 * 1024, 8 * 1024]);
      expect(Array.from(p.nodeCommBw)).toEqual([1e9, 125e6]);
      expect(p.procContention).toEqual([COEFFS, COEFFS, null]);
      // the slow processor's power figures default to 0
      expect([p.procStaticPower[2], p.procDynamicPower[2], p.procMinPower[2]]).toEqual([0, 0, 0]);
      expect(p.corePath(9)).toBe('platform.c.node1.processor0.core1');
      expect(p.models).toEqual({ memory: 'irmasim-v1', comm: 'shared', comm_penalty: 0.8 });
    }
  });

  it('a node id with a count names the nodes id0, id1, ...; models come from the file, then the options', () => {
    const data = { models: { comm: 'step' }, clusters: [{ nodes: [{ id: 'gpu', count: 2, memory_gb: 1, processors: [SLOW] }] }] };
    const p = parsePlatform(data, 'g.json');
    expect([p.name, ...p.nodeName, p.clusterNames[0]]).toEqual(['platform', 'gpu0', 'gpu1', 'cluster0']);
    expect(p.models.comm).toBe('step');
    expect(parsePlatform(data, 'g.json', { models: { comm: 'shared', memory: 'none' } }).models).toEqual({ memory: 'none', comm: 'shared', comm_penalty: 0.8 });
  });

  it('picks a platform of a group file by name, and asks for one when the file has several', () => {
    const two = { ...IRMASIM, platform: { ...IRMASIM.platform, one: { clusters: [{ nodes: [{ type: 'small' }] }] } } };
    expect(parsePlatform(two, 'i.json', { platformName: 'one' }).coreCount).toBe(2);
    expect(() => parsePlatform(two, 'i.json')).toThrow('i.json: $.platform: the file defines 2 platforms (two, one); choose one with --platform-name');
    expect(() => parsePlatform(two, 'i.json', { platformName: 'three' })).toThrow('i.json: $.platform: no platform named "three"; the file defines two, one');
  });

  it('errors name the file and the JSON path', () => {
    const { c: _c, dd: _dd, ...partial } = FAST;
    expect(() => parsePlatform({ clusters: [{ nodes: [{ memory_gb: 1, processors: [SLOW, partial] }] }] }, 'p.json')).toThrow(
      'p.json: $.clusters[0].nodes[0].processors[1]: memory-contention coefficients must be given all together (b, c, da, db, dc, dd) or not at all; missing c, dd',
    );
    expect(() => parsePlatform({ ...IRMASIM, node: { big: IRMASIM.node.big } }, 'i.json')).toThrow(
      'i.json: $.platform.two.clusters[0].nodes[1].type: unknown node type "small"; expected one of big',
    );
    expect(() => parsePlatform({ clusters: [{ nodes: [{ memory_gb: 1, processors: [{ ...SLOW, cores: 0 }] }] }] }, 'z.json')).toThrow(
      /^z\.json: \$\.clusters\[0\]\.nodes\[0\]\.processors\[0\]\.cores: /,
    );
  });
});
