/**
 * Views of one platform for the engines that count nodes per group (Slurm) or capacity vectors per host
 * (the fairness preset): a platform built from a Slurm platform spec shows, through its view, exactly the
 * fields of the Slurm engine's `SlurmPlatform` built from the same input; one built from fairness host
 * groups shows the per-host capacities, names, groups and totals (by hand); the seed's Raijin file loads
 * as a platform of 57,600 cores.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlatform, parsePlatform } from '../../src/platform/loader.js';
import { hostVectorView, nodeGroupView, platformFromHostGroups, platformFromNodeGroups } from '../../src/platform/views.js';
import { RAIJIN_PLATFORM, SlurmPlatform, type SlurmPlatformSpec } from '../../src/slurm/platform.js';

const SPECS: Record<string, SlurmPlatformSpec> = {
  raijin: RAIJIN_PLATFORM,
  tiers: {
    groups: [
      { name: 'cpu', count: 40, cores: 32 },
      { name: 'big', count: 4, cores: 64 },
      { name: 'old', count: 100, cores: 8 },
    ],
    partitions: [
      { name: 'all', groups: ['old', 'cpu', 'big'], max_time: 86400 },
      { name: 'prio', groups: ['big'], max_nodes: 2, priority_tier: 3, priority_job_factor: 5, preempt_mode: 'requeue', allow_users: [3, 11] },
      { name: 'scav', groups: ['cpu', 'old'], priority_tier: 0, preempt_mode: 'cancel' },
    ],
  },
};

/** The SlurmPlatform's fields, user ids as the strings a platform keeps. */
function slurmFields(s: SlurmPlatform) {
  return {
    groupNames: s.groupNames,
    nodes: s.nodes,
    coresPerNode: s.coresPerNode,
    groupCores: s.groupCores,
    totalCores: s.totalCores,
    maxPartitionFactor: s.maxPartitionFactor,
    partitions: s.partitions.map((q) => ({ ...q, allowUsers: q.allowUsers ? new Set([...q.allowUsers].map(String)) : null })),
  };
}

describe('node-group view (the Slurm engine)', () => {
  for (const [name, spec] of Object.entries(SPECS)) {
    it(`${name}: the view of the converted platform equals SlurmPlatform's fields`, () => {
      const p = platformFromNodeGroups(spec);
      const { defaultPartition, ...view } = nodeGroupView(p);
      expect(view).toEqual(slurmFields(new SlurmPlatform(spec)));
      expect(defaultPartition).toBe(0);
      expect(p.coreCount).toBe(new SlurmPlatform(spec).totalCores);
    });
  }

  it('groups become nodes named <group>0, <group>1, ... of one processor; partitions keep their group order', () => {
    const p = platformFromNodeGroups(SPECS.tiers!);
    expect([p.nodeCount, p.groupCount, p.nodeName[0], p.nodeName[40], p.nodeName[143]]).toEqual([144, 3, 'cpu0', 'big0', 'old99']);
    expect(p.partitions[0]!.groups).toEqual([2, 0, 1]);
    expect(p.partitions[1]!.maxNodes).toBe(2);
    // unlimited in the platform, the largest group in the Slurm engine's view
    expect(p.partitions[2]!.maxNodes).toBe(Number.POSITIVE_INFINITY);
    expect(nodeGroupView(p).partitions[2]!.maxNodes).toBe(100);
  });

  it("the seed's Raijin file (data/platforms/slurm-raijin.json) loads as a platform", () => {
    const p = loadPlatform(join(import.meta.dirname, '../../data/platforms/slurm-raijin.json'));
    expect([p.nodeCount, p.coreCount, p.groupNames, p.partitions.map((q) => q.name)]).toEqual([3600, 57600, ['raijin'], ['normal']]);
    expect(p.groups).toHaveLength(1); // one description for the 3,600 nodes
  });

  it('a partition over part of a group has no node-group view; spec errors name the JSON path', () => {
    const p = parsePlatform(
      {
        clusters: [{ nodes: [{ id: 'n', count: 4, memory_gb: 1, processors: [{ cores: 1, clock_rate: 1, dpflops_per_cycle: 1 }] }] }],
        partitions: [{ name: 'half', nodes: ['n0', 'n1'] }],
      },
      'p.json',
    );
    expect(() => nodeGroupView(p)).toThrow('partition "half" holds 2 of the 4 nodes of group "n"; the node-group view counts whole groups');
    expect(() =>
      platformFromNodeGroups(
        {
          groups: [
            { name: 'a', count: 1, cores: 1 },
            { name: 'a', count: 1, cores: 1 },
          ],
          partitions: [],
        },
        's.json',
      ),
    ).toThrow('s.json: $.groups[1].name: duplicate group "a"');
    expect(() => platformFromNodeGroups({ groups: [{ name: 'a', count: 1, cores: 1 }], partitions: [{ name: 'q', groups: ['b'] }] }, 's.json')).toThrow(
      's.json: $.partitions[0].groups[0]: unknown group "b"',
    );
    expect(() => platformFromNodeGroups({ groups: [{ name: 'a', count: 0, cores: 1 }], partitions: [] }, 's.json')).toThrow(
      /^s\.json: \$\.groups\[0\]\.count: /,
    );
  });
});

describe('host-vector view (the fairness preset)', () => {
  const GROUPS = [
    { count: 2, cpus: 16, memory: 64, name_prefix: 'a' },
    { count: 3, cpus: 16, memory: 48.5 },
    { count: 1, cpus: 32, memory: 0.1, name_prefix: 'h1' },
  ];

  it('the view of the converted platform: capacities, names, groups and totals per host', () => {
    const v = hostVectorView(platformFromHostGroups(GROUPS));
    expect(v).toEqual({
      count: 6,
      cpuCap: Float64Array.from([16, 16, 16, 16, 16, 32]),
      memCap: Float64Array.from([64, 64, 48.5, 48.5, 48.5, 0.1]),
      names: ['a0', 'a1', 'g1-0', 'g1-1', 'g1-2', 'h10'],
      group: Int32Array.from([0, 0, 1, 1, 1, 2]),
      totalCpu: 112,
      // summed host by host, as the fairness engine's HostTable did
      totalMem: 64 + 64 + 48.5 + 48.5 + 48.5 + 0.1,
    });
    expect(v.names).toEqual(['a0', 'a1', 'g1-0', 'g1-1', 'g1-2', 'h10']);
  });

  it('memory in MB; a host group of fractional cores is an error naming it', () => {
    const p = platformFromHostGroups(GROUPS);
    expect(Array.from(p.nodeMemoryMb)).toEqual([64, 64, 48.5, 48.5, 48.5, 0.1]);
    expect(() => platformFromHostGroups([{ count: 1, cpus: 2.5, memory: 1 }], 'cfg.json')).toThrow(
      "cfg.json: $[0].cpus: a platform's nodes have whole cores; found 2.5",
    );
  });
});
