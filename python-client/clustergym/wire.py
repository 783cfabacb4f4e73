"""The wire format of the clustergym bridge (DESIGN §6), for Python.

Every message is ONE msgpack map. N-d arrays travel as the map
``{"__ndarray__": True, "dtype": "float32", "shape": [K, F], "data": <bytes>}`` holding the raw
little-endian bytes of the array in C order.

* :func:`unpack` turns such maps into numpy arrays with ``np.frombuffer(data, dtype).reshape(shape)``:
  no element-by-element copy. The arrays are **read-only** views of the received bytes; call
  ``.copy()`` on one to modify it in place.
* :func:`pack` encodes numpy arrays (any of the dtypes the server accepts, booleans as ``uint8``)
  as ndarray maps and numpy scalars as plain msgpack numbers.
"""
from __future__ import annotations

from math import prod
from typing import Any, Dict

import msgpack
import numpy as np

__all__ = ["DTYPES", "pack", "unpack", "encode_ndarray", "decode_ndarray", "is_ndarray_message"]

#: dtypes that travel (the server's ``DTYPES``), little-endian.
DTYPES: Dict[str, np.dtype] = {
    name: np.dtype(name).newbyteorder("<")
    for name in ("float32", "float64", "int32", "int64", "uint8", "int8", "uint32")
}

# numpy dtypes that have no wire dtype of their own, and the wire dtype they are sent as (lossless).
_WIDEN = {"bool": "uint8", "int16": "int32", "uint16": "int32", "float16": "float32"}


def encode_ndarray(a: np.ndarray) -> Dict[str, Any]:
    """The wire map of a numpy array (C order, little-endian).

    Raises ``TypeError`` for a dtype that cannot travel (objects, complex, strings...).
    """
    name = a.dtype.name
    name = _WIDEN.get(name, name)
    if name == "uint64":
        if a.size and int(a.max()) >= 2**63:
            raise TypeError("uint64 values >= 2**63 cannot travel (the wire has int64)")
        name = "int64"
    dt = DTYPES.get(name)
    if dt is None:
        raise TypeError(f"cannot send a numpy array of dtype {a.dtype}; the wire carries {', '.join(DTYPES)} (and bool)")
    data = np.ascontiguousarray(a, dtype=dt)
    return {"__ndarray__": True, "dtype": name, "shape": list(a.shape), "data": data.tobytes()}


def is_ndarray_message(m: Any) -> bool:
    """Whether ``m`` is a decoded map that holds an n-d array."""
    return isinstance(m, dict) and m.get("__ndarray__") is True


def decode_ndarray(m: Dict[str, Any]) -> np.ndarray:
    """The numpy array of a wire map: a read-only zero-copy view of its ``data`` bytes.

    Raises ``ValueError`` when the dtype is unknown or the bytes do not match the shape.
    """
    name = m.get("dtype")
    dt = DTYPES.get(name) if isinstance(name, str) else None
    if dt is None:
        raise ValueError(f"ndarray of unknown dtype {name!r}; expected one of {', '.join(DTYPES)}")
    shape = m.get("shape")
    data = m.get("data")
    if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ValueError(f"ndarray shape must be a list of non-negative integers, got {shape!r}")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"ndarray data must be bytes, got {type(data).__name__}")
    n = 1
    for s in shape:
        n *= s
    if len(data) != n * dt.itemsize:
        raise ValueError(f"ndarray of shape {shape} and dtype {name} needs {n * dt.itemsize} bytes, got {len(data)}")
    return np.frombuffer(data, dtype=dt).reshape(tuple(shape))


def _object_hook(m: Dict[Any, Any]) -> Any:
    if "__ndarray__" not in m or m["__ndarray__"] is not True:
        return m
    # Fast path for well-formed arrays (the common case); anything odd goes to the checking decoder.
    try:
        dt = DTYPES[m["dtype"]]
        shape = m["shape"]
        data = m["data"]
        if type(data) is bytes and len(data) == prod(shape) * dt.itemsize:
            # same as np.frombuffer(data, dt).reshape(shape), a third of the cost; refuses negative dims
            return np.ndarray(tuple(shape), dt, data)
    except (KeyError, TypeError, ValueError):
        pass
    return decode_ndarray(m)


def _default(o: Any) -> Any:
    if isinstance(o, np.ndarray):
        return encode_ndarray(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"cannot send a value of type {type(o).__name__} over the clustergym wire")


_packer_kwargs = dict(default=_default, use_bin_type=True)


def pack(obj: Any) -> bytes:
    """msgpack bytes of ``obj`` (maps, lists, str, numbers, bytes, None, numpy arrays and scalars)."""
    return msgpack.packb(obj, **_packer_kwargs)


def unpack(data: bytes) -> Any:
    """The value of msgpack bytes, with ndarray maps decoded into (read-only) numpy arrays."""
    return msgpack.unpackb(data, raw=False, object_hook=_object_hook, strict_map_key=False)
