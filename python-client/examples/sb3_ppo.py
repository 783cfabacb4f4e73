#!/usr/bin/env python3
"""Stable-Baselines3's PPO (no action masking) on clustergym/PolicyPair-v0 (pick a scheduling
heuristic, IRMaSim-style), made with ``gymnasium.make`` and SB3's own ``DummyVecEnv``.

    python3 examples/sb3_ppo.py --steps 10000

Needs stable-baselines3 and gymnasium (``pip install -e 'python-client[sb3]'``); without them it
says so and exits with status 3. ``import clustergym`` registers the ids with Gymnasium, so
``gymnasium.make("clustergym/PolicyPair-v0", ...)`` works (a local server per env, or
``address=``). PPO does not see the mask: a forbidden action is a no-op with
``info["invalid_action"]`` and the penalty ``invalid_action_penalty`` (docs/environments.md), which
PolicyPair-v0 rarely needs (every pair is allowed whenever a job fits). Prints one JSON line:
training steps/s and a deterministic evaluation of the trained policy against the best single
pair and FCFS on held-out episodes (mean bounded slowdown, lower is better).
"""
from __future__ import annotations

import os

# One BLAS/OpenMP thread unless told otherwise (set before numpy and torch load): with few cores,
# idle BLAS threads spin after each matrix product and starve the clustergym server process
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import _common  # noqa: F401, E402
import clustergym  # noqa: E402


def evaluate(policy, config: dict, address, seeds) -> float:
    import gymnasium

    out = []
    env = gymnasium.make("clustergym/PolicyPair-v0", address=address, config=config)
    try:
        for s in seeds:
            obs, info = env.reset(seed=s)
            while True:
                obs, r, t, tr, info = env.step(policy(obs))
                if t or tr:
                    out.append(info["metrics"]["mean_bsld"])
                    break
    finally:
        env.close()
    return float(np.mean(out))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (default: a local server per env)")
    p.add_argument("--steps", type=int, default=10_000)
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--length", type=int, default=64, help="jobs per episode")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-episodes", type=int, default=5)
    a = p.parse_args()
    try:
        import gymnasium
        from stable_baselines3 import PPO
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as e:
        print(f"skipped: stable-baselines3 or gymnasium is not importable ({e}); pip install -e 'python-client[sb3]'", file=sys.stderr)
        sys.exit(3)
    import torch

    torch.manual_seed(a.seed)
    pairs = ["fcfs:first", "sjf:first", "ljf:first", "smallest:first", "fcfs:high_gflops", "sjf:high_gflops"]
    config = {"observation": "minimal", "actions": pairs, "trajectory": {"length": a.length, "origin": "random"}, "invalid_action_penalty": 0.01}
    server = None
    if a.address is None:  # one local server for every env (gymnasium.make without address starts one per env)
        server = clustergym.LocalServer()
        a.address = server.address
    # Monitor: SB3's episode statistics (info["episode"]["r"], ["l"]); it replaces the env's own
    # info["episode"] at the end of an episode (info["metrics"] stays)
    venv = DummyVecEnv([lambda: Monitor(gymnasium.make("clustergym/PolicyPair-v0", address=a.address, config=config)) for _ in range(a.envs)])
    venv.seed(a.seed)
    try:
        model = PPO("MlpPolicy", venv, n_steps=max(16, min(128, a.steps // a.envs)), batch_size=64, seed=a.seed, verbose=0, device="cpu")
        t0 = time.perf_counter()
        model.learn(total_timesteps=a.steps)
        elapsed = time.perf_counter() - t0
    finally:
        venv.close()
    held_out = [10_000 + i for i in range(a.eval_episodes)]
    trained = evaluate(lambda o: int(model.predict(o, deterministic=True)[0]), config, a.address, held_out)
    fixed = {pair: evaluate(lambda o, i=i: i, config, a.address, held_out) for i, pair in enumerate(pairs)}
    best = min(fixed, key=fixed.get)
    if server is not None:
        server.stop()
    print(json.dumps({"env": "clustergym/PolicyPair-v0", "algo": "PPO", "envs": a.envs, "steps": int(model.num_timesteps), "train_s": round(elapsed, 1),
                      "steps_per_s": round(model.num_timesteps / elapsed), "eval_mean_bsld_trained": round(trained, 3),
                      "eval_mean_bsld_fcfs": round(fixed["fcfs:first"], 3), "best_pair": best, "eval_mean_bsld_best_pair": round(fixed[best], 3)}))


if __name__ == "__main__":
    main()
