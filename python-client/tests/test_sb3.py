"""The Stable-Baselines3 adapter (clustergym.sb3): SB3's VecEnv API over a SAME_STEP VectorEnv, checked
against single envs stepped one by one; without stable-baselines3 (duck-typed) and, in a child
interpreter, with a stand-in `stable_baselines3` whose VecEnv follows SB3's abstract base class."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import clustergym
from clustergym import AutoresetMode
from clustergym.sb3 import SB3_AVAILABLE, SB3VecEnv, make_sb3_vec

from conftest import PKG_ROOT, small_config

JOB = "clustergym/Job-v0"
N = 3


@pytest.fixture
def sb3env(address: str) -> Any:
    v = make_sb3_vec(JOB, N, small_config(JOB), address=address, seeds=20)
    yield v
    v.close()


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    scores = rng.random(masks.shape)
    scores[~masks] = -1
    return scores.argmax(axis=1)


def test_shapes(sb3env: Any) -> None:
    assert sb3env.num_envs == N
    assert sb3env.observation_space["jobs"].shape == (8, 8) and int(sb3env.action_space.n) == 9  # ONE env's spaces
    assert sb3env.venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs = sb3env.reset()
    assert isinstance(obs, dict) and obs["jobs"].shape == (N, 8, 8) and obs["jobs"].dtype == np.float32
    assert all(a.flags.writeable for a in obs.values())  # copies: torch.as_tensor takes them without a warning
    assert isinstance(sb3env.reset_infos, list) and len(sb3env.reset_infos) == N and sb3env.reset_infos[0]["steps"] == 0
    masks = sb3env.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (N, 9)
    sb3env.step_async(_pick(masks, np.random.default_rng(0)))
    obs, rewards, dones, infos = sb3env.step_wait()
    assert obs["nodes"].shape == (N, 20, 7)
    assert rewards.dtype == np.float32 and rewards.shape == (N,)
    assert dones.dtype == np.bool_ and dones.shape == (N,)
    assert isinstance(infos, list) and len(infos) == N and all(isinstance(i, dict) for i in infos)
    with pytest.raises(RuntimeError, match="step_async"):
        sb3env.step_wait()


def test_against_single_envs(sb3env: Any, address: str) -> None:
    """Same-step autoreset: at an episode end, terminal_observation is the single env's last
    observation, the info its final info (episode with SB3 Monitor's r/l/t), the observation row and
    reset_infos[i] the start of the next episode."""
    singles = [clustergym.make(JOB, small_config(JOB), address=address) for _ in range(N)]
    try:
        obs = sb3env.reset()
        for i, e in enumerate(singles):
            o, _ = e.reset(seed=20 + i)
            for k in o:
                np.testing.assert_array_equal(obs[k][i], o[k])
        rng = np.random.default_rng(2)
        ended = 0
        for _ in range(600):
            masks = np.stack(sb3env.env_method("action_masks"))  # what sb3-contrib's MaskablePPO calls
            np.testing.assert_array_equal(masks, np.stack([e.action_masks() for e in singles]))
            actions = _pick(masks, rng)
            obs, rewards, dones, infos = sb3env.step(actions)
            for i, e in enumerate(singles):
                o, r, t, tr, info = e.step(int(actions[i]))
                assert rewards[i] == np.float32(r) and dones[i] == (t or tr)
                if t or tr:
                    ended += 1
                    term = infos[i]["terminal_observation"]
                    for k in o:
                        np.testing.assert_array_equal(term[k], o[k])
                    assert infos[i]["TimeLimit.truncated"] == (tr and not t)
                    assert infos[i]["metrics"] == info["metrics"]
                    ep = infos[i]["episode"]
                    assert ep["r"] == info["episode"]["return"] and ep["l"] == info["episode"]["steps"] and ep["t"] >= 0
                    assert ep["seed"] == info["episode"]["seed"]
                    o, reset_info = e.reset()
                    assert sb3env.reset_infos[i] == {k: v for k, v in reset_info.items() if k != "action_mask"}
                else:
                    assert "terminal_observation" not in infos[i] and infos[i]["steps"] == info["steps"]
                for k in o:
                    np.testing.assert_array_equal(obs[k][i], o[k])
            if ended >= 3:
                break
        assert ended >= 3
    finally:
        for e in singles:
            e.close()


def test_attrs_and_methods(sb3env: Any) -> None:
    sb3env.reset()
    assert sb3env.has_attr("action_masks")  # sb3-contrib's is_masking_supported
    fns = sb3env.get_attr("action_masks")
    assert len(fns) == N and all(callable(f) for f in fns)
    np.testing.assert_array_equal(fns[1](), sb3env.action_masks()[1])
    assert sb3env.get_attr("render_mode") == [None] * N
    assert sb3env.get_attr("env_id", indices=[0, 2]) == [JOB, JOB]
    assert sb3env.get_attr("action_space", indices=1)[0] == sb3env.action_space
    assert not sb3env.has_attr("no_such_thing")
    with pytest.raises(AttributeError):
        sb3env.get_attr("no_such_thing")
    with pytest.raises(AttributeError):
        sb3env.env_method("no_such_method")
    with pytest.raises(AttributeError):
        sb3env.set_attr("k", 3)
    assert sb3env.env_method("action_masks", indices=[2])[0].shape == (9,)
    assert sb3env.env_is_wrapped(object) == [False] * N
    assert sb3env.render() is None


def test_seed_and_options(address: str) -> None:
    """seed(s) and set_options(...) apply to the next reset() only, as in SB3."""
    cfg = small_config(JOB)
    cfg["trajectory"]["origin"] = "random"  # the seed picks the trajectory
    a = make_sb3_vec(JOB, N, cfg, address=address)
    b = make_sb3_vec(JOB, N, cfg, address=address)
    try:
        assert a.seed(7) == [7, 8, 9]
        b.seed(7)
        oa, ob = a.reset(), b.reset()
        for k in oa:
            np.testing.assert_array_equal(oa[k], ob[k])
        oa2 = a.reset()  # no seed now: the next seed of each env's stream
        assert any(not np.array_equal(oa[k], oa2[k]) for k in oa)
        b.seed(7)
        ob2 = b.reset()
        for k in oa:
            np.testing.assert_array_equal(oa[k], ob2[k])
        a.set_options({"origin": 5})
        a.reset()
        assert a._options == [{}] * N
        a.set_options([{"origin": 1}, {"origin": 2}, {"origin": 3}])
        with pytest.raises(ValueError, match="same options"):
            a.reset()
    finally:
        a.close()
        b.close()


def test_needs_same_step(address: str) -> None:
    v = clustergym.make_vec(JOB, 1, small_config(JOB), address=address)  # NEXT_STEP
    try:
        with pytest.raises(ValueError, match="SAME_STEP"):
            SB3VecEnv(v)
    finally:
        v.close()
    with pytest.raises(TypeError, match="SAME_STEP"):
        make_sb3_vec(JOB, 1, small_config(JOB), address=address, autoreset_mode="NextStep")
    with make_sb3_vec(JOB, 1, small_config(JOB), address=address) as s:
        s.reset()
    assert s.venv.closed


def test_duck_typed_without_sb3() -> None:
    if SB3_AVAILABLE:
        pytest.skip("stable-baselines3 is installed")
    assert SB3VecEnv.__mro__[1] is object


# A stand-in for stable_baselines3.common.vec_env.VecEnv with SB3's abstract methods and constructor
# (which reads get_attr("render_mode")), and sb3-contrib's get_action_masks / is_masking_supported.
STUB = {
    "stable_baselines3/__init__.py": "",
    "stable_baselines3/common/__init__.py": "",
    "stable_baselines3/common/vec_env/__init__.py": '''
        from abc import ABC, abstractmethod
        import numpy as np
        class VecEnv(ABC):
            def __init__(self, num_envs, observation_space, action_space):
                self.num_envs = num_envs
                self.observation_space = observation_space
                self.action_space = action_space
                self.reset_infos = [{} for _ in range(num_envs)]
                self._seeds = [None for _ in range(num_envs)]
                self._options = [{} for _ in range(num_envs)]
                self.render_mode = self.get_attr("render_mode")[0]
                self.metadata = {"render_modes": []}
            def _reset_seeds(self):
                self._seeds = [None for _ in range(self.num_envs)]
            def _reset_options(self):
                self._options = [{} for _ in range(self.num_envs)]
            @abstractmethod
            def reset(self): ...
            @abstractmethod
            def step_async(self, actions): ...
            @abstractmethod
            def step_wait(self): ...
            @abstractmethod
            def close(self): ...
            @abstractmethod
            def get_attr(self, attr_name, indices=None): ...
            @abstractmethod
            def set_attr(self, attr_name, value, indices=None): ...
            @abstractmethod
            def env_method(self, method_name, *method_args, indices=None, **method_kwargs): ...
            @abstractmethod
            def env_is_wrapped(self, wrapper_class, indices=None): ...
            def has_attr(self, attr_name):
                try:
                    self.get_attr(attr_name)
                    return True
                except AttributeError:
                    return False
            def step(self, actions):
                self.step_async(actions)
                return self.step_wait()
            def seed(self, seed=None):
                self._seeds = [seed + idx for idx in range(self.num_envs)]
                return self._seeds
            def _get_indices(self, indices):
                if indices is None:
                    return range(self.num_envs)
                if isinstance(indices, int):
                    return [indices]
                return indices
    ''',
    "sb3_contrib_stub.py": '''
        import numpy as np
        from stable_baselines3.common.vec_env import VecEnv
        def is_masking_supported(env):
            return env.has_attr("action_masks") if isinstance(env, VecEnv) else hasattr(env, "action_masks")
        def get_action_masks(env):
            return np.stack(env.env_method("action_masks")) if isinstance(env, VecEnv) else env.action_masks()
    ''',
}


def test_with_stable_baselines3(tmp_path: Path, address: str) -> None:
    for rel, text in STUB.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    code = f"""
        import json, numpy as np
        from stable_baselines3.common.vec_env import VecEnv
        import clustergym.sb3 as s
        from sb3_contrib_stub import get_action_masks, is_masking_supported
        env = s.make_sb3_vec("clustergym/Job-v0", 2, {{"k": 4, "trajectory": {{"length": 5}}}}, address={address!r})
        env.seed(1)
        obs = env.reset()
        ends, steps = 0, 0
        while ends < 3:
            masks = get_action_masks(env)
            obs, rewards, dones, infos = env.step(masks.argmax(axis=1))
            steps += 1
            ends += int(dones.sum())
            term = [i["terminal_observation"]["jobs"].shape for i, d in zip(infos, dones) if d]
        print(json.dumps({{
            "available": s.SB3_AVAILABLE, "is_vecenv": isinstance(env, VecEnv), "masking": is_masking_supported(env),
            "masks": [list(masks.shape), str(masks.dtype)], "render_mode": env.render_mode, "seeds_used_once": env._seeds,
            "term": [list(t) for t in term], "steps": steps,
        }}))
        env.close()
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(PKG_ROOT)]))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["available"] and out["is_vecenv"] and out["masking"]
    assert out["masks"] == [[2, 5], "bool"] and out["render_mode"] is None and out["seeds_used_once"] == [None, None]
    assert out["term"] and all(t == [4, 8] for t in out["term"]) and out["steps"] >= 6
