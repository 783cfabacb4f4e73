"""The gymnasium code path, without gymnasium installed: a child interpreter imports the client with
a minimal stand-in `gymnasium` package that follows gymnasium's public signatures (Env.reset seeding
`np_random`, spaces.Box/Discrete/MultiBinary/MultiDiscrete/Dict, vector.utils.batch_space, 1.x's
vector.VectorEnv and vector.AutoresetMode) and records the calls; and with a `gymnasium` whose import
fails, the client falls back to its light spaces (the import is safe)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import PKG_ROOT

STUB = {
    "gymnasium/__init__.py": '''
        import numpy as np
        from . import spaces
        __version__ = "1.2.0"
        CALLS = []
        class Env:
            metadata = {"render_modes": []}
            render_mode = None
            spec = None
            _np_random = None
            def reset(self, *, seed=None, options=None):
                if seed is not None:
                    self._np_random = np.random.default_rng(seed)
            @property
            def np_random(self):
                if self._np_random is None:
                    self._np_random = np.random.default_rng()
                return self._np_random
            @property
            def unwrapped(self):
                return self
            def close(self):
                pass
    ''',
    "gymnasium/spaces/__init__.py": '''
        import numpy as np
        class Space:
            def __init__(self, shape=None, dtype=None, seed=None):
                self.shape, self.dtype = shape, dtype
        class Box(Space):
            def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
                super().__init__(tuple(shape), np.dtype(dtype))
                self.low, self.high = np.full(shape, low, dtype), np.full(shape, high, dtype)
            def contains(self, x):
                x = np.asarray(x)
                return x.shape == self.shape and x.dtype == self.dtype and bool(np.all((x >= self.low) & (x <= self.high)))
        class Discrete(Space):
            def __init__(self, n, seed=None, start=0):
                super().__init__((), np.int64)
                self.n, self.start = np.int64(n), np.int64(start)
        class MultiBinary(Space):
            def __init__(self, n, seed=None):
                super().__init__((n,), np.int8)
                self.n = n
        class MultiDiscrete(Space):
            def __init__(self, nvec, dtype=np.int64, seed=None, start=None):
                self.nvec = np.asarray(nvec)
                super().__init__(self.nvec.shape, dtype)
        class Dict(Space):
            def __init__(self, spaces=None, seed=None, **kw):
                self.spaces = dict(sorted(spaces.items()))
                super().__init__(None, None)
            def __getitem__(self, k):
                return self.spaces[k]
            def contains(self, x):
                return set(x) == set(self.spaces) and all(self.spaces[k].contains(v) for k, v in x.items())
    ''',
    "gymnasium/vector/__init__.py": '''
        import enum
        import numpy as np
        class AutoresetMode(enum.Enum):
            NEXT_STEP = "NextStep"
            SAME_STEP = "SameStep"
            DISABLED = "Disabled"
        class VectorEnv:
            metadata = {}
            spec = None
            render_mode = None
            closed = False
            _np_random = None
            _np_random_seed = None
            def reset(self, *, seed=None, options=None):
                if seed is not None:
                    self._np_random, self._np_random_seed = np.random.default_rng(seed), seed
            def step(self, actions):
                raise NotImplementedError
            def close(self, **kwargs):
                if self.closed:
                    return
                self.close_extras(**kwargs)
                self.closed = True
            def close_extras(self, **kwargs):
                pass
            @property
            def np_random(self):
                if self._np_random is None:
                    self._np_random = np.random.default_rng()
                return self._np_random
            @property
            def unwrapped(self):
                return self
    ''',
    "gymnasium/vector/utils/__init__.py": '''
        import numpy as np
        from gymnasium import spaces
        def batch_space(space, n=1):
            if isinstance(space, spaces.Discrete):
                return spaces.MultiDiscrete(np.full((n,), space.n))
            if isinstance(space, spaces.Box):
                return spaces.Box(0, 1, (n, *space.shape), space.dtype)
            if isinstance(space, spaces.Dict):
                return spaces.Dict({k: batch_space(s, n) for k, s in space.spaces.items()})
            raise TypeError(space)
    ''',
    "gymnasium/envs/__init__.py": """
        from gymnasium.envs.registration import register, registry
    """,
    "gymnasium/envs/registration.py": """
        # Gymnasium 1.x's registry, reduced to what clustergym uses: register(id, entry_point,
        # vector_entry_point, kwargs) and make/make_vec calling the entry points with the spec's kwargs
        import importlib
        registry = {}
        class EnvSpec:
            def __init__(self, id, entry_point=None, vector_entry_point=None, kwargs=None, **rest):
                self.id, self.entry_point, self.vector_entry_point, self.kwargs = id, entry_point, vector_entry_point, dict(kwargs or {})
        def register(id, entry_point=None, vector_entry_point=None, kwargs=None, **rest):
            registry[id] = EnvSpec(id, entry_point, vector_entry_point, kwargs)
        def load_env_creator(name):
            mod, attr = name.split(":")
            return getattr(importlib.import_module(mod), attr)
        def make(id, **kwargs):
            spec = registry[id]
            env = load_env_creator(spec.entry_point)(**{**spec.kwargs, **kwargs})
            env.spec = spec
            return env
        def make_vec(id, num_envs=1, **kwargs):
            spec = registry[id]
            return load_env_creator(spec.vector_entry_point)(num_envs=num_envs, **{**spec.kwargs, **kwargs})
    """,
}

BROKEN = {"gymnasium/__init__.py": "raise RuntimeError('a broken gymnasium install')\n"}


def _write(root: Path, files: dict) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def _run(root: Path, code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(PKG_ROOT)]))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_gymnasium_classes_are_used_when_importable(tmp_path: Path, address: str) -> None:
    _write(tmp_path, STUB)
    out = _run(
        tmp_path,
        f"""
        import json, numpy as np, gymnasium, clustergym
        env = clustergym.make("clustergym/Job-v0", {{"k": 4, "trajectory": {{"length": 10}}}}, address={address!r})
        obs, info = env.reset(seed=3)
        x = env.np_random.random()
        env.reset(seed=3)
        same = env.np_random.random() == x
        obs, r, t, tr, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        venv = clustergym.make_vec("clustergym/Job-v0", 2, {{"k": 4, "trajectory": {{"length": 10}}}}, address={address!r})
        vobs, vinfos = venv.reset(seed=0)
        vx = venv.np_random.random()
        venv.reset(seed=0)
        vseeded = venv.np_random.random() == vx
        vout = venv.step(venv.action_masks().argmax(axis=1))
        print(json.dumps({{
            "gym": clustergym.GYMNASIUM,
            "env_is_gym": isinstance(env, gymnasium.Env),
            "obs_space": type(env.observation_space).__module__ + "." + type(env.observation_space).__name__,
            "act_space": type(env.action_space).__name__, "n": int(env.action_space.n),
            "jobs_shape": list(env.observation_space["jobs"].shape),
            "contains": bool(env.observation_space.contains(obs)),
            "seeded": same,
            "vec_act": type(venv.action_space).__name__, "vec_obs_jobs": list(venv.observation_space["jobs"].shape),
            "vec_is_gym": isinstance(venv, gymnasium.vector.VectorEnv), "vec_seeded": vseeded,
            "mode_is_gym": venv.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.NEXT_STEP,
            "modes_are_gym": clustergym.AutoresetMode is gymnasium.vector.AutoresetMode,
            "vec_infos": sorted(vinfos), "vec_step": [len(vout), str(vout[1].dtype), str(vout[2].dtype)],
        }}))
        venv.close(); env.close()
        """,
    )
    assert out["gym"] and out["env_is_gym"] and out["seeded"] and out["contains"]
    assert out["obs_space"] == "gymnasium.spaces.Dict" and out["act_space"] == "Discrete" and out["n"] == 5
    assert out["jobs_shape"] == [4, 8]
    assert out["vec_act"] == "MultiDiscrete" and out["vec_obs_jobs"] == [2, 4, 8]
    assert out["vec_is_gym"] and out["vec_seeded"] and out["mode_is_gym"] and out["modes_are_gym"]
    assert "_time" in out["vec_infos"] and out["vec_step"] == [5, "float64", "bool"]


@pytest.mark.parametrize("version", ["1.0.0", "0.29.1"])
def test_older_gymnasium(tmp_path: Path, address: str, version: str) -> None:
    """Gymnasium 1.0 has no AutoresetMode (the client's own enum stands in); 0.29's VectorEnv has
    another API (the client's VectorEnv does not subclass it)."""
    stub = dict(STUB)
    stub["gymnasium/__init__.py"] = STUB["gymnasium/__init__.py"].replace('"1.2.0"', repr(version))
    stub["gymnasium/vector/__init__.py"] = STUB["gymnasium/vector/__init__.py"].replace("class AutoresetMode(enum.Enum)", "class _NotAutoresetMode(enum.Enum)")
    _write(tmp_path, stub)
    out = _run(
        tmp_path,
        f"""
        import json, gymnasium, clustergym
        from clustergym import vector
        venv = clustergym.make_vec("clustergym/Job-v0", 1, {{"k": 4, "trajectory": {{"length": 10}}}}, address={address!r}, autoreset_mode="SameStep")
        venv.reset(seed=1)
        print(json.dumps({{
            "own_modes": clustergym.AutoresetMode is vector._AutoresetMode,
            "mode": venv.metadata["autoreset_mode"].value,
            "vec_is_gym": isinstance(venv, gymnasium.vector.VectorEnv),
        }}))
        venv.close()
        """,
    )
    assert out == {"own_modes": True, "mode": "SameStep", "vec_is_gym": version.startswith("1.")}


def test_a_broken_gymnasium_falls_back_to_light_spaces(tmp_path: Path) -> None:
    _write(tmp_path, BROKEN)
    out = _run(
        tmp_path,
        """
        import json, clustergym
        from clustergym import spaces
        s = spaces.from_descriptor({"type": "Discrete", "n": 3})
        print(json.dumps({"gym": clustergym.GYMNASIUM, "space": type(s).__module__}))
        """,
    )
    assert out == {"gym": False, "space": "clustergym.spaces"}


def test_import_registers_every_id_with_gymnasium(tmp_path: Path, address: str) -> None:
    """``import clustergym`` fills Gymnasium's registry; ``make``/``make_vec`` through the registered
    entry points give a clustergym Env and the batched VectorEnv."""
    _write(tmp_path, STUB)
    out = _run(
        tmp_path,
        f"""
        import json, gymnasium, clustergym
        from gymnasium.envs.registration import registry, make, make_vec
        env = make("clustergym/Job-v0", address={address!r}, k=4, trajectory={{"length": 5}})
        obs, info = env.reset(seed=1)
        venv = make_vec("clustergym/Job-v0", num_envs=3, address={address!r}, config={{"k": 4, "trajectory": {{"length": 5}}}})
        vobs, _ = venv.reset(seed=1)
        print(json.dumps({{
            "ids": sorted(i for i in registry if i.startswith("clustergym/")),
            "entry": registry["clustergym/Job-v0"].entry_point,
            "vector_entry": registry["clustergym/Job-v0"].vector_entry_point,
            "env": type(env).__name__, "jobs": list(obs["jobs"].shape),
            "venv": type(venv).__name__, "vjobs": list(vobs["jobs"].shape),
            "again": clustergym.register_envs(),
        }}))
        env.close(); venv.close()
        """,
    )
    assert out["ids"] == sorted(__import__("clustergym").ENV_IDS)
    assert out["entry"] == "clustergym.registration:gym_env" and out["vector_entry"] == "clustergym.registration:gym_vector_env"
    assert out["env"] == "Env" and out["jobs"] == [4, 8]
    assert out["venv"] == "VectorEnv" and out["vjobs"] == [3, 4, 8]
    assert out["again"] is True


def test_without_gymnasium_nothing_is_registered() -> None:
    assert __import__("clustergym").register_envs() is __import__("clustergym").GYMNASIUM
