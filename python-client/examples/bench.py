#!/usr/bin/env python3
"""Bridge benchmark: random masked actions through the ZeroMQ bridge, from Python.

    python3 examples/bench.py [--env ID] [--k N] [--envs N] [--steps N] [--workload FILE] [--address ADDR]

``--envs 1`` drives one :func:`clustergym.make` env with ``step``; ``--envs N`` (N > 1) a
:func:`clustergym.make_vec` of N envs with ``step_batch``, in the ``--autoreset-mode``: ``SameStep``
(the default here: one ``step_batch`` per step, the server resets; the bridge's own throughput, what
``npm run bench`` reports) or ``NextStep`` (make_vec's default: a step after episodes ended also
sends a ``reset_batch``). ``--steps`` counts env-steps
in total (a batch of N envs counts N). Episodes that end are reset (single env: by ``reset``, not
timed separately). Prints ONE JSON line: ``{"envs", "steps", "seconds", "steps_per_s"}``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Dict

import numpy as np

import _common  # noqa: F401
import clustergym


def random_valid(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random valid action per row of ``masks`` (bool ``[n, A]``)."""
    scores = rng.random(masks.shape)
    scores[~masks] = -1.0
    return scores.argmax(axis=-1)


def bench_single(env: Any, steps: int, warmup: int, rng: np.random.Generator) -> float:
    env.reset(seed=0)

    def run(n: int) -> None:
        for _ in range(n):
            a = int(random_valid(env.action_masks(), rng))
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()

    run(warmup)
    t0 = time.perf_counter()
    run(steps)
    return time.perf_counter() - t0


def bench_vec(venv: Any, steps: int, warmup: int, rng: np.random.Generator) -> float:
    venv.reset(seed=0)
    n = venv.num_envs

    def run(batches: int) -> None:
        for _ in range(batches):
            venv.step(random_valid(venv.action_masks(), rng))

    run(max(1, warmup // n))
    t0 = time.perf_counter()
    run(steps // n)
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="clustergym/Job-v0")
    p.add_argument("--k", type=int, default=128, help="queue window K (not for PolicyPair-v0)")
    p.add_argument("--envs", type=int, default=1)
    p.add_argument("--steps", type=int, default=20_000, help="env-steps in total")
    p.add_argument("--warmup", type=int, default=1_000, help="env-steps before timing")
    p.add_argument("--observation", default=None, help="observation variant (dict, flat, minimal)")
    p.add_argument("--workload", default=None, help="workload file for the server (default: the embedded default)")
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (default: start a local server)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--autoreset-mode", default="SameStep", choices=["NextStep", "SameStep"], help="vector env autoreset mode (--envs > 1)")
    a = p.parse_args()
    config: Dict[str, Any] = {}
    if a.env != "clustergym/PolicyPair-v0":
        config["k"] = a.k
    if a.observation:
        config["observation"] = a.observation
    if a.workload:
        config["workload"] = a.workload
    rng = np.random.default_rng(a.seed)
    if a.envs <= 1:
        with clustergym.make(a.env, config, address=a.address) as env:
            seconds = bench_single(env, a.steps, a.warmup, rng)
        steps = a.steps
    else:
        with clustergym.make_vec(a.env, a.envs, config, address=a.address, autoreset_mode=a.autoreset_mode) as venv:
            seconds = bench_vec(venv, a.steps, a.warmup, rng)
        steps = (a.steps // a.envs) * a.envs
    print(json.dumps({"envs": max(1, a.envs), "steps": steps, "seconds": round(seconds, 4), "steps_per_s": round(steps / seconds, 1)}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
