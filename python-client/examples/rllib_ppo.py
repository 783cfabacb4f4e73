#!/usr/bin/env python3
"""An RLlib (Ray 2.x, new API stack) PPO configuration for clustergym/PolicyPair-v0.

    python3 examples/rllib_ppo.py --iterations 5 [--address tcp://127.0.0.1:5555]

NOT RUN in this repository's CI nor on its development machine: Ray/RLlib cannot be installed there
(no PyPI access, no Debian package). It follows RLlib's documented API (``PPOConfig``,
``register_env``, ``env_runners``, ``build_algo``); without ``ray`` it says so and exits with
status 3.

Each RLlib env runner is a separate process: ``env_creator`` makes the env there. Give ``address``
(a running ``clustergym serve``) so that every runner's env is served by that one server; without it
each env starts its own local server subprocess. The env config is clustergym's (docs/environments.md)
plus ``address``. PolicyPair-v0 allows every pair whenever a job fits, so no action masking is needed;
for Job-v0/JobNode-v0 without an action-masking RLModule, a forbidden action is a no-op with
``info["invalid_action"]`` and the penalty ``invalid_action_penalty`` (docs/environments.md,
Invalid actions), which an unmasked learner learns to avoid.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict

import _common  # noqa: F401
import clustergym


def env_creator(env_config: Dict[str, Any]) -> Any:
    """RLlib's env creator: ``env_config`` is clustergym's config plus an optional ``address``."""
    cfg = dict(env_config)
    address = cfg.pop("address", None)
    return clustergym.make("clustergym/PolicyPair-v0", cfg, address=address)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (recommended)")
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--runners", type=int, default=2)
    a = p.parse_args()
    try:
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.tune.registry import register_env
    except ImportError as e:
        print(f"skipped: ray[rllib] is not importable ({e}); pip install 'ray[rllib]'", file=sys.stderr)
        sys.exit(3)
    register_env("clustergym-PolicyPair-v0", env_creator)
    env_config = {"observation": "minimal", "trajectory": {"length": 64, "origin": "random"}, "invalid_action_penalty": 0.01}
    if a.address:
        env_config["address"] = a.address
    config = (
        PPOConfig()
        .environment("clustergym-PolicyPair-v0", env_config=env_config)
        .env_runners(num_env_runners=a.runners, num_envs_per_env_runner=1)
        .training(lr=3e-4, gamma=1.0, train_batch_size_per_learner=2048, minibatch_size=256, num_epochs=4)
    )
    algo = config.build_algo()
    try:
        for i in range(a.iterations):
            r = algo.train()
            ret = r.get("env_runners", {}).get("episode_return_mean")
            print(json.dumps({"iteration": i + 1, "episode_return_mean": ret}))
    finally:
        algo.stop()


if __name__ == "__main__":
    main()
