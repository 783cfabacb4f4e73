/**
 * Node groups: a hand-written platform with groups, GPUs, power states and partitions compiles to
 * exactly the arrays worked out below; names follow the canonical naming rule; the native writer gives
 * back the same description; errors name the JSON path; and (fast-check) a platform written with
 * groups compiles to the same per-node, per-processor and per-core arrays as the same platform written
 * node by node (only the group arrays differ: one group per node there).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePlatform, writeNativePlatform } from '../../src/platform/loader.js';
import { implicitGroupName, namingOf, nodeNameOf, ruleNaming } from '../../src/platform/nodeGroups.js';
import type { Platform } from '../../src/platform/platform.js';
import { fitsIn, groupNodeResources, groupResources, maxNodeResources, nodeResources, nodesResources, totalResources } from '../../src/platform/resources.js';

const CPU = { cores: 4, clock_rate: 2, dpflops_per_cycle: 4, static_power: 40, dynamic_power: 10, min_power: 0.5 };
const SMALL = { cores: 2, clock_rate: 1, dpflops_per_cycle: 1 };

/**
 * Cluster `a`: group `fat` of 3 nodes (2 x CPU, 256 GB, 4 V100), then an unnamed node (SMALL, 8 GB).
 * Cluster `b`: 2 unnamed nodes (SMALL, 16 GB, 2 A100), then node `x1` with SimGrid power states.
 */
const PLATFORM = {
  name: 'groups',
  clusters: [
    {
      id: 'a',
      nodes: [
        { id: 'fat', count: 3, memory_gb: 256, processors: [{ count: 2, ...CPU }], gpus: { count: 4, type: 'V100' } },
        { memory_gb: 8, processors: [SMALL] },
      ],
    },
    {
      id: 'b',
      nodes: [
        { count: 2, memory_gb: 16, processors: [SMALL], gpus: { count: 2, type: 'A100' } },
        {
          id: 'x1',
          memory_gb: 1,
          processors: [SMALL],
          pstates: [
            { speed: 1e9, idle: 95, all_cores: 190 },
            { speed: 1e9, idle: 9 },
            { speed: 1, all_cores: 50 },
            { speed: 1, all_cores: 60 },
          ],
          properties: { sleep_pstates: '1:2:3' },
        },
      ],
    },
  ],
  partitions: [
    { name: 'big', groups: ['fat'], max_time: 3600, priority_tier: 2, preempt_mode: 'suspend', allow_users: [7, 'bob'] },
    { name: 'rest', nodes: ['node3', 'x1'], groups: ['node[0-1]'], default: true, allow_accounts: ['physics'] },
  ],
};

const arr = (a: ArrayLike<number>) => Array.from(a);

describe('node groups compiled to typed arrays', () => {
  const p = parsePlatform(PLATFORM, 'groups.json');

  it('groups, nodes, processors and cores: every array as worked out by hand', () => {
    expect([p.nodeCount, p.procCount, p.coreCount, p.groupCount]).toEqual([7, 10, 32, 4]);
    expect(p.groupNames).toEqual(['fat', 'node3', 'node[0-1]', 'x1']);
    expect(arr(p.groupCluster)).toEqual([0, 0, 1, 1]);
    expect(arr(p.groupFirstNode)).toEqual([0, 3, 4, 6]);
    expect(arr(p.groupNodeCount)).toEqual([3, 1, 2, 1]);
    expect(arr(p.nodeGroup)).toEqual([0, 0, 0, 1, 2, 2, 3]);
    expect(p.nodeName).toEqual(['fat0', 'fat1', 'fat2', 'node3', 'node0', 'node1', 'x1']);
    expect(arr(p.nodeCluster)).toEqual([0, 0, 0, 0, 1, 1, 1]);
    expect(arr(p.nodeCoreCount)).toEqual([8, 8, 8, 2, 2, 2, 2]);
    expect(arr(p.nodeFirstCore)).toEqual([0, 8, 16, 24, 26, 28, 30]);
    expect(arr(p.nodeFirstProc)).toEqual([0, 2, 4, 6, 7, 8, 9]);
    expect(arr(p.nodeMemoryMb)).toEqual([262144, 262144, 262144, 8192, 16384, 16384, 1024]);
    // 2 GHz x 4 = 8000 Mops per core, 8 cores; 1000 Mops x 2 cores
    expect(arr(p.nodeMops)).toEqual([64000, 64000, 64000, 2000, 2000, 2000, 2000]);
    expect(arr(p.procNode)).toEqual([0, 0, 1, 1, 2, 2, 3, 4, 5, 6]);
    expect(arr(p.procStaticPower)).toEqual([40, 40, 40, 40, 40, 40, 0, 0, 0, 0]);
    expect(arr(p.coreNode.subarray(22, 32))).toEqual([2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    expect(arr(p.coreProc.subarray(22, 32))).toEqual([5, 5, 6, 6, 7, 7, 8, 8, 9, 9]);
    expect(arr(p.nodeGpuCount)).toEqual([4, 4, 4, 0, 2, 2, 0]);
    expect(p.gpuTypes).toEqual(['V100', 'A100']);
    expect(arr(p.nodeGpuType)).toEqual([0, 0, 0, -1, 1, 1, -1]);
    expect([p.maxNodeCores, p.maxNodeMemoryMb, p.maxNodeGpus, p.totalMemoryMb, p.gpuCount]).toEqual([8, 262144, 4, 3 * 262144 + 8192 + 2 * 16384 + 1024, 16]);
    // one description per group, shared by its nodes
    expect(p.nodeDescription(1)).toBe(p.nodeDescription(2));
    expect(p.nodePath(5)).toBe('platform.b.node1');
  });

  it('resource vectors: per node, per group, per node set, totals and maxima', () => {
    expect(nodeResources(p, 4)).toEqual({ cores: 2, memoryMb: 16384, gpus: 2 });
    expect(groupNodeResources(p, 0)).toEqual({ cores: 8, memoryMb: 262144, gpus: 4 });
    expect(groupResources(p, 0)).toEqual({ cores: 24, memoryMb: 786432, gpus: 12 });
    expect(nodesResources(p, p.partitions[1]!.nodes)).toEqual({ cores: 8, memoryMb: 8192 + 32768 + 1024, gpus: 4 });
    expect(totalResources(p)).toEqual({ cores: 32, memoryMb: 828416, gpus: 16 });
    expect(maxNodeResources(p)).toEqual({ cores: 8, memoryMb: 262144, gpus: 4 });
    expect(fitsIn({ cores: 2, memoryMb: 16384, gpus: 2 }, nodeResources(p, 4))).toBe(true);
    expect(fitsIn({ cores: 2, memoryMb: 16384, gpus: 3 }, nodeResources(p, 4))).toBe(false);
  });

  it('partitions: node lists, masks, groups and limits; the default one', () => {
    const [big, rest] = p.partitions;
    expect(arr(big!.nodes)).toEqual([0, 1, 2]);
    expect(arr(big!.nodeMask)).toEqual([1, 1, 1, 0, 0, 0, 0]);
    expect(big!.groups).toEqual([0]);
    expect([big!.maxTime, big!.maxNodes, big!.priorityTier, big!.priorityJobFactor, big!.preemptMode, big!.isDefault]).toEqual([
      3600,
      Number.POSITIVE_INFINITY,
      2,
      1,
      'suspend',
      false,
    ]);
    expect([...big!.allowUsers!]).toEqual(['7', 'bob']);
    expect(big!.allowAccounts).toBeNull();
    // named groups first, then the groups of the named nodes, ascending
    expect(arr(rest!.nodes)).toEqual([3, 4, 5, 6]);
    expect(rest!.groups).toEqual([2, 1, 3]);
    expect([...rest!.allowAccounts!]).toEqual(['physics']);
    expect(p.defaultPartition).toBe(1);
    expect(p.partitionIndex('big')).toBe(0);
    expect(p.partitionIndex('none')).toBe(-1);
  });

  it('power states: SimGrid states with sleep_pstates, else one compute state from the processors; one array per group', () => {
    expect(p.powerStates(6)).toEqual([
      { kind: 'compute', speed: 1e9, idleW: 95, fullW: 190 },
      { kind: 'sleep', speed: 1e9, idleW: 9, fullW: 9, off: 2, on: 3 },
      { kind: 'transition', speed: 1, idleW: 0, fullW: 50 },
      { kind: 'transition', speed: 1, idleW: 0, fullW: 60 },
    ]);
    // fat: 2 processors, idle 0.5 x 40 each, full 40 + 4 x 10 each; cores at 8000 Mops
    expect(p.powerStates(0)).toEqual([{ kind: 'compute', speed: 8e9, idleW: 40, fullW: 160 }]);
    expect(p.powerStates(2)).toBe(p.powerStates(0));
    expect(p.initialPState(6)).toBe(0);
  });

  it('the native writer gives back the same description (groups, names, GPUs, pstates, partitions)', () => {
    const json = writeNativePlatform(p.description);
    const nodes = (json.clusters as { nodes: Record<string, unknown>[] }[]).flatMap((c) => c.nodes.map((n) => [n.group, n.id, n.count]));
    expect(nodes).toEqual([
      [undefined, 'fat', 3],
      [undefined, undefined, undefined],
      [undefined, undefined, 2],
      [undefined, 'x1', undefined],
    ]);
    const back = parsePlatform(JSON.parse(JSON.stringify(json)), 'back.json');
    expect(back.description).toEqual(p.description);
    expect(back.partitions).toEqual(p.partitions);
  });
});

describe('naming', () => {
  it('a list of names that follows a rule is stored as the rule (one canonical form)', () => {
    expect(namingOf(['r0', 'r1', 'r2'])).toEqual({ prefix: 'r', first: 0, suffix: '' });
    expect(namingOf(['c-4.me', 'c-5.me'])).toEqual({ prefix: 'c-', first: 4, suffix: '.me' });
    expect(namingOf(['big'])).toEqual({ names: ['big'] });
    expect(namingOf(['n01', 'n02'])).toEqual({ names: ['n01', 'n02'] }); // zero-padded: no rule
    expect(namingOf(['a0', 'a2'])).toEqual({ names: ['a0', 'a2'] });
    // a prefix ending in a digit: the rule is found from the names themselves
    expect(ruleNaming('r1', 0, '', 2)).toEqual({ prefix: 'r', first: 10, suffix: '' });
    expect(ruleNaming('r1', 0, '', 12)).toEqual(namingOf(Array.from({ length: 12 }, (_, k) => `r1${k}`)));
    expect(nodeNameOf({ prefix: 'c-', first: 4, suffix: '.me' }, 1)).toBe('c-5.me');
    expect([implicitGroupName(3, 1), implicitGroupName(4, 4)]).toEqual(['node3', 'node[4-7]']);
  });

  it('explicit names, and a group name apart from the node names, read and write back', () => {
    const data = {
      clusters: [
        {
          nodes: [
            { group: 'pair', names: ['alpha', 'beta'], memory_gb: 1, processors: [SMALL] },
            { group: 'gpu', id: 'g', count: 2, memory_gb: 1, processors: [SMALL] },
          ],
        },
      ],
    };
    const p = parsePlatform(data, 'n.json');
    expect(p.nodeName).toEqual(['alpha', 'beta', 'g0', 'g1']);
    expect(p.groupNames).toEqual(['pair', 'gpu']);
    const w = writeNativePlatform(p.description) as { clusters: { nodes: Record<string, unknown>[] }[] };
    expect(w.clusters[0]!.nodes.map((n) => [n.group, n.id, n.count, n.names])).toEqual([
      ['pair', undefined, 2, ['alpha', 'beta']],
      ['gpu', 'g', 2, undefined],
    ]);
    expect(parsePlatform(w, 'w.json').description).toEqual(p.description);
  });
});

describe('errors name the file and the JSON path', () => {
  const node = { memory_gb: 1, processors: [SMALL] };
  const withParts =
    (partitions: unknown[], nodes: unknown[] = [{ id: 'r', count: 2, ...node }]) =>
    () =>
      parsePlatform({ clusters: [{ nodes }], partitions }, 'p.json');

  it('partitions', () => {
    expect(withParts([{ name: 'q', groups: ['rr'] }])).toThrow('p.json: $.partitions[0].groups[0]: unknown group "rr" (did you mean "r"?)');
    expect(withParts([{ name: 'q', nodes: ['r2'] }])).toThrow('p.json: $.partitions[0].nodes[0]: unknown node "r2"');
    expect(withParts([{ name: 'q' }])).toThrow('p.json: $.partitions[0]: partition "q" has no node: give `clusters`, `groups` or `nodes`');
    expect(
      withParts([
        { name: 'q', groups: ['r'] },
        { name: 'q', groups: ['r'] },
      ]),
    ).toThrow('p.json: $.partitions[1].name: duplicate partition "q"');
    expect(
      withParts([
        { name: 'q', groups: ['r'], default: true },
        { name: 's', groups: ['r'], default: true },
      ]),
    ).toThrow('p.json: $.partitions[1].default: a second default partition');
    expect(
      withParts(
        [{ name: 'q', groups: ['r'] }],
        [
          { id: 'r', ...node },
          { id: 'r', ...node },
        ],
      ),
    ).toThrow('p.json: $.partitions[0].groups[0]: "r" names several groups; give the groups distinct ids');
    expect(withParts([{ name: 'q', groups: ['r'], preempt_mode: 'pause' }])).toThrow(/^p\.json: \$\.partitions\[0\]\.preempt_mode: Invalid enum value/);
    expect(withParts([{ name: 'q', groups: ['r'], max_nodes: 0 }])).toThrow(/^p\.json: \$\.partitions\[0\]\.max_nodes: /);
  });

  it('groups, names and GPUs', () => {
    expect(withParts([], [{ names: ['a', 'b'], count: 3, ...node }])).toThrow('p.json: $.clusters[0].nodes[0].names: expected 3 names (count), found 2');
    expect(withParts([], [{ names: ['a'], id: 'a', ...node }])).toThrow('p.json: $.clusters[0].nodes[0].names: give either `id` or `names`');
    expect(withParts([], [{ gpus: { count: -1, type: 'x' }, ...node }])).toThrow(/^p\.json: \$\.clusters\[0\]\.nodes\[0\]\.gpus\.count: /);
    expect(withParts([], [{ gpus: { count: 1 }, ...node }])).toThrow(/^p\.json: \$\.clusters\[0\]\.nodes\[0\]\.gpus\.type: Required/);
    expect(withParts([], [{ count: 0, ...node }])).toThrow(/^p\.json: \$\.clusters\[0\]\.nodes\[0\]\.count: /);
  });
});

/** The arrays that do not depend on how nodes are grouped. */
function perNodeArrays(p: Platform): unknown {
  return {
    counts: [p.nodeCount, p.procCount, p.coreCount],
    names: p.nodeName,
    types: p.nodeType,
    node: [
      p.nodeCluster,
      p.nodeFirstCore,
      p.nodeCoreCount,
      p.nodeFirstProc,
      p.nodeProcCount,
      p.nodeMemoryMb,
      p.nodeCommBw,
      p.nodeMops,
      p.nodeGpuCount,
      p.nodeGpuType,
    ].map(arr),
    proc: [p.procNode, p.procFirstCore, p.procCoreCount, p.procMops, p.procClockRate, p.procStaticPower, p.procDynamicPower, p.procMinPower].map(arr),
    core: [p.coreNode, p.coreProc, p.coreMops].map(arr),
    maxima: [p.maxNodeCores, p.maxNodeMemoryMb, p.maxNodeGpus, p.totalMemoryMb, p.gpuCount, p.maxPower()],
    pstates: Array.from({ length: p.nodeCount }, (_, n) => p.powerStates(n)),
  };
}

describe('property: groups compile to the arrays of the same platform written node by node', () => {
  const proc = fc.record({
    count: fc.integer({ min: 1, max: 2 }),
    cores: fc.integer({ min: 1, max: 8 }),
    clock_rate: fc.constantFrom(1, 2.5, 3),
    dpflops_per_cycle: fc.constantFrom(1, 4),
    static_power: fc.constantFrom(0, 20),
    dynamic_power: fc.constantFrom(0, 7.5),
    min_power: fc.constantFrom(0, 0.1),
  });
  const entry = fc.record({
    count: fc.integer({ min: 1, max: 40 }),
    named: fc.boolean(),
    memory_gb: fc.constantFrom(0.5, 8, 64),
    gpus: fc.integer({ min: 0, max: 4 }),
    processors: fc.array(proc, { minLength: 1, maxLength: 2 }),
  });
  const platform = fc.array(fc.array(entry, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 });

  it('same per-node, per-processor and per-core arrays; one group per entry against one per node', () => {
    fc.assert(
      fc.property(platform, (clusters) => {
        let id = 0;
        const grouped = clusters.map((entries) =>
          entries.map((e) => {
            const { named, gpus, ...rest } = e;
            const naming = named ? { id: `h${id++}x` } : {};
            return { ...naming, ...rest, ...(gpus > 0 ? { gpus: { count: gpus, type: 'T4' } } : {}) };
          }),
        );
        // the same nodes one entry each, with the names the grouped file gives them
        const gp = parsePlatform({ clusters: grouped.map((nodes) => ({ nodes })) }, 'g.json');
        let n = 0;
        const single = grouped.map((nodes) =>
          nodes.flatMap(({ count, id: _id, ...e }) => Array.from({ length: count }, () => ({ id: gp.nodeName[n++]!, ...e }))),
        );
        const sp = parsePlatform({ clusters: single.map((nodes) => ({ nodes })) }, 's.json');
        expect(perNodeArrays(sp)).toEqual(perNodeArrays(gp));
        expect(gp.groupCount).toBe(grouped.flat().length);
        expect(sp.groupCount).toBe(sp.nodeCount);
        expect(arr(sp.nodeGroup)).toEqual(Array.from({ length: sp.nodeCount }, (_, k) => k));
        // the grouped platform's groups are the entries' node ranges
        let first = 0;
        grouped.flat().forEach((e, g) => {
          expect([gp.groupFirstNode[g], gp.groupNodeCount[g]]).toEqual([first, e.count]);
          first += e.count;
        });
        // and each writes back to itself
        for (const p of [gp, sp]) expect(parsePlatform(writeNativePlatform(p.description), 'w.json').description).toEqual(p.description);
      }),
      { numRuns: 60, seed: 42 },
    );
  });
});
