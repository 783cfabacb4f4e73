"""Gymnasium registration of the clustergym env ids.

When gymnasium is importable, ``import clustergym`` registers every id of :data:`ENV_IDS` in
Gymnasium's registry, so that::

    import clustergym, gymnasium
    env = gymnasium.make("clustergym/Job-v0", k=64)                 # a local server, stopped by close()
    env = gymnasium.make("clustergym/Job-v0", address="tcp://127.0.0.1:5555", config={"k": 64})
    venv = gymnasium.make_vec("clustergym/Job-v0", num_envs=8)       # clustergym's VectorEnv: one step_batch a step

``gymnasium.make`` passes its keywords to :func:`gym_env`: ``address``, ``timeout``, ``client``,
``server_command``, ``server_args`` as in :func:`clustergym.make`, ``config`` (a dict) and any
other keyword as a config field. ``gymnasium.make_vec`` (default ``vectorization_mode``: the
registered ``vector_entry_point``) calls :func:`gym_vector_env`, which also takes ``seeds`` and
``autoreset_mode``; ``vectorization_mode="sync"``/``"async"`` build Gymnasium's own vector envs
of single envs instead (one request per env per step).

Without importing clustergym first, ``gymnasium.make("clustergym:clustergym/Job-v0")`` imports it
(Gymnasium's ``module:id`` syntax). The package also declares the ``gymnasium.envs`` entry point
(``pyproject.toml``) for the Gymnasium releases that load environment plugins from it (0.26 to
0.29); Gymnasium 1.x no longer reads plugin entry points, hence the registration at import.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from .client import DEFAULT_TIMEOUT
from .env import Env, make
from .vector import VectorEnv, make_vec

__all__ = ["ENV_IDS", "register_envs", "gym_env", "gym_vector_env"]

#: Every env id the server registers (envs/registry.ts ``allEnvIds()``; a test checks they agree).
ENV_IDS = (
    "clustergym/JobNode-v0",
    "clustergym/Job-v0",
    "clustergym/PolicyPair-v0",
    "clustergym/Malleable-v0",
    "clustergym/Slurm-v0",
    "clustergym/Fair-v0",
    "clustergym/CoSched-v0",
    "clustergym/Gpu-v0",
)

_CONNECTION_KEYS = ("address", "timeout", "client", "server_command", "server_args")


def _split(kwargs: Dict[str, Any]) -> tuple:
    """``(config, connection keywords)`` of ``gymnasium.make``'s keywords."""
    config: Dict[str, Any] = dict(kwargs.pop("config", None) or {})
    conn = {k: kwargs.pop(k) for k in _CONNECTION_KEYS if k in kwargs}
    config.update(kwargs)  # the rest are config fields (k=64, trajectory={...})
    return config, conn


def gym_env(env_id: str, render_mode: Optional[str] = None, **kwargs: Any) -> Env:
    """Gymnasium's entry point of every clustergym id: :func:`clustergym.make` with ``gymnasium.make``'s keywords."""
    if render_mode is not None:
        raise ValueError(f"{env_id} has no render modes (metadata['render_modes'] is empty); got render_mode={render_mode!r}")
    config, conn = _split(dict(kwargs))
    conn.setdefault("timeout", DEFAULT_TIMEOUT)
    return make(env_id, config, **conn)


gym_env.metadata = Env.metadata  # type: ignore[attr-defined]  # what gymnasium.make reads of an entry point


def gym_vector_env(env_id: str, num_envs: int = 1, **kwargs: Any) -> VectorEnv:
    """Gymnasium's vector entry point: :func:`clustergym.make_vec` (``seeds``, ``autoreset_mode`` and
    the keywords of :func:`gym_env`)."""
    if kwargs.pop("render_mode", None) is not None:
        raise ValueError(f"{env_id} has no render modes")
    extra: Dict[str, Any] = {k: kwargs.pop(k) for k in ("seeds", "autoreset_mode") if k in kwargs}
    config, conn = _split(dict(kwargs))
    conn.setdefault("timeout", DEFAULT_TIMEOUT)
    return make_vec(env_id, num_envs, config, **conn, **extra)


def register_envs() -> bool:
    """Registers :data:`ENV_IDS` with Gymnasium (when it imports; ids already registered are left
    alone). Returns whether gymnasium was there. Called by ``import clustergym`` and by the
    ``gymnasium.envs`` plugin entry point."""
    try:
        from gymnasium.envs.registration import register, registry  # type: ignore[import-not-found]
    except Exception:
        return False
    for env_id in ENV_IDS:
        if env_id in registry:
            continue
        register(
            id=env_id,
            entry_point="clustergym.registration:gym_env",
            vector_entry_point="clustergym.registration:gym_vector_env",
            kwargs={"env_id": env_id},
        )
    return True
