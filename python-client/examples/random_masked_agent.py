#!/usr/bin/env python3
"""A random agent that only takes valid actions (uniform over the action mask), in any env.

    python3 examples/random_masked_agent.py --env clustergym/JobNode-v0 --episodes 3 --seed 7
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import _common  # noqa: F401
import clustergym


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="clustergym/Job-v0")
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (default: start a local server)")
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--length", type=int, default=50, help="jobs per episode")
    p.add_argument("--episodes", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    config = {"trajectory": {"length": a.length, "origin": "random"}}
    if a.env != "clustergym/PolicyPair-v0":
        config["k"] = a.k
    with clustergym.make(a.env, config, address=a.address) as env:
        print(f"{a.env}: observation {env.observation_space}, action {env.action_space}")
        for ep in range(a.episodes):
            obs, info = env.reset(seed=a.seed + ep)
            ret, steps, done = 0.0, 0, False
            while not done:
                valid = np.flatnonzero(env.action_masks())
                action = int(rng.choice(valid))
                obs, reward, terminated, truncated, info = env.step(action)
                ret += reward
                steps += 1
                done = terminated or truncated
            m = info["metrics"]
            print(json.dumps({"episode": ep, "steps": steps, "return": ret, "mean_bsld": m["mean_bsld"], "mean_wait": m["mean_wait"], "utilisation": m["utilisation"]}))


if __name__ == "__main__":
    main()
