"""The Gymnasium-shaped environment of the Python client, and :func:`make`.

:class:`Env` is a ``gymnasium.Env`` when gymnasium is importable, else a plain class with the same
API (``reset``, ``step``, ``close``, ``observation_space``, ``action_space``, ``np_random``,
``unwrapped``, ``metadata``, ``render_mode``, ``spec``), plus :meth:`Env.action_masks` (the
sb3-contrib ``MaskablePPO`` convention).
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import binary
from .client import DEFAULT_TIMEOUT, Client, check_seed
from .errors import ClusterGymError
from .server import LocalServer
from .spaces import from_descriptor

__all__ = ["Env", "make", "Observation", "action_to_wire", "observation_from_wire"]

class _GymnasiumSurface:
    """What ``gymnasium.Env`` and ``gymnasium.vector.VectorEnv`` give their subclasses and agents rely
    on (``np_random``, ``unwrapped``, ``render``), for :class:`Env` and :class:`VectorEnv` when
    gymnasium is absent. Subclasses set ``_np_random`` (and ``_np_random_seed``) in ``reset``."""

    _np_random: Optional[np.random.Generator] = None
    _np_random_seed: Optional[int] = None

    @property
    def np_random(self) -> np.random.Generator:
        """A generator seeded by ``reset(seed=...)`` (for agents; the server has its own)."""
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    @property
    def unwrapped(self) -> Any:
        return self

    def render(self) -> None:
        return None


try:  # gymnasium is optional: subclass its Env when it imports
    import gymnasium as _gym  # type: ignore[import-not-found]

    _EnvBase: Any = _gym.Env
    GYMNASIUM = True
except Exception:  # ImportError, or a broken install
    _gym = None
    _EnvBase = _GymnasiumSurface
    GYMNASIUM = False

#: An observation: one float32 array, or a dict of float32 arrays (``Dict`` spaces).
Observation = Union[np.ndarray, Dict[str, np.ndarray]]


def observation_from_wire(o: Any) -> Any:
    """An observation as decoded from the wire, as float32 arrays (no copy when already float32)."""
    if isinstance(o, dict):
        return {k: observation_from_wire(v) for k, v in o.items()}
    if isinstance(o, np.ndarray):
        return o if o.dtype == np.float32 else o.astype(np.float32)
    if isinstance(o, list):
        return np.asarray(o, dtype=np.float32)
    return o


def action_to_wire(a: Any) -> Any:
    """An action as sent: Python and numpy integers (and one-element integer arrays) become ``int``;
    anything else is sent unchanged so that the server names what is wrong with it."""
    if isinstance(a, (bool, np.bool_)):
        return bool(a)
    if isinstance(a, int):
        return a
    if isinstance(a, np.integer):
        return int(a)
    if isinstance(a, np.ndarray) and a.size == 1 and a.dtype.kind in "iu":
        return int(a.reshape(()))
    return a


def close_envs(client: Client, handles: Sequence[str], server: Optional[LocalServer], owns_client: bool, timeout: float) -> None:
    """Closes envs ``handles`` on ``client``'s server (not when ``server``, a local server, is about to
    stop anyway), then the client if ``owns_client`` and the local server; never raises for a server
    that is already gone (``timeout``: seconds to wait for each acknowledgement)."""
    try:
        if server is None and not client.closed:
            for h in handles:
                try:
                    client.request("close", env=h, timeout=min(timeout, client.timeout or timeout))
                except (ClusterGymError, OSError, RuntimeError):
                    break
    finally:
        if owns_client:
            client.close()
        if server is not None:
            server.stop()


class _ServerResource:
    """What :class:`Env` and :class:`~clustergym.vector.VectorEnv` share: closing their envs on the
    server (and the local server :func:`make` started), the context manager, and the closed check.
    Subclasses set ``client``, ``server``, ``env_id``, ``_owns_client``, ``_closed`` and say which
    env handles they hold."""

    _what = "environment"

    def _env_handles(self) -> Sequence[str]:
        raise NotImplementedError

    def close(self, timeout: float = 5.0) -> None:
        """Closes the environment(s) on the server, and stops the local server if :func:`make`
        started one. Idempotent; never raises for a server that is already gone (``timeout``: seconds
        to wait for a remote server's acknowledgement)."""
        if self._closed:
            return
        self._closed = True
        close_envs(self.client, self._env_handles(), self.server, self._owns_client, timeout)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close(timeout=0.5)
        except Exception:
            pass

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self.env_id}: the {self._what} is closed")


class Env(_ServerResource, _EnvBase):  # type: ignore[misc, valid-type]
    """A clustergym environment served by a clustergym server (Gymnasium API).

    Made by :func:`make`; the env id and config follow docs/environments.md of the repository.

    ``reset(seed=None, options=None) -> (observation, info)`` and
    ``step(action) -> (observation, reward, terminated, truncated, info)`` where

    * ``observation`` is a dict of read-only float32 numpy arrays for ``Dict`` observation spaces
      (``{"jobs": [K, Fj], "nodes": [N, Fn], "global": [G]}``) or one float32 array otherwise;
      ``.copy()`` it to modify it;
    * ``reward`` is a ``float``; ``terminated`` and ``truncated`` are ``bool``;
    * ``info`` is a dict: ``action_mask`` (uint8 array, 1 = valid), ``time``, ``steps``,
      ``queue_length``, ``running``, and at episode end ``metrics`` (the simulator's summary) and
      ``episode`` (return, steps, time, seed, origin, length).

    Every action of ``action_space`` is accepted: one the mask forbids is, by default, a no-op with
    ``info["invalid_action"]`` and the reward ``-invalid_action_penalty`` (docs/environments.md,
    "Invalid actions"); with ``invalid_action: "raise"`` in the config, and for a value outside the
    space, it raises :class:`~clustergym.errors.InvalidActionError` and the state is unchanged.
    ``step`` after the episode ended raises :class:`~clustergym.errors.BadStateError` until ``reset``.
    """

    metadata: Dict[str, Any] = {"render_modes": []}
    render_mode: Optional[str] = None
    spec: Any = None

    def __init__(
        self,
        client: Client,
        handle: str,
        env_id: str,
        config: Mapping[str, Any],
        observation_space: Mapping[str, Any],
        action_space: Mapping[str, Any],
        *,
        server: Optional[LocalServer] = None,
        owns_client: bool = True,
        binary_layout: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self.env_id = env_id
        self.config: Dict[str, Any] = dict(config)
        self.client = client
        self.handle = handle
        self.server = server
        self._owns_client = owns_client
        #: The server's space descriptors (plain data).
        self.observation_space_descriptor = dict(observation_space)
        self.action_space_descriptor = dict(action_space)
        self.observation_space = from_descriptor(observation_space)
        self.action_space = from_descriptor(action_space)
        self._mask: Optional[np.ndarray] = None
        self._closed = False
        # binary step frames when the server offers them and the env has a layout (make's reply)
        number = binary.handle_number(handle)
        self._layout = binary.Layout.from_make_reply({"binary": binary_layout}) if client.binary and number is not None else None
        self._handle_number = [number if number is not None else 0]
        if not GYMNASIUM:
            self._np_random: Optional[np.random.Generator] = None
            self._np_random_seed: Optional[int] = None

    # -- API ----------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Observation, Dict[str, Any]]:
        """Starts an episode. Returns ``(observation, info)``.

        ``seed`` (an int in ``[0, 2**64)``, checked before anything is sent) makes the episode
        reproducible and reseeds the stream of later unseeded resets; without it the next seed of the
        env's stream is used, and a first reset without a seed draws fresh entropy on the server (as
        Gymnasium does). ``options`` may be ``None``,
        ``{}`` or ``{"origin": i}`` (the index of the trajectory's first job in the workload).
        """
        self._check_open()
        fields: Dict[str, Any] = {"env": self.handle}
        if seed is not None:
            fields["seed"] = seed = check_seed(seed)
        if options is not None:
            fields["options"] = options
        r = self.client.request("reset", **fields)  # the server judges the seed and options first
        if GYMNASIUM:
            super().reset(seed=seed)
        elif seed is not None:
            self._np_random = np.random.default_rng(seed)
            self._np_random_seed = seed
        info = r.get("info") or {}
        self._mask = _mask_of(info)
        return observation_from_wire(r["observation"]), info

    def step(self, action: Any) -> Tuple[Observation, float, bool, bool, Dict[str, Any]]:
        """Takes ``action`` (an int; numpy integers and one-element integer arrays work too).
        Returns ``(observation, reward, terminated, truncated, info)``."""
        if self._closed:
            self._check_open()
        a = action if type(action) is int else action_to_wire(action)
        layout = self._layout
        if layout is not None and type(a) is int and -(2**31) <= a < 2**31:
            out = self.client.step_one(layout, self._handle_number[0], a)
            self._mask = out[4]["action_mask"]
            return out
        r = self.client.request("step", env=self.handle, action=a)
        info = r.get("info") or {}
        self._mask = _mask_of(info)
        return observation_from_wire(r["observation"]), float(r["reward"]), bool(r["terminated"]), bool(r["truncated"]), info

    def action_masks(self) -> np.ndarray:
        """The valid actions now: a bool array of ``action_space.n`` values (True = valid), the
        sb3-contrib ``MaskablePPO`` convention. All False once the episode is over.
        Gymnasium's ``Discrete.sample(mask=...)`` wants int8: pass ``mask.astype(np.int8)``."""
        self._check_open()
        if self._mask is None:
            m = self.client.request("action_mask", env=self.handle)["mask"]
            self._mask = np.asarray(m, dtype=np.uint8)
        return self._mask.view(np.bool_)

    def render(self) -> None:
        """Nothing to render (``render_mode`` is always None; ``metadata["render_modes"]`` is empty)."""
        return None

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.client.address
        return f"<clustergym.Env {self.env_id} {self.handle} @ {state}>"

    def _env_handles(self) -> Sequence[str]:
        return [self.handle]


def _mask_of(info: Any) -> Optional[np.ndarray]:
    m = info.get("action_mask") if isinstance(info, dict) else None
    if isinstance(m, np.ndarray):
        return m if m.dtype == np.uint8 else m.astype(np.uint8)
    if isinstance(m, (list, tuple)):
        return np.asarray(m, dtype=np.uint8)
    return None


def _merge_config(config: Optional[Mapping[str, Any]], overrides: Mapping[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = dict(config or {})
    out.update(overrides)
    return out


def connect(
    address: Optional[str],
    *,
    timeout: Optional[float],
    server_command: Optional[Sequence[str]],
    server_args: Sequence[str],
) -> Tuple[Client, Optional[LocalServer]]:
    """A client for ``address``, or a started :class:`LocalServer` and a client for it."""
    if address is not None:
        return Client(address, timeout=timeout), None
    # this process's own server: a random token keeps others out, so it may read any regular file
    server = LocalServer(server_command, extra_args=server_args, private=True)
    try:
        return Client(server.address, timeout=timeout, check_alive=server.check_alive), server
    except BaseException:
        server.stop()
        raise


def make(
    env_id: str,
    config: Optional[Mapping[str, Any]] = None,
    address: Optional[str] = None,
    *,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    client: Optional[Client] = None,
    server_command: Optional[Sequence[str]] = None,
    server_args: Sequence[str] = (),
    **config_overrides: Any,
) -> Env:
    """Makes an environment on a clustergym server.

    Args:
        env_id: ``clustergym/JobNode-v0``, ``clustergym/Job-v0`` or ``clustergym/PolicyPair-v0``.
        config: the env config (see docs/environments.md); ``None`` is the embedded default.
        address: endpoint of a running ``clustergym serve`` (``tcp://127.0.0.1:5555``). ``None``
            starts a local server subprocess for this env; ``close()`` stops it (and it never
            outlives this interpreter).
        timeout: seconds to wait for each reply (``None``: forever).
        client: an open :class:`Client` to use instead of ``address`` (the env does not close it).
        server_command: the command of the local server (default: see :mod:`clustergym.server`).
        server_args: extra ``clustergym serve`` flags for the local server.
        **config_overrides: config fields given as keywords (``k=128``), merged over ``config``.

    Raises :class:`~clustergym.errors.ConfigError` (with the field paths) for a bad config,
    :class:`~clustergym.errors.UnknownEnvIdError` for an unknown id.
    """
    cfg = _merge_config(config, config_overrides)
    if client is not None:
        r = client.request("make", env_id=env_id, config=cfg, timeout=client.make_timeout())
        return Env(client, r["env"], env_id, cfg, r["observation_space"], r["action_space"], owns_client=False, binary_layout=r.get("binary"))
    c, server = connect(address, timeout=timeout, server_command=server_command, server_args=server_args)
    try:
        r = c.request("make", env_id=env_id, config=cfg, timeout=c.make_timeout())
    except BaseException:
        c.close()
        if server is not None:
            server.stop()
        raise
    return Env(c, r["env"], env_id, cfg, r["observation_space"], r["action_space"], server=server, binary_layout=r.get("binary"))
