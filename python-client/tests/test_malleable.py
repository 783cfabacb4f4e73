"""clustergym/Malleable-v0 over the real server: resize decisions of malleable jobs (seed 002, DMR)."""
from __future__ import annotations

import numpy as np
import pytest

import clustergym

MALLEABLE = "clustergym/Malleable-v0"
CONFIG = {"jobs": 15}


def run(env, choose) -> tuple:
    obs, info = env.reset(seed=4)
    total, steps = 0.0, 0
    while True:
        obs, reward, terminated, truncated, info = env.step(choose(obs, info["action_mask"]))
        total += reward
        steps += 1
        assert np.all((obs >= 0) & (obs <= 1))
        if terminated or truncated:
            return total, steps, info


def test_malleable_episode_over_the_bridge(address: str) -> None:
    with clustergym.make(MALLEABLE, CONFIG, address=address) as env:
        assert env.action_space.n == 8
        obs, info = env.reset(seed=4)
        assert obs.shape == (19,)
        assert info["action_mask"][0] == 1
        # never resize, then always shrink as far as allowed (the smallest allowed size), at
        # reconfiguration points and at queue points (obs[11] == 1: a request for the job's next point)
        never_total, _, never = run(env, lambda obs, mask: 0)
        assert never["metrics"]["shrinks"] == 0 and never["metrics"]["expands"] == 0

        def smallest(obs, mask):
            allowed = np.flatnonzero(mask[1:])
            if obs[11] == 1:  # a queue point: only shrink requests are allowed
                assert all(obs[12 + i] < obs[0] for i in allowed)
            return int(allowed[0]) + 1 if len(allowed) and obs[12 + allowed[0]] < obs[0] else 0

        total, steps, info = run(env, smallest)
        m = info["metrics"]
        assert m["jobs"] == 15
        assert m["shrinks"] > 0
        assert m["queue_points"] > 0 and m["shrink_requests"] > 0
        assert never["metrics"]["queue_points"] > 0 and never["metrics"]["shrink_requests"] == 0
        assert info["episode"]["steps"] == steps
        assert info["episode"]["return"] == pytest.approx(total)
        # the return is minus the mean waiting time in ks
        assert total == pytest.approx(-m["mean_wait"] / 1000, rel=1e-6, abs=1e-9)
        assert never_total == pytest.approx(-never["metrics"]["mean_wait"] / 1000, rel=1e-6, abs=1e-9)
        assert m["mean_wait"] < never["metrics"]["mean_wait"]


def test_malleable_bad_config_names_the_field(address: str) -> None:
    with pytest.raises(clustergym.ConfigError, match=r"\$\.reward"):
        clustergym.make(MALLEABLE, {"reward": "bsld"}, address=address)
