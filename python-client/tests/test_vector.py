"""make_vec: 4 envs over step_batch / reset_batch, against 4 single envs."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import clustergym
from clustergym.errors import InvalidActionError

from conftest import small_config

JOB = "clustergym/Job-v0"
N = 4


@pytest.fixture
def venv(address: str) -> Any:
    v = clustergym.make_vec(N, JOB, small_config(JOB), address=address, seeds=10)
    yield v
    v.close()


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    scores = rng.random(masks.shape)
    scores[~masks] = -1
    return scores.argmax(axis=1)


def test_shapes_and_spaces(venv: Any) -> None:
    obs, infos = venv.reset()
    assert venv.num_envs == N and len(venv) == N
    assert isinstance(obs, dict)
    for k, v in obs.items():
        assert v.dtype == np.float32 and v.shape == (N, *venv.single_observation_space[k].shape)
    assert venv.observation_space.contains(obs)
    assert isinstance(infos, list) and len(infos) == N
    masks = venv.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (N, int(venv.single_action_space.n)) and masks.any(axis=1).all()
    obs, rewards, term, trunc, infos = venv.step(_pick(masks, np.random.default_rng(0)))
    assert rewards.dtype == np.float64 and rewards.shape == (N,)
    assert term.dtype == np.bool_ and term.shape == (N,) and trunc.dtype == np.bool_
    assert venv.observation_space.contains(obs)


def test_same_results_as_single_envs(venv: Any, address: str) -> None:
    """make_vec(seeds=10) steps exactly as 4 single envs reset with seeds 10..13, through an autoreset."""
    singles = [clustergym.make(JOB, small_config(JOB), address=address) for _ in range(N)]
    try:
        vobs, _ = venv.reset()
        sobs = [e.reset(seed=10 + i)[0] for i, e in enumerate(singles)]
        for i in range(N):
            for k in vobs:
                np.testing.assert_array_equal(vobs[k][i], sobs[i][k])
        rng = np.random.default_rng(1)
        ended = 0
        for _ in range(400):
            masks = venv.action_masks()
            np.testing.assert_array_equal(masks, np.stack([e.action_masks() for e in singles]))
            actions = _pick(masks, rng)
            vobs, vrew, vterm, vtrunc, vinfos = venv.step(actions)
            for i, e in enumerate(singles):
                o, r, t, tr, info = e.step(int(actions[i]))
                assert vrew[i] == r and vterm[i] == t and vtrunc[i] == tr
                if t or tr:
                    ended += 1
                    final = vinfos[i]["final_observation"]
                    for k in o:
                        np.testing.assert_array_equal(final[k], o[k])
                    assert vinfos[i]["final_info"]["metrics"] == info["metrics"]
                    o, _ = e.reset()  # the vector env reset it with the next seed of its stream
                for k in o:
                    np.testing.assert_array_equal(vobs[k][i], o[k])
            if ended >= 2:
                break
        assert ended >= 2, "no episode ended: the autoreset was not exercised"
    finally:
        for e in singles:
            e.close()


def test_reset_seeds(venv: Any) -> None:
    a, _ = venv.reset(seed=[1, 2, 3, 4])
    b, _ = venv.reset(seed=1)  # env i gets 1 + i
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    with pytest.raises(ValueError, match="4 seeds"):
        venv.reset(seed=[1, 2])


def test_invalid_action_in_a_batch(venv: Any) -> None:
    venv.reset(seed=0)
    masks = venv.action_masks().copy()
    actions = masks.argmax(axis=1)
    bad = actions.copy()
    bad[2] = masks.shape[1] + 3
    with pytest.raises(InvalidActionError) as ei:
        venv.step(bad)
    assert ei.value.index == 2 and ei.value.mask is not None
    np.testing.assert_array_equal(venv.action_masks(), masks)
    venv.step(actions)  # still usable
    venv.step(list(venv.action_masks().argmax(axis=1)))  # a list of numpy ints works too


def test_close_twice(address: str) -> None:
    v = clustergym.make_vec(2, JOB, small_config(JOB), address=address)
    v.reset()
    v.close()
    v.close()
    with pytest.raises(RuntimeError, match="closed"):
        v.reset()
