/**
 * What slurm-agent reads of a Slurm job and how it decides placements Slurm accepts exactly, without a
 * live cluster: `requestOf` on `squeue --json` jobs as Slurm 22.05 printed them (captured from
 * deploy/slurm/local-cluster.sh's cluster), `parsePartitions` on `scontrol show partition -o`, the
 * constraint reader and `SlurmPlacement` (shapes, jobs Slurm can never run as asked, constrained
 * placements, reconciliation with sinfo). The live side is test/cli/slurmAgentRequests.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import { parsePlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { platformPolicy } from '../../src/scheduling/placement.js';
import { type SlurmNode, parsePartitions } from '../../src/slurm/client.js';
import { type SlurmClusterView, SlurmPlacement, parseConstraint } from '../../src/slurm/mirror.js';
import { type RequestFields, type SlurmRequest, requestOf } from '../../src/slurm/request.js';
import { type Job, makeJob } from '../../src/workload/job.js';

// squeue --json of three held jobs (fields the agent reads), Slurm 22.05.8:
//   sbatch -H -N 2-3 --exclusive -t 5
//   sbatch -H -n 6 -c 2 --ntasks-per-node 2 --mem-per-cpu 300 -p debug,big -C "fast&ib" -t 2 --nice=10 -x n4
//   sbatch -H -n 3 --mem 1500 -d afterok:20 -t 1:30
const SQUEUE: RequestFields[] = [
  {
    partition: 'debug',
    cpus: 1,
    tasks: 2,
    node_count: 2,
    max_nodes: 3,
    cpus_per_task: null,
    tasks_per_node: 0,
    tres_req_str: 'cpu=1,mem=8000M,node=2,billing=1',
    memory_per_node: null,
    memory_per_cpu: null,
    shared: 'none',
    features: '',
    time_limit: 5,
    dependency: '',
    nice: null,
    qos: '',
    contiguous: false,
    excluded_nodes: '',
  },
  {
    partition: 'debug,big',
    cpus: 12,
    tasks: 6,
    node_count: 3,
    max_nodes: 0,
    cpus_per_task: null,
    tasks_per_node: 2,
    tres_req_str: 'cpu=12,mem=3600M,node=1,billing=12',
    memory_per_node: null,
    memory_per_cpu: 300,
    shared: null,
    features: 'fast&ib',
    time_limit: 2,
    dependency: '',
    nice: 10,
    qos: '',
    contiguous: false,
    excluded_nodes: 'n4',
  },
  {
    partition: 'debug',
    cpus: 3,
    tasks: 3,
    node_count: 1,
    max_nodes: 0,
    cpus_per_task: null,
    tasks_per_node: 0,
    tres_req_str: 'cpu=3,mem=1500M,node=1,billing=3',
    memory_per_node: 1500,
    memory_per_cpu: null,
    shared: null,
    features: '',
    time_limit: 2,
    dependency: 'afterok:20(unfulfilled)',
    nice: null,
    qos: '',
    contiguous: false,
    excluded_nodes: '',
  },
];

const PARTITIONS = [
  'PartitionName=debug AllowGroups=ALL Default=YES QoS=N/A DefaultTime=NONE MaxNodes=UNLIMITED MaxTime=UNLIMITED MinNodes=0 Nodes=n[1-4] PriorityJobFactor=1 PriorityTier=1 OverSubscribe=NO State=UP TotalCPUs=16 TotalNodes=4 DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED',
  'PartitionName=big AllowGroups=ALL Default=NO QoS=N/A MaxTime=1-00:00:00 Nodes=n[1-2] PriorityJobFactor=1 PriorityTier=2 OverSubscribe=EXCLUSIVE State=UP DefMemPerCPU=700 MaxMemPerNode=UNLIMITED',
].join('\n');

describe('a Slurm job as squeue --json reports it (requestOf)', () => {
  it('reads node counts, tasks, CPUs per task, memory, partitions, constraint, limits, dependency and nice', () => {
    const [a, b, c] = SQUEUE.map(requestOf) as [SlurmRequest, SlurmRequest, SlurmRequest];
    // -N 2-3 --exclusive: the minimum from tres_req_str, the maximum from max_nodes
    expect(a).toMatchObject({ minNodes: 2, maxNodes: 3, tasks: 2, cpusPerTask: 1, exclusive: true, partitions: ['debug'], timeLimit: 300 });
    expect(a).toMatchObject({ memPerNode: null, memPerCpu: null, dependency: '', nice: 0, excludedNodes: [] });
    // -n 6 -c 2: cpus / tasks while pending (node_count 3 is Slurm's estimate, not the minimum)
    expect(b).toMatchObject({ minNodes: 1, maxNodes: Number.POSITIVE_INFINITY, tasks: 6, cpusPerTask: 2, tasksPerNode: 2, memPerCpu: 300 });
    expect(b).toMatchObject({ partitions: ['debug', 'big'], features: 'fast&ib', nice: 10, excludedNodes: ['n4'], exclusive: false });
    // -t 1:30 is rounded up to whole minutes by Slurm
    expect(c).toMatchObject({ tasks: 3, memPerNode: 1500, dependency: 'afterok:20(unfulfilled)', timeLimit: 120 });
    expect(requestOf({ ...SQUEUE[2]!, time_limit: null }).timeLimit).toBe(Number.POSITIVE_INFINITY);
    expect(requestOf({ ...SQUEUE[2]!, time_limit: 0xfffffffe }).timeLimit).toBe(Number.POSITIVE_INFINITY);
    expect(requestOf({ ...SQUEUE[1]!, excluded_nodes: 'n[2-3],n5' }).excludedNodes).toEqual(['n2', 'n3', 'n5']);
  });

  it('reads partitions from scontrol show partition -o', () => {
    const [debug, big] = parsePartitions(`${PARTITIONS}\n`);
    expect(debug).toEqual({
      name: 'debug',
      nodes: ['n1', 'n2', 'n3', 'n4'],
      exclusive: false,
      maxTime: Number.POSITIVE_INFINITY,
      defMemPerNode: null,
      defMemPerCpu: null,
      priorityTier: 1,
    });
    expect(big).toMatchObject({ name: 'big', nodes: ['n1', 'n2'], exclusive: true, maxTime: 86400, defMemPerCpu: 700, priorityTier: 2 });
  });

  it('reads constraints: & and , are AND, | is OR (binding tighter); counts and negation are refused', () => {
    expect(parseConstraint('')(['x'])).toBe(true);
    expect(parseConstraint('fast&ib')(['fast', 'ib'])).toBe(true);
    expect(parseConstraint('fast&ib')(['fast'])).toBe(false);
    expect(parseConstraint('fast,ib')(['ib'])).toBe(false);
    expect(parseConstraint('slow|ib&fast')(['ib', 'fast'])).toBe(true);
    expect(parseConstraint('slow|ib&fast')(['slow'])).toBe(false);
    expect(parseConstraint('[slow|fast]')(['fast'])).toBe(true);
    expect(() => parseConstraint('fast*2')).toThrow(/not supported/);
    expect(() => parseConstraint('!slow')).toThrow(/not supported/);
    expect(() => parseConstraint('fast&')).toThrow(/empty feature/);
  });
});

/** Four nodes of 4 CPUs, n1-n2 with 4,000 MB and features fast (n1 also ib), n3-n4 with 2,000 MB and slow. */
function cluster(memory: boolean, defMemPerCpu: number | null = null): { platform: Platform; names: string[]; view: SlurmClusterView } {
  const names = ['n1', 'n2', 'n3', 'n4'];
  const mem = [4000, 4000, 2000, 2000];
  const feats = [['fast', 'ib'], ['fast'], ['slow'], ['slow']];
  const nodes: SlurmNode[] = names.map((name, i) => ({
    name,
    cpus: 4,
    memoryMb: mem[i]!,
    state: 'idle',
    stateFlags: [],
    partitions: i < 2 ? ['debug', 'big'] : ['debug'],
    features: feats[i]!,
    allocCpus: 0,
    allocMemoryMb: 0,
  }));
  const platform = parsePlatform(
    {
      name: 'slurm',
      models: { memory: 'none', comm: 'shared' },
      clusters: [
        {
          id: 'slurm',
          nodes: names.map((type, i) => ({
            count: 1,
            type,
            memory_gb: mem[i]! / 1024,
            processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1, static_power: 0, dynamic_power: 0, min_power: 0 }],
          })),
        },
      ],
    },
    'test',
  );
  const partitions = parsePartitions(PARTITIONS).map((p) => (p.name === 'big' ? { ...p, defMemPerCpu: null } : p));
  return { platform, names, view: { nodes, partitions, memory, defMemPerCpu, defMemPerNode: null } };
}

const req = (o: Partial<SlurmRequest>): SlurmRequest => ({ ...requestOf({ ...SQUEUE[2]!, dependency: '', memory_per_node: null }), ...o });

/** Registers Slurm job `id` with request `r` and submits its mirror job (of the shape `register` gives) to the mirror `sim`. */
function mirrorJob(pl: SlurmPlacement, sim: ClusterSimulator, id: string, r: SlurmRequest): Job {
  const s = pl.register(id, r);
  if (!('shape' in s)) throw new Error(s.never);
  const { ntasks, type, nodes, ntasksPerNode } = s.shape;
  return sim.liveSubmit(
    makeJob({ id, subtime: 0, ntasks, type, nodes: type === 'seq' ? 1 : nodes, ntasksPerNode, reqTime: 60, runtime: Infinity, work: 'delay' }),
  );
}

/** The nodes (names) and CPUs per node of a placement. */
function layout(pl: SlurmPlacement, cores: Int32Array | null): Record<string, number> | null {
  if (cores === null) return null;
  return Object.fromEntries([...pl.layout(cores)].map(([n, c]) => [pl.nodeNames[n]!, c]));
}

describe('placements Slurm accepts exactly (SlurmPlacement)', () => {
  it('mirror shapes: whole nodes, node counts, tasks per node, tasks alone', () => {
    const { platform, names, view } = cluster(true);
    const pl = new SlurmPlacement(platform, names, view);
    expect(pl.register('a', requestOf(SQUEUE[0]!))).toEqual({ shape: { ntasks: 8, type: 'mpi', nodes: 2, ntasksPerNode: 4, whole: true } });
    expect(pl.register('b', req({ tasks: 6, cpusPerTask: 2, tasksPerNode: 2 }))).toEqual({
      shape: { ntasks: 12, type: 'mpi', nodes: 3, ntasksPerNode: 4, whole: false },
    });
    // --ntasks-per-node P: Slurm 22.05 runs P tasks on each node of a job of several tasks, its tasks rounded
    // up (live, CR_CPU on 4-CPU nodes: -n 3 --ntasks-per-node 2 ran 4 tasks on 2 nodes, -n 3 -c 2 --ntasks-per-node 2
    // 8 CPUs on 2, -n 5 -N 2 --ntasks-per-node 4 8 on 2, -n 2 --ntasks-per-node 3 3 on 1; -n 1 --ntasks-per-node 2 1 CPU)
    expect(pl.register('tpn3', req({ tasks: 3, tasksPerNode: 2 }))).toEqual({ shape: { ntasks: 4, type: 'mpi', nodes: 2, ntasksPerNode: 2, whole: false } });
    expect(pl.register('tpn3c2', req({ tasks: 3, cpusPerTask: 2, tasksPerNode: 2 }))).toEqual({
      shape: { ntasks: 8, type: 'mpi', nodes: 2, ntasksPerNode: 4, whole: false },
    });
    expect(pl.register('tpn5', req({ tasks: 5, minNodes: 2, tasksPerNode: 4 }))).toEqual({
      shape: { ntasks: 8, type: 'mpi', nodes: 2, ntasksPerNode: 4, whole: false },
    });
    expect(pl.register('tpn2', req({ tasks: 2, tasksPerNode: 3 }))).toEqual({ shape: { ntasks: 3, type: 'seq', nodes: 1, ntasksPerNode: 0, whole: false } });
    expect(pl.register('tpn1', req({ tasks: 1, tasksPerNode: 2 }))).toEqual({ shape: { ntasks: 1, type: 'seq', nodes: 1, ntasksPerNode: 0, whole: false } });
    expect(pl.register('c', req({ tasks: 3, minNodes: 3 }))).toEqual({ shape: { ntasks: 3, type: 'mpi', nodes: 3, ntasksPerNode: 0, whole: false } });
    expect(pl.register('d', req({ tasks: 3, maxNodes: 1 }))).toEqual({ shape: { ntasks: 3, type: 'seq', nodes: 1, ntasksPerNode: 0, whole: false } });
    expect(pl.register('e', req({ tasks: 5 }))).toEqual({ shape: { ntasks: 5, type: 'mpi', nodes: 0, ntasksPerNode: 0, whole: false } });
    // a partition with OverSubscribe=EXCLUSIVE gives whole nodes without --exclusive
    expect(pl.register('f', req({ tasks: 1, partitions: ['big'] }))).toMatchObject({ shape: { whole: true, nodes: 1, ntasks: 4 } });
    expect(pl.has('f')).toBe(true);
    pl.forget('f');
    expect(pl.has('f')).toBe(false);
  });

  it('jobs Slurm can never run as asked on these nodes are reported, not registered', () => {
    const { platform, names, view } = cluster(true);
    const pl = new SlurmPlacement(platform, names, view);
    const never = (r: SlurmRequest) => {
      const x = pl.register('x', r);
      expect(pl.has('x')).toBe(false);
      return 'never' in x ? x.never : null;
    };
    expect(never(req({ partitions: ['gpu'] }))).toMatch(/partition gpu has none of the managed nodes/);
    expect(never(req({ features: 'fast&slow' }))).toMatch(/no node of partition debug has what it asks/);
    expect(never(req({ features: 'fast*2' }))).toMatch(/not supported/);
    expect(never(req({ memPerNode: 5000 }))).toMatch(/no node/);
    expect(never(req({ cpusPerTask: 5 }))).toMatch(/no node/);
    expect(never(req({ minNodes: 3, features: 'fast' }))).toMatch(/asks for 3 nodes; its partition has 2/);
    expect(never(req({ minNodes: 2, exclusive: true, excludedNodes: ['n1', 'n2', 'n3'] }))).toMatch(/asks for 2 nodes/);
    // memory the slow nodes do not have: only n1-n2 are eligible, a third node cannot be found
    expect(never(req({ memPerNode: 3000, minNodes: 3 }))).toMatch(/asks for 3 nodes; its partition has 2/);
  });

  it('constrained placements: eligible nodes only, whole tasks, tasks per node, memory, idle nodes for whole-node jobs', () => {
    const { platform, names, view } = cluster(true, 500);
    const pl = new SlurmPlacement(platform, names, view);
    const sim = new ClusterSimulator(platform, [], { workloadName: 'mirror' });
    const policy = pl.constrain(platformPolicy);
    const job = (id: string, r: SlurmRequest) => mirrorJob(pl, sim, id, r);
    const place = (j: ReturnType<typeof job>) => layout(pl, policy.place(sim, j, 'first_fit'));

    // -C slow: n3-n4 only
    const slow = job('slow', req({ tasks: 6, features: 'slow' }));
    expect(place(slow)).toEqual({ n3: 4, n4: 2 });
    // -c 3: one task per node (3 of a node's 4 CPUs), never a split task
    const c3 = job('c3', req({ tasks: 2, cpusPerTask: 3 }));
    expect(place(c3)).toEqual({ n1: 3, n2: 3 });
    // --ntasks-per-node 1 -n 3, -x n1: three nodes, one each, not n1
    const tpn = job('tpn', req({ tasks: 3, tasksPerNode: 1, excludedNodes: ['n1'] }));
    expect(place(tpn)).toEqual({ n2: 1, n3: 1, n4: 1 });
    // memory: --mem-per-cpu 1000 on n3 (2,000 MB): at most two CPUs there
    const m = job('m', req({ tasks: 4, memPerCpu: 1000, features: 'slow' }));
    expect(place(m)).toEqual({ n3: 2, n4: 2 });

    // n1 busy with 1 CPU: a whole-node job (--exclusive -N 2) takes the idle n2 and n3, never n1
    const one = job('one', req({ tasks: 1, maxNodes: 1, features: 'ib' }));
    const c1 = policy.place(sim, one, 'first_fit')!;
    expect(layout(pl, c1)).toEqual({ n1: 1 });
    sim.startJob(one, c1);
    const whole = job('whole', req({ tasks: 2, minNodes: 2, maxNodes: 2, exclusive: true }));
    expect(place(whole)).toEqual({ n2: 4, n3: 4 });
    // ... and a shared job does not go on a node a whole-node job holds
    const w = policy.place(sim, whole, 'first_fit')!;
    sim.startJob(whole, w);
    expect(place(job('after', req({ tasks: 4 })))).toEqual({ n1: 3, n4: 1 });
    // accepts: a placement of the wrong node count, or on a node outside its partitions and constraint, is refused
    expect(pl.accepts(whole, Int32Array.from([4, 5, 6, 7]))).toBe(false);
    expect(pl.accepts(slow, Int32Array.from([0, 1, 2, 3, 8, 9]))).toBe(false);
    expect(pl.accepts(slow, Int32Array.from([8, 9, 10, 11, 12, 13]))).toBe(true);
  });

  it("reconcile: Slurm's view from sinfo (nodes it will not use, CPUs and memory held by jobs outside the mirror)", () => {
    const { platform, names, view } = cluster(true, 500);
    const pl = new SlurmPlacement(platform, names, view);
    const sim = new ClusterSimulator(platform, [], { workloadName: 'mirror' });
    const policy = pl.constrain(platformPolicy);
    const s = pl.register('j', req({ tasks: 4 }));
    if (!('shape' in s)) throw new Error(s.never);
    const j = sim.liveSubmit(makeJob({ id: 'j', subtime: 0, ntasks: 4, type: 'mpi', nodes: 0, reqTime: 60, runtime: Infinity, work: 'delay' }));
    const sinfo = (o: Record<string, Partial<SlurmNode>>): SlurmNode[] => view.nodes.map((n) => ({ ...n, ...(o[n.name] ?? {}) }));
    // n1 drained, n2 with 3 CPUs of another job, n3 with all its memory allocated: 1 CPU on n2, 3 on n4
    pl.reconcile(sim, sinfo({ n1: { state: 'idle', stateFlags: ['drain'] }, n2: { state: 'mixed', allocCpus: 3 }, n3: { allocMemoryMb: 2000 } }), new Set());
    expect(layout(pl, policy.place(sim, j, 'first_fit'))).toEqual({ n2: 1, n4: 3 });
    // a node sinfo does not list is unusable; a later poll frees them again
    pl.reconcile(sim, sinfo({}).slice(2), new Set());
    expect(layout(pl, policy.place(sim, j, 'first_fit'))).toEqual({ n3: 4 });
    pl.reconcile(sim, sinfo({}), new Set());
    expect(layout(pl, policy.place(sim, j, 'first_fit'))).toEqual({ n1: 4 });
    // a decided job Slurm has not started yet (pending) is not counted twice: its CPUs are the mirror's, not another's
    const cores = policy.place(sim, j, 'first_fit')!;
    sim.startJob(j, cores);
    pl.reconcile(sim, sinfo({}), new Set(['j']));
    const s2 = pl.register('k', req({ tasks: 4 }));
    if (!('shape' in s2)) throw new Error(s2.never);
    const k = sim.liveSubmit(makeJob({ id: 'k', subtime: 0, ntasks: 4, type: 'mpi', nodes: 0, reqTime: 60, runtime: Infinity, work: 'delay' }));
    expect(layout(pl, policy.place(sim, k, 'first_fit'))).toEqual({ n2: 4 });
    // once Slurm runs it (sinfo counts its CPUs and memory), the same: the mirror's own job is not another's
    pl.reconcile(sim, sinfo({ n1: { state: 'allocated', allocCpus: 4, allocMemoryMb: 2000 } }), new Set());
    expect(layout(pl, policy.place(sim, k, 'first_fit'))).toEqual({ n2: 4 });
  });
  it('a decided job of tasks on several nodes closes its nodes to new jobs until Slurm has laid it out (whole-node, one-node and full --ntasks-per-node jobs do not)', () => {
    // the live failure this guards against: job 14 (-n 5) decided on n1,n2,n4 as 2,1,2 while n1 had 2 CPUs free; a
    // job on n1 ended before slurmctld started it, so Slurm gave it 3,1,1 (the first nodes of the list as much as
    // they have free); job 15 (-n 5), decided meanwhile on n1,n2 as 2,3, found 1 CPU on n1 and Slurm added n3
    const { platform, names, view } = cluster(false);
    const pl = new SlurmPlacement(platform, names, view);
    const sim = new ClusterSimulator(platform, [], { workloadName: 'mirror' });
    const policy = pl.constrain(platformPolicy);
    const add = (id: string, r: SlurmRequest) => mirrorJob(pl, sim, id, r);
    const start = (j: ReturnType<typeof add>) => {
      const c = policy.place(sim, j, 'first_fit')!;
      sim.startJob(j, c);
      return [...sim.running()].find((r) => r.job === j)!;
    };
    const one = add('one', req({ tasks: 3 }));
    start(one); // n1: 3 of 4
    const spread = add('spread', req({ tasks: 6 }));
    const rs = start(spread);
    expect(layout(pl, rs.cores)).toEqual({ n1: 1, n2: 4, n3: 1 });
    // decided in this round: its nodes take nothing else (n3 has 3 CPUs free, n4 4)
    expect(pl.await(rs)).toBe(true);
    const next = add('next', req({ tasks: 2 }));
    expect(layout(pl, policy.place(sim, next, 'first_fit'))).toEqual({ n4: 2 });
    // at the next poll it is still pending in Slurm: the same, and reconcile names it
    expect([...pl.reconcile(sim, view.nodes, new Set(['spread']))]).toEqual(['spread']);
    expect(layout(pl, policy.place(sim, next, 'first_fit'))).toEqual({ n4: 2 });
    // pending, but not about to start (a node of its list drained, say): its CPUs held, its nodes open again
    expect([...pl.reconcile(sim, view.nodes, new Set(['spread']), new Set())]).toEqual([]);
    expect(layout(pl, policy.place(sim, next, 'first_fit'))).toEqual({ n3: 2 });
    // once it runs (the mirror then holds Slurm's layout): n3 again
    expect([...pl.reconcile(sim, view.nodes, new Set())]).toEqual([]);
    expect(layout(pl, policy.place(sim, next, 'first_fit'))).toEqual({ n3: 2 });
    // a one-node job about to start on n3 (its layout fixed): n3's free CPUs take a one-node job, not a job
    // Slurm may spread over n3 and n4 (its pass may take that job first and give it n3's CPUs left for this one)
    sim.startJob(next, policy.place(sim, next, 'first_fit')!);
    const nextRun = [...sim.running()].find((r) => r.job === next)!;
    expect([...pl.reconcile(sim, view.nodes, new Set(['next']))]).toEqual([]);
    expect(layout(pl, policy.place(sim, add('wide', req({ tasks: 2 })), 'first_fit'))).toEqual({ n4: 2 });
    expect(layout(pl, policy.place(sim, add('narrow', req({ tasks: 1, maxNodes: 1 })), 'first_fit'))).toEqual({ n3: 1 });
    expect(pl.await(nextRun)).toBe(false);
    // a one-node job, a whole-node job and a job at its --ntasks-per-node on every node start as decided
    // (started first: a job Slurm may spread takes no node of one about to start)
    for (const r of [...sim.running()]) sim.liveEnd(r.job);
    pl.reconcile(sim, view.nodes, new Set());
    const full = add('full', req({ tasks: 2, tasksPerNode: 1, minNodes: 2, maxNodes: 2 }));
    const rf = start(full);
    expect(rf.nodes.length).toBe(2);
    const single = add('single', req({ tasks: 2, maxNodes: 1 }));
    const whole = add('whole', req({ tasks: 1, minNodes: 1, maxNodes: 1, exclusive: true }));
    expect(pl.await(start(single))).toBe(false);
    expect(pl.await(start(whole))).toBe(false);
    expect(pl.await(rf)).toBe(false);
    expect([...pl.reconcile(sim, view.nodes, new Set(['single', 'whole', 'full']))]).toEqual([]);
    // one task on each of its nodes is the only layout of -n 2 -N 2, two tasks on each that of -n 3 -N 2
    // --ntasks-per-node 2 (4 tasks); -n 5 -N 2 has several
    for (const r of [...sim.running()]) sim.liveEnd(r.job);
    pl.reconcile(sim, view.nodes, new Set());
    expect(pl.await(start(add('pair', req({ tasks: 2, minNodes: 2, maxNodes: 2 }))))).toBe(false);
    const half = add('half', req({ tasks: 3, tasksPerNode: 2, minNodes: 2, maxNodes: 2 }));
    const rh = start(half);
    expect(Array.from(rh.perNode)).toEqual([2, 2]);
    expect(pl.await(rh)).toBe(false);
    pl.reconcile(sim, view.nodes, new Set());
    const five = start(add('five', req({ tasks: 5, minNodes: 2, maxNodes: 2 })));
    expect(five.nodes.length).toBe(2);
    expect(pl.await(five)).toBe(true);
    // Slurm's layout is the decision's when every node but the last holds all it could: its CPUs, or the tasks
    // left less one for each later node (n1..n4 in Slurm's order)
    for (const r of [...sim.running()]) sim.liveEnd(r.job);
    pl.reconcile(sim, view.nodes, new Set());
    const fullFirst = start(add('full-first', req({ tasks: 5 })));
    expect(layout(pl, fullFirst.cores)).toEqual({ n1: 4, n2: 1 });
    expect(pl.await(fullFirst)).toBe(false);
    pl.reconcile(sim, view.nodes, new Set()); // (it runs)
    const capped = start(add('capped', req({ tasks: 2 })));
    expect(layout(pl, capped.cores)).toEqual({ n2: 2 });
    const three = start(add('three', req({ tasks: 3 })));
    // n2 holds 1 of the 3 CPUs free there, the most Slurm can give it (3 tasks, one left for n3), n3 the rest
    expect(layout(pl, three.cores)).toEqual({ n2: 1, n3: 2 });
    expect(pl.await(three)).toBe(true);
    // an awaited node may be the last node of a job Slurm spreads (in its node order: n1..n4), never another:
    // Slurm gives every node but the last as many CPUs as it sees free there
    for (const r of [...sim.running()]) sim.liveEnd(r.job);
    pl.reconcile(sim, view.nodes, new Set());
    const onN4 = start(add('on-n4', req({ tasks: 1, maxNodes: 1, excludedNodes: ['n1', 'n2', 'n3'] })));
    expect(pl.await(onN4)).toBe(false);
    expect(layout(pl, policy.place(sim, add('slow5', req({ tasks: 5, features: 'slow' })), 'first_fit'))).toEqual({ n3: 4, n4: 1 });
    sim.liveEnd(onN4.job);
    pl.reconcile(sim, view.nodes, new Set());
    const onN3 = start(add('on-n3', req({ tasks: 1, maxNodes: 1, excludedNodes: ['n1', 'n2', 'n4'] })));
    pl.await(onN3);
    expect(policy.place(sim, add('slow5b', req({ tasks: 5, features: 'slow' })), 'first_fit')).toBeNull();
    expect(layout(pl, policy.place(sim, add('slow4', req({ tasks: 4, features: 'slow' })), 'first_fit'))).toEqual({ n4: 4 });
  });
});
