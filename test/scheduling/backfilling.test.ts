/**
 * Hand-computed EASY and conservative backfilling cases (exact start times and nodes), on 2 nodes x
 * 4 cores with `delay` jobs whose run time equals their requested time.
 */
import { describe, expect, it } from 'vitest';
import type { ReservationEvent } from '../../src/scheduling/scheduler.js';
import { homogeneous, mpi, runPolicy, seq } from './schedHelpers.js';

const P = () => homogeneous(2, 4);

describe('EASY backfilling, count-based head (mpi on any cores)', () => {
  // a: 6 cores 0..10. b (head from t=1): 8 cores, shadow time T = 10 (a ends), extra = 8 - 8 = 0.
  // c (t=2): 2 cores for 20 s: ends after T and extra is 0, so it must NOT start (it would delay b).
  // d (t=3): 2 cores for 7 s: 3 + 7 = 10 <= T, so it backfills at 3.
  const jobs = () => [mpi('a', 0, 6, 10), mpi('b', 1, 8, 5), mpi('c', 2, 2, 20), mpi('d', 3, 2, 7)];

  it('a short job backfills; a long one that would delay the head does not', () => {
    const r = runPolicy(P(), jobs(), 'fcfs:first+easy');
    expect(r.starts).toEqual({ a: 0, b: 10, c: 15, d: 3 });
  });

  it('without backfilling d waits behind b and c', () => {
    const r = runPolicy(P(), jobs(), 'fcfs:first');
    expect(r.starts).toEqual({ a: 0, b: 10, c: 15, d: 15 });
  });

  it('the head gets its shadow time as reservation', () => {
    const res: ReservationEvent[] = [];
    runPolicy(P(), jobs(), 'fcfs:first+easy', { onReservation: (e) => res.push(e) });
    expect(res[0]).toEqual({ job: expect.objectContaining({ id: 'b' }), now: 1, time: 10, backfill: 'easy' });
  });

  it('a long job may use the extra cores the head leaves at its shadow time', () => {
    // b needs 4 of the 8 cores free at T = 10: extra = 4, so c (2 cores, 20 s) starts at 2; b still at 10
    const r = runPolicy(P(), [mpi('a', 0, 6, 10), mpi('b', 1, 4, 5), mpi('c', 2, 2, 20)], 'fcfs:first+easy');
    expect(r.starts).toEqual({ a: 0, b: 10, c: 2 });
  });

  it('a requested time longer than the run time reserves on the estimate', () => {
    // a runs 4 s but asks 10: T = 10 for b; d (2 cores, asks 7 s) fits by 3 + 7 <= 10; a ends at 4, b starts there
    const r = runPolicy(P(), [mpi('a', 0, 6, 4, { reqTime: 10 }), mpi('b', 1, 8, 5), mpi('d', 3, 2, 7)], 'fcfs:first+easy');
    expect(r.starts).toEqual({ a: 0, b: 10, d: 3 });
  });
});

describe('EASY backfilling, a seq head needs one node', () => {
  // a: seq 3 on node0 (0..10); b: seq 3 on node1 (0..20): one core free on each node.
  // h (t=1): seq 4 needs a whole node: 2 cores are free but on two nodes, so it waits; T = 10 on
  //   node0 (a ends), where it needs all 4 cores: spare room on node0 at T is 0.
  // c (t=2): mpi 2 for 30 s: it could take node0's free core and node1's, but node0's is needed at T,
  //   and node1 alone has 1: c does not start (it starts after h, at 15, on node0).
  // d (t=3): seq 1 for 30 s runs past T: not on node0; node1's free core takes it at 3.
  // e (t=4): seq 1 for 5 s ends by T (4 + 5 <= 10): it may use node0's free core.
  const jobs = () => [seq('a', 0, 3, 10), seq('b', 0, 3, 20), seq('h', 1, 4, 5), mpi('c', 2, 2, 30), seq('d', 3, 1, 30), seq('e', 4, 1, 5)];
  const expected = {
    starts: { a: 0, b: 0, h: 10, c: 15, d: 3, e: 4 },
    nodes: { a: [0], b: [1], h: [0], c: [0], d: [1], e: [0] },
  };

  it('EASY: the exact schedule', () => {
    const r = runPolicy(P(), jobs(), 'fcfs:first+easy');
    expect(r.starts).toEqual(expected.starts);
    expect(r.nodes).toEqual(expected.nodes);
  });

  it('EASY: the reservation is at 10 at every decision point until h starts', () => {
    // a node-based reservation is recomputed at each decision point (1, 2, 3, 4 and 9, when e ends)
    const res: ReservationEvent[] = [];
    runPolicy(P(), jobs(), 'fcfs:first+easy', { onReservation: (e) => res.push(e) });
    expect(res.filter((e) => e.job.id === 'h').map((e) => [e.now, e.time])).toEqual([
      [1, 10],
      [2, 10],
      [3, 10],
      [4, 10],
      [9, 10],
    ]);
  });

  it('EASY with a count-based head keeps its reservation while only jobs arrive', () => {
    const res: ReservationEvent[] = [];
    runPolicy(P(), [mpi('a', 0, 6, 10), mpi('b', 1, 8, 5), mpi('c', 2, 2, 20), mpi('d', 3, 2, 7)], 'fcfs:first+easy', { onReservation: (e) => res.push(e) });
    // b's reservation is computed at 1 and kept at 2 and 3 (arrivals only); at 10 b starts and c,
    // the new head, is reserved at 15 (b's end)
    expect(res.map((e) => [e.job.id, e.now, e.time])).toEqual([
      ['b', 1, 10],
      ['c', 10, 15],
    ]);
  });

  it('conservative: the same schedule (every job reserved on concrete nodes)', () => {
    const r = runPolicy(P(), jobs(), 'fcfs:first+conservative');
    expect(r.starts).toEqual(expected.starts);
    expect(r.nodes).toEqual(expected.nodes);
  });

  it('best_fit puts a seq job on the node with the fewest free cores that fit; first_fit on the first', () => {
    // x: seq 4 on node0 (0..5); y: seq 2 on node1 (0..100). At 6 node0 has 4 free, node1 2: z (seq 2)
    const jobs2 = () => [seq('x', 0, 4, 5), seq('y', 0, 2, 100), seq('z', 6, 2, 10)];
    expect(runPolicy(P(), jobs2(), 'fcfs:first', { fit: 'first_fit' }).nodes.z).toEqual([0]);
    expect(runPolicy(P(), jobs2(), 'fcfs:first', { fit: 'best_fit' }).nodes.z).toEqual([1]);
  });
});

describe('conservative backfilling', () => {
  // a: 4 cores 0..10. b (t=1): 6 cores, reserved 10..20. c (t=1): 8 cores, reserved 20..30.
  // d (t=2): 2 cores for 100 s. EASY protects only the head b (extra 2 at T = 10), so d starts at 2
  //   and c, which needs all 8 cores, waits until d ends at 102. Conservative also protects c:
  //   d would overlap c's reservation, so d is reserved at 30.
  // e (t=3): 4 cores for 7 s fits [3, 10) under both... but under EASY d holds 2 of the 4 free cores.
  const jobs = () => [mpi('a', 0, 4, 10), mpi('b', 1, 6, 10), mpi('c', 1, 8, 10), mpi('d', 2, 2, 100), mpi('e', 3, 4, 7)];

  it('conservative: no job delays an earlier reservation', () => {
    expect(runPolicy(P(), jobs(), 'fcfs:first+conservative').starts).toEqual({ a: 0, b: 10, c: 20, d: 30, e: 3 });
  });

  it('EASY: d delays c (only the head is protected)', () => {
    expect(runPolicy(P(), jobs(), 'fcfs:first+easy').starts).toEqual({ a: 0, b: 10, c: 102, d: 2, e: 20 });
  });

  it('conservative reservations are reported in queue order', () => {
    const res: ReservationEvent[] = [];
    runPolicy(P(), jobs(), 'fcfs:first+conservative', { onReservation: (e) => res.push(e) });
    const at2 = res.filter((e) => e.now === 2).map((e) => [e.job.id, e.time]);
    expect(at2).toEqual([
      ['b', 10],
      ['c', 20],
      ['d', 30],
    ]);
  });

  it('conservative with a node constraint: a seq job is reserved on one node', () => {
    // node0: x seq 4 (0..10); node1: y seq 2 (0..20). s (t=1): seq 4 needs a node: node0 at 10.
    // m (t=2): mpi 2 for 5 s fits node1's 2 free cores over [2, 7): starts at 2.
    // n (t=3): seq 2 for 30 s: node1 has no room until 7 (m), node0 is reserved for s over [10, 15):
    //   earliest is 7 on node1 (window [7, 37) keeps 2 free there).
    const r = runPolicy(P(), [seq('x', 0, 4, 10), seq('y', 0, 2, 20), seq('s', 1, 4, 5), mpi('m', 2, 2, 5), seq('n', 3, 2, 30)], 'fcfs:first+conservative');
    expect(r.starts).toEqual({ x: 0, y: 0, s: 10, m: 2, n: 7 });
    expect(r.nodes).toEqual({ x: [0], y: [1], s: [0], m: [1], n: [1] });
  });
});

describe('commit-head (RLScheduler) versus re-ordering (Slurm)', () => {
  // a: 8 cores 0..10. At t=1 b (4 cores, asks 50 s) arrives and cannot start. At t=2 s (4 cores, 5 s) arrives.
  // sjf re-orders at every decision point: s overtakes b (s starts at 10, b at 10 too: 4 + 4 cores).
  // Use 6-core jobs so only one fits at a time.
  const jobs = () => [mpi('a', 0, 8, 10), mpi('b', 1, 6, 50), mpi('s', 2, 6, 5)];

  it('Slurm mode: the shorter job that arrives later goes first', () => {
    expect(runPolicy(P(), jobs(), 'sjf:first').starts).toEqual({ a: 0, s: 10, b: 15 });
  });

  it('commit-head: the job ranked first when it was chosen keeps its place', () => {
    // at t=1 b is the only waiting job: it is committed; s (t=2) cannot overtake it
    expect(runPolicy(P(), jobs(), 'sjf:first', { commitHead: true }).starts).toEqual({ a: 0, b: 10, s: 60 });
  });

  it('conservative: re-ordering re-plans in priority order, commit-head keeps the reservations made', () => {
    // re-ordering: at 2, s (5 s) is reserved first (10..15) and b after it (15..65)
    expect(runPolicy(P(), jobs(), 'sjf:first+conservative').starts).toEqual({ a: 0, s: 10, b: 15 });
    // commitments: b was reserved 10..60 at t=1; s fits only after it
    const res: ReservationEvent[] = [];
    const r = runPolicy(P(), jobs(), 'sjf:first+conservative', { commitHead: true, onReservation: (e) => res.push(e) });
    expect(r.starts).toEqual({ a: 0, b: 10, s: 60 });
    expect(res.map((e) => [e.job.id, e.now, e.time])).toEqual([
      ['b', 1, 10],
      ['b', 2, 10],
      ['s', 2, 60],
      ['s', 10, 60],
    ]);
  });
});
