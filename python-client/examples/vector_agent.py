#!/usr/bin/env python3
"""A random masked agent over a vector env (Gymnasium 1.x conventions): N envs stepped together,
episode ends read from the batched infos, in either autoreset mode.

    python3 examples/vector_agent.py --envs 8 --episodes 20 --autoreset-mode NextStep
    python3 examples/vector_agent.py --envs 8 --episodes 20 --autoreset-mode SameStep

NEXT_STEP (the default): the step that ends env i's episode returns its last observation and, in
``infos["metrics"]`` (mask ``infos["_metrics"]``), its metrics; the next step resets env i (its action
is ignored). SAME_STEP: env i is reset in the same step; the metrics are in
``infos["final_info"]["metrics"]`` (mask ``infos["_final_info"]``). In both modes env i's episodes
take the seeds of its own stream (``--seed`` + i, then the next ones). Prints one JSON line per
finished episode (the return summed here and the env's own ``episode.return``), then a summary line.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import _common  # noqa: F401
import clustergym


def random_valid(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random valid action per row of ``masks`` (bool ``[n, A]``)."""
    scores = rng.random(masks.shape)
    scores[~masks] = -1.0
    return scores.argmax(axis=1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="clustergym/Job-v0")
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (default: start a local server)")
    p.add_argument("--envs", type=int, default=8)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--length", type=int, default=50, help="jobs per episode")
    p.add_argument("--episodes", type=int, default=20, help="stop after this many finished episodes")
    p.add_argument("--autoreset-mode", default="NextStep", choices=["NextStep", "SameStep"])
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    config = {"trajectory": {"length": a.length, "origin": "random"}}
    if a.env != "clustergym/PolicyPair-v0":
        config["k"] = a.k
    finished = []
    with clustergym.make_vec(a.env, a.envs, config, address=a.address, seeds=a.seed, autoreset_mode=a.autoreset_mode) as venv:
        obs, infos = venv.reset()
        returns = np.zeros(venv.num_envs)
        while len(finished) < a.episodes:
            obs, rewards, terminations, truncations, infos = venv.step(random_valid(venv.action_masks(), rng))
            returns += rewards  # 0 on the NEXT_STEP reset steps
            ended = terminations | truncations
            if ended.any():
                # where the ended episodes' info is: the top level (NEXT_STEP) or final_info (SAME_STEP)
                final = infos["final_info"] if "final_info" in infos else infos
                for i in np.flatnonzero(ended):
                    m = {k: float(final["metrics"][k][i]) for k in ("mean_bsld", "mean_wait", "utilisation")}
                    finished.append({"env": int(i), "seed": int(final["episode"]["seed"][i]), "steps": int(final["episode"]["steps"][i]), "return": float(returns[i]), "episode_return": float(final["episode"]["return"][i]), **m})
                    print(json.dumps(finished[-1]))
                returns[ended] = 0.0
    summary = {
        "autoreset_mode": a.autoreset_mode,
        "episodes": len(finished),
        "mean_return": float(np.mean([f["return"] for f in finished])),
        "mean_bsld": float(np.mean([f["mean_bsld"] for f in finished])),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
