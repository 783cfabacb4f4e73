#!/usr/bin/env python3
"""Env-steps/s of one learner against 1, 2, 4... servers (clustergym.fleet): ``make_vec(env, N,
addresses=servers[:S])`` stepped with random valid actions (a policy that costs the learner next to
nothing, so the figure is the envs' and the bridge's), every server's ``step_batch`` in flight at once.

The servers are local processes (``clustergym serve`` on 127.0.0.1), started once; each round
measures every server count in turn (the order rotating from round to round, so that a busy spell of
the machine does not fall on one count), ``--seconds`` of stepping after a warm-up. Prints one JSON
line: per server count the median, minimum and maximum env-steps/s over the rounds and the median's
speed-up over one server, plus the machine's CPU count and load averages before and after.

On one machine the servers share its cores with the learner and with each other: the speed-up is
bounded by the cores (2 here), not by the bridge. Across hosts each server has its own cores, and
the network adds one round trip per step and server pair (the requests leave together, so the
latency is paid once per step, not once per server).

    python3 examples/bench_fleet.py --servers 1,2,4 --envs 16 --seconds 4 --rounds 5
"""
import argparse
import json
import os
import statistics
import time
from typing import Any, Dict, List

import numpy as np

import _common  # noqa: F401
import clustergym


def handle_seconds(addresses: List[str]) -> List[float]:
    """Each server's time spent handling requests so far (its ``stats``)."""
    out = []
    for a in addresses:
        with clustergym.Client(a) as c:
            out.append(float(c.request("stats")["handle_s"]))
    return out


def measure(env_id: str, n: int, config: Dict[str, Any], addresses: List[str], seconds: float, seed: int) -> Dict[str, float]:
    """Env-steps/s, and per vector step: the learner's CPU, the servers' handling summed and the
    largest one server's (its part of the step)."""
    where: Dict[str, Any] = {"addresses": addresses} if len(addresses) > 1 else {"address": addresses[0]}
    rng = np.random.default_rng(seed)
    with clustergym.make_vec(env_id, n, config, seeds=seed, autoreset_mode="SameStep", **where) as venv:
        venv.reset()

        def step() -> None:
            m = venv.action_masks()
            s = rng.random(m.shape)
            s[~m] = -1
            venv.step(s.argmax(axis=1))

        for _ in range(30):  # warm-up: caches, the JIT of the servers
            step()
        steps = 0
        h0 = handle_seconds(addresses)
        c0 = time.process_time()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            step()
            steps += 1
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        h = [b - a for a, b in zip(h0, handle_seconds(addresses))]
        return {
            "steps_per_s": n * steps / wall,
            "learner_cpu_us": 1e6 * cpu / steps,
            "servers_sum_us": 1e6 * sum(h) / steps,
            "server_max_us": 1e6 * max(h) / steps,
        }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--servers", default="1,2,4", help="server counts to measure")
    p.add_argument("--envs", type=int, default=16, help="envs of the vector env")
    p.add_argument("--env-id", default="clustergym/JobNode-v0")
    p.add_argument("--seconds", type=float, default=4.0, help="stepping time per measurement")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    counts = [int(x) for x in args.servers.split(",")]
    config: Dict[str, Any] = {"trajectory": {"length": 256}}
    load_before = os.getloadavg()
    servers = [clustergym.LocalServer(bind="tcp://127.0.0.1:0") for _ in range(max(counts))]
    try:
        addresses = [s.address for s in servers]
        runs: Dict[int, List[Dict[str, float]]] = {c: [] for c in counts}
        for r in range(args.rounds):
            order = counts[r % len(counts) :] + counts[: r % len(counts)]
            for c in order:
                runs[c].append(measure(args.env_id, args.envs, config, addresses[:c], args.seconds, seed=r))
    finally:
        for s in servers:
            s.stop()
    def med(c: int, k: str) -> float:
        return statistics.median(x[k] for x in runs[c])

    base = med(counts[0], "steps_per_s")
    out = {
        "env_id": args.env_id,
        "envs": args.envs,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "servers": [
            {
                "servers": c,
                "steps_per_s_median": round(med(c, "steps_per_s"), 1),
                "steps_per_s_min": round(min(x["steps_per_s"] for x in v), 1),
                "steps_per_s_max": round(max(x["steps_per_s"] for x in v), 1),
                "speedup_over_first": round(med(c, "steps_per_s") / base, 3),
                # per vector step (medians): what the learner and the servers compute
                "learner_cpu_us": round(med(c, "learner_cpu_us"), 1),
                "servers_sum_us": round(med(c, "servers_sum_us"), 1),
                "server_max_us": round(med(c, "server_max_us"), 1),
                # with a core per process (servers on hosts of their own), a step takes at least the
                # learner's CPU plus the busiest server's part: the ceiling such a run approaches
                "one_core_each_steps_per_s": round(args.envs * 1e6 / (med(c, "learner_cpu_us") + med(c, "server_max_us")), 1),
            }
            for c, v in runs.items()
        ],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
