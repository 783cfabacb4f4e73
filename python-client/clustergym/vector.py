"""Many environments stepped with one message: :func:`make_vec` and :class:`VectorEnv`, with
Gymnasium 1.x vector semantics.

* ``reset(seed=None, options=None) -> (observations, infos)`` and
  ``step(actions) -> (observations, rewards, terminations, truncations, infos)``; observations are
  stacked along a first axis of size ``num_envs`` (per key for ``Dict`` spaces), rewards float64,
  terminations and truncations bool.
* ``infos`` is ONE dict of arrays: key ``k`` holds the values of every env (row ``i`` for env ``i``)
  and ``_k`` is a bool mask of the envs that have that key; nested dicts are batched the same way.
  This is the layout of Gymnasium's ``VectorEnv._add_info``.
* Autoreset modes are those of Gymnasium's ``AutoresetMode``: ``NEXT_STEP`` (the default, as in
  Gymnasium), ``SAME_STEP`` (the last observation and info of the ended episode in
  ``infos["final_obs"]`` / ``infos["final_info"]``) and ``DISABLED``; ``metadata["autoreset_mode"]``
  says which.

Every call is one request to the server (``reset_batch`` / ``step_batch``), except a ``NEXT_STEP``
step after some episodes ended: ``step_batch`` for the other envs, then ``reset_batch`` for those.

When gymnasium >= 1.0 is importable, :class:`VectorEnv` is a ``gymnasium.vector.VectorEnv`` (so
Gymnasium's vector wrappers accept it) and :data:`AutoresetMode` is ``gymnasium.vector.AutoresetMode``
(gymnasium >= 1.1); otherwise they are this module's equivalents.

Stable-Baselines3 users: see :mod:`clustergym.sb3`.
"""
from __future__ import annotations

import enum
import re
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import binary
from .client import DEFAULT_TIMEOUT, Client, check_seed
from .env import Observation, _GymnasiumSurface, _ServerResource, _merge_config, action_to_wire, connect, observation_from_wire
from .errors import ClusterGymError, InvalidActionError
from .fleet import Fleet, Part, split_envs
from .server import LocalServer
from .spaces import batch_space, from_descriptor

__all__ = ["VectorEnv", "make_vec", "AutoresetMode", "batch_infos"]

SeedsLike = Union[int, Sequence[Optional[int]], None]


class _AutoresetMode(enum.Enum):
    """The autoreset modes of a vector env (Gymnasium's ``AutoresetMode``, same names and values)."""

    NEXT_STEP = "NextStep"
    SAME_STEP = "SameStep"
    DISABLED = "Disabled"


def _gymnasium_vector() -> Tuple[Any, Any]:
    """Gymnasium's ``VectorEnv`` (1.x only: 0.29's has another API) and ``AutoresetMode`` (1.1+),
    each ``None`` when unavailable."""
    try:
        import gymnasium  # type: ignore[import-not-found]
        import gymnasium.vector as gv  # type: ignore[import-not-found]
    except Exception:  # ImportError, or a broken install
        return None, None
    major = re.match(r"\d+", str(getattr(gymnasium, "__version__", "1")))
    if major is None or int(major.group()) < 1:
        return None, None
    return getattr(gv, "VectorEnv", None), getattr(gv, "AutoresetMode", None)


_GymVectorEnv, _GymAutoresetMode = _gymnasium_vector()

#: The autoreset modes: ``gymnasium.vector.AutoresetMode`` when importable, else an enum with the
#: same members and values (``NEXT_STEP = "NextStep"``, ``SAME_STEP = "SameStep"``,
#: ``DISABLED = "Disabled"``).
AutoresetMode: Any = _GymAutoresetMode if _GymAutoresetMode is not None else _AutoresetMode

_VecBase: Any = _GymVectorEnv if _GymVectorEnv is not None else _GymnasiumSurface

_MODE_ALIASES = {
    "nextstep": "NextStep",
    "next_step": "NextStep",
    "next-step": "NextStep",
    "samestep": "SameStep",
    "same_step": "SameStep",
    "same-step": "SameStep",
    "disabled": "Disabled",
}


def _parse_mode(mode: Any) -> Any:
    """The :data:`AutoresetMode` member of ``mode``: a member (of this module's enum or of
    Gymnasium's), its value (``"NextStep"``), or its name in any case (``"same_step"``,
    ``"same-step"``). Raises ``ValueError`` otherwise."""
    if isinstance(mode, enum.Enum):
        mode = mode.value
    if isinstance(mode, str):
        value = _MODE_ALIASES.get(mode.strip().lower())
        if value is not None:
            return AutoresetMode(value)
    raise ValueError(f"unknown autoreset mode {mode!r}; expected one of AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED (or 'NextStep', 'SameStep', 'Disabled')")


def _seed_list(seeds: SeedsLike, n: int) -> Optional[List[Optional[int]]]:
    if seeds is None:
        return None
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, (bool, np.bool_)):
        base = check_seed(seeds)
        return [check_seed(base + i, f"seed + {i}") for i in range(n)]
    out = [None if s is None else check_seed(s, f"seed[{i}]") for i, s in enumerate(seeds)]
    if len(out) != n:
        raise ValueError(f"expected {n} seeds (one per env), got {len(out)}")
    return out


# -- infos as a dict of arrays --------------------------------------------------------------------


_PLAIN_NUMBERS = frozenset([bool, int, float])
_INT = {int}


def _kind(v: Any) -> str:
    if isinstance(v, dict):
        return "dict"
    if isinstance(v, np.ndarray):
        return "array"
    if isinstance(v, (bool, np.bool_, int, float, np.number)):
        return "number"
    return "object"


_PLAIN_DTYPES = {frozenset([bool]): np.bool_, frozenset([int]): np.int64, frozenset([int, bool]): np.int64}


def _column(key: str, idx: Optional[List[int]], values: List[Any], n: int) -> Any:
    """The batched value of ``key`` given the values of the envs ``idx`` (``None``: every env, in order)."""

    def fill(out: np.ndarray) -> np.ndarray:
        for i, v in zip(range(n) if idx is None else idx, values):
            out[i] = v
        return out

    if key == "final_obs":
        return fill(np.full(n, None, dtype=object))
    types = frozenset(type(v) for v in values)
    if types <= _PLAIN_NUMBERS:  # the common case, fast: Python numbers
        dtype = _PLAIN_DTYPES.get(types, np.float64)
        if idx is None:
            return np.array(values, dtype=dtype)
        out = np.zeros(n, dtype=dtype)
        out[idx] = values
        return out
    kinds = {_kind(v) for v in values}
    if kinds == {"dict"}:
        per_env: List[Optional[Mapping[str, Any]]] = [None] * n
        return batch_infos(fill(per_env), n)  # type: ignore[arg-type]
    if kinds == {"number"}:
        return fill(np.zeros(n, dtype=np.result_type(*[np.asarray(v).dtype for v in values])))
    if kinds == {"array"} and len({v.shape for v in values}) == 1:
        return fill(np.zeros((n, *values[0].shape), dtype=np.result_type(*[v.dtype for v in values])))
    return fill(np.full(n, None, dtype=object))


def batch_infos(infos: Sequence[Optional[Mapping[str, Any]]], n: Optional[int] = None) -> Dict[str, Any]:
    """The vector info of per-env info dicts (``None`` or ``{}`` for an env without info), laid out as
    Gymnasium's ``VectorEnv._add_info`` does: for each key ``k`` (in order of first appearance),
    ``infos[k]`` has one row per env and ``infos["_" + k]`` is the bool mask of the envs that have
    ``k``; a dict value is batched recursively; ``final_obs`` is an object array of the per-env
    observations (``None`` where absent).

    Numbers become one numpy array whose dtype holds every env's value (``int64`` for ints,
    ``float64`` as soon as one env has a float, ``bool`` for bools; Gymnasium takes the type of the
    first env that has the key, which would truncate a float coming after an int), arrays of one
    shape are stacked (zeros where absent), anything else (strings, lists, ``None``, mixed kinds) is
    an object array (``None`` where absent).
    """
    n = len(infos) if n is None else n
    out: Dict[str, Any] = {}
    first = infos[0] if len(infos) else None
    if len(infos) == n and first and None not in infos:
        fk = first.keys()
        if all([info.keys() == fk for info in infos]):  # type: ignore[union-attr]
            # every env has the same keys (the usual case): one column per key, full masks
            ones = np.ones(n, dtype=np.bool_)  # copied per key (np.ones itself costs 4 times a copy)
            for k in fk:
                values = [info[k] for info in infos]  # type: ignore[index]
                # the hot path of every step: Python numbers, whose dtype numpy infers as _column
                # would (int64 for ints and bools with ints, float64 as soon as one is a float, bool)
                if set(map(type, values)) <= _PLAIN_NUMBERS:
                    col = np.array(values)
                    out[k] = col if col.dtype != object else _column(k, None, values, n)
                else:
                    out[k] = _column(k, None, values, n)
                out["_" + k] = ones.copy()
            return out
    keys: Dict[str, Tuple[List[int], List[Any]]] = {}
    for i, info in enumerate(infos):
        if info:
            for k, v in info.items():
                rows = keys.setdefault(k, ([], []))
                rows[0].append(i)
                rows[1].append(v)
    for k, (idx, values) in keys.items():
        out[k] = _column(k, idx, values, n)
        mask = np.zeros(n, dtype=np.bool_)
        mask[idx] = True
        out["_" + k] = mask
    return out


# -- observations ----------------------------------------------------------------------------------


def _merge_rows(n: int, parts: Sequence[Tuple[np.ndarray, Any]]) -> Any:
    """Batched observations of ``n`` envs from ``(row indices, batched observations)`` parts (a part
    covering every row in order is returned as is)."""
    if len(parts) == 1 and len(parts[0][0]) == n and bool(np.all(parts[0][0] == np.arange(n))):
        return parts[0][1]
    first = parts[0][1]
    if isinstance(first, dict):
        return {k: _merge_rows(n, [(idx, p[k]) for idx, p in parts]) for k in first}
    out = np.empty((n, *first.shape[1:]), dtype=first.dtype)
    for idx, p in parts:
        out[idx] = p
    return out


def _as_bool(x: Any) -> np.ndarray:
    if isinstance(x, np.ndarray) and x.dtype == np.uint8:
        return x.view(np.bool_)
    return np.asarray(x, dtype=bool)


class VectorEnv(_ServerResource, _VecBase):  # type: ignore[misc, valid-type]
    """``num_envs`` environments of the same id and config on one server, stepped together, with
    Gymnasium 1.x vector semantics. Made by :func:`make_vec`.

    * ``reset(seed=None, options=None) -> (observations, infos)``
    * ``step(actions) -> (observations, rewards, terminations, truncations, infos)``

    ``observations``: float32 arrays ``[num_envs, ...]`` (a dict of them for ``Dict`` spaces);
    ``rewards`` float64 ``[num_envs]``; ``terminations``/``truncations`` bool ``[num_envs]``;
    ``infos`` a dict of arrays with ``_key`` masks (see :func:`batch_infos`).

    Autoreset (``metadata["autoreset_mode"]``):

    * ``NEXT_STEP`` (default): a step that ends env ``i``'s episode returns its last observation,
      reward and info with ``terminations[i]`` or ``truncations[i]`` set. The NEXT ``step`` resets env
      ``i`` instead of stepping it (``actions[i]`` is ignored) and returns its first observation
      and reset info, reward 0, not terminated, not truncated. Meanwhile ``action_masks()[i]`` is
      all True (any action is accepted and ignored).
    * ``SAME_STEP``: the step that ends env ``i``'s episode resets it at once: row ``i`` of
      ``observations`` and ``action_masks()`` is the first state of the new episode and the top-level
      infos of env ``i`` are its reset info; ``infos["final_obs"][i]`` (an object array) holds the last
      observation of the ended episode and ``infos["final_info"]`` (a dict of arrays) its info
      (``metrics``, ``episode``), with masks ``_final_obs`` and ``_final_info``.
    * ``DISABLED``: an env whose episode ended must be reset with
      ``reset(options={"reset_mask": mask})`` before the next ``step``.

    Either way the new episode takes the next seed of that env's own seed stream, so the modes
    give the same episodes. ``action_masks()`` is the bool ``[num_envs, A]`` mask of the current
    states (sb3-contrib's convention).
    """

    _what = "vector environment"

    render_mode: Optional[str] = None
    spec: Any = None

    def __init__(
        self,
        client: Optional[Client],
        handles: Sequence[str],
        env_id: str,
        config: Mapping[str, Any],
        observation_space: Mapping[str, Any],
        action_space: Mapping[str, Any],
        *,
        server: Optional[LocalServer] = None,
        owns_client: bool = True,
        seeds: SeedsLike = None,
        autoreset_mode: Any = "NextStep",
        binary_layout: Optional[Mapping[str, Any]] = None,
        fleet: Optional[Fleet] = None,
    ) -> None:
        #: The envs' servers when there are several (:mod:`clustergym.fleet`), else None.
        self.fleet = fleet
        if fleet is not None:
            client = fleet.parts[0].client
            handles = [h for p in fleet.parts for h in p.handles]
            owns_client = False
        self.client = client
        self.handles = list(handles)
        self.num_envs = len(self.handles)
        self.env_id = env_id
        self.config = dict(config)
        self.server = server
        self._owns_client = owns_client
        self.autoreset_mode = _parse_mode(autoreset_mode)
        self.metadata: Dict[str, Any] = {"render_modes": [], "autoreset_mode": self.autoreset_mode}
        #: The server's space descriptors (plain data).
        self.observation_space_descriptor = dict(observation_space)
        self.action_space_descriptor = dict(action_space)
        self.single_observation_space = from_descriptor(observation_space)
        self.single_action_space = from_descriptor(action_space)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._initial_seeds = _seed_list(seeds, self.num_envs)
        self._masks: Optional[np.ndarray] = None
        self._obs: Any = None  # the last batched observations (for partial resets)
        # envs whose episode ended: reset by the next step (NEXT_STEP) or by the user (DISABLED)
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        self._np_random: Optional[np.random.Generator] = None
        self._np_random_seed: Optional[int] = None
        self._closed = False
        # binary step frames when the server offers them and the envs have a layout (make's reply)
        numbers = [binary.handle_number(h) for h in self.handles]
        self._layout = (
            binary.Layout.from_make_reply({"binary": binary_layout}) if fleet is None and client.binary and all(x is not None for x in numbers) else None
        )
        self._handle_numbers: List[int] = [x or 0 for x in numbers]
        # binary step_batch replies with the numeric infos as columns (when the server has them)
        self._columns = (self._layout is not None and client.binary_columns) or (fleet is not None and all(p.columns for p in fleet.parts))
        self._all_rows: List[int] = list(range(self.num_envs))

    # -- API --------------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def reset(self, *, seed: SeedsLike = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Observation, Dict[str, Any]]:
        """Resets the envs. Returns ``(observations, infos)``.

        ``seed``: an int (env ``i`` gets ``seed + i``), a list of ``num_envs`` ints or ``None``
        entries, or ``None`` (the ``seeds`` given to :func:`make_vec` on the first reset, else each
        env's own seed stream). ``options`` go to every env; ``options["reset_mask"]`` (a bool array
        of ``num_envs``, Gymnasium's convention) resets only those envs, the other rows of
        ``observations`` staying as they were and their infos absent.
        """
        obs, _, infos = self._reset_lists(seed=seed, options=options)
        return obs, batch_infos(infos, self.num_envs)

    def step(self, actions: Any) -> Tuple[Observation, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Steps env ``i`` with ``actions[i]`` (``num_envs`` integers: an integer array or a list).
        Returns ``(observations, rewards, terminations, truncations, infos)``.

        A masked-out action is that env's no-op (``infos["invalid_action"]``; docs/environments.md,
        "Invalid actions"). An action outside the space (or a masked-out one in an env made with
        ``invalid_action: "raise"``) raises :class:`~clustergym.errors.InvalidActionError` (``.index``
        is the env) and no env is stepped or reset.
        """
        obs, rewards, terminated, truncated, infos = self._step_lists(actions, batched=True)
        return obs, rewards, terminated, truncated, infos if isinstance(infos, dict) else batch_infos(infos, self.num_envs)

    def action_masks(self) -> np.ndarray:
        """The valid actions of every env: bool ``[num_envs, A]`` (True = valid)."""
        self._check_open()
        if self._masks is None:
            if self.fleet is not None:
                rows = [self.fleet.action_mask(i) for i in range(self.num_envs)]
            else:
                rows = [np.asarray(self.client.request("action_mask", env=h)["mask"], dtype=np.uint8) for h in self.handles]
            self._masks = np.stack(rows)
        return self._masks.view(np.bool_)

    # -- per-env lists (shared with the SB3 adapter) ----------------------------------------------

    def _reset_lists(self, *, seed: SeedsLike = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Observation, np.ndarray, List[Optional[Dict[str, Any]]]]:
        """Resets; returns the observations, the bool mask of the envs reset and their info dicts
        (``None`` for the others)."""
        self._check_open()
        n = self.num_envs
        seeds = _seed_list(seed, n)
        if seeds is None and self._initial_seeds is not None:
            seeds = self._initial_seeds
        opts = dict(options) if options is not None else None
        mask = np.ones(n, dtype=np.bool_)
        if opts is not None and "reset_mask" in opts:
            mask = _reset_mask(opts.pop("reset_mask"), n)
            if not mask.all() and self._obs is None:
                raise RuntimeError(f"{self.env_id}: reset(options={{'reset_mask': ...}}) needs a full reset() first")
        idx = np.flatnonzero(mask)
        r = self._reset_batch([int(i) for i in idx], None if seeds is None else [seeds[i] for i in idx], opts)
        self._initial_seeds = None
        if isinstance(seed, (int, np.integer)):
            self._np_random = np.random.default_rng(int(seed))
            self._np_random_seed = int(seed)
        part_obs = observation_from_wire(r["observations"])
        part_masks = np.asarray(r["action_masks"], dtype=np.uint8)
        part_infos = list(r.get("infos") or [{} for _ in idx])
        if len(idx) == n:
            obs, masks = part_obs, part_masks
        else:
            obs = _merge_rows(n, [(np.flatnonzero(~mask), _take_rows(self._obs, ~mask)), (idx, part_obs)])
            masks = self.action_masks().view(np.uint8).copy()
            masks[idx] = part_masks
        infos: List[Optional[Dict[str, Any]]] = [None] * n
        for j, i in enumerate(idx):
            infos[i] = part_infos[j]
        self._obs, self._masks = obs, masks
        self._ended[idx] = False
        return obs, mask, infos

    def _step_lists(self, actions: Any, batched: bool = False) -> Tuple[Observation, np.ndarray, np.ndarray, np.ndarray, Any]:
        """Steps; returns the batched observations, rewards, terminations, truncations, and the
        per-env info dicts of :meth:`step` before batching (in ``SAME_STEP``, an env that was reset
        has ``final_obs``, ``final_info`` and its reset info). With ``batched``, the infos may come
        back already batched (a dict, as :func:`batch_infos` makes it): the common step whose reply
        carries info columns and no other info, no episode having ended."""
        self._check_open()
        n = self.num_envs
        wire_actions = _actions_to_wire(actions, n)
        mode = self.autoreset_mode
        if mode == AutoresetMode.NEXT_STEP and self._ended.any():
            return self._step_next_step(wire_actions)
        r = self._step_batch(self._all_rows, wire_actions, mode == AutoresetMode.SAME_STEP, columns=batched)
        binary_reply = "binary" in r
        obs = r["observations"] if binary_reply else observation_from_wire(r["observations"])
        terminated, truncated = _as_bool(r["terminated"]), _as_bool(r["truncated"])
        masks = r["action_masks"]
        self._masks = masks if binary_reply else np.asarray(masks, dtype=np.uint8)
        columns = r.get("info_columns")
        if columns is not None and not r["ended"] and r["rest_empty"]:
            # the hot path of a Gymnasium vector step: no episode ended (so no env is marked ended:
            # a NEXT_STEP step with some would have gone to _step_next_step, a DISABLED one refused),
            # and the batched info is the columns themselves
            self._obs = obs
            return obs, r["rewards"], terminated, truncated, self._batched_columns(columns)
        rewards = r["rewards"] if binary_reply else np.asarray(r["rewards"], dtype=np.float64)
        ended = terminated | truncated
        if columns is not None:
            raw = binary.merged_infos(columns, r["infos"])
        else:
            raw = list(r.get("infos") or [{} for _ in self.handles])
        if mode == AutoresetMode.SAME_STEP:
            infos = [_same_step_info(info) if e else info for e, info in zip(ended.tolist(), raw)] if ended.any() else raw
        else:
            infos = raw
            self._ended = ended.copy()
            if mode == AutoresetMode.NEXT_STEP and ended.any():
                self._masks = self._masks.copy()
                self._masks[ended] = 1
        self._obs = obs
        return obs, rewards, terminated, truncated, infos

    def _step_next_step(self, wire_actions: List[Any]) -> Tuple[Observation, np.ndarray, np.ndarray, np.ndarray, List[Dict[str, Any]]]:
        """A NEXT_STEP step when some episodes ended: ``step_batch`` (no autoreset) for the running
        envs, then ``reset_batch`` for the ended ones (their actions ignored)."""
        n = self.num_envs
        reset_idx = np.flatnonzero(self._ended)
        step_idx = np.flatnonzero(~self._ended)
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        masks = np.ones((n, self._mask_width()), dtype=np.uint8)
        infos: List[Dict[str, Any]] = [{} for _ in range(n)]
        parts: List[Tuple[np.ndarray, Any]] = []
        if len(step_idx):
            try:
                r = self._step_batch([int(i) for i in step_idx], [wire_actions[i] for i in step_idx], False)
            except InvalidActionError as e:
                raise _reindexed(e, step_idx) from None
            parts.append((step_idx, observation_from_wire(r["observations"])))
            rewards[step_idx] = np.asarray(r["rewards"], dtype=np.float64)
            terminated[step_idx] = _as_bool(r["terminated"])
            truncated[step_idx] = _as_bool(r["truncated"])
            masks[step_idx] = np.asarray(r["action_masks"], dtype=np.uint8)
            columns = r.get("info_columns")
            for j, info in enumerate(binary.merged_infos(columns, r["infos"]) if columns is not None else r.get("infos") or [{} for _ in step_idx]):
                infos[step_idx[j]] = info
        rr = self._reset_batch([int(i) for i in reset_idx], None, None)
        parts.append((reset_idx, observation_from_wire(rr["observations"])))
        masks[reset_idx] = np.asarray(rr["action_masks"], dtype=np.uint8)
        for j, info in enumerate(rr.get("infos") or [{} for _ in reset_idx]):
            infos[reset_idx[j]] = info
        ended = terminated | truncated
        masks[ended] = 1
        obs = _merge_rows(n, parts)
        self._obs, self._masks, self._ended = obs, masks, ended
        return obs, rewards, terminated, truncated, infos

    def _batched_columns(self, columns: Mapping[str, np.ndarray]) -> Dict[str, Any]:
        """The batched info (:func:`batch_infos`'s layout) of info columns that every env has."""
        layout = self._layout if self.fleet is None else self.fleet.parts[0].layout
        present = binary.all_present(layout, self.num_envs)  # type: ignore[arg-type]
        out: Dict[str, Any] = {}
        for k, v in columns.items():
            out[k] = v
            out["_" + k] = present
        return out

    def _reset_batch(self, idx: List[int], seeds: Optional[List[Optional[int]]], options: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        """``reset_batch`` of the envs ``idx`` (on their servers at once when there are several):
        the reply's ``observations``, ``action_masks`` and ``infos``."""
        if self.fleet is not None:
            obs, masks, infos = self.fleet.reset_batch(idx, seeds, options)
            return {"observations": obs, "action_masks": masks, "infos": infos}
        fields: Dict[str, Any] = {"envs": [self.handles[i] for i in idx]}
        if seeds is not None:
            fields["seeds"] = seeds
        if options is not None:
            fields["options"] = options
        return self.client.request("reset_batch", **fields)

    def _step_batch(self, idx: List[int], actions: List[Any], autoreset: bool, columns: bool = False) -> Dict[str, Any]:
        """``step_batch`` over the envs ``idx``: a binary frame when the server offers them and every
        action is an int32 (with info columns when ``columns`` and the server has them: the batched
        infos of :meth:`step` are views of them; per-env dicts, as SB3 wants, come faster from msgpack
        maps), else msgpack (whose reply names what is wrong with an action)."""
        if self.fleet is not None:
            n = getattr(self.single_action_space, "n", None)
            return self.fleet.step_batch(idx, actions, autoreset, columns and self._columns, self._masks, None if n is None else int(n))
        layout = self._layout
        if layout is not None and actions and set(map(type, actions)) == _INT and -(2**31) <= min(actions) and max(actions) < 2**31:
            numbers = self._handle_numbers
            handles = numbers if idx is self._all_rows else [numbers[i] for i in idx]
            raw = self.client.step_frame("step_batch", handles, actions, autoreset, columns=columns and self._columns)
            return binary.decode_step_batch(layout, raw, len(idx))
        return self.client.request("step_batch", envs=[self.handles[i] for i in idx], actions=actions, autoreset=autoreset)

    def _mask_width(self) -> int:
        n = getattr(self.single_action_space, "n", None)
        if n is not None:
            return int(n)
        return int(self.action_masks().shape[1])

    # -- misc -------------------------------------------------------------------------------------

    def _env_handles(self) -> Sequence[str]:
        return self.handles

    def close(self, timeout: float = 5.0) -> None:
        """Closes the envs on their server(s), and stops the local server :func:`make_vec` started.
        Idempotent; never raises for a server that is already gone."""
        if self.fleet is None:
            super().close(timeout)
            return
        if self._closed:
            return
        self._closed = True
        self.fleet.close(timeout)

    def __len__(self) -> int:
        return self.num_envs

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.client.address if self.fleet is None else ", ".join(self.fleet.addresses)
        return f"<clustergym.VectorEnv {self.env_id} x{self.num_envs} {self.autoreset_mode.value} @ {state}>"


def _reset_mask(m: Any, n: int) -> np.ndarray:
    if not isinstance(m, np.ndarray) or m.dtype != np.bool_ or m.shape != (n,):
        raise ValueError(f"options['reset_mask'] must be a bool numpy array of shape ({n},), got {m!r:.80}")
    if not m.any():
        raise ValueError("options['reset_mask'] must select at least one env")
    return m


def _take_rows(obs: Any, rows: np.ndarray) -> Any:
    if isinstance(obs, dict):
        return {k: _take_rows(v, rows) for k, v in obs.items()}
    return obs[rows]


def _same_step_info(info: Mapping[str, Any]) -> Dict[str, Any]:
    """The info of an env that the server reset within the step, in Gymnasium's SAME_STEP layout:
    ``final_obs`` and ``final_info`` of the ended episode, then the reset info."""
    out: Dict[str, Any] = {"final_obs": observation_from_wire(info.get("final_observation")), "final_info": info.get("final_info") or {}}
    out.update(info.get("reset_info") or {})
    return out


def _actions_to_wire(actions: Any, n: int) -> List[Any]:
    a = np.asarray(actions) if not isinstance(actions, list) else None
    if a is not None and a.dtype.kind in "iu" and a.ndim == 1:
        out: List[Any] = a.tolist()
    else:
        out = [action_to_wire(x) for x in (actions if a is None else list(a.reshape(-1) if a.ndim else [a]))]
    if len(out) != n:
        raise ValueError(f"expected {n} actions (one per env), got {len(out)}")
    return out


def _reindexed(e: InvalidActionError, idx: np.ndarray) -> InvalidActionError:
    """``e`` (about a sub-batch of the envs ``idx``) with the index of the env in the whole vector."""
    details = dict(e.details) if isinstance(e.details, dict) else {}
    j = details.get("index")
    if not isinstance(j, int) or not 0 <= j < len(idx):
        return e
    details["index"] = int(idx[j])
    message = e.message.replace(f"(index {j})", f"(index {int(idx[j])})")
    return InvalidActionError(e.code, message, details)


def env_id_and_count(first: Any, second: Any, what: str = "make_vec") -> Tuple[str, int]:
    """``(env_id, num_envs)`` from the first two arguments of :func:`make_vec` or
    :func:`~clustergym.sb3.make_sb3_vec`: Gymnasium's order ``(env_id, num_envs)``, or the former
    ``(num_envs, env_id)`` with a ``DeprecationWarning``."""
    if isinstance(first, str):
        if isinstance(second, bool) or not isinstance(second, (int, np.integer)):
            raise TypeError(f"{what}(env_id, num_envs, ...): num_envs must be an int, got {second!r}")
        return first, int(second)
    if isinstance(first, (int, np.integer)) and not isinstance(first, bool) and isinstance(second, str):
        warnings.warn(
            f"{what}(num_envs, env_id, ...) is deprecated: write {what}(env_id, num_envs, ...) as gymnasium.make_vec does",
            DeprecationWarning,
            stacklevel=3,
        )
        return second, int(first)
    raise TypeError(f"{what}(env_id, num_envs, ...): env_id must be a str such as 'clustergym/Job-v0', got {first!r}")


def make_vec(
    env_id: Any,
    num_envs: Any = 1,
    config: Optional[Mapping[str, Any]] = None,
    address: Optional[str] = None,
    *,
    seeds: SeedsLike = None,
    autoreset_mode: Any = "NextStep",
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    client: Optional[Client] = None,
    server_command: Optional[Sequence[str]] = None,
    server_args: Sequence[str] = (),
    addresses: Optional[Sequence[str]] = None,
    **config_overrides: Any,
) -> VectorEnv:
    """Makes ``num_envs`` environments of ``env_id`` stepped together over ``step_batch``.

    The order is Gymnasium's, ``make_vec(env_id, num_envs, ...)``; the former
    ``make_vec(num_envs, env_id, ...)`` still works, with a ``DeprecationWarning``.
    Args are those of :func:`clustergym.make`, plus ``seeds`` (an int: env ``i`` gets ``seeds + i``;
    or a list of ``num_envs`` seeds), used by the first ``reset()`` that gets no seed, and
    ``autoreset_mode`` (an :data:`AutoresetMode` or its value: ``"NextStep"``, the default as in
    Gymnasium, ``"SameStep"`` or ``"Disabled"``). Without ``address`` one local server hosts all
    the envs.

    ``addresses`` (a list of running servers' endpoints, e.g. those of
    :func:`clustergym.dask.start_servers` or of a Slurm job's servers) spreads the envs over them in
    contiguous blocks (env ``i`` on server ``i * len(addresses) // num_envs``, roughly; see
    :mod:`clustergym.fleet`) and steps every server's part at once; the semantics (autoreset, seeds,
    infos, masks) are those of one server, and the same seeds give the same episodes. A server lost
    mid-training raises :class:`~clustergym.errors.ServerLostError` naming it.
    """
    if "autoreset" in config_overrides:
        raise TypeError("make_vec(autoreset=...) is gone: pass autoreset_mode='SameStep' (the old autoreset=True), 'Disabled' (autoreset=False) or 'NextStep' (the default)")
    env_id, num_envs = env_id_and_count(env_id, num_envs)
    if num_envs < 1:
        raise ValueError(f"num_envs must be at least 1, got {num_envs}")
    mode = _parse_mode(autoreset_mode)
    cfg = _merge_config(config, config_overrides)
    _seed_list(seeds, num_envs)  # validate early
    if addresses is not None:
        if address is not None or client is not None:
            raise TypeError("make_vec: give addresses=[...] (several servers) or address=/client= (one), not both")
        addresses = [str(a) for a in addresses]
        if len(addresses) > 1:
            fleet = _make_fleet(env_id, num_envs, cfg, addresses, timeout)
            return VectorEnv(None, [], env_id, cfg, fleet.spaces[0], fleet.spaces[1], seeds=seeds, autoreset_mode=mode, fleet=fleet)
        address = addresses[0] if addresses else None
        if address is None:
            raise ValueError("addresses must name at least one server")
    server: Optional[LocalServer] = None
    owns = client is None
    c = client
    if c is None:
        c, server = connect(address, timeout=timeout, server_command=server_command, server_args=server_args)
    handles: List[str] = []
    try:
        r: Dict[str, Any] = {}
        for _ in range(num_envs):
            r = c.request("make", env_id=env_id, config=cfg, timeout=c.make_timeout())
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
    return VectorEnv(
        c, handles, env_id, cfg, r["observation_space"], r["action_space"], server=server, owns_client=owns, seeds=seeds, autoreset_mode=mode, binary_layout=r.get("binary")
    )


def _make_fleet(env_id: str, num_envs: int, cfg: Dict[str, Any], addresses: List[str], timeout: Optional[float]) -> Fleet:
    """Connects to every server and makes its block of envs, the servers' ``make`` requests in flight
    at once; closes whatever was opened when anything fails."""
    counts = split_envs(num_envs, len(addresses))
    clients: List[Client] = []
    handles: List[List[str]] = [[] for _ in addresses]
    replies: List[Dict[str, Any]] = [{} for _ in addresses]
    try:
        for a in addresses:
            clients.append(Client(a, timeout=timeout))
        for round_ in range(max(counts)):
            pending = [(k, c.submit("make", env_id=env_id, config=cfg)) for k, c in enumerate(clients) if round_ < counts[k]]
            for k, rid in pending:
                r = clients[k].result(rid, "make", timeout=clients[k].make_timeout())
                assert isinstance(r, dict)
                handles[k].append(r["env"])
                replies[k] = r
        spaces = (replies[0]["observation_space"], replies[0]["action_space"])
        for k, r in enumerate(replies):
            if (r["observation_space"], r["action_space"]) != spaces:
                raise ClusterGymError(
                    "bad_request",
                    f"the server at {addresses[k]} makes {env_id} with other spaces than the server at {addresses[0]}: run the same clustergym version everywhere",
                )
    except BaseException:
        for c, hs in zip(clients, handles):
            for h in hs:
                try:
                    c.request("close", env=h, timeout=2)
                except (ClusterGymError, OSError, RuntimeError):
                    break
            c.close()
        raise
    parts: List[Part] = []
    start = 0
    for c, hs, r in zip(clients, handles, replies):
        parts.append(Part(c, hs, start, r.get("binary")))
        start += len(hs)
    fleet = Fleet(parts, invalid_raises=cfg.get("invalid_action") == "raise")
    fleet.spaces = spaces
    return fleet
