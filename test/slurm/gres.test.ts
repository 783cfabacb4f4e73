/**
 * Slurm's `Gres` and `GresTypes` onto the platform's GPUs: the item syntax (types, counts with suffixes,
 * no_consume, socket bindings), a node line's GPUs, GresTypes checked as slurmctld checks it, and a
 * slurm.conf's platform with its GPUs per node group. Expected values by hand.
 */
import { describe, expect, it } from 'vitest';
import { nodeLineGpus, parseGres, slurmConfPlatform, undeclaredGpus } from '../../src/slurm/gres.js';
import { parseSlurmConf } from '../../src/slurm/slurmConf.js';

describe('parseGres', () => {
  it('reads NAME[:TYPE][:no_consume]:COUNT items', () => {
    expect(parseGres('gpu:v100:4,mps:400,gpu:2(S:0-1),bandwidth:lustre:no_consume:4G,gpu')).toEqual([
      { name: 'gpu', type: 'v100', count: 4, noConsume: false },
      { name: 'mps', type: undefined, count: 400, noConsume: false },
      { name: 'gpu', type: undefined, count: 2, noConsume: false },
      { name: 'bandwidth', type: 'lustre', count: 4 * 1024 ** 3, noConsume: true },
      { name: 'gpu', type: undefined, count: 1, noConsume: false },
    ]);
    expect(parseGres('gpu:k80:2(S:0,1),gpu:k80:2')).toHaveLength(2);
    expect(parseGres('gpu:tesla')).toEqual([{ name: 'gpu', type: 'tesla', count: 1, noConsume: false }]);
  });

  it('says what is wrong with a malformed item', () => {
    expect(() => parseGres('gpu:a:b:2')).toThrow(/expected NAME\[:TYPE\]\[:no_consume\]:COUNT, found 2 types/);
    expect(() => parseGres('gpu::2')).toThrow(/empty field/);
    expect(() => parseGres('4:gpu')).toThrow(/found the name "4"/);
  });
});

describe('a node line’s GPUs', () => {
  it('adds up GPUs of one type and reports the other resources', () => {
    const other: string[] = [];
    expect(nodeLineGpus('gpu:v100:2,gpu:v100:2,mps:200', 'x.conf:3', (g) => other.push(g.name))).toEqual({ count: 4, type: 'v100' });
    expect(other).toEqual(['mps']);
    expect(nodeLineGpus('gpu:8', 'x.conf:3')).toEqual({ count: 8, type: 'gpu' });
    expect(nodeLineGpus(undefined, 'x.conf:3')).toBeUndefined();
    expect(nodeLineGpus('(null)', 'x.conf:3')).toBeUndefined();
  });

  it('refuses two GPU types on one node and a malformed value, naming the line', () => {
    expect(() => nodeLineGpus('gpu:v100:2,gpu:k80:2', 'x.conf:3')).toThrow(/x\.conf:3: .*two types \(v100, k80\).*split the NodeName line/);
    expect(() => nodeLineGpus('gpu:a:b:1', 'x.conf:4')).toThrow(/x\.conf:4: Gres:/);
  });
});

const CONF = `ClusterName=gavel
GresTypes=gpu
SelectType=select/cons_tres
NodeName=v[01-09] CPUs=32 RealMemory=256000 Gres=gpu:v100:4
NodeName=p[01-09] CPUs=32 RealMemory=256000 Gres=gpu:p100:4
NodeName=k[01-09] CPUs=32 RealMemory=256000 Gres=gpu:k80:4,mps:100
NodeName=c[1-2] CPUs=64 RealMemory=512000
PartitionName=gpu Nodes=v[01-09],p[01-09],k[01-09] Default=YES MaxTime=UNLIMITED
PartitionName=cpu Nodes=c[1-2]
`;

describe('a slurm.conf with Gres', () => {
  it('gives its node groups their GPUs (36 V100, 36 P100, 36 K80)', () => {
    const conf = parseSlurmConf(CONF, 'gavel.conf');
    expect(conf.nodeLines.map((l) => l.gpus)).toEqual([{ count: 4, type: 'v100' }, { count: 4, type: 'p100' }, { count: 4, type: 'k80' }, undefined]);
    // nodes alike but for their GPUs are different groups
    expect(conf.platform.groups.map((g) => [g.name, g.count])).toEqual([
      ['v[01-09]', 9],
      ['p[01-09]', 9],
      ['k[01-09]', 9],
      ['c[1-2]', 2],
    ]);
    expect(conf.ignored).toContain('Gres:mps=gpu:k80:4,mps:100 (line 6: generic resource not modelled (GPUs are))');
    expect(conf.ignored.some((i) => /GresTypes|^Gres=/.test(i))).toBe(false);
    const p = slurmConfPlatform(conf);
    expect(p.gpuTypes).toEqual(['v100', 'p100', 'k80']);
    expect(p.gpuTypeSpecs.map((t) => t.count)).toEqual([36, 36, 36]);
    expect(p.nodeName.slice(0, 2)).toEqual(['v01', 'v02']);
    expect(p.nodeName[27]).toBe('c1');
    expect(Array.from(p.nodeGpuCount.slice(26, 29))).toEqual([4, 0, 0]);
    expect(p.partitions.map((q) => [q.name, q.nodes.length])).toEqual([
      ['gpu', 27],
      ['cpu', 2],
    ]);
  });

  it('reads GPUs that GresTypes does not declare, and lists them as ignored (slurmctld would not manage them)', () => {
    const conf = parseSlurmConf(CONF.replace('GresTypes=gpu\n', 'GresTypes=mps\n'), 'gavel.conf');
    expect(conf.nodeLines[0]!.gpus).toEqual({ count: 4, type: 'v100' });
    expect(conf.ignored).toContain('Gres=gpu:v100:4 (line 4: GresTypes (mps) does not list gpu: slurmctld would not manage these GPUs without GresTypes=gpu)');
    expect(undeclaredGpus(undefined, conf.nodeLines).map((u) => u.line)).toEqual([4, 5, 6]);
    expect(undeclaredGpus('gpu', conf.nodeLines)).toEqual([]);
  });
});
