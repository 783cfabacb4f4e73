"""What Gymnasium's ``gymnasium.utils.env_checker.check_env`` and Stable-Baselines3's
``stable_baselines3.common.env_checker.check_env`` check, property by property, for all seven env
ids with their default configs (and the configs of data/configs), WITHOUT those libraries (CI cannot
install them; the real checkers' run is in python-client/README.md):

- spaces: a ``Discrete`` action space; a float32 ``Box`` (or ``Dict`` of them) observation space
  with finite bounds;
- ``reset`` returns ``(obs, dict)``, the observation inside the space with the space's dtype and
  shape, no NaN nor inf; ``reset(seed=s)`` twice gives the same observation and seeds ``np_random``
  alike; ``reset(options={})`` works; a reset without a seed after a seeded one works;
- ``step(action_space.sample())`` — ANY element of the action space, masked or not — returns a
  5-tuple: observation in the space, a finite float reward, bool flags, a dict info of plain types;
- step determinism: the same seed and the same sampled actions give the same observations, rewards,
  flags and infos;
- rendering: ``render_mode`` is None, ``metadata["render_modes"]`` a list, ``render()`` None;
- ``close()`` twice is fine.

And what a forbidden action does by default (docs/environments.md, Invalid actions): a no-op with
``info["invalid_action"]``, the penalty as reward, the state unchanged.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest

import clustergym
from clustergym.errors import InvalidActionError

from conftest import REPO

ALL_IDS = list(clustergym.ENV_IDS)


def _data_configs() -> List[Tuple[str, str, Dict[str, Any]]]:
    """The env configs of data/configs (paths resolved), as ``(file, id, config)``."""
    out = []
    for f in sorted((REPO / "data" / "configs").glob("*.json")):
        env = json.loads(f.read_text()).get("env")
        if not env:
            continue
        cfg = {k: (str((f.parent / v).resolve()) if k in ("workload", "platform") and isinstance(v, str) else v) for k, v in env["config"].items()}
        out.append((f.name, env["id"], cfg))
    return out


def _missing_file(cfg: Dict[str, Any]) -> str:
    for k in ("workload", "platform"):
        v = cfg.get(k)
        if isinstance(v, str) and not Path(v).exists():
            return v
    return ""


CASES = [(i, "default", {}) for i in ALL_IDS] + [(i, name, cfg) for name, i, cfg in _data_configs()]


@pytest.fixture(params=CASES, ids=[f"{i.split('/')[1]}-{name}" for i, name, _ in CASES])
def case(request: Any, address: str) -> Any:
    env_id, name, cfg = request.param
    missing = _missing_file(cfg)
    if missing:
        pytest.skip(f"{name} needs {missing} (../shared/data is absent)")
    # Gpu-v0 reads Gavel's throughput table (and Philly's jobs) from ../shared by default (issue 45)
    shared = REPO.parent / "shared" / "data"
    if env_id == "clustergym/Gpu-v0" and not ((shared / "gavel").exists() and (shared / "pollux").exists()):
        pytest.skip(f"{name} needs Gavel's table and Philly's jobs in {shared} (absent)")
    return env_id, cfg


def _boxes(space: Any) -> List[Any]:
    return list(space.spaces.values()) if hasattr(space, "spaces") else [space]


def _arrays(obs: Any) -> List[np.ndarray]:
    return list(obs.values()) if isinstance(obs, dict) else [obs]


def _check_obs(space: Any, obs: Any) -> None:
    if hasattr(space, "spaces"):
        assert isinstance(obs, dict) and set(obs) == set(space.spaces)
        pairs = [(space[k], obs[k]) for k in space.spaces]
    else:
        pairs = [(space, obs)]
    for s, o in pairs:
        assert isinstance(o, np.ndarray) and o.dtype == s.dtype == np.float32 and o.shape == s.shape
        assert np.isfinite(o).all(), "NaN or inf in the observation"
    assert space.contains(obs), "observation outside the observation space"


def _plain(v: Any) -> bool:
    """Info values are plain data: numbers, bools, strings, None, numpy arrays, lists and dicts of them."""
    if v is None or isinstance(v, (bool, int, float, str, np.number, np.bool_, np.ndarray)):
        return True
    if isinstance(v, (list, tuple)):
        return all(_plain(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _plain(x) for k, x in v.items())
    return False


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _copy(obs: Any) -> Any:
    return {k: v.copy() for k, v in obs.items()} if isinstance(obs, dict) else obs.copy()


def _run(env: Any, seed: int, steps: int) -> List[Any]:
    """A reset with ``seed`` and ``steps`` steps of ``action_space.sample()`` (seeded alike)."""
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    out: List[Any] = [(_copy(obs), info)]
    for _ in range(steps):
        o, r, t, tr, i = env.step(env.action_space.sample())
        out.append((_copy(o), r, t, tr, i))
        if t or tr:
            break
    return out


def test_the_ids_are_the_servers(client: Any) -> None:
    assert sorted(clustergym.ENV_IDS) == sorted(client.request("list")["env_ids"])


def test_what_the_checkers_check(case: Any, address: str) -> None:
    env_id, cfg = case
    env = clustergym.make(env_id, cfg, address=address)
    try:
        # spaces
        assert type(env.action_space).__name__ == "Discrete" and int(env.action_space.n) >= 2
        for b in _boxes(env.observation_space):
            assert b.dtype == np.float32 and np.isfinite(b.low).all() and np.isfinite(b.high).all()
        # rendering
        assert env.render_mode is None and isinstance(env.metadata["render_modes"], list) and env.render() is None
        # reset: types, space, seed determinism (observation and np_random), options, an unseeded reset
        r1 = env.reset(seed=123)
        assert isinstance(r1, tuple) and len(r1) == 2 and isinstance(r1[1], dict)
        _check_obs(env.observation_space, r1[0])
        o1, x1 = _copy(r1[0]), env.np_random.random()
        o2, _ = env.reset(seed=123)
        assert _same(o1, o2) and env.np_random.random() == x1
        _check_obs(env.observation_space, env.reset(options={})[0])
        _check_obs(env.observation_space, env.reset()[0])
        # steps with sampled actions (masked out or not): the 5-tuple and its types
        a = _run(env, 7, 40)
        for o, r, t, tr, i in a[1:]:
            _check_obs(env.observation_space, o)
            assert type(r) is float and np.isfinite(r)
            assert type(t) is bool and type(tr) is bool
            assert isinstance(i, dict) and _plain(i)
        # step determinism (Gymnasium's check_step_determinism, over many steps)
        b = _run(env, 7, 40)
        assert len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    finally:
        env.close()
        env.close()


def test_sampled_actions_to_the_end_of_small_episodes(address: str) -> None:
    """Any action of the space, all episode long: forbidden ones are no-ops paying the penalty, and
    every episode ends (the invalid-action limit), in the three cluster envs."""
    for env_id in ALL_IDS[:3]:
        cfg = {"trajectory": {"length": 12, "origin": 0}, "invalid_action_penalty": 0.5, "invalid_action_limit": 4}
        if env_id != "clustergym/PolicyPair-v0":
            cfg["k"] = 6
        with clustergym.make(env_id, cfg, address=address) as env:
            obs, info = env.reset(seed=5)
            env.action_space.seed(5)
            noops = 0
            for step in range(20_000):
                mask = env.action_masks().copy()
                a = int(env.action_space.sample())
                before = _copy(obs)
                obs, r, t, tr, info = env.step(a)
                if not mask[a] and "action_taken" not in info:
                    noops += 1
                    assert info["invalid_action"] is True and r == -0.5 and not (t or tr)
                    assert _same(before, obs) and (env.action_masks() == mask).all()
                elif not mask[a]:
                    assert info["invalid_action"] is True and info["action_taken"] == int(np.flatnonzero(mask)[0])
                else:
                    assert "invalid_action" not in info
                if t or tr:
                    assert t, "small episodes terminate"
                    break
            else:
                pytest.fail(f"{env_id}: the episode did not end")
            if env_id != "clustergym/PolicyPair-v0":
                assert noops > 0


def test_raise_mode_keeps_the_strict_behaviour(address: str) -> None:
    with clustergym.make("clustergym/Job-v0", {"k": 8, "trajectory": {"length": 10}, "invalid_action": "raise"}, address=address) as env:
        env.reset(seed=1)
        mask = env.action_masks().copy()
        with pytest.raises(InvalidActionError):
            env.step(int(np.flatnonzero(~mask)[0]))
        assert (env.action_masks() == mask).all()
    with clustergym.make("clustergym/Job-v0", {"k": 8, "trajectory": {"length": 10}}, address=address) as env:
        env.reset(seed=1)
        for bad in (-1, 9, 2**40):  # outside the space: refused in every mode
            with pytest.raises(InvalidActionError):
                env.step(bad)


def test_vector_env_passes_forbidden_actions_to_the_envs(address: str) -> None:
    with clustergym.make_vec("clustergym/Job-v0", 3, {"k": 8, "trajectory": {"length": 10}}, address=address, seeds=0) as venv:
        venv.reset()
        masks = venv.action_masks().copy()
        actions = masks.argmax(axis=1)
        actions[1] = int(np.flatnonzero(~masks[1])[0])
        obs, r, t, tr, infos = venv.step(actions)
        assert infos["_invalid_action"].tolist() == [False, True, False]
        assert infos["steps"].tolist() == [1, 0, 1]
        assert r[1] == 0.0
        with pytest.raises(InvalidActionError):
            venv.step(np.array([0, 0, 99]))


def test_make_vec_takes_gymnasiums_argument_order(address: str) -> None:
    cfg = {"k": 4, "trajectory": {"length": 5}}
    with clustergym.make_vec("clustergym/Job-v0", 2, cfg, address=address) as v:
        assert v.num_envs == 2
    with clustergym.make_vec("clustergym/Job-v0", num_envs=3, config=cfg, address=address) as v:
        assert v.num_envs == 3
    with pytest.warns(DeprecationWarning, match=r"make_vec\(env_id, num_envs"):
        v = clustergym.make_vec(2, "clustergym/Job-v0", cfg, address=address)
    assert v.num_envs == 2 and v.env_id == "clustergym/Job-v0"
    v.close()
    from clustergym import sb3

    with sb3.make_sb3_vec("clustergym/Job-v0", 2, cfg, address=address) as s:
        assert s.num_envs == 2
    with pytest.warns(DeprecationWarning, match=r"make_sb3_vec\(env_id, num_envs"):
        s = sb3.make_sb3_vec(2, "clustergym/Job-v0", cfg, address=address)
    s.close()
    with pytest.raises(TypeError, match="num_envs must be an int"):
        clustergym.make_vec("clustergym/Job-v0", "2", address=address)
    with pytest.raises(TypeError, match="env_id must be a str"):
        clustergym.make_vec(2, 3, address=address)


def test_gymnasium_entry_points_without_gymnasium(address: str) -> None:
    """The functions Gymnasium's registry calls (``gymnasium.make`` -> ``gym_env(**spec.kwargs, **kwargs)``,
    ``gymnasium.make_vec`` -> ``gym_vector_env(num_envs=N, **spec.kwargs, **kwargs)``)."""
    from clustergym.registration import gym_env, gym_vector_env

    env = gym_env(env_id="clustergym/Job-v0", address=address, config={"k": 4}, trajectory={"length": 5})
    try:
        assert env.env_id == "clustergym/Job-v0" and env.config == {"k": 4, "trajectory": {"length": 5}}
        assert env.observation_space["jobs"].shape == (4, 8)
    finally:
        env.close()
    with pytest.raises(ValueError, match="no render modes"):
        gym_env(env_id="clustergym/Job-v0", address=address, render_mode="human")
    venv = gym_vector_env(env_id="clustergym/Job-v0", num_envs=2, address=address, k=4, seeds=3, autoreset_mode="SameStep")
    try:
        assert venv.num_envs == 2 and venv.config == {"k": 4} and venv.metadata["autoreset_mode"].value == "SameStep"
    finally:
        venv.close()
    assert gym_env.metadata == clustergym.Env.metadata  # type: ignore[attr-defined]
