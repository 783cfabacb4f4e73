"""Stable-Baselines3 adapter: :class:`SB3VecEnv` presents a :class:`~clustergym.vector.VectorEnv` with
SB3's ``VecEnv`` API, and :func:`make_sb3_vec` makes one.

SB3's conventions differ from Gymnasium 1.x's: ``reset()`` returns the observations only (the
infos go to ``reset_infos``); ``step_async(actions)`` then ``step_wait()`` (or ``step(actions)``)
return ``(observations, rewards, dones, infos)`` with ``dones = terminated | truncated`` and
``infos`` a LIST of one dict per env; an env whose episode ends is reset in the same step, its
info carrying ``terminal_observation`` (the last observation of the ended episode) and
``TimeLimit.truncated`` (truncated and not terminated). So the wrapped vector env must use the
``SAME_STEP`` autoreset mode (:func:`make_sb3_vec` makes it so).

At the end of an episode the info also has ``metrics`` and ``episode``, whose dict gains SB3
Monitor's ``r`` (the return), ``l`` (the length in steps) and ``t`` (wall-clock seconds since the
adapter was made), so SB3's ``ep_rew_mean``/``ep_len_mean`` logging works without ``VecMonitor``.

``action_masks()`` (and ``env_method("action_masks")``, which sb3-contrib's ``MaskablePPO``
calls) gives the bool masks of the current states.

No dependency on stable-baselines3: when it is importable, :class:`SB3VecEnv` subclasses
``stable_baselines3.common.vec_env.VecEnv`` (so SB3 uses it as is, wrappers such as ``VecMonitor``
and ``VecNormalize`` included); otherwise it is a plain class with the same methods.
"""
from __future__ import annotations

import time
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

from .vector import AutoresetMode, VectorEnv, env_id_and_count, make_vec

__all__ = ["SB3VecEnv", "make_sb3_vec", "SB3_AVAILABLE"]

try:  # stable-baselines3 is optional: subclass its VecEnv when it imports
    from stable_baselines3.common.vec_env import VecEnv as _SB3VecEnvBase  # type: ignore[import-not-found]

    SB3_AVAILABLE = True
except Exception:  # ImportError, or a broken install
    _SB3VecEnvBase = object
    SB3_AVAILABLE = False

VecEnvIndices = Union[None, int, Iterable[int]]


def _copy_obs(obs: Any) -> Any:
    """A writable copy (the client's observations are read-only views of the message)."""
    if isinstance(obs, dict):
        return {k: np.array(v) for k, v in obs.items()}
    return np.array(obs)


class SB3VecEnv(_SB3VecEnvBase):  # type: ignore[misc, valid-type]
    """A :class:`~clustergym.vector.VectorEnv` (``SAME_STEP`` autoreset) with Stable-Baselines3's
    ``VecEnv`` API. ``observation_space`` and ``action_space`` are the spaces of ONE env (SB3's
    convention). Closing the adapter closes the vector env.

    Example::

        venv = clustergym.sb3.make_sb3_vec("clustergym/Job-v0", 8, {"k": 32}, seeds=0)
        from sb3_contrib import MaskablePPO
        model = MaskablePPO("MultiInputPolicy", venv).learn(10_000)
    """

    def __init__(self, venv: VectorEnv) -> None:
        mode = venv.metadata.get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise ValueError(
                f"SB3VecEnv needs a vector env in SAME_STEP autoreset mode (SB3 resets ended envs within the step), got {mode}: "
                "make it with clustergym.make_vec(..., autoreset_mode='SameStep') or clustergym.sb3.make_sb3_vec(...)"
            )
        self.venv = venv
        self._t0 = time.time()
        self._actions: Optional[Any] = None
        if SB3_AVAILABLE:
            super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        else:
            self.num_envs = venv.num_envs
            self.observation_space = venv.single_observation_space
            self.action_space = venv.single_action_space
            self.reset_infos: List[Dict[str, Any]] = [{} for _ in range(self.num_envs)]
            self._seeds: List[Optional[int]] = [None for _ in range(self.num_envs)]
            self._options: List[Dict[str, Any]] = [{} for _ in range(self.num_envs)]
            self.render_mode: Optional[str] = None
            self.metadata: Dict[str, Any] = {"render_modes": []}

    # -- SB3 VecEnv API ---------------------------------------------------------------------------

    def reset(self) -> Any:
        """Resets every env with the seeds of :meth:`seed` and the options of :meth:`set_options`
        (both used once, as SB3 does); returns the observations. The infos go to ``reset_infos``."""
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        options = [o for o in self._options if o]
        if options and (len(options) != self.num_envs or any(o != options[0] for o in options)):
            raise ValueError("clustergym resets every env of a vector env with the same options: set_options(dict) or one equal dict per env")
        obs, _, infos = self.venv._reset_lists(seed=seeds, options=dict(options[0]) if options else None)
        self.reset_infos = [dict(i or {}) for i in infos]
        self._seeds = [None for _ in range(self.num_envs)]
        self._options = [{} for _ in range(self.num_envs)]
        return _copy_obs(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> Any:
        """Steps with the actions of :meth:`step_async`; returns ``(obs, rewards, dones, infos)``."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, raw = self.venv._step_lists(actions)
        dones = terminated | truncated
        if not dones.any():
            # the common step: the infos are fresh dicts of this reply, handed over as they are
            return _copy_obs(obs), rewards.astype(np.float32), dones, list(raw)
        infos: List[Dict[str, Any]] = []
        for i, info in enumerate(raw):
            if dones[i]:
                out = dict(info.get("final_info") or {})
                out["terminal_observation"] = _copy_obs(info["final_obs"])
                out["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                ep = out.get("episode")
                if isinstance(ep, dict):
                    out["episode"] = {**ep, "r": float(ep.get("return", 0.0)), "l": int(ep.get("steps", 0)), "t": round(time.time() - self._t0, 6)}
                self.reset_infos[i] = {k: v for k, v in info.items() if k not in ("final_obs", "final_info")}
                infos.append(out)
            else:
                infos.append(dict(info))
        return _copy_obs(obs), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """The valid actions of every env: bool ``[num_envs, A]`` (sb3-contrib's convention)."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
        """An attribute of each env: ``action_masks`` (a callable per env, so that sb3-contrib finds
        the masks), ``observation_space``/``action_space`` (one env's), or any attribute of the
        vector env (``render_mode``, ``metadata``, ``env_id``, ``config``, ...), the same for every
        env. Raises ``AttributeError`` for others."""
        idx = list(self._get_indices(indices))
        if attr_name == "action_masks":
            return [self._mask_of(i) for i in idx]
        if attr_name == "observation_space":
            return [self.venv.single_observation_space for _ in idx]
        if attr_name == "action_space":
            return [self.venv.single_action_space for _ in idx]
        value = getattr(self.venv, attr_name)  # AttributeError when there is none
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Not supported: the envs live in the server."""
        raise AttributeError(f"cannot set {attr_name!r}: clustergym envs live in the server (set the env config in make_vec instead)")

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> List[Any]:
        """``action_masks`` (the bool mask of each env) and ``render`` (``None``); ``AttributeError``
        for other methods."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        if method_name == "render":
            return [None for _ in idx]
        raise AttributeError(f"clustergym envs have no method {method_name!r} callable through env_method (only action_masks and render)")

    def env_is_wrapped(self, wrapper_class: Any, indices: VecEnvIndices = None) -> List[bool]:
        """False for every env (the envs live in the server, unwrapped)."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]

    def _mask_of(self, i: int) -> Any:
        def action_masks() -> np.ndarray:
            return self.venv.action_masks()[i]

        return action_masks

    # -- what SB3's VecEnv base provides, when stable-baselines3 is absent ---------------------------

    if not SB3_AVAILABLE:

        def step(self, actions: np.ndarray) -> Any:
            self.step_async(actions)
            return self.step_wait()

        def seed(self, seed: Optional[int] = None) -> Sequence[Optional[int]]:
            """Seeds for the next ``reset()``: env ``i`` gets ``seed + i`` (a random ``seed`` when None)."""
            if seed is None:
                seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
            self._seeds = [seed + i for i in range(self.num_envs)]
            return self._seeds

        def set_options(self, options: Union[List[Dict[str, Any]], Dict[str, Any], None] = None) -> None:
            """Options for the next ``reset()`` (a dict for every env, or a list of one per env)."""
            if options is None:
                options = {}
            self._options = [dict(options) for _ in range(self.num_envs)] if isinstance(options, dict) else [dict(o) for o in options]

        def has_attr(self, attr_name: str) -> bool:
            try:
                self.get_attr(attr_name)
                return True
            except AttributeError:
                return False

        def render(self, mode: Optional[str] = None) -> None:
            return None

        @property
        def unwrapped(self) -> "SB3VecEnv":
            return self

        def getattr_depth_check(self, name: str, already_found: bool) -> Optional[str]:
            if hasattr(self, name) and already_found:
                return f"{type(self).__module__}.{type(self).__name__}"
            return None

        def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
            if indices is None:
                return range(self.num_envs)
            if isinstance(indices, int):
                return [indices]
            return indices

    def __enter__(self) -> "SB3VecEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<clustergym.sb3.SB3VecEnv of {self.venv!r}>"


def make_sb3_vec(env_id: Any, num_envs: Any = 1, config: Optional[Mapping[str, Any]] = None, address: Optional[str] = None, **kwargs: Any) -> SB3VecEnv:
    """:func:`clustergym.make_vec` with ``autoreset_mode=SAME_STEP``, wrapped in :class:`SB3VecEnv`.
    Takes the arguments of :func:`~clustergym.make_vec` in its order, ``(env_id, num_envs, config,
    address, ...)`` (``seeds``, ``timeout``, ``client``, config keywords, ...); the former
    ``(num_envs, env_id, ...)`` works with a ``DeprecationWarning``."""
    if "autoreset_mode" in kwargs:
        raise TypeError("make_sb3_vec always uses the SAME_STEP autoreset mode (SB3's)")
    env_id, num_envs = env_id_and_count(env_id, num_envs, "make_sb3_vec")
    return SB3VecEnv(make_vec(env_id, num_envs, config, address, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs))
