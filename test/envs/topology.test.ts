/**
 * JobNode-v0 with `topology: true` on a fat-tree (SimGrid XML, the `flow` model): the observation's
 * `hops` is the route length between nodes over the longest (2 links under one leaf switch, 4 across:
 * 0.5 and 1), and `switch_use` shows the load an MPI job spread over two leaves puts on the uplinks,
 * while a job under one leaf puts none.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { make } from '../../envs/index.js';
import type { JobNodeEnv } from '../../envs/jobNodeEnv.js';
import type { DictObservation } from '../../envs/observation.js';

const dir = mkdtempSync(join(tmpdir(), 'cg-topo-'));
const platform = join(dir, 'ft.xml');
writeFileSync(
  platform,
  '<platform version="4.1"><zone id="w" routing="Full"><cluster id="ft" prefix="n" suffix="" radical="0-15" speed="1Gf" bw="125MBps" lat="10us" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2"/></zone></platform>',
);
// three 2-node MPI jobs of one task per node (the third keeps a decision pending), 100 s at 1 Gf, heavy communication
const workload = {
  jobs: [0, 1, 2].map((i) => ({ id: `j${i}`, subtime: 0, type: 'mpi', nodes: 2, ntasks: 2, req_ops: 1e11, req_time: 1000, comm_vol: 1e10, t_compute: 0.5 })),
};

describe('JobNode-v0 topology features', () => {
  it('hops and switch_use on a fat-tree', () => {
    const env = make('clustergym/JobNode-v0', { platform, workload, models: { comm: 'flow', memory: 'none' }, topology: true, k: 2 }) as JobNodeEnv;
    const N = 16;
    let o = env.reset({ seed: 1 }).observation as DictObservation;
    expect(o.hops!.length).toBe(N * N);
    expect(o.hops![0 * N + 1]).toBe(0.5);
    expect(o.hops![0 * N + 4]).toBe(1);
    expect(o.hops![5 * N + 5]).toBe(0);
    expect(Array.from(o.switch_use!)).toEqual(new Array(N).fill(0));
    // job j0 with node 0 first: it spills to the next node in the resource order (node 1, same leaf)
    o = env.step(env.action(0, 0)).observation as DictObservation;
    expect(Math.max(...o.switch_use!)).toBe(0);
    // j1 with node 3 first spills to n10 (the resource order \`first\` sorts ids as strings): across leaves
    o = env.step(env.action(0, 3)).observation as DictObservation;
    expect(o.switch_use![3]).toBeGreaterThan(0);
    expect(o.switch_use![10]).toBeGreaterThan(0);
    expect(o.switch_use![0]).toBe(o.switch_use![3]); // the same leaf's uplinks
    expect(o.switch_use![12]).toBe(0); // another leaf's uplinks carry nothing
    const space = env.observationSpace as { spaces: Record<string, { shape: number[] }> };
    expect(space.spaces.switch_use!.shape).toEqual([N]);
    expect(space.spaces.hops!.shape).toEqual([N, N]);
  });

  it('topology needs the dict observation and a network', () => {
    expect(() => make('clustergym/JobNode-v0', { platform, workload, topology: true, observation: 'flat' })).toThrow(
      /topology features are keys of the `dict` observation/,
    );
    expect(() => make('clustergym/JobNode-v0', { workload, topology: true })).toThrow(/needs a platform with a network/);
  });
});
