/**
 * SimGrid platform XML: units, power states and their IRMaSim power figures, clusters with their
 * radicals and topology attributes, links (split-duplex into _UP/_DOWN), routes; loading .xml wherever a
 * platform is accepted; the native JSON written by `writeNativePlatform` loads back into the same platform;
 * bad files name the element. Expected values are computed by hand from the XML below.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlatform, parsePlatform, writeNativePlatform } from '../../src/platform/loader.js';
import { processorPower } from '../../src/platform/power.js';
import { parseSimGridPlatform } from '../../src/platform/simgridXml.js';
import { parseUnit } from '../../src/platform/units.js';

const XML = `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config><prop id="network/model" value="CM02"/></config>
  <zone id="world" routing="Full">
    <zone id="front" routing="Full">
      <host id="h1" speed="1Gf, 500Mf" core="4">
        <prop id="wattage_per_state" value="100:120:200, 90:95:150"/>
        <prop id="wattage_off" value="10"/>
        <prop id="role" value="master"/>
      </host>
      <host id="h2" speed="1Gf,500Mf" pstate="1">
        <prop id="wattage_per_state" value="100:120:200, 95:150"/>
      </host>
      <router id="gw"/>
      <link id="l1" bandwidth="10Gbps" latency="50us"/>
      <link id="l2" bandwidth="1.5MiBps" latency="1ms" sharing_policy="SPLITDUPLEX"/>
      <link id="lo" bandwidth="1GBps" latency="0" sharing_policy="FATPIPE"/>
      <route src="h1" dst="h2"><link_ctn id="l1"/><link_ctn id="l2" direction="UP"/></route>
      <route src="h1" dst="gw" symmetrical="NO"><link_ctn id="l1"/></route>
    </zone>
    <cluster id="nc" prefix="n" suffix=".x" radical="0-2,5" speed="2Gf" core="2" bw="125MBps" lat="5us"
             bb_bw="2.25GBps" bb_lat="500us" topology="FAT_TREE" topo_parameters="2;2,2;1,2;1,2" loopback_bw="5GBps">
      <prop id="wattage_per_state" value="80:180"/>
    </cluster>
    <link id="bb" bandwidth="5GBps" latency="2us"/>
    <zoneRoute src="front" dst="nc" gw_src="gw" gw_dst="n0.x"><link_ctn id="bb"/></zoneRoute>
  </zone>
</platform>
`;

describe('SimGrid units', () => {
  it('reads speeds, bandwidths, sizes and times with SimGrid prefixes', () => {
    expect(parseUnit('1Gf', 'speed')).toBe(1e9);
    expect(parseUnit('98.095Mf', 'speed')).toBe(98.095 * 1e6);
    expect(parseUnit('2gigaflops', 'speed')).toBe(2e9);
    expect(parseUnit('10Gbps', 'bandwidth')).toBe(1.25e9);
    expect(parseUnit('1.5MiBps', 'bandwidth')).toBe(1.5 * 1024 * 1024);
    expect(parseUnit('125MBps', 'bandwidth')).toBe(125e6);
    expect(parseUnit('1KiB', 'size')).toBe(1024);
    expect(parseUnit('8b', 'size')).toBe(1);
    expect(parseUnit('50us', 'time')).toBe(50 * 1e-6); // as SimGrid computes it (not the double nearest 5e-5)
    expect(parseUnit('2h', 'time')).toBe(7200);
    expect(parseUnit('7', 'time')).toBe(7);
    expect(() => parseUnit('1Gx', 'speed')).toThrow(/unknown speed unit "Gx" in "1Gx" \(expected one of f, kf, Mf/);
    expect(() => parseUnit('fast', 'speed')).toThrow(/cannot read a number in "fast"/);
  });
});

describe('SimGrid platform XML', () => {
  const d = parseSimGridPlatform(XML, 'dir/plat.xml');
  const p = parsePlatform(writeNativePlatform(d), 'roundtrip.json');

  it('hosts become nodes of one processor, grouped by zone, with the current power state', () => {
    expect(d.name).toBe('plat');
    expect(d.clusters.map((c) => c.name)).toEqual(['front', 'nc']);
    expect(p.nodeName).toEqual(['h1', 'h2', 'n0.x', 'n1.x', 'n2.x', 'n5.x']);
    expect(Array.from(p.nodeCoreCount)).toEqual([4, 1, 2, 2, 2, 2]);
    // h1: 1 Gf per core -> 1000 Mops per core; h2 runs pstate 1: 500 Mf; cluster: 2 Gf
    expect(Array.from(p.procMops)).toEqual([1000, 500, 2000, 2000, 2000, 2000]);
    expect(Array.from(p.nodeMops)).toEqual([4000, 500, 4000, 4000, 4000, 4000]);
    expect(Array.from(p.procClockRate)).toEqual([1, 0.5, 2, 2, 2, 2]);
    // comm_bw: the cluster's bw, else 125 MB/s
    expect(Array.from(p.nodeCommBw)).toEqual([125e6, 125e6, 125e6, 125e6, 125e6, 125e6]);
    expect(d.clusters[0]!.groups[0]!.properties).toEqual({ wattage_per_state: '100:120:200, 90:95:150', wattage_off: '10', role: 'master' });
    expect(d.clusters[0]!.groups[0]!.wattage_off).toBe(10);
    expect(d.clusters[0]!.groups[0]!.pstates).toEqual([
      { speed: 1e9, idle: 100, epsilon: 120, all_cores: 200 },
      { speed: 5e8, idle: 90, epsilon: 95, all_cores: 150 },
    ]);
  });

  it("power equals SimGrid's energy plugin: idle, then epsilon + (k/n)(all_cores - epsilon)", () => {
    // h1 (4 cores, pstate 0: 100:120:200): static 120, dynamic (200-120)/4 = 20, min 100/120
    expect([p.procStaticPower[0], p.procDynamicPower[0], p.procMinPower[0]]).toEqual([120, 20, 100 / 120]);
    const h1 = (k: number) => processorPower(k, p.procStaticPower[0]!, p.procDynamicPower[0]!, p.procMinPower[0]!);
    expect(h1(0)).toBeCloseTo(100, 12);
    expect(h1(1)).toBe(140);
    expect(h1(2)).toBe(160);
    expect(h1(4)).toBe(200);
    // h2 (1 core, pstate 1: "95:150" = idle 95, epsilon 95, all 150)
    expect([p.procStaticPower[1], p.procDynamicPower[1], p.procMinPower[1]]).toEqual([95, 55, 1]);
    // cluster: "80:180" on 2 cores
    expect([p.procStaticPower[2], p.procDynamicPower[2], p.procMinPower[2]]).toEqual([80, 50, 1]);
  });

  it('links, routes and the cluster network in SI units', () => {
    const world = d.network!;
    expect(world.id).toBe('world');
    const front = world.zones[0]!;
    expect(front.links).toEqual([
      { id: 'l1', bandwidth: 1.25e9, latency: 50 * 1e-6, sharing_policy: 'SHARED' },
      { id: 'l2_UP', bandwidth: 1.5 * 1024 * 1024, latency: 1e-3, sharing_policy: 'SHARED' },
      { id: 'l2_DOWN', bandwidth: 1.5 * 1024 * 1024, latency: 1e-3, sharing_policy: 'SHARED' },
      { id: 'lo', bandwidth: 1e9, latency: 0, sharing_policy: 'FATPIPE' },
    ]);
    expect(front.routers).toEqual(['gw']);
    expect(front.routes).toEqual([
      { src: 'h1', dst: 'h2', links: [{ id: 'l1' }, { id: 'l2', direction: 'UP' }], symmetrical: true },
      { src: 'h1', dst: 'gw', links: [{ id: 'l1' }], symmetrical: false },
    ]);
    const nc = world.zones[1]!;
    expect(nc.routing).toBe('Cluster');
    expect(nc.hosts).toEqual(['n0.x', 'n1.x', 'n2.x', 'n5.x']);
    expect(nc.cluster).toEqual({
      topology: 'FAT_TREE',
      topo_parameters: '2;2,2;1,2;1,2',
      bw: 125e6,
      lat: 5 * 1e-6,
      sharing_policy: 'SPLITDUPLEX',
      bb_bw: 2.25e9,
      bb_lat: 500 * 1e-6,
      loopback_bw: 5e9,
      radicals: [0, 1, 2, 5],
    });
    expect(world.routes).toEqual([{ src: 'front', dst: 'nc', gw_src: 'gw', gw_dst: 'n0.x', links: [{ id: 'bb' }], symmetrical: true }]);
  });

  it('the native JSON written for it loads back into the same description, a cluster written once as a node group', () => {
    type Entry = { id?: string; group?: string; count?: number; names?: string[] };
    const native = writeNativePlatform(d) as { clusters: { nodes: Entry[] }[] };
    // the cluster's hosts n0.x, n1.x, n2.x, n5.x follow no rule: one group with their names
    expect(native.clusters[1]!.nodes.map((n) => [n.group, n.id, n.count, n.names])).toEqual([['nc', undefined, 4, ['n0.x', 'n1.x', 'n2.x', 'n5.x']]]);
    expect(native.clusters[0]!.nodes.map((n) => [n.group, n.id, n.count])).toEqual([
      [undefined, 'h1', undefined],
      [undefined, 'h2', undefined],
    ]);
    expect(p.groupNames).toEqual(['h1', 'h2', 'nc']);
    expect(Array.from(p.groupNodeCount)).toEqual([1, 1, 4]);
    expect(p.description.clusters).toEqual(d.clusters);
    expect(p.description.network).toEqual(d.network);
    const flat = parseSimGridPlatform(
      '<platform version="4.1"><cluster id="A" prefix="a" suffix="" radical="0-511" speed="1Gf" bw="1GBps" lat="5us" bb_bw="3GBps" bb_lat="3us"/></platform>',
      'c.xml',
    );
    const w = writeNativePlatform(flat) as { clusters: { nodes: { id?: string; group?: string; count?: number }[] }[] };
    expect(w.clusters[0]!.nodes.map((n) => [n.group, n.id, n.count])).toEqual([['A', 'a', 512]]);
    expect(parsePlatform(w, 'c.json').description.clusters).toEqual(flat.clusters);
    expect(flat.network!.routers).toEqual(['aA_router']);
  });

  it('loads .xml files wherever a platform file is accepted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-sgxml-'));
    const f = join(dir, 'p.xml');
    writeFileSync(f, XML);
    const q = loadPlatform(f, { models: { comm: 'step' } });
    expect(q.nodeCount).toBe(6);
    expect(q.models.comm).toBe('step');
  });

  it('bad files name the element and what was expected', () => {
    const bad = (body: string) => () => parseSimGridPlatform(`<platform version="4.1"><zone id="z" routing="Full">${body}</zone></platform>`, 'b.xml');
    expect(bad('<host id="h" speed="1Gx"/>')).toThrow(/b\.xml: <platform> > <zone id="z"> > <host id="h">: attribute speed: unknown speed unit "Gx"/);
    expect(bad('<host id="h"/>')).toThrow(/<host id="h">: missing attribute speed/);
    expect(bad('<host id="h" speed="1f"/><host id="h" speed="1f"/>')).toThrow(/the name "h" is already used/);
    expect(bad('<host id="h" speed="1f" pstate="2"/>')).toThrow(/pstate 2 out of range: the host has 1 power states/);
    expect(bad('<host id="h" speed="1f"><prop id="wattage_per_state" value="1:2:3:4"/></host>')).toThrow(/expected Idle:AllCores or Idle:Epsilon:AllCores/);
    expect(bad('<link id="l" bandwidth="1GBps" sharing_policy="HALF"/><host id="h" speed="1f"/>')).toThrow(
      /<link id="l">: attribute sharing_policy: expected one of SHARED, SPLITDUPLEX, FULLDUPLEX, FATPIPE, found "HALF"/,
    );
    expect(bad('<cabinet id="c"/>')).toThrow(/<cabinet> is not supported/);
    expect(() => parseSimGridPlatform('<platform version="4.1"><zone id="z">', 'u.xml')).toThrow(/u\.xml: malformed XML at line 1/);
    expect(() => parseSimGridPlatform('<platform version="3"><zone id="z" routing="Full"/></platform>', 'v.xml')).toThrow(/versions 4\.x/);
  });
});
