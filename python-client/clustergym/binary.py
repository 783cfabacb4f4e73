"""Binary ``step`` and ``step_batch`` frames (docs/protocol.md, "Binary step frames").

A server whose ``hello`` reports ``capabilities.binary == 1`` takes ``step`` and ``step_batch`` as
fixed little-endian frames starting with the byte ``0xC1`` (which msgpack never uses) and answers
with a fixed frame whose arrays sit at offsets computed once from the env's ``binary`` layout (the
``make`` reply). The client builds the observation arrays as read-only numpy views of the received
bytes: no msgpack maps, no per-array decoding. Error replies stay msgpack maps.

Request: ``0xC1, op (1 step, 2 step_batch), flags (bit 0 autoreset), T`` then ``u32 id, u32 n``,
``u32 handles[n]`` (the number of ``"e17"``), ``i32 actions[n]``, ``T`` token bytes.

Reply: ``0xC1, op, flags, version`` then ``u32 id, u32 n, u32 I, u32 C, u32 S``, 8 reserved bytes,
``f64 rewards[n]``, ``u8 terminated[n]``, ``u8 truncated[n]`` (padded to 8), each layout array
stacked over the n envs (padded to 8), ``u8 masks[n, A]`` (padded to 8), and ``I`` bytes of info:
msgpack of the info map (``step``) or of the list of infos (``step_batch``).

Info columns (request flag bit 1, servers with ``capabilities.binary_info_columns``): a
``step_batch`` reply with flag bit 1 carries the numeric keys every env's info has as ``C`` columns
of ``n`` 8-byte values (``i8`` or ``f8``), then ``S`` bytes of msgpack spec ``[[key, kind], ...]``
(parsed once per distinct spec), then msgpack of the list of the rest of each info. The client
builds the batched info of a step from views of the columns.
"""
from __future__ import annotations

import re
import struct
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import msgpack
import numpy as np

from . import wire

__all__ = ["MAGIC", "VERSION", "Layout", "handle_number", "encode_request", "decode_step", "decode_step_batch", "merged_infos", "all_present", "reply_id"]

#: First byte of every binary frame.
MAGIC = 0xC1
#: The frame format this client speaks (the server's ``capabilities.binary``).
VERSION = 1
_OPS = {"step": 1, "step_batch": 2}
#: Flag bits of a request (and of a reply: bit 1).
AUTORESET = 1
INFO_COLUMNS = 2
_REQUEST = struct.Struct("<BBBBII")
_REQUEST_ONE = struct.Struct("<BBBBIIIi")  # a request for one env: header, handle, action
_REPLY = struct.Struct("<BBBBIII")
_COLUMNS = struct.Struct("<II")  # C, S at offset 16
_KINDS = {"i8": np.dtype("<i8"), "f8": np.dtype("<f8")}
_REWARD = struct.Struct("<d")
_HEADER_BYTES = 32
_HANDLE = re.compile(r"^e(\d{1,10})$")
_FLOAT32 = np.dtype("<f4")


def _pad8(x: int) -> int:
    return (x + 7) & ~7


def handle_number(handle: str) -> Optional[int]:
    """The number of a server env handle (``"e17"`` -> 17), or None if it has no binary form."""
    m = _HANDLE.match(handle)
    if m is None:
        return None
    v = int(m.group(1))
    return v if v < 2**32 else None


class Layout:
    """Where an env's observation arrays and action mask sit in a binary reply (from ``make``)."""

    def __init__(self, message: Mapping[str, Any]) -> None:
        if message.get("version") != VERSION:
            raise ValueError(f"binary layout version {message.get('version')!r}; this client reads {VERSION}")
        self.arrays: List[Tuple[Optional[str], np.dtype, Tuple[int, ...], int]] = []
        for a in message["arrays"]:
            dt = wire.DTYPES[a["dtype"]]
            shape = tuple(int(s) for s in a["shape"])
            self.arrays.append((a["key"], dt, shape, int(np.prod(shape, dtype=np.int64)) * dt.itemsize))
        #: Length of the action mask.
        self.mask = int(message["mask"])
        #: The observation is one ``Box`` (no keys).
        self.box = len(self.arrays) == 1 and self.arrays[0][0] is None
        self._offsets: Dict[int, Tuple[List[int], int, int]] = {}
        # parsed info-column specs by their bytes (the server sends the same spec step after step)
        self._specs: Dict[bytes, List[Tuple[str, np.dtype]]] = {}
        # the ``_key`` masks of batched infos with every env present, by n (shared, read-only)
        self._all: Dict[int, np.ndarray] = {}
        # how to decode an n-env step_batch reply, by n
        self._plans: Dict[int, Any] = {}
        # the one-env reply (``step``), decoded on every step: offsets and dtypes resolved once
        starts, self._mask_at, self._info_at = self.offsets(1)
        self._one = [(key, dt, shape, at, dt != _FLOAT32) for (key, dt, shape, _), at in zip(self.arrays, starts)]

    @classmethod
    def from_make_reply(cls, reply: Mapping[str, Any]) -> Optional["Layout"]:
        """The layout of a ``make`` reply, or None when the env has none (or of another version)."""
        m = reply.get("binary")
        if not isinstance(m, dict) or m.get("version") != VERSION:
            return None
        return cls(m)

    def offsets(self, n: int) -> Tuple[List[int], int, int]:
        """For n envs: the start of each array block, of the masks, and of the info."""
        o = self._offsets.get(n)
        if o is None:
            at = _pad8(_HEADER_BYTES + 10 * n)
            starts = []
            for _, _, _, size in self.arrays:
                starts.append(at)
                at = _pad8(at + size * n)
            o = (starts, at, _pad8(at + self.mask * n))
            self._offsets[n] = o
        return o


def encode_request(op: str, rid: int, handles: Sequence[int], actions: Sequence[int], autoreset: bool, token: bytes, columns: bool = False) -> bytes:
    """A binary ``step`` / ``step_batch`` request frame (``columns``: ask for info columns)."""
    n = len(handles)
    flags = (AUTORESET if autoreset else 0) | (INFO_COLUMNS if columns else 0)
    if n == 1:
        return _REQUEST_ONE.pack(MAGIC, _OPS[op], flags, len(token), rid & 0xFFFFFFFF, 1, handles[0], actions[0]) + token
    return b"".join((
        _REQUEST.pack(MAGIC, _OPS[op], flags, len(token), rid & 0xFFFFFFFF, n),
        struct.pack(f"<{n}I{n}i", *handles, *actions),
        token,
    ))


def reply_id(raw: bytes) -> int:
    """The request id a binary reply answers."""
    return int.from_bytes(raw[4:8], "little")


def _check(raw: bytes, layout: Layout, n: int) -> Tuple[List[int], int, int, int]:
    magic, _, _, version, _, got, info_len = _REPLY.unpack_from(raw)
    if magic != MAGIC or version != VERSION or got != n:
        raise ValueError(f"malformed binary reply (version {version}, {got} envs where {n} were stepped)")
    starts, masks, info = layout.offsets(n)
    if len(raw) != info + info_len:
        raise ValueError(f"malformed binary reply: {len(raw)} bytes, the layout needs {info + info_len}")
    return starts, masks, info, info_len


def _info(raw: bytes, at: int, length: int) -> Any:
    b = raw[at : at + length]
    # the object hook (a Python call per map) only when an ndarray map is in there
    if b"__ndarray__" in b:
        return msgpack.unpackb(b, raw=False, object_hook=wire._object_hook, strict_map_key=False)
    return msgpack.unpackb(b, raw=False, strict_map_key=False)


def decode_step(layout: Layout, raw: bytes) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
    """``(observation, reward, terminated, truncated, info)`` of a binary ``step`` reply; ``info``
    holds ``action_mask`` (uint8) as the msgpack reply does. Arrays are read-only views of ``raw``."""
    # the hot path of every Env.step: one header unpack, views at precomputed offsets
    magic, _, _, version, _, got, info_len = _REPLY.unpack_from(raw)
    info_at = layout._info_at
    if magic != MAGIC or version != VERSION or got != 1 or len(raw) != info_at + info_len:
        _check(raw, layout, 1)  # raises, naming what is wrong
    obs: Any
    if layout.box:
        _, dt, shape, at, cast = layout._one[0]
        obs = np.ndarray(shape, dt, raw, at)
        if cast:
            obs = obs.astype(np.float32)
    else:
        obs = {}
        for key, dt, shape, at, cast in layout._one:
            a = np.ndarray(shape, dt, raw, at)
            obs[key] = a.astype(np.float32) if cast else a
    info_bytes = raw[info_at:]
    # the object hook (a Python call per map) only when an ndarray map is in there
    if b"__ndarray__" in info_bytes:
        info = msgpack.unpackb(info_bytes, raw=False, object_hook=wire._object_hook, strict_map_key=False)
    else:
        info = msgpack.unpackb(info_bytes, raw=False, strict_map_key=False)
    info["action_mask"] = np.ndarray((layout.mask,), np.uint8, raw, layout._mask_at)
    return obs, _REWARD.unpack_from(raw, _HEADER_BYTES)[0], raw[_HEADER_BYTES + 8] == 1, raw[_HEADER_BYTES + 9] == 1, info


def _spec(layout: Layout, raw: bytes, at: int, length: int) -> List[Tuple[str, np.dtype]]:
    key = raw[at : at + length]
    spec = layout._specs.get(key)
    if spec is None:
        items = msgpack.unpackb(key, raw=False)
        if not isinstance(items, list) or not all(isinstance(x, list) and len(x) == 2 and x[1] in _KINDS for x in items):
            raise ValueError(f"malformed binary reply: info column spec {items!r:.200}")
        spec = [(str(k), _KINDS[kind]) for k, kind in items]
        if len(layout._specs) < 256:
            layout._specs[key] = spec
    return spec


def all_present(layout: Layout, n: int) -> np.ndarray:
    """The read-only bool mask of n envs that all have a key (``infos["_key"]``), shared per n."""
    m = layout._all.get(n)
    if m is None:
        m = np.ones(n, dtype=np.bool_)
        m.flags.writeable = False
        layout._all[n] = m
    return m


class _BatchPlan:
    """What decoding an n-env ``step_batch`` reply needs, computed once per layout and n."""

    __slots__ = ("arrays", "masks_at", "info_at", "masks_shape", "ended_at", "empty_rest")

    def __init__(self, layout: Layout, n: int) -> None:
        starts, self.masks_at, self.info_at = layout.offsets(n)
        self.arrays = [(key, dt, (n,) + shape, at, dt != _FLOAT32) for (key, dt, shape, _), at in zip(layout.arrays, starts)]
        self.masks_shape = (n, layout.mask)
        self.ended_at = (_HEADER_BYTES + 8 * n, _HEADER_BYTES + 10 * n)  # terminated then truncated
        # the rest of n infos without anything but columns: n empty maps
        self.empty_rest = msgpack.packb([{}] * n)


_F8 = np.dtype("<f8")


def decode_step_batch(layout: Layout, raw: bytes, n: int) -> Dict[str, Any]:
    """The fields of a ``step_batch`` reply (``observations``, ``rewards``, ``terminated``,
    ``truncated``, ``action_masks``, ``infos``) from a binary one, as the msgpack reply has them,
    and ``ended`` (some env terminated or truncated).

    A reply with info columns adds ``info_columns``, ``{key: int64 or float64 array [n]}`` (read-only
    views), and its ``infos`` are the rest of each env's info (without the column keys): see
    :func:`merged_infos`."""
    plan = layout._plans.get(n)
    if plan is None:
        plan = layout._plans[n] = _BatchPlan(layout, n)
    magic, _, flags, version, _, got, info_len = _REPLY.unpack_from(raw)
    info_at = plan.info_at
    if magic != MAGIC or version != VERSION or got != n or len(raw) != info_at + info_len:
        _check(raw, layout, n)  # raises, naming what is wrong
    obs: Any
    if layout.box:
        _, dt, shape, at, cast = plan.arrays[0]
        obs = np.ndarray(shape, dt, raw, at)
        if cast:
            obs = obs.astype(np.float32)
    else:
        obs = {}
        for key, dt, shape, at, cast in plan.arrays:
            a = np.ndarray(shape, dt, raw, at)
            obs[key] = a.astype(np.float32) if cast else a
    t_at, end_at = plan.ended_at
    out = {
        "binary": True,  # decoded from a binary reply: observations are float32 arrays already
        "observations": obs,
        "rewards": np.ndarray((n,), _F8, raw, _HEADER_BYTES),
        "terminated": np.ndarray((n,), np.uint8, raw, t_at),
        "truncated": np.ndarray((n,), np.uint8, raw, t_at + n),
        "action_masks": np.ndarray(plan.masks_shape, np.uint8, raw, plan.masks_at),
        "ended": raw.find(1, t_at, end_at) >= 0,
    }
    if flags & INFO_COLUMNS:
        count, spec_len = _COLUMNS.unpack_from(raw, 16)
        spec_at = info_at + 8 * n * count
        rest_at = spec_at + spec_len
        spec = _spec(layout, raw, spec_at, spec_len)
        if len(spec) != count or rest_at > info_at + info_len:
            raise ValueError(f"malformed binary reply: {count} info columns, a spec of {len(spec)}")
        out["info_columns"] = {key: np.ndarray((n,), dt, raw, info_at + 8 * n * j) for j, (key, dt) in enumerate(spec)}
        rest_len = info_at + info_len - rest_at
        empty = plan.empty_rest
        if rest_len == len(empty) and raw[rest_at:] == empty:
            out["infos"] = [{} for _ in range(n)]
            out["rest_empty"] = True
        else:
            out["infos"] = _info(raw, rest_at, rest_len)
            out["rest_empty"] = False
    else:
        out["infos"] = _info(raw, info_at, info_len)
    return out


def merged_infos(columns: Mapping[str, np.ndarray], rest: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """Each env's info dict from info columns and the rest of each info (the column keys first, as
    Python numbers)."""
    keys = list(columns)
    if not keys:
        return [dict(r) for r in rest]
    out = [dict(zip(keys, values)) for values in zip(*[c.tolist() for c in columns.values()])]
    for info, r in zip(out, rest):
        if r:
            info.update(r)
    return out
