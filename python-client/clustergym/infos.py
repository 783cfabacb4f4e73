"""Per-env info dicts as one vector info, laid out as Gymnasium's ``VectorEnv._add_info`` does
(:func:`batch_infos`): what :class:`~clustergym.vector.VectorEnv` returns as ``infos``."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

__all__ = ["batch_infos"]


_PLAIN_NUMBERS = frozenset([bool, int, float])


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
