#!/usr/bin/env python3
"""A masked policy-gradient agent in numpy only: REINFORCE with a baseline, on a tiny configuration.

Environment: ``clustergym/Job-v0`` on a 2-node, 16-core platform with generated Poisson jobs (a fresh
episode of 24 jobs per seed), queue window K = 8, terminal reward ``-mean bsld``.

Policy: a linear "kernel" shared by the job slots (the DESIGN's per-row scoring, without the hidden
layers): slot ``j`` scores ``w . [jobs[j], global, 1]``, the ``wait`` action scores
``v . [global, 1]``; a softmax over the VALID actions (the action mask) gives the probabilities,
so forbidden actions are never sampled. Training: batches of episodes, advantage = episode return -
batch mean (the baseline), normalised; Adam ascent on the sum of ``advantage * grad log pi``.

Evaluation: the same held-out seeds before and after training, stochastic policy with a fixed
sampling seed (before training the policy is uniform over valid actions, i.e. the random masked
agent). Deterministic: the same arguments give the same numbers. Prints one JSON line.

    python3 examples/reinforce_numpy.py --updates 40
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

import _common  # noqa: F401
import clustergym

#: The tiny configuration: small platform, generated jobs, K = 8.
TINY_CONFIG: Dict[str, Any] = {
    "platform": {
        "name": "tiny-2x8",
        "clusters": [
            {
                "nodes": [
                    {
                        "count": 2,
                        "memory_gb": 64,
                        "processors": [{"count": 1, "cores": 8, "clock_rate": 2.0, "dpflops_per_cycle": 1, "static_power": 20, "dynamic_power": 10, "min_power": 0.05}],
                    }
                ]
            }
        ],
    },
    "generator": {
        "model": "poisson",
        "jobs": 24,
        "rate": 1 / 40,
        "size": {"dist": "uniform", "min": 1, "max": 8},
        "maxSize": 8,
        "runtime": {"dist": "lognormal", "mu": 5.0, "sigma": 1.2},
        "type": "seq",
    },
    "k": 8,
    "reward": "bsld",
}


class MaskedLinearPolicy:
    """Linear per-slot scores + a wait score, softmax over the valid actions."""

    def __init__(self, fj: int, fg: int) -> None:
        self.w = np.zeros(fj + fg + 1)  # job-slot kernel
        self.v = np.zeros(fg + 1)  # wait action
        self._m = [np.zeros_like(self.w), np.zeros_like(self.v)]
        self._s = [np.zeros_like(self.w), np.zeros_like(self.v)]
        self._t = 0

    @staticmethod
    def features(obs: Dict[str, np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
        jobs = np.asarray(obs["jobs"], dtype=np.float64)
        g = np.asarray(obs["global"], dtype=np.float64)
        k = jobs.shape[0]
        phi_j = np.concatenate([jobs, np.broadcast_to(g, (k, g.size)), np.ones((k, 1))], axis=1)
        phi_w = np.concatenate([g, [1.0]])
        return phi_j, phi_w

    def probs(self, phi_j: np.ndarray, phi_w: np.ndarray, mask: np.ndarray) -> np.ndarray:
        scores = np.append(phi_j @ self.w, phi_w @ self.v)
        scores = np.where(mask, scores, -np.inf)
        scores -= scores[mask].max()
        p = np.exp(scores)
        return p / p.sum()

    @staticmethod
    def grad_logp(phi_j: np.ndarray, phi_w: np.ndarray, p: np.ndarray, a: int) -> Tuple[np.ndarray, np.ndarray]:
        k = phi_j.shape[0]
        gw = -(p[:k, None] * phi_j).sum(axis=0)
        gv = -p[k] * phi_w
        if a < k:
            gw = gw + phi_j[a]
        else:
            gv = gv + phi_w
        return gw, gv

    def ascend(self, grads: Sequence[np.ndarray], lr: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> None:
        """One Adam step of gradient ASCENT."""
        self._t += 1
        for i, (param, g) in enumerate(zip((self.w, self.v), grads)):
            self._m[i] = b1 * self._m[i] + (1 - b1) * g
            self._s[i] = b2 * self._s[i] + (1 - b2) * g * g
            mhat = self._m[i] / (1 - b1**self._t)
            shat = self._s[i] / (1 - b2**self._t)
            param += lr * mhat / (np.sqrt(shat) + eps)


def run_episode(env: Any, policy: MaskedLinearPolicy, seed: int, rng: np.random.Generator, greedy: bool = False, learn: bool = False) -> Dict[str, Any]:
    """One episode; returns its return, metrics, and (``learn``) the summed grad log pi."""
    obs, info = env.reset(seed=seed)
    ret, done = 0.0, False
    gw_sum, gv_sum = np.zeros_like(policy.w), np.zeros_like(policy.v)
    steps = 0
    while not done:
        mask = env.action_masks()
        phi_j, phi_w = policy.features(obs)
        p = policy.probs(phi_j, phi_w, mask)
        a = int(np.argmax(p)) if greedy else int(rng.choice(p.size, p=p))
        if learn:
            gw, gv = policy.grad_logp(phi_j, phi_w, p, a)
            gw_sum += gw
            gv_sum += gv
        obs, reward, terminated, truncated, info = env.step(a)
        ret += reward
        steps += 1
        done = terminated or truncated
    return {"return": ret, "steps": steps, "metrics": info.get("metrics", {}), "grads": (gw_sum, gv_sum)}


def evaluate(env: Any, policy: MaskedLinearPolicy, seeds: Sequence[int], sample_seed: int, greedy: bool = False) -> float:
    rng = np.random.default_rng(sample_seed)
    return float(np.mean([run_episode(env, policy, s, rng, greedy=greedy)["return"] for s in seeds]))


def train(
    env: Any,
    updates: int = 40,
    batch: int = 8,
    lr: float = 0.05,
    seed: int = 0,
    eval_seeds: Sequence[int] = tuple(range(10_000, 10_016)),
    log: Optional[Any] = None,
) -> Dict[str, Any]:
    """Trains a policy with REINFORCE; returns the evaluations before and after and the curve."""
    obs_space = env.observation_space
    fj = obs_space["jobs"].shape[-1]
    fg = obs_space["global"].shape[-1]
    policy = MaskedLinearPolicy(fj, fg)
    rng = np.random.default_rng(seed)
    before = evaluate(env, policy, eval_seeds, sample_seed=seed + 1)
    curve: List[float] = []
    episode_seed = seed * 1_000_003
    for u in range(updates):
        eps = []
        for _ in range(batch):
            eps.append(run_episode(env, policy, episode_seed, rng, learn=True))
            episode_seed += 1
        returns = np.array([e["return"] for e in eps])
        adv = returns - returns.mean()
        std = adv.std()
        if std > 1e-8:
            adv = adv / std
        gw = sum(a * e["grads"][0] for a, e in zip(adv, eps)) / batch
        gv = sum(a * e["grads"][1] for a, e in zip(adv, eps)) / batch
        policy.ascend((gw, gv), lr)
        curve.append(float(returns.mean()))
        if log:
            log(f"update {u + 1}/{updates}: mean return {returns.mean():.3f}")
    after = evaluate(env, policy, eval_seeds, sample_seed=seed + 1)
    after_greedy = evaluate(env, policy, eval_seeds, sample_seed=seed + 1, greedy=True)
    return {"before": before, "after": after, "after_greedy": after_greedy, "curve": curve, "w": policy.w.tolist(), "v": policy.v.tolist()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", help="endpoint of a running `clustergym serve` (default: start a local server)")
    p.add_argument("--updates", type=int, default=40)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args()
    t0 = time.perf_counter()
    with clustergym.make("clustergym/Job-v0", TINY_CONFIG, address=a.address) as env:
        r = train(env, updates=a.updates, batch=a.batch, lr=a.lr, seed=a.seed, log=None if a.quiet else (lambda s: print(s, flush=True)))
    out = {
        "updates": a.updates,
        "batch": a.batch,
        "eval_return_before": round(r["before"], 6),
        "eval_return_after": round(r["after"], 6),
        "eval_return_after_greedy": round(r["after_greedy"], 6),
        "improvement": round(r["after"] - r["before"], 6),
        "seconds": round(time.perf_counter() - t0, 2),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
