"""clustergym/CoSched-v0 over the real server: an agent sets the parallel MPL and the share L every period."""
from __future__ import annotations

import numpy as np
import pytest

import clustergym

COSCHED = "clustergym/CoSched-v0"
CONFIG = {"sim": {"n_jobs": 120, "MPL_TOTAL": 3, "n": 4}, "period": 1000}


def test_cosched_episode_over_the_bridge(address: str) -> None:
    with clustergym.make(COSCHED, CONFIG, address=address) as env:
        assert env.action_space.n == 12  # MPL_TOTAL x 4 levels of L
        obs, info = env.reset(seed=3)
        assert obs.shape == (9,)
        assert info["action_mask"].astype(bool).all()
        total, steps = 0.0, 0
        while True:
            # alternate MPL 3 with L = 100 % (action 11) and MPL 1 with L = 25 % (action 0)
            obs, reward, terminated, truncated, info = env.step(11 if steps % 2 == 0 else 0)
            total += reward
            steps += 1
            assert np.all((obs >= 0) & (obs <= 1))
            assert reward <= 0
            if terminated or truncated:
                break
        assert terminated
        m = info["metrics"]
        assert m["parallel"]["jobs"] + m["local"]["jobs"] == 120
        assert m["parallel"]["slowdown"] >= 1
        assert info["episode"]["steps"] == steps
        assert info["episode"]["return"] == pytest.approx(total)


def test_cosched_bad_config_names_the_field(address: str) -> None:
    with pytest.raises(clustergym.ConfigError, match=r"\$\.sim\.MPL_TOTAL"):
        clustergym.make(COSCHED, {"sim": {"MPL_TOTAL": 0}}, address=address)
