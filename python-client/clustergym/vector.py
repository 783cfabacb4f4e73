"""Many environments stepped with one message: :func:`make_vec` and :class:`VectorEnv`.

Every call is ONE request to the server (``reset_batch`` / ``step_batch``), so the per-message cost
is paid once for all ``n`` envs. Shaped like Gymnasium's ``VectorEnv`` (same-step autoreset, as in
gymnasium 0.29): ``reset()`` returns ``(observations, infos)``, ``step(actions)`` returns
``(observations, rewards, terminated, truncated, infos)``; observations are stacked along a first
axis of size ``n`` (per key for ``Dict`` spaces); ``infos`` is a list of ``n`` dicts (the
Stable-Baselines3 ``VecEnv`` convention).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .client import DEFAULT_TIMEOUT, Client
from .env import Observation, _ServerResource, _merge_config, action_to_wire, connect, observation_from_wire
from .errors import ClusterGymError
from .server import LocalServer
from .spaces import batch_space, from_descriptor

__all__ = ["VectorEnv", "make_vec"]

SeedsLike = Union[int, Sequence[Optional[int]], None]


def _seed_list(seeds: SeedsLike, n: int) -> Optional[List[Optional[int]]]:
    if seeds is None:
        return None
    if isinstance(seeds, (int, np.integer)):
        return [int(seeds) + i for i in range(n)]
    out = [None if s is None else int(s) for s in seeds]
    if len(out) != n:
        raise ValueError(f"expected {n} seeds (one per env), got {len(out)}")
    return out


class VectorEnv(_ServerResource):
    """``n`` environments of the same id and config on one server, stepped together.

    * ``reset(seed=None, options=None) -> (observations, infos)``
    * ``step(actions) -> (observations, rewards, terminated, truncated, infos)``

    where ``observations`` are float32 arrays of shape ``[n, ...]`` (a dict of them for ``Dict``
    spaces), ``rewards`` float64 ``[n]``, ``terminated``/``truncated`` bool ``[n]``, ``infos`` a
    list of ``n`` dicts. With ``autoreset`` (default), an env whose episode ends is reset at once:
    its row of ``observations`` is the first observation of its next episode, and its info holds
    ``final_observation`` (the last observation of the ended episode), ``final_info`` (its info, with
    ``metrics`` and ``episode``) and ``reset_info``. :meth:`action_masks` is the bool ``[n, A]`` mask
    of the current states.
    """

    _what = "vector environment"

    metadata: Dict[str, Any] = {"render_modes": [], "autoreset_mode": "same-step"}
    render_mode: Optional[str] = None

    def __init__(
        self,
        client: Client,
        handles: Sequence[str],
        env_id: str,
        config: Mapping[str, Any],
        observation_space: Mapping[str, Any],
        action_space: Mapping[str, Any],
        *,
        server: Optional[LocalServer] = None,
        owns_client: bool = True,
        seeds: SeedsLike = None,
        autoreset: bool = True,
    ) -> None:
        self.client = client
        self.handles = list(handles)
        self.num_envs = len(self.handles)
        self.env_id = env_id
        self.config = dict(config)
        self.server = server
        self.autoreset = autoreset
        self._owns_client = owns_client
        self.single_observation_space = from_descriptor(observation_space)
        self.single_action_space = from_descriptor(action_space)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._initial_seeds = _seed_list(seeds, self.num_envs)
        self._masks: Optional[np.ndarray] = None
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def reset(self, *, seed: SeedsLike = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Observation, List[Dict[str, Any]]]:
        """Resets every env. Returns ``(observations, infos)``.

        ``seed``: an int (env ``i`` gets ``seed + i``), a list of ``n`` ints or ``None`` entries,
        or ``None`` (the ``seeds`` given to :func:`make_vec` on the first reset, then each env's
        own seed stream). ``options`` go to every env.
        """
        self._check_open()
        seeds = _seed_list(seed, self.num_envs)
        if seeds is None and self._initial_seeds is not None:
            seeds = self._initial_seeds
        self._initial_seeds = None
        fields: Dict[str, Any] = {"envs": self.handles}
        if seeds is not None:
            fields["seeds"] = seeds
        if options is not None:
            fields["options"] = options
        r = self.client.request("reset_batch", **fields)
        self._masks = np.asarray(r["action_masks"], dtype=np.uint8)
        return observation_from_wire(r["observations"]), list(r.get("infos") or [{} for _ in self.handles])

    def step(self, actions: Any) -> Tuple[Observation, np.ndarray, np.ndarray, np.ndarray, List[Dict[str, Any]]]:
        """Steps env ``i`` with ``actions[i]`` (``n`` integers: a list or an integer array).
        Returns ``(observations, rewards, terminated, truncated, infos)``.

        A forbidden action raises :class:`~clustergym.errors.InvalidActionError` (``.index`` says
        which) and no env is stepped.
        """
        self._check_open()
        a = np.asarray(actions) if not isinstance(actions, list) else None
        if a is not None and a.dtype.kind in "iu" and a.ndim == 1:
            wire_actions: List[Any] = a.tolist()
        else:
            wire_actions = [action_to_wire(x) for x in (actions if a is None else list(a.reshape(-1) if a.ndim else [a]))]
        r = self.client.request("step_batch", envs=self.handles, actions=wire_actions, autoreset=self.autoreset)
        self._masks = np.asarray(r["action_masks"], dtype=np.uint8)
        return (
            observation_from_wire(r["observations"]),
            np.asarray(r["rewards"], dtype=np.float64),
            np.asarray(r["terminated"]).view(np.bool_) if _is_u8(r["terminated"]) else np.asarray(r["terminated"], dtype=bool),
            np.asarray(r["truncated"]).view(np.bool_) if _is_u8(r["truncated"]) else np.asarray(r["truncated"], dtype=bool),
            list(r.get("infos") or [{} for _ in self.handles]),
        )

    def action_masks(self) -> np.ndarray:
        """The valid actions of every env: bool ``[n, A]`` (True = valid)."""
        self._check_open()
        if self._masks is None:
            rows = [np.asarray(self.client.request("action_mask", env=h)["mask"], dtype=np.uint8) for h in self.handles]
            self._masks = np.stack(rows)
        return self._masks.view(np.bool_)

    def _env_handles(self) -> Sequence[str]:
        return self.handles

    @property
    def unwrapped(self) -> "VectorEnv":
        return self

    def __len__(self) -> int:
        return self.num_envs

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.client.address
        return f"<clustergym.VectorEnv {self.env_id} x{self.num_envs} @ {state}>"


def _is_u8(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == np.uint8


def make_vec(
    num_envs: int,
    env_id: str,
    config: Optional[Mapping[str, Any]] = None,
    address: Optional[str] = None,
    *,
    seeds: SeedsLike = None,
    autoreset: bool = True,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    client: Optional[Client] = None,
    server_command: Optional[Sequence[str]] = None,
    server_args: Sequence[str] = (),
    **config_overrides: Any,
) -> VectorEnv:
    """Makes ``num_envs`` environments of ``env_id`` stepped together over ``step_batch``.

    Args are those of :func:`clustergym.make`, plus ``seeds`` (an int: env ``i`` gets ``seeds + i``;
    or a list of ``num_envs`` seeds), used by the first ``reset()`` that gets no seed, and
    ``autoreset`` (reset ended envs inside ``step``; default true). Without ``address`` one local
    server hosts all the envs.
    """
    if num_envs < 1:
        raise ValueError(f"num_envs must be at least 1, got {num_envs}")
    cfg = _merge_config(config, config_overrides)
    _seed_list(seeds, num_envs)  # validate early
    server: Optional[LocalServer] = None
    owns = client is None
    c = client
    if c is None:
        c, server = connect(address, timeout=timeout, server_command=server_command, server_args=server_args)
    handles: List[str] = []
    try:
        r: Dict[str, Any] = {}
        for _ in range(num_envs):
            r = c.request("make", env_id=env_id, config=cfg)
            handles.append(r["env"])
    except BaseException:
        if owns:
            c.close()
            if server is not None:
                server.stop()
        else:
            for h in handles:
                try:
                    c.request("close", env=h)
                except ClusterGymError:
                    pass
        raise
    return VectorEnv(c, handles, env_id, cfg, r["observation_space"], r["action_space"], server=server, owns_client=owns, seeds=seeds, autoreset=autoreset)
