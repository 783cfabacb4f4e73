#!/usr/bin/env python3
"""A heuristic agent: strict FCFS in ``clustergym/Job-v0``.

The visible window of Job-v0 is the queue in FCFS order (``queue_order: fcfs``), slot 0 holding the
job that arrived first. Strict FCFS starts slot 0 whenever it fits (action 0) and otherwise waits
(action K) for the next event: no job ever overtakes the head, as ``clustergym simulate --policy
fcfs`` without backfilling. Prints the episode metrics as JSON.

    python3 examples/fcfs_agent.py --k 16 --length 100 --seed 1
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any, Dict, Optional

import numpy as np

import _common  # noqa: F401
import clustergym


def fcfs_action(mask: np.ndarray) -> int:
    """Strict FCFS for Job-v0 (actions: slots 0..K-1, then wait = K): the head if it can start,
    else wait, else (nothing runs and nothing is to come: waiting is impossible) the first valid job."""
    k = len(mask) - 1
    if mask[0]:
        return 0
    if mask[k]:
        return k
    return int(np.flatnonzero(mask)[0])


def run_episode(env: Any, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Runs one FCFS episode; returns the final info (``metrics``, ``episode``) and the actions."""
    obs, info = env.reset(seed=seed, options=options)
    actions = []
    while True:
        a = fcfs_action(env.action_masks())
        actions.append(a)
        obs, reward, terminated, truncated, info = env.step(a)
        if terminated or truncated:
            return {"info": info, "actions": actions, "terminated": terminated}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (default: start a local server)")
    p.add_argument("--k", type=int, default=16, help="queue window K")
    p.add_argument("--length", type=int, default=100, help="jobs per episode")
    p.add_argument("--origin", type=int, default=0, help="index of the trajectory's first job")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    config = {"k": a.k, "trajectory": {"length": a.length, "origin": a.origin}}
    t0 = time.perf_counter()
    with clustergym.make("clustergym/Job-v0", config, address=a.address) as env:
        r = run_episode(env, seed=a.seed)
    info = r["info"]
    print(json.dumps({"policy": "fcfs", "steps": len(r["actions"]), "seconds": round(time.perf_counter() - t0, 3), "episode": info.get("episode"), "metrics": info.get("metrics")}, indent=2, default=float))


if __name__ == "__main__":
    main()
