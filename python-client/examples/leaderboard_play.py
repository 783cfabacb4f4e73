#!/usr/bin/env python3
"""Puts a policy that runs in Python on the clustergym leaderboard (docs/leaderboard.md).

1. ``clustergym leaderboard --settings SETTING --episodes N --seed S --export DIR`` writes the
   setting's held-out episodes as ``DIR/SETTING/NNN/config.json`` (the env id, its config and the
   reset seed of each episode);
2. this script plays each of them over the bridge with the policy, greedily, and writes a results
   file: ``{"format": "clustergym-leaderboard-results", "setting", "name", "seed",
   "per_episode": [{"seed", "metric"}]}`` with the setting's metric computed from the episode's end
   (``info["metrics"]``: mean_bsld, mean_wait, edp = energy x makespan, or ``metrics.KEY``;
   ``return``: the episode's return);
3. ``clustergym leaderboard --settings SETTING --episodes N --seed S --results FILE`` ranks it as a
   learned row against the best heuristic on the same episodes, with its paired interval.

Policies (``--policy``):

- ``fcfs``: on Job-v0, the valid visible job that waited longest (the head of the queue);
- ``ppo_torch:FILE``: the CleanRL-style agent of ``examples/ppo_torch.py`` trained with
  ``--save FILE`` (Job-v0 with the demo's window, K = 64: the ``demo`` setting), acting greedily.

    python3 examples/leaderboard_play.py --episodes /tmp/ep/demo --policy ppo_torch:/tmp/agent.pt --out /tmp/ppo_torch.json
"""
import argparse
import glob
import json
import os
from typing import Any, Callable, Dict, List

import numpy as np

import _common  # noqa: F401
import clustergym


def metric_of(metric: str, ret: float, metrics: Dict[str, Any]) -> float:
    """The leaderboard metric of an episode from its return and its end ``info["metrics"]``."""
    if metric == "return":
        return float(ret)
    if metric == "edp":
        return float(metrics["energy"]) * float(metrics["makespan"])
    if metric.startswith("metrics."):
        v: Any = metrics
        for k in metric[len("metrics."):].split("."):
            v = v[k]
        return float(v)
    return float(metrics[metric])


def fcfs_policy() -> Callable[[Dict[str, np.ndarray], np.ndarray], int]:
    """FCFS on Job-v0: the valid visible job with the largest wait feature, else wait."""

    def act(obs: Dict[str, np.ndarray], mask: np.ndarray) -> int:
        jobs = obs["jobs"]
        k = jobs.shape[0]
        valid = mask[:k].astype(bool)
        if not valid.any():
            return k
        return int(np.where(valid, jobs[:, 1], -1.0).argmax())

    return act


def ppo_torch_policy(file: str) -> Callable[[Dict[str, np.ndarray], np.ndarray], int]:
    """The greedy action of an agent saved by ``ppo_torch.py --save FILE``."""
    import torch

    import ppo_torch

    saved = torch.load(file, weights_only=False)
    agent = ppo_torch.Agent(saved["fj"], saved["fg"])
    agent.load_state_dict(saved["state_dict"])
    agent.eval()

    def act(obs: Dict[str, np.ndarray], mask: np.ndarray) -> int:
        with torch.no_grad():
            logits = agent.logits(torch.tensor(obs["jobs"][None]), torch.tensor(obs["global"][None]), torch.tensor(mask[None].astype(bool)))
        return int(logits.argmax(-1)[0])

    return act


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", required=True, help="DIR/SETTING written by `clustergym leaderboard --export DIR`")
    p.add_argument("--policy", required=True, help="fcfs or ppo_torch:FILE")
    p.add_argument("--name", default=None, help="the row's name (default: the policy)")
    p.add_argument("--out", required=True, help="the results file to write")
    p.add_argument("--address", default=None, help="a running `clustergym serve` (default: start a local server)")
    a = p.parse_args()
    dirs = sorted(glob.glob(os.path.join(a.episodes, "[0-9][0-9][0-9]")))
    if not dirs:
        raise SystemExit(f"{a.episodes}: no exported episodes (NNN/config.json); run `clustergym leaderboard --export DIR` first")
    configs = [json.load(open(os.path.join(d, "config.json"))) for d in dirs]
    first = configs[0]
    if a.policy == "fcfs":
        policy = fcfs_policy()
    elif a.policy.startswith("ppo_torch:"):
        policy = ppo_torch_policy(a.policy[len("ppo_torch:"):])
    else:
        raise SystemExit(f"--policy: expected fcfs or ppo_torch:FILE, found {a.policy!r}")
    per: List[Dict[str, Any]] = []
    with clustergym.make(first["env_id"], first["env_config"], address=a.address) as env:
        for c in configs:
            obs, _ = env.reset(seed=c["seed"])
            ret, done = 0.0, False
            while not done:
                obs, reward, term, trunc, info = env.step(policy(obs, env.action_masks()))
                ret += float(reward)
                done = term or trunc
            per.append({"seed": c["seed"], "metric": metric_of(c["metric"], ret, info["metrics"])})
    out = {
        "format": "clustergym-leaderboard-results",
        "setting": first["setting"],
        "name": a.name or a.policy.split(":")[0],
        "seed": first["leaderboard_seed"],
        "per_episode": per,
    }
    with open(a.out, "w") as f:
        json.dump(out, f)
    print(json.dumps({"setting": out["setting"], "name": out["name"], "episodes": len(per), "mean": float(np.mean([e["metric"] for e in per]))}))


if __name__ == "__main__":
    main()
