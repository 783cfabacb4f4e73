"""Vector envs over several servers (DESIGN §17): the envs of :func:`clustergym.make_vec` with
``addresses=[...]`` spread over the servers, each server's part stepped with one request, every
server's request in flight at once.

* **Layout.** ``num_envs`` envs over ``S`` servers in contiguous blocks, as even as can be (the first
  ``num_envs % S`` servers get one more): env ``i`` of the vector is on the server of its block, so
  the batched arrays of a step are the servers' replies concatenated in order.
* **Concurrency.** A batch request goes to every server (``Client.submit``) before any reply is
  read (``Client.result``): the servers step their envs at the same time, and a step takes as long
  as the slowest server's part plus the learner's own decoding, not the sum. One client (one
  connection) per server, one request in flight on each.
* **Semantics.** The vector env's logic (autoreset modes, seeds, infos, masks) does not change: it
  asks for a batch over some rows and gets one merged reply (:meth:`Fleet.step_batch`,
  :meth:`Fleet.reset_batch`), exactly as from one server. Seeds are per env (env ``i`` gets
  ``seed + i`` wherever it runs), and each env's seed stream lives with it on its server, so the
  same seeds give the same episodes on one server or several.
* **Actions are checked before any server moves**: an action outside the space (or masked out, for
  envs made with ``invalid_action: "raise"``) raises :class:`~clustergym.errors.InvalidActionError`
  naming its index in the whole vector, and no env is stepped, as with one server.
* **A lost server** (killed, host down, network broken) is an error naming its address
  (:class:`~clustergym.errors.ServerLostError`, after the heartbeat's timeout at most; see
  :mod:`clustergym.zmtp`), never a hang. The vector env cannot go on without it: close it.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import binary
from .client import Client
from .env import close_envs, observation_from_wire
from .errors import ClusterGymError, InvalidActionError
from .server import LocalServer

__all__ = ["Part", "Fleet", "split_envs"]


def split_envs(num_envs: int, servers: int) -> List[int]:
    """How many of ``num_envs`` envs each of ``servers`` servers holds: contiguous blocks as even as
    can be, the first ``num_envs % servers`` servers one more. Every server holds at least one."""
    if servers < 1:
        raise ValueError("addresses must name at least one server")
    if num_envs < servers:
        raise ValueError(f"{num_envs} envs over {servers} servers would leave a server without envs: give num_envs >= len(addresses)")
    base, extra = divmod(num_envs, servers)
    return [base + (1 if k < extra else 0) for k in range(servers)]


class Part:
    """The envs of one server in a vector env: its client, its env handles, the rows ``[start, stop)``
    of the vector they are, and their binary layout (None: msgpack only)."""

    __slots__ = ("client", "handles", "start", "stop", "numbers", "layout", "columns", "server", "owns_client")

    def __init__(self, client: Client, handles: Sequence[str], start: int, binary_layout: Any, server: Optional[LocalServer] = None, owns_client: bool = True) -> None:
        self.client = client
        self.handles = list(handles)
        self.start = start
        self.stop = start + len(self.handles)
        numbers = [binary.handle_number(h) for h in self.handles]
        usable = client.binary and all(x is not None for x in numbers)
        self.layout = binary.Layout.from_make_reply({"binary": binary_layout}) if usable else None
        self.numbers: List[int] = [x or 0 for x in numbers]
        self.columns = self.layout is not None and client.binary_columns
        self.server = server
        self.owns_client = owns_client

    @property
    def address(self) -> str:
        return self.client.address


def _named(part: Part, e: ClusterGymError) -> ClusterGymError:
    """``e`` of a server's reply, its message naming the server (a ``ServerLostError`` or a timeout
    names it already)."""
    if part.client.address in e.message:
        return e
    return type(e)(e.code, f"{e.message} [server {part.client.address}, envs {part.start}..{part.stop - 1}]", e.details)


class Fleet:
    """The parts of a vector env over several servers, and its batch requests over them."""

    def __init__(self, parts: Sequence[Part], invalid_raises: bool) -> None:
        self.parts = list(parts)
        self.num_envs = self.parts[-1].stop
        self._invalid_raises = invalid_raises
        self._row_part = np.repeat(np.arange(len(self.parts)), [p.stop - p.start for p in self.parts])
        #: The envs' observation and action space descriptors (the servers', all equal).
        self.spaces: Tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {})

    @property
    def addresses(self) -> List[str]:
        return [p.client.address for p in self.parts]

    def part_of(self, row: int) -> Tuple[Part, int]:
        """The part holding vector row ``row`` and the row's index in it."""
        p = self.parts[int(self._row_part[row])]
        return p, row - p.start

    def _groups(self, idx: Sequence[int]) -> List[Tuple[Part, List[int], List[int]]]:
        """``idx`` (increasing vector rows) by part: ``(part, positions in idx, local rows)``."""
        out: Dict[int, Tuple[Part, List[int], List[int]]] = {}
        for j, i in enumerate(idx):
            k = int(self._row_part[i])
            p = self.parts[k]
            g = out.setdefault(k, (p, [], []))
            g[1].append(j)
            g[2].append(i - p.start)
        return [out[k] for k in sorted(out)]

    def _gather(self, pending: List[Tuple[Part, int, str]]) -> List[Any]:
        """The replies of requests in flight, in order. Every reply is awaited before an error is
        raised (the first one, naming its server), so no reply is left to a later request."""
        out: List[Any] = []
        first: Optional[BaseException] = None
        for part, rid, op in pending:
            try:
                out.append(part.client.result(rid, op))
            except ClusterGymError as e:
                out.append(None)
                if first is None:
                    first = _named(part, e)
            except (RuntimeError, OSError) as e:
                out.append(None)
                if first is None:
                    first = e
        if first is not None:
            raise first
        return out

    # -- batch requests ---------------------------------------------------------------------------

    def reset_batch(self, idx: Sequence[int], seeds: Optional[Sequence[Optional[int]]], options: Optional[Dict[str, Any]]) -> Tuple[Any, np.ndarray, List[Dict[str, Any]]]:
        """``reset_batch`` of the rows ``idx`` on their servers at once: ``(observations, masks,
        infos)`` of those rows, in the order of ``idx``."""
        groups = self._groups(idx)
        pending = []
        for part, pos, local in groups:
            fields: Dict[str, Any] = {"envs": [part.handles[i] for i in local]}
            if seeds is not None:
                fields["seeds"] = [seeds[j] for j in pos]
            if options is not None:
                fields["options"] = options
            pending.append((part, part.client.submit("reset_batch", **fields), "reset_batch"))
        replies = self._gather(pending)
        obs = _concat([observation_from_wire(r["observations"]) for r in replies])
        masks = np.concatenate([np.asarray(r["action_masks"], dtype=np.uint8) for r in replies])
        infos: List[Dict[str, Any]] = []
        for (_, pos, _), r in zip(groups, replies):
            infos.extend(r.get("infos") or [{} for _ in pos])
        return obs, masks, infos

    def action_mask(self, row: int) -> np.ndarray:
        part, i = self.part_of(row)
        return np.asarray(part.client.request("action_mask", env=part.handles[i])["mask"], dtype=np.uint8)

    def step_batch(self, idx: Sequence[int], actions: List[Any], autoreset: bool, columns: bool, masks: Optional[np.ndarray], n_actions: Optional[int]) -> Dict[str, Any]:
        """``step_batch`` of the rows ``idx`` with ``actions`` on their servers at once, merged into
        one reply as :func:`clustergym.binary.decode_step_batch` gives it (``binary`` set: the
        observations are decoded). ``masks`` are the rows' current masks (for the check of the
        actions before any server moves), ``n_actions`` the size of a ``Discrete`` action space."""
        self._check_actions(idx, actions, masks, n_actions)
        groups = self._groups(idx)
        pending = []
        for part, pos, local in groups:
            acts = [actions[j] for j in pos]
            layout = part.layout
            if layout is not None and set(map(type, acts)) == {int} and -(2**31) <= min(acts) and max(acts) < 2**31:
                rid = part.client.submit_step_frame("step_batch", [part.numbers[i] for i in local], acts, autoreset, columns and part.columns)
            else:
                rid = part.client.submit("step_batch", envs=[part.handles[i] for i in local], actions=acts, autoreset=autoreset)
            pending.append((part, rid, "step_batch"))
        raw = self._gather(pending)
        replies = []
        for (part, pos, _), r in zip(groups, raw):
            replies.append(binary.decode_step_batch(part.layout, r, len(pos)) if isinstance(r, bytes) else _msgpack_step(r))  # type: ignore[arg-type]
        return _merge_steps(replies)

    def _check_actions(self, idx: Sequence[int], actions: List[Any], masks: Optional[np.ndarray], n_actions: Optional[int]) -> None:
        """Raises InvalidActionError (index in the vector) for an action a server would refuse, so
        that no server steps a batch that another refuses."""
        if n_actions is None:
            return
        for j, a in enumerate(actions):
            if not isinstance(a, int) or isinstance(a, bool):
                continue  # the server names what is wrong with it (msgpack path)
            i = idx[j]
            ok = 0 <= a < n_actions and (not self._invalid_raises or masks is None or bool(masks[i][a]))
            if not ok:
                part, local = self.part_of(i)
                mask = None if masks is None else np.asarray(masks[i], dtype=np.uint8)
                allowed = "" if mask is None else "; allowed: " + (", ".join(str(x) for x in np.flatnonzero(mask)[:20]) or "(none)")
                raise InvalidActionError(
                    "invalid_action",
                    f"action {a} is not allowed in environment {part.handles[local]} of server {part.client.address} (index {i}){allowed}",
                    {"index": i, "env": part.handles[local], "mask": mask},
                )

    def close(self, timeout: float) -> None:
        """Closes every part's envs, clients and local servers; never raises for a server that is gone."""
        for part in self.parts:
            close_envs(part.client, part.handles, part.server, part.owns_client, timeout)


def _concat(parts: Sequence[Any]) -> Any:
    """Batched observations (arrays, or dicts of them) concatenated along the first axis."""
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], dict):
        return {k: _concat([p[k] for p in parts]) for k in parts[0]}
    return np.concatenate(parts)


def _msgpack_step(r: Dict[str, Any]) -> Dict[str, Any]:
    """A msgpack ``step_batch`` reply in the form of a decoded binary one (without info columns)."""
    terminated = np.asarray(r["terminated"], dtype=np.uint8)
    truncated = np.asarray(r["truncated"], dtype=np.uint8)
    return {
        "binary": True,
        "observations": observation_from_wire(r["observations"]),
        "rewards": np.asarray(r["rewards"], dtype=np.float64),
        "terminated": terminated,
        "truncated": truncated,
        "action_masks": np.asarray(r["action_masks"], dtype=np.uint8),
        "ended": bool((terminated | truncated).any()),
        "infos": list(r.get("infos") or [{} for _ in range(len(terminated))]),
    }


def _merge_steps(replies: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The parts' decoded ``step_batch`` replies as one. Info columns stay columns when every part
    has the same ones (the common step); otherwise every env's info is one dict again."""
    if len(replies) == 1:
        return replies[0]
    out: Dict[str, Any] = {
        "binary": True,
        "observations": _concat([r["observations"] for r in replies]),
        "rewards": np.concatenate([r["rewards"] for r in replies]),
        "terminated": np.concatenate([r["terminated"] for r in replies]),
        "truncated": np.concatenate([r["truncated"] for r in replies]),
        "action_masks": np.concatenate([r["action_masks"] for r in replies]),
        "ended": any(r["ended"] for r in replies),
    }
    columns = [r.get("info_columns") for r in replies]
    first = columns[0]
    same = first is not None and all(c is not None and list(c) == list(first) and all(c[k].dtype == first[k].dtype for k in c) for c in columns)
    infos: List[Dict[str, Any]] = []
    if same:
        out["info_columns"] = {k: np.concatenate([c[k] for c in columns]) for k in first}  # type: ignore[union-attr, index]
        out["rest_empty"] = all(r.get("rest_empty") for r in replies)
        for r in replies:
            infos.extend(r["infos"])
    else:
        for r, c in zip(replies, columns):
            infos.extend(binary.merged_infos(c, r["infos"]) if c is not None else r["infos"])
    out["infos"] = infos
    return out
