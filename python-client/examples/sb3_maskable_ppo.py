#!/usr/bin/env python3
"""sb3-contrib's MaskablePPO on clustergym/JobNode-v0 (pick a visible job and a node), over the
batched vector env ``clustergym.sb3.make_sb3_vec`` (one ``step_batch`` message per step for all envs).

    python3 examples/sb3_maskable_ppo.py --steps 10000 --envs 4
    python3 examples/sb3_maskable_ppo.py --addresses tcp://n1:5555,tcp://n2:5555   # envs over several servers

Needs stable-baselines3 and sb3-contrib (``pip install -e 'python-client[sb3]'``); without them it
says so and exits with status 3. The policy sees the action mask (``action_masks()``), so it never
picks a forbidden action. Prints one JSON line: training steps/s, then a deterministic evaluation
of the trained policy and of FCFS-first-fit (action: the first allowed one) on the same held-out
episodes (mean bounded slowdown, lower is better), and the first training episodes that ended
(``first_episodes``: step, env, return): with ``--addresses`` (or ``$CLUSTERGYM_ADDRESSES``, as
clustergym.dask.start_servers or deploy/slurm/fleet.sbatch give them) the envs spread over several
servers, and the same seed gives the same episodes as on one server.
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
from clustergym.sb3 import make_sb3_vec  # noqa: E402


def evaluate(policy, env_id: str, config: dict, address, seeds) -> float:
    """Mean bsld over one episode per seed; ``policy(obs, mask) -> action``."""
    out = []
    with clustergym.make(env_id, config, address=address) as env:
        for s in seeds:
            obs, info = env.reset(seed=s)
            while True:
                obs, r, t, tr, info = env.step(policy(obs, env.action_masks()))
                if t or tr:
                    out.append(info["metrics"]["mean_bsld"])
                    break
    return float(np.mean(out))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (default: start a local server)")
    p.add_argument("--addresses", default=os.environ.get("CLUSTERGYM_ADDRESSES", ""), help="comma-separated endpoints of several servers (default $CLUSTERGYM_ADDRESSES)")
    p.add_argument("--steps", type=int, default=10_000, help="training steps (all envs together)")
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--length", type=int, default=64, help="jobs per episode")
    p.add_argument("--n-steps", type=int, default=256, help="rollout length per env (at most --steps / --envs)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-episodes", type=int, default=5)
    a = p.parse_args()
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:
        print(f"skipped: sb3-contrib is not importable ({e}); pip install -e 'python-client[sb3]'", file=sys.stderr)
        sys.exit(3)
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    class FirstEpisodes(BaseCallback):
        """The first training episodes that ended: [step, env, return]."""

        def __init__(self) -> None:
            super().__init__()
            self.first: list = []

        def _on_step(self) -> bool:
            for i, done in enumerate(self.locals["dones"]):
                ep = self.locals["infos"][i].get("episode") if done else None
                if ep is not None and len(self.first) < 8:
                    self.first.append([int(self.num_timesteps), i, float(ep["r"])])
            return True

    torch.manual_seed(a.seed)
    env_id = "clustergym/JobNode-v0"
    config = {"k": a.k, "trajectory": {"length": a.length, "origin": "random"}, "observation": "flat"}
    n_steps = max(16, min(a.n_steps, a.steps // a.envs))
    many = [x for x in a.addresses.split(",") if x.strip()]
    venv = make_sb3_vec(env_id, a.envs, config, seeds=a.seed, **({"addresses": many} if many else {"address": a.address}))
    address = a.address if not many else many[0]
    first_episodes = FirstEpisodes()
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=min(256, n_steps * a.envs), seed=a.seed, verbose=0, device="cpu")
        t0 = time.perf_counter()
        model.learn(total_timesteps=a.steps, callback=first_episodes)
        elapsed = time.perf_counter() - t0
    finally:
        venv.close()
    held_out = [10_000 + i for i in range(a.eval_episodes)]
    # masks are read-only views of the reply; torch wants a writable array
    trained = evaluate(lambda o, m: int(model.predict(o, action_masks=m.copy(), deterministic=True)[0]), env_id, config, address, held_out)
    first = evaluate(lambda o, m: int(np.flatnonzero(m)[0]), env_id, config, address, held_out)
    print(json.dumps({"env": env_id, "algo": "MaskablePPO", "envs": a.envs, "steps": int(model.num_timesteps), "train_s": round(elapsed, 1),
                      "steps_per_s": round(model.num_timesteps / elapsed), "eval_mean_bsld_trained": round(trained, 3), "eval_mean_bsld_first_allowed": round(first, 3),
                      "servers": max(1, len(many)), "first_episodes": first_episodes.first}))


if __name__ == "__main__":
    main()
