"""Gymnasium-checker-like conformance of every env id, from Python, against the real server."""
from __future__ import annotations

from typing import Any, List

import numpy as np
import pytest

import clustergym
from clustergym.errors import BadStateError, InvalidActionError

from conftest import ENV_IDS, small_config


@pytest.fixture(params=ENV_IDS)
def env(request: Any, address: str) -> Any:
    e = clustergym.make(request.param, small_config(request.param), address=address)
    yield e
    e.close()


def _obs_equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b))


def _check_obs(env: Any, obs: Any) -> None:
    space = env.observation_space
    if isinstance(obs, dict):
        for k, v in obs.items():
            assert isinstance(v, np.ndarray) and v.dtype == np.float32, k
            assert v.shape == space[k].shape, k
    else:
        assert isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.shape == space.shape
    assert space.contains(obs), "observation outside the observation space"


def _random_valid(env: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(env.action_masks())))


def test_spaces_and_reset(env: Any) -> None:
    assert env.action_space.n >= 2 and env.action_space.shape == ()
    obs, info = env.reset(seed=3)
    _check_obs(env, obs)
    assert isinstance(info, dict) and info["steps"] == 0
    mask = env.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (int(env.action_space.n),)
    assert mask.any(), "a reset state is a decision point: some action is valid"
    np.testing.assert_array_equal(info["action_mask"].astype(bool), mask)


def test_episode_to_the_end_with_masked_random_actions(env: Any) -> None:
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    total, steps = 0.0, 0
    while True:
        a = _random_valid(env, rng)
        assert env.action_space.contains(a)
        obs, reward, terminated, truncated, info = env.step(a)
        assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
        _check_obs(env, obs)
        total += reward
        steps += 1
        if terminated or truncated:
            break
        assert steps < 10_000
    assert terminated
    assert info["metrics"]["jobs_finished"] == 30
    assert info["episode"]["steps"] == steps
    assert info["episode"]["return"] == pytest.approx(total)
    assert not env.action_masks().any(), "the mask is all False once the episode is over"
    with pytest.raises(BadStateError):
        env.step(0)
    obs, info = env.reset()  # and a new episode goes
    _check_obs(env, obs)


def _rollout(env: Any, seed: int, n: int, options: Any = None) -> List[Any]:
    rng = np.random.default_rng(123)
    obs, _ = env.reset(seed=seed, options=options)
    out: List[Any] = [obs]
    for _ in range(n):
        obs, r, term, trunc, _ = env.step(_random_valid(env, rng))
        out.append((obs, r))
        if term or trunc:
            break
    return out


def test_reset_with_seed_is_reproducible(env: Any, address: str) -> None:
    a = _rollout(env, seed=5, n=15)
    b = _rollout(env, seed=5, n=15)
    with clustergym.make(env.env_id, env.config, address=address) as other:
        c = _rollout(other, seed=5, n=15)
    assert len(a) == len(b) == len(c)
    assert _obs_equal(a[0], b[0]) and _obs_equal(a[0], c[0])
    for x, y, z in zip(a[1:], b[1:], c[1:]):
        assert _obs_equal(x[0], y[0]) and _obs_equal(x[0], z[0])
        assert x[1] == y[1] == z[1]


def test_other_seed_with_random_origin_differs(address: str) -> None:
    cfg = small_config("clustergym/Job-v0", trajectory={"length": 30, "origin": "random"})
    with clustergym.make("clustergym/Job-v0", cfg, address=address) as env:
        a = _rollout(env, seed=1, n=10)
        b = _rollout(env, seed=2, n=10)
    same = len(a) == len(b) and all(_obs_equal(x[0], y[0]) for x, y in zip(a[1:], b[1:])) and _obs_equal(a[0], b[0])
    assert not same


def test_options_empty_and_none_accepted(env: Any) -> None:
    o1, _ = env.reset(seed=4, options={})
    o2, _ = env.reset(seed=4, options=None)
    o3, _ = env.reset(seed=4)
    assert _obs_equal(o1, o2) and _obs_equal(o1, o3)


def test_close_twice_and_use_after_close(address: str) -> None:
    env = clustergym.make("clustergym/Job-v0", small_config("clustergym/Job-v0"), address=address)
    env.reset(seed=0)
    env.close()
    env.close()
    assert env.closed
    with pytest.raises(RuntimeError, match="closed"):
        env.step(0)
    with clustergym.make("clustergym/Job-v0", small_config("clustergym/Job-v0"), address=address) as e2:
        e2.reset(seed=0)
    e2.close()


def test_forbidden_actions_raise_and_leave_the_env_usable(env: Any, address: str) -> None:
    """With ``invalid_action: "raise"`` (the default makes them no-ops: test_gym_contract.py)."""
    env.close()
    env = clustergym.make(env.env_id, {**env.config, "invalid_action": "raise"}, address=address)
    obs, info = env.reset(seed=2)
    mask = env.action_masks().copy()
    n = int(env.action_space.n)
    forbidden = np.flatnonzero(~mask)
    tried = [int(forbidden[0])] if forbidden.size else []
    tried += [n, n + 7, -1]
    for a in tried:
        with pytest.raises(InvalidActionError) as ei:
            env.step(a)
        assert ei.value.code == "invalid_action" and str(a) in ei.value.message
        assert ei.value.mask is not None and ei.value.mask.tolist() == mask.tolist()
        assert ei.value.reason
    # the state is unchanged (the client's mask cache proves nothing): the same valid action gives what a fresh env gives
    valid = int(np.flatnonzero(mask)[0])
    got = env.step(valid)
    with clustergym.make(env.env_id, env.config, address=address) as fresh:
        fresh.reset(seed=2)
        want = fresh.step(valid)
    assert _obs_equal(got[0], want[0]) and got[1:4] == want[1:4]
    assert got[4]["steps"] == want[4]["steps"] == 1
    env.close()


def test_numpy_actions_accepted(env: Any) -> None:
    env.reset(seed=0)
    valid = np.flatnonzero(env.action_masks())
    env.step(np.int64(valid[0]))
    valid = np.flatnonzero(env.action_masks())
    if valid.size:
        env.step(np.array([valid[0]], dtype=np.int32))


def test_np_random_seeded_by_reset(env: Any) -> None:
    env.reset(seed=11)
    x = env.np_random.random()
    env.reset(seed=11)
    assert env.np_random.random() == x
    assert env.unwrapped is env
