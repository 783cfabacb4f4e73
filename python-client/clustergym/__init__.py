"""clustergym: the Python client of the clustergym HPC-cluster simulator and RL gym.

Quick start::

    import clustergym
    env = clustergym.make("clustergym/Job-v0", {"k": 16})  # starts a local server
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = env.action_space.sample(env.action_masks().astype("int8"))
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print(info["metrics"])
    env.close()

See :func:`make`, :func:`make_vec`, :class:`Env`, :class:`VectorEnv` (Gymnasium 1.x vector
conventions, :data:`AutoresetMode`), :class:`Client`, :mod:`clustergym.errors`, and
:mod:`clustergym.sb3` (Stable-Baselines3's ``VecEnv`` API; import it explicitly). With gymnasium
importable, ``import clustergym`` registers the ids (:data:`ENV_IDS`) with Gymnasium:
``gymnasium.make("clustergym/Job-v0", k=64)``, ``gymnasium.make_vec("clustergym/Job-v0", num_envs=8)``
(:mod:`clustergym.registration`).
"""
from __future__ import annotations

from . import errors, spaces, wire
from .client import DEFAULT_TIMEOUT, PROTOCOL_VERSION, Client
from .env import GYMNASIUM, Env, make
from .errors import (
    BadRequestError,
    BadStateError,
    ClusterGymError,
    ClusterGymTimeoutError,
    ConfigError,
    InternalServerError,
    InvalidActionError,
    ProtocolError,
    ServerDiedError,
    ServerError,
    ServerLostError,
    ServerStartError,
    UnknownEnvError,
    UnknownEnvIdError,
)
from .server import LocalServer, find_server_command
from .vector import AutoresetMode, VectorEnv, batch_infos, make_vec
from .registration import ENV_IDS, register_envs

register_envs()  # the ids in Gymnasium's registry, when gymnasium imports (clustergym/registration.py)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "make",
    "make_vec",
    "ENV_IDS",
    "register_envs",
    "Env",
    "VectorEnv",
    "AutoresetMode",
    "batch_infos",
    "Client",
    "LocalServer",
    "find_server_command",
    "PROTOCOL_VERSION",
    "DEFAULT_TIMEOUT",
    "GYMNASIUM",
    "errors",
    "spaces",
    "wire",
    "ClusterGymError",
    "BadRequestError",
    "BadStateError",
    "ClusterGymTimeoutError",
    "ConfigError",
    "InternalServerError",
    "InvalidActionError",
    "ProtocolError",
    "ServerDiedError",
    "ServerLostError",
    "ServerError",
    "ServerStartError",
    "UnknownEnvError",
    "UnknownEnvIdError",
]
