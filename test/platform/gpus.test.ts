/**
 * GPUs in the platform formats (native JSON, node-group platforms, SimGrid XML props): per-node count and
 * type, per-type count, memory and power, the native round trip, and errors that name the group, the JSON
 * path or the XML element. Expected values by hand from the platforms below.
 */
import { describe, expect, it } from 'vitest';
import { gpuPower } from '../../src/platform/gpus.js';
import { parsePlatform, writeNativePlatform } from '../../src/platform/loader.js';
import { gpusByType, nodeResources, totalResources } from '../../src/platform/resources.js';
import { parseSimGridPlatform } from '../../src/platform/simgridXml.js';
import { Platform } from '../../src/platform/platform.js';

const cpu = { cores: 8, clock_rate: 2, dpflops_per_cycle: 1, static_power: 10, dynamic_power: 5 };

/** 2 nodes x 4 V100 (300 W busy, 50 W idle), 3 nodes x 2 K80 (memory only), 1 node without GPUs. */
const NATIVE = {
  name: 'three-gpu',
  clusters: [
    {
      nodes: [
        { id: 'v', count: 2, memory_gb: 64, processors: [cpu], gpus: { count: 4, type: 'v100', memory_gb: 16, idle_power: 50, busy_power: 300 } },
        { id: 'k', count: 3, memory_gb: 64, processors: [cpu], gpus: { count: 2, type: 'k80', memory_gb: 12 } },
        { id: 'c', memory_gb: 32, processors: [cpu] },
      ],
    },
  ],
  partitions: [{ name: 'fast', groups: ['v'] }],
};

describe('GPUs in native JSON', () => {
  it('compiles per-node counts and types and per-type figures', () => {
    const p = parsePlatform(NATIVE, 'three-gpu.json');
    expect(p.gpuTypes).toEqual(['v100', 'k80']);
    expect(Array.from(p.nodeGpuCount)).toEqual([4, 4, 2, 2, 2, 0]);
    expect(Array.from(p.nodeGpuType)).toEqual([0, 0, 1, 1, 1, -1]);
    expect(p.gpuTypeSpecs).toEqual([
      { name: 'v100', count: 8, memoryGb: 16, idlePower: 50, busyPower: 300 },
      { name: 'k80', count: 6, memoryGb: 12, idlePower: 0, busyPower: 0 },
    ]);
    expect([p.gpuCount, p.maxNodeGpus]).toEqual([14, 4]);
    expect(p.gpuTypeIndex('k80')).toBe(1);
    expect(p.gpuTypeIndex('a100')).toBe(-1);
    expect(nodeResources(p, 2)).toEqual({ cores: 8, memoryMb: 64 * 1024, gpus: 2 });
    expect(totalResources(p).gpus).toBe(14);
    expect(Array.from(gpusByType(p))).toEqual([8, 6]);
    expect(Array.from(gpusByType(p, p.partitions[0]!.nodes))).toEqual([8, 0]);
    // 6 nodes x (10 W + 8 x 5 W) + 8 V100 x 300 W
    expect(p.maxPower()).toBe(6 * 50 + 8 * 300);
    expect(gpuPower(p.gpuTypeSpecs[0]!, 3, 8)).toBe(3 * 300 + 5 * 50);
  });

  it('writes native JSON that loads back into the same GPUs', () => {
    const p = parsePlatform(NATIVE, 'three-gpu.json');
    const q = parsePlatform(writeNativePlatform(p.description), 'roundtrip.json');
    expect(q.gpuTypeSpecs).toEqual(p.gpuTypeSpecs);
    expect(Array.from(q.nodeGpuType)).toEqual(Array.from(p.nodeGpuType));
    expect(q.groups.map((g) => g.gpus)).toEqual(p.groups.map((g) => g.gpus));
  });

  it('a GPU type has one figure: two groups that disagree are named', () => {
    const bad = structuredClone(NATIVE);
    bad.clusters[0]!.nodes[1]!.gpus = { count: 2, type: 'v100', memory_gb: 32 };
    expect(() => parsePlatform(bad, 'bad.json')).toThrow(/bad\.json: GPU type "v100" has memory_gb 16 in group "v" and 32 in group "k"/);
  });

  it('a node with 0 GPUs has no type, and a figure given once is the type’s', () => {
    const d = structuredClone(NATIVE) as unknown as { clusters: { nodes: Record<string, unknown>[] }[] };
    d.clusters[0]!.nodes[1]!.gpus = { count: 0, type: 'p100', busy_power: 1 };
    d.clusters[0]!.nodes.push({ id: 'w', count: 1, memory_gb: 64, processors: [cpu], gpus: { count: 8, type: 'v100', memory_gb: 16 } });
    const p = parsePlatform(d, 'd.json');
    expect(p.gpuTypes).toEqual(['v100']);
    expect(Array.from(p.nodeGpuType)).toEqual([0, 0, -1, -1, -1, -1, 0]);
    expect(p.gpuTypeSpecs[0]).toEqual({ name: 'v100', count: 16, memoryGb: 16, idlePower: 50, busyPower: 300 });
  });

  it('rejects malformed GPUs with the JSON path', () => {
    const bad = structuredClone(NATIVE) as unknown as { clusters: { nodes: Record<string, unknown>[] }[] };
    bad.clusters[0]!.nodes[0]!.gpus = { count: 1.5, type: 'v100' };
    expect(() => parsePlatform(bad, 'bad.json')).toThrow(/\$\.clusters\[0\]\.nodes\[0\]\.gpus\.count/);
    bad.clusters[0]!.nodes[0]!.gpus = { count: 1, type: 'v100', watts: 3 };
    expect(() => parsePlatform(bad, 'bad.json')).toThrow(/watts/);
  });
});

describe('GPUs in node-group platforms', () => {
  it('a group may carry gpus', () => {
    const p = parsePlatform(
      {
        groups: [
          { name: 'gv', count: 2, cores: 32, gpus: { count: 8, type: 'v100' } },
          { name: 'cpu', count: 4, cores: 64 },
        ],
      },
      'groups.json',
    );
    expect(p.gpuTypes).toEqual(['v100']);
    expect(Array.from(p.nodeGpuCount)).toEqual([8, 8, 0, 0, 0, 0]);
  });
});

describe('GPUs in SimGrid XML', () => {
  const xml = (hostProps: string, clusterProps = '') => `<?xml version='1.0'?>
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="h" speed="1Gf" core="4">${hostProps}</host>
    <cluster id="c" prefix="c" suffix="" radical="0-2" speed="2Gf" core="8" bw="1GBps" lat="1us">${clusterProps}</cluster>
  </zone>
</platform>`;

  it('reads the gpu props of hosts and clusters', () => {
    const d = parseSimGridPlatform(
      xml(
        '<prop id="gpus" value="2"/><prop id="gpu_type" value="p100"/><prop id="gpu_busy_power" value="250"/>',
        '<prop id="gpus" value="4"/><prop id="gpu_type" value="v100"/><prop id="gpu_memory_gb" value="32"/><prop id="gpu_idle_power" value="40"/>',
      ),
      'gpu.xml',
    );
    const p = Platform.fromDescription(d);
    expect(p.gpuTypes).toEqual(['p100', 'v100']);
    expect(Array.from(p.nodeGpuCount)).toEqual([2, 4, 4, 4]);
    expect(p.gpuTypeSpecs).toEqual([
      { name: 'p100', count: 2, memoryGb: 0, idlePower: 0, busyPower: 250 },
      { name: 'v100', count: 12, memoryGb: 32, idlePower: 40, busyPower: 0 },
    ]);
  });

  it('an untyped host is of type gpu', () => {
    const p = Platform.fromDescription(parseSimGridPlatform(xml('<prop id="gpus" value="1"/>'), 'gpu.xml'));
    expect(p.gpuTypes).toEqual(['gpu']);
  });

  it('names the element of a malformed gpu prop', () => {
    expect(() => parseSimGridPlatform(xml('<prop id="gpus" value="two"/>'), 'gpu.xml')).toThrow(
      /gpu\.xml.*host.*prop gpus: expected a whole number of GPUs, found "two"/,
    );
    expect(() => parseSimGridPlatform(xml('<prop id="gpu_type" value="v100"/>'), 'gpu.xml')).toThrow(/prop gpu_type needs prop gpus/);
    expect(() => parseSimGridPlatform(xml('<prop id="gpus" value="1"/><prop id="gpu_idle_power" value="-3"/>'), 'gpu.xml')).toThrow(
      /prop gpu_idle_power: expected a number >= 0/,
    );
  });
});
