/**
 * The `flow` communication model in the simulator (src/platform/jobNetwork.ts), worked out by hand: a
 * 2-task MPI job on two nodes of a flat cluster streams comm_vol / (2 T) each way; when that exceeds what
 * a 125 MB/s split-duplex link gives with the other direction's acknowledgements (125e6 / 1.05), the job
 * slows by S = 1 / (t_compute + (1 - t_compute) / S_comm); a job that needs less runs at full speed; two
 * such jobs sharing a backbone slow each other. Each stream pays its route latency L once: its factor is
 * 1 / (L / T + d / r). The seed's models are unchanged (their tests stay).
 */
import { describe, expect, it } from 'vitest';
import { Platform } from '../../src/platform/platform.js';
import { parseSimGridPlatform } from '../../src/platform/simgridXml.js';
import { fewSwitchesPolicy } from '../../src/scheduling/resourceSelection.js';
import { opsJob, runListScheduler } from '../helpers.js';

const platform = (attrs = '', lat = '10us') =>
  Platform.fromDescription(
    parseSimGridPlatform(
      `<platform version="4.1"><zone id="w" routing="Full"><cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="${lat}" ${attrs}/></zone></platform>`,
      'c.xml',
    ),
    { comm: 'flow', memory: 'none' },
  );
// 1e11 operations at 1 Gflop/s: T = 100 s alone
const mpi = (id: string, commVol: number, fields = {}) =>
  opsJob(id, 2, { type: 'mpi', nodes: 2, ntasksPerNode: 1, ops: 1e11, reqTime: 1000, commVol, tCompute: 0.5, ...fields });

// a stream's factor: its route latency L paid once over the nominal T, then its volume at rate r (demand d)
const phi = (L: number, T: number, r: number, d: number) => 1 / (L / T + d / r);

describe('flow communication model', () => {
  it('a job whose streams exceed its links slows by its share; one within them runs at full speed', () => {
    // demand per direction 5e10 / (2 x 100) = 2.5e8 B/s; each link carries 1 + 0.05 of the two streams: 125e6 / 1.05;
    // the route n0 -> n1 is n0's up link and n1's down link: L = 20 us
    const sComm = phi(20e-6, 100, 125e6 / 1.05, 2.5e8);
    const r = runListScheduler(platform(), [mpi('heavy', 5e10)]);
    expect(r.byId.get('heavy')!.finish).toBeCloseTo(100 / (1 / (0.5 + 0.5 / sComm)), 6);
    const light = runListScheduler(platform(), [mpi('light', 1e10)]); // 5e7 B/s each way: within the link
    expect(light.byId.get('light')!.finish).toBeCloseTo(100 * (0.5 + 0.5 * (1 + 20e-6 / 100)), 9);
    expect(r.byId.get('heavy')!.commTime).toBe(r.byId.get('heavy')!.finish); // limited its whole run
    expect(light.byId.get('light')!.commTime).toBe(0);
  });

  it('two jobs across a shared backbone slow each other; the second one alone speeds up again', () => {
    // a: T = 100 s, demand 5e7 B/s per direction; b: T = 200 s, 2.5e7 B/s. The 100 MB/s backbone carries
    // the 4 streams with weight 1.05 each, equal latencies: a level of 100e6 / 4.2 each (below both demands)
    // (routes: up link, backbone, down link: L = 21 us)
    const p = platform('bb_bw="100MBps" bb_lat="1us"');
    const r = runListScheduler(p, [mpi('a', 1e10), mpi('b', 1e10, { ops: 2e11 })]);
    const level = 100e6 / 4.2;
    const speed = (sComm: number) => 1 / (0.5 + 0.5 / sComm);
    const aEnd = 100 / speed(phi(21e-6, 100, level, 5e7));
    expect(r.byId.get('a')!.finish).toBeCloseTo(aEnd, 6);
    // then b alone: 2 streams x 1.05 x 2.5e7 fit in the backbone: uncontended (only its latency) for the rest of its 200 s
    const bEnd = aEnd + (200 - aEnd * speed(phi(21e-6, 200, level, 2.5e7))) / speed(phi(21e-6, 200, 2.5e7, 2.5e7));
    expect(r.byId.get('b')!.finish).toBeCloseTo(bEnd, 6);
    // communication time: a is limited all its run; b until a ends, not after
    expect(r.byId.get('a')!.commTime).toBe(r.byId.get('a')!.finish);
    expect(r.byId.get('b')!.commTime).toBe(r.byId.get('a')!.finish);
    expect(r.byId.get('b')!.commTime).toBeCloseTo(aEnd, 6);
  });

  it('latency: each stream pays its route latency once; a job slowed only by it has no communication time', () => {
    // links of 1 ms: L = 2 ms, L / T = 2e-5 (the TCP window bound 4194304 / (2 L) = 1.05e9 B/s is above the links)
    const p = platform('', '1ms');
    const light = runListScheduler(p, [mpi('light', 1e10)]);
    // phi = 1 / (2e-5 + 1): S = 1 / (0.5 + 0.5 (1 + 2e-5)), 100 s of work take 100.001 s
    expect(light.byId.get('light')!.finish).toBeCloseTo(100.001, 9);
    expect(light.byId.get('light')!.commTime).toBe(0);
    // heavy: d / r = 2.5e8 / (125e6 / 1.05) = 2.1, phi = 1 / (2e-5 + 2.1): 100 (0.5 + 0.5 x 2.10002) = 155.001 s
    const heavy = runListScheduler(p, [mpi('heavy', 5e10)]);
    expect(heavy.byId.get('heavy')!.finish).toBeCloseTo(155.001, 9);
    expect(heavy.byId.get('heavy')!.commTime).toBe(heavy.byId.get('heavy')!.finish);
    // the TCP window: links of 0.5 s (L = 1 s) cap every stream at 4194304 / (2 x 1) B/s, below the light
    // job's 5e7: phi = 1 / (1 / 100 + 5e7 / 2097152), and the job is limited by communication all its run
    const far = runListScheduler(platform('', '0.5s'), [mpi('far', 1e10)]);
    const sFar = 1 / (0.5 + 0.5 / (1 / (1 / 100 + 5e7 / 2097152)));
    expect(far.byId.get('far')!.finish).toBeCloseTo(100 / sFar, 6);
    expect(far.byId.get('far')!.commTime).toBe(far.byId.get('far')!.finish);
  });

  it('the flow model needs a network', () => {
    const plain = Platform.fromDescription({ ...platform().description, network: undefined }, { comm: 'flow' });
    expect(() => runListScheduler(plain, [mpi('x', 1e10)])).toThrow(/the flow communication model needs a platform with a network/);
  });

  it('few_switches: the switches of a fat-tree are its leaf switches', () => {
    const p = Platform.fromDescription(
      parseSimGridPlatform(
        '<platform version="4.1"><cluster id="ft" prefix="n" suffix="" radical="0-15" speed="1Gf" bw="125MBps" lat="10us" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2"/></platform>',
        'ft.xml',
      ),
    );
    const sw = Array.from(fewSwitchesPolicy.switchOf(p));
    // 4 leaves of 4 nodes: nodes 4k..4k+3 share a switch, different leaves differ
    for (let n = 0; n < 16; n++) expect(sw[n]).toBe(sw[4 * Math.floor(n / 4)]);
    expect(new Set(sw).size).toBe(4);
  });
});
