"""clustergym/Slurm-v0 over the real server: an operator agent changes Slurm's settings every period."""
from __future__ import annotations

import numpy as np
import pytest

import clustergym

SLURM = "clustergym/Slurm-v0"
CONFIG = {"jobs": 300, "nodes": 16, "period": 1800, "users": 8}


def test_slurm_episode_over_the_bridge(address: str) -> None:
    with clustergym.make(SLURM, CONFIG, address=address) as env:
        assert env.action_space.n == 12
        obs, info = env.reset(seed=3)
        assert obs.shape == (21,)
        assert info["action_mask"].astype(bool).all()
        total, steps = 0.0, 0
        while True:
            # switch between fair share + backfill and age + no backfill
            obs, reward, terminated, truncated, info = env.step(0 if steps % 2 == 0 else 9)
            total += reward
            steps += 1
            assert np.all((obs >= 0) & (obs <= 1))
            if terminated or truncated:
                break
        assert terminated
        m = info["metrics"]
        assert m["jobs"] == 300
        assert m["suspend_accounting_violations"] == 0
        assert info["episode"]["steps"] == steps
        assert info["episode"]["return"] == pytest.approx(total)
        assert total == pytest.approx(-(m["mean_slowdown"] - 1) * m["measured"] / 300)


def test_slurm_bad_config_names_the_field(address: str) -> None:
    with pytest.raises(clustergym.ConfigError, match=r"\$\.nodes"):
        clustergym.make(SLURM, {"nodes": 0}, address=address)
