import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import { compressHostList, expandHostList, parseSlurmTime } from '../../src/slurm/hostList.js';
import { parseSlurmConf, readSlurmConf } from '../../src/slurm/slurmConf.js';

const SITE = `# a site
ClusterName=site
SlurmctldHost=head
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=5,bf_window=120,bf_resolution=30,bf_max_job_test=50,bf_continue,default_queue_depth=20,sched_min_interval=500000,max_rpc_cnt=8
PriorityType=priority/multifactor
PriorityWeightAge=100
PriorityWeightFairshare=2000
PriorityWeightJobSize=30
PriorityWeightPartition=400
PriorityMaxAge=1-0
PriorityDecayHalfLife=14-0
PriorityCalcPeriod=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
PreemptType=preempt/partition_prio
PreemptMode=SUSPEND,GANG
NodeName=DEFAULT RealMemory=64000
NodeName=c[01-04] CPUs=16 Features=ib
NodeName=g[1-2] Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 Features=gpu,ib Gres=gpu:2
PartitionName=batch Nodes=c[01-04],g[1-2] MaxTime=2-00:00:00 PriorityTier=1 PriorityJobFactor=1 Default=YES State=UP
PartitionName=prio Nodes=c[03-04] MaxTime=60 PriorityTier=5 PriorityJobFactor=3 PreemptMode=REQUEUE MaxNodes=2
`;

describe('host lists and times', () => {
  it('expands ranges, lists, padding and two dimensions', () => {
    expect(expandHostList('n[1-3,7],m[01-02]')).toEqual(['n1', 'n2', 'n3', 'n7', 'm01', 'm02']);
    expect(expandHostList('r[1-2]n[1-2]')).toEqual(['r1n1', 'r1n2', 'r2n1', 'r2n2']);
    expect(expandHostList('head')).toEqual(['head']);
    expect(() => expandHostList('n[3-1]')).toThrow(/goes down/);
    expect(() => expandHostList('n[1-')).toThrow(/unclosed/);
  });

  it('compresses back (property: expand(compress(names)) has the same names)', () => {
    expect(compressHostList(['n1', 'n2', 'n3', 'n7'])).toBe('n[1-3,7]');
    expect(compressHostList(['c01', 'c02'])).toBe('c[01-02]');
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 40 }), (nums) => {
        const names = nums.map((n) => `x${n}`);
        expect(new Set(expandHostList(compressHostList(names)))).toEqual(new Set(names));
      }),
    );
  });

  it('reads Slurm times', () => {
    expect(parseSlurmTime('5')).toBe(300);
    expect(parseSlurmTime('1:30')).toBe(90);
    expect(parseSlurmTime('2:00:00')).toBe(7200);
    expect(parseSlurmTime('7-0')).toBe(604800);
    expect(parseSlurmTime('1-2:03:04')).toBe(93784);
    expect(parseSlurmTime('UNLIMITED')).toBe(Number.POSITIVE_INFINITY);
    expect(() => parseSlurmTime('soon')).toThrow(/expected a Slurm time/);
  });
});

describe('parseSlurmConf', () => {
  const c = parseSlurmConf(SITE, 'site.conf');

  it('nodes: ranges, CPUs from sockets x cores x threads, memory defaults, features', () => {
    expect(c.nodeLines.map((n) => [n.names.length, n.cpus, n.realMemory, n.features])).toEqual([
      [4, 16, 64000, ['ib']],
      [2, 8, 64000, ['gpu', 'ib']],
    ]);
  });

  it('groups split where partitions differ; CPUs and memory (CR_Core_Memory) per node', () => {
    expect(c.wholeNodes).toBe(false);
    expect(c.memory).toBe(true);
    expect(c.platform.groups).toEqual([
      { name: 'c[01-02]', count: 2, cores: 16, memory_mb: 64000 },
      { name: 'c[03-04]', count: 2, cores: 16, memory_mb: 64000 },
      { name: 'g[1-2]', count: 2, cores: 8, memory_mb: 64000 },
    ]);
    expect(c.platform.partitions).toEqual([
      { name: 'batch', groups: ['c[01-02]', 'c[03-04]', 'g[1-2]'], max_time: 172800, priority_tier: 1, priority_job_factor: 1, preempt_mode: 'suspend' },
      { name: 'prio', groups: ['c[03-04]'], max_time: 3600, max_nodes: 2, priority_tier: 5, priority_job_factor: 3, preempt_mode: 'requeue' },
    ]);
    expect(c.defaultPartition).toBe(0);
    expect(new SlurmPlatform(c.platform).totalCores).toBe(4 * 16 + 2 * 8);
  });

  it('scheduler, backfill and multifactor settings', () => {
    expect(c.config).toMatchObject({
      backfill: true,
      bfInterval: 5,
      bfWindow: 7200,
      bfResolution: 30,
      bfMaxJobTest: 50,
      queueDepth: 20,
      schedMinInterval: 0.5,
    });
    expect(c.config.priority).toMatchObject({
      weightAge: 100,
      weightFairshare: 2000,
      weightJobSize: 30,
      weightPartition: 400,
      weightQos: 0,
      maxAge: 86400,
      decayHalfLife: 14 * 86400,
      calcPeriod: 120,
    });
    expect(c.bfContinue).toBe(true);
  });

  it('batch_sched_delay: seconds between the background main passes (0: every tick, 1 s)', () => {
    const base = 'NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL\n';
    expect(parseSlurmConf(`SchedulerParameters=batch_sched_delay=10\n${base}`).config.batchSchedDelay).toBe(10);
    expect(parseSlurmConf(`SchedulerParameters=batch_sched_delay=0\n${base}`).config.batchSchedDelay).toBe(1);
    expect(() => parseSlurmConf(`SchedulerParameters=batch_sched_delay=soon\n${base}`, 'x.conf')).toThrow(/x\.conf:1/);
  });

  it('reports each unmodelled setting once, with its line', () => {
    expect(c.ignored).toContain('ClusterName=site (line 2)');
    expect(c.ignored).toContain('SchedulerParameters:max_rpc_cnt=8 (line 5: scheduler parameter not modelled)');
    expect(c.ignored.some((x) => x.startsWith('SelectTypeParameters'))).toBe(false);
    expect(c.ignored.filter((x) => x.startsWith('Gres=')).length).toBe(1);
    const twice = parseSlurmConf(`${SITE}Foo=1\nFoo=2\n`);
    expect(twice.ignored.filter((x) => x.startsWith('Foo=')).length).toBe(1);
  });

  it('Slurm 22.05 defaults: backfill, priority/basic (every weight 0), bf_max_job_test 500, no scheduling at submission', () => {
    const d = parseSlurmConf('NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL\n');
    expect(d.config).toMatchObject({
      backfill: true,
      bfInterval: 30,
      bfWindow: 86400,
      bfResolution: 60,
      bfMaxJobTest: 500,
      queueDepth: 100,
      schedOnSubmit: false,
      schedDelay: 0,
      batchSchedDelay: 3,
      schedInterval: 60,
      bfGrid: true,
      bfSlurmRounding: true,
      nodeSelect: true,
      bfWillRun: true,
    });
    expect(d.config.priority).toMatchObject({ weightAge: 0, weightFairshare: 0, weightJobSize: 0, weightPartition: 0 });
    expect(d.platform.groups).toEqual([{ name: 'n[1-2]', count: 2, cores: 4 }]);
  });

  it('whole nodes: select/linear or OverSubscribe=EXCLUSIVE everywhere count nodes', () => {
    const lin = parseSlurmConf('SelectType=select/linear\nSchedulerType=sched/builtin\nNodeName=n[1-8] CPUs=2\nPartitionName=p Nodes=n[1-8]\n');
    expect(lin.wholeNodes).toBe(true);
    expect(lin.config.nodeSelect).toBe(true);
    expect(lin.config.backfill).toBe(false);
    expect(lin.platform.groups).toEqual([{ name: 'n[1-8]', count: 8, cores: 1, cpus: 2 }]);
    const ex = parseSlurmConf('NodeName=n1 CPUs=2\nNodeName=n2 CPUs=2\nPartitionName=p Nodes=n[1-2] OverSubscribe=EXCLUSIVE\n');
    expect(ex.wholeNodes).toBe(true);
    expect(ex.config.nodeSelect).toBe(true);
    expect(ex.config.bfWillRun).toBe(true);
    expect(ex.groupCpus).toEqual([2]);
    expect(ex.platform.groups).toEqual([{ name: 'n[1-2]', count: 2, cores: 1, cpus: 2 }]);
  });

  it('malformed lines are errors with the file and line', () => {
    expect(() => parseSlurmConf('NodeName=n1 CPUs\n', 'x.conf')).toThrow(/x\.conf:1: expected Key=Value, found "CPUs"/);
    expect(() => parseSlurmConf('# c\nNodeName=n1 CPUs=many\nPartitionName=p Nodes=n1\n', 'x.conf')).toThrow(/x\.conf:2: \$\.cpus: /);
    expect(() => parseSlurmConf('NodeName=n1\nPartitionName=p Nodes=n2\n', 'x.conf')).toThrow(/x\.conf:2: Nodes: node n2 has no NodeName line/);
    expect(() => parseSlurmConf('SchedulerParameters=bf_interval=x\nNodeName=n1\nPartitionName=p Nodes=n1\n', 'x.conf')).toThrow(/x\.conf:1: \$\.bf_interval/);
    expect(() => parseSlurmConf('SchedulerType=sched/wiki\nNodeName=n1\nPartitionName=p Nodes=n1\n', 'x.conf')).toThrow(
      /x\.conf:1: SchedulerType: expected sched\/backfill or sched\/builtin/,
    );
    expect(() => parseSlurmConf('PartitionName=p Nodes=ALL\n', 'x.conf')).toThrow(/no NodeName line/);
    expect(() => parseSlurmConf('NodeName=n1\nPartitionName=p MaxTime=soon\n', 'x.conf')).toThrow(/x\.conf:2: \$\.maxtime: expected a Slurm time/);
  });

  it('Include reads a file beside the conf', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-conf-'));
    writeFileSync(join(dir, 'nodes.conf'), 'NodeName=n[1-3] CPUs=4\n');
    writeFileSync(join(dir, 'slurm.conf'), 'Include nodes.conf\nPartitionName=p Nodes=ALL Default=YES\n');
    expect(readSlurmConf(join(dir, 'slurm.conf')).platform.groups).toEqual([{ name: 'n[1-3]', count: 3, cores: 4 }]);
    expect(() => readSlurmConf(join(dir, 'none.conf'))).toThrow(/none\.conf: cannot read/);
  });
});
