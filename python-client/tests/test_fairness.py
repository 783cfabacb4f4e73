"""clustergym/Fair-v0 over the real server: which user's next task starts on which host (seed 001)."""
from __future__ import annotations

import numpy as np
import pytest

import clustergym

FAIR = "clustergym/Fair-v0"
CONFIG = {"task_scale": 0.02}


def run(env, choose, seed=3):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        action = choose(obs, info["action_mask"])
        assert info["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        assert np.all((obs >= 0) & (obs <= 1))
        if terminated or truncated:
            return total, steps, info


def test_fair_episode_over_the_bridge(address: str) -> None:
    with clustergym.make(FAIR, CONFIG, address=address) as env:
        # 3 hosts x 10 slots + wait; 4 features per host, 6 per slot, 4 global
        assert env.action_space.n == 31
        obs, info = env.reset(seed=3)
        assert obs.shape == (3 * 4 + 10 * 6 + 4,)
        assert info["action_mask"].sum() >= 1

        # the first allowed placement (slot 0 first: DRF's user when it fits), else wait
        total, steps, info = run(env, lambda obs, mask: int(np.flatnonzero(mask)[0]))
        m = info["metrics"]
        assert m["tasks"] == 174  # 2% of each user's task count in Table 5.1, rounded
        assert 0 < m["utilisation"] <= 1
        assert 0 < m["jain"] <= 1
        assert set(m["mean_dominant_share"]) == {f"user{i}" for i in range(10)}
        assert info["episode"]["steps"] == steps
        # the utilisation reward integrates the load over simulated time (in ks)
        assert total == pytest.approx(m["utilisation"] * m["makespan"] / 1000, rel=1e-6)


def test_fair_bad_config_names_the_field(address: str) -> None:
    with pytest.raises(clustergym.ConfigError, match=r"\$\.reward"):
        clustergym.make(FAIR, {"reward": "bsld"}, address=address)
