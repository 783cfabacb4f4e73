"""Observation and action spaces.

The server describes spaces as JSON descriptors (``{"type": "Discrete", "n": 5}``,
``{"type": "Box", "low": 0, "high": 1, "shape": [8, 4], "dtype": "float32"}``,
``{"type": "MultiBinary", "n": 3}``, ``{"type": "Dict", "spaces": {...}}``).
:func:`from_descriptor` turns one into a ``gymnasium.spaces`` space when gymnasium is importable,
else into the light equivalent defined here (same names, ``shape``, ``dtype``, ``n``, ``sample()``,
``contains()``, ``seed()``), so code written for one works with the other.
"""
from __future__ import annotations

from typing import Any, Dict as TDict, Iterator, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = [
    "Space",
    "Discrete",
    "Box",
    "MultiBinary",
    "MultiDiscrete",
    "Dict",
    "from_descriptor",
    "batch_space",
    "gymnasium_available",
]


def _gymnasium_spaces() -> Any:
    try:
        import gymnasium.spaces as gs  # type: ignore[import-not-found]

        return gs
    except Exception:  # ImportError, or a broken install: fall back to the light spaces
        return None


def gymnasium_available() -> bool:
    """Whether ``gymnasium`` can be imported (the client then returns its spaces and Env class)."""
    return _gymnasium_spaces() is not None


SeedLike = Union[int, np.random.Generator, None]


class Space:
    """Base of the light spaces: ``shape``, ``dtype``, ``sample()``, ``contains()``, ``seed()``."""

    shape: Tuple[int, ...] = ()
    dtype: Optional[np.dtype] = None

    def __init__(self, seed: SeedLike = None) -> None:
        self._np_random: Optional[np.random.Generator] = None
        if seed is not None:
            self.seed(seed)

    @property
    def np_random(self) -> np.random.Generator:
        """The space's random generator (seeded lazily from OS entropy)."""
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    def seed(self, seed: SeedLike = None) -> Any:
        """Seeds the sampler; returns the seed used."""
        self._np_random = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return seed

    def sample(self, mask: Any = None) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def contains(self, x: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def __contains__(self, x: Any) -> bool:
        return self.contains(x)

    @property
    def is_np_flattenable(self) -> bool:
        return True


class Discrete(Space):
    """The integers ``start .. start + n - 1`` (gymnasium's ``Discrete``)."""

    def __init__(self, n: int, seed: SeedLike = None, start: int = 0) -> None:
        if int(n) <= 0:
            raise ValueError(f"Discrete needs n > 0, got {n}")
        self.n = np.int64(n)
        self.start = np.int64(start)
        self.shape = ()
        self.dtype = np.dtype(np.int64)
        super().__init__(seed)

    def sample(self, mask: Optional[np.ndarray] = None) -> np.int64:
        """A uniformly random element; with ``mask`` (``n`` values, 0/1 or bool), a random allowed one
        (``start`` when the mask allows nothing, as gymnasium does)."""
        if mask is not None:
            m = np.asarray(mask).astype(bool, copy=False)
            if m.shape != (int(self.n),):
                raise ValueError(f"mask of shape {m.shape} for Discrete({self.n}); expected ({self.n},)")
            idx = np.flatnonzero(m)
            if idx.size == 0:
                return self.start
            return self.start + np.int64(idx[self.np_random.integers(idx.size)])
        return self.start + np.int64(self.np_random.integers(int(self.n)))

    def contains(self, x: Any) -> bool:
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            v = int(x)
        elif isinstance(x, np.ndarray) and x.shape == () and x.dtype.kind in "iu":
            v = int(x)
        else:
            return False
        return int(self.start) <= v < int(self.start + self.n)

    def __repr__(self) -> str:
        return f"Discrete({self.n})" if self.start == 0 else f"Discrete({self.n}, start={self.start})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Discrete) and self.n == other.n and self.start == other.start

    __hash__ = None  # type: ignore[assignment]


class Box(Space):
    """Real arrays of ``shape`` with every element in ``[low, high]`` (gymnasium's ``Box``)."""

    def __init__(
        self,
        low: Union[float, np.ndarray],
        high: Union[float, np.ndarray],
        shape: Optional[Sequence[int]] = None,
        dtype: Any = np.float32,
        seed: SeedLike = None,
    ) -> None:
        self.dtype = np.dtype(dtype)
        if shape is None:
            shape = np.shape(low) if np.ndim(low) else np.shape(high)
        self.shape = tuple(int(s) for s in shape)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        super().__init__(seed)

    def sample(self, mask: Any = None) -> np.ndarray:
        """A uniformly random array in ``[low, high]``."""
        if mask is not None:
            raise ValueError("Box.sample takes no mask")
        u = self.np_random.random(self.shape)
        return (self.low + (self.high.astype(np.float64) - self.low) * u).astype(self.dtype)

    def contains(self, x: Any) -> bool:
        if not isinstance(x, np.ndarray):
            try:
                x = np.asarray(x, dtype=self.dtype)
            except (ValueError, TypeError):
                return False
        if x.shape != self.shape or not np.can_cast(x.dtype, self.dtype):
            return False
        return bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self) -> str:
        lo = self.low.flat[0] if self.low.size and np.all(self.low == self.low.flat[0]) else self.low
        hi = self.high.flat[0] if self.high.size and np.all(self.high == self.high.flat[0]) else self.high
        return f"Box({lo}, {hi}, {self.shape}, {self.dtype})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Box)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and bool(np.all(self.low == other.low))
            and bool(np.all(self.high == other.high))
        )

    __hash__ = None  # type: ignore[assignment]


class MultiBinary(Space):
    """Arrays of ``n`` zeros and ones, dtype int8 (gymnasium's ``MultiBinary``)."""

    def __init__(self, n: Union[int, Sequence[int]], seed: SeedLike = None) -> None:
        self.n = n
        self.shape = (int(n),) if isinstance(n, (int, np.integer)) else tuple(int(s) for s in n)
        self.dtype = np.dtype(np.int8)
        super().__init__(seed)

    def sample(self, mask: Any = None) -> np.ndarray:
        return self.np_random.integers(0, 2, self.shape, dtype=np.int8)

    def contains(self, x: Any) -> bool:
        if not isinstance(x, np.ndarray):
            try:
                x = np.asarray(x)
            except (ValueError, TypeError):
                return False
        return x.shape == self.shape and bool(np.all((x == 0) | (x == 1)))

    def __repr__(self) -> str:
        return f"MultiBinary({self.n})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiBinary) and self.shape == other.shape

    __hash__ = None  # type: ignore[assignment]


class MultiDiscrete(Space):
    """Arrays of integers, element ``i`` in ``0 .. nvec[i] - 1`` (gymnasium's ``MultiDiscrete``);
    the batched action space of a vector env."""

    def __init__(self, nvec: Sequence[int], seed: SeedLike = None) -> None:
        self.nvec = np.asarray(nvec, dtype=np.int64)
        self.shape = self.nvec.shape
        self.dtype = np.dtype(np.int64)
        super().__init__(seed)

    def sample(self, mask: Any = None) -> np.ndarray:
        """Random elements; with ``mask`` (one mask per element, e.g. a vector env's ``action_masks()``
        of shape ``[n, A]``), random allowed ones."""
        if mask is not None:
            m = np.asarray(mask).astype(bool, copy=False)
            out = np.zeros(self.shape, dtype=np.int64)
            for i, row in enumerate(m.reshape(len(self.nvec.flat), -1)):
                idx = np.flatnonzero(row)
                out.flat[i] = idx[self.np_random.integers(idx.size)] if idx.size else 0
            return out
        return (self.np_random.random(self.shape) * self.nvec).astype(np.int64)

    def contains(self, x: Any) -> bool:
        try:
            x = np.asarray(x)
        except (ValueError, TypeError):
            return False
        return x.shape == self.shape and x.dtype.kind in "iu" and bool(np.all((x >= 0) & (x < self.nvec)))

    def __repr__(self) -> str:
        return f"MultiDiscrete({self.nvec})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiDiscrete) and bool(np.array_equal(self.nvec, other.nvec))

    __hash__ = None  # type: ignore[assignment]


class Dict(Space, Mapping[str, Space]):
    """A dictionary of sub-spaces (gymnasium's ``Dict``); keys keep the server's order."""

    def __init__(self, spaces: Mapping[str, Space], seed: SeedLike = None) -> None:
        self.spaces: TDict[str, Space] = dict(spaces)
        self.shape = ()
        self.dtype = None
        super().__init__(None)
        if seed is not None:
            self.seed(seed)

    def seed(self, seed: SeedLike = None) -> Any:
        """Seeds this space and each sub-space (sub-space ``i`` from a child of ``seed``)."""
        super().seed(seed)
        children = np.random.SeedSequence(seed if isinstance(seed, int) else None).spawn(len(self.spaces))
        for s, c in zip(self.spaces.values(), children):
            s.seed(int(c.generate_state(1)[0]))
        return seed

    def sample(self, mask: Any = None) -> TDict[str, Any]:
        return {k: s.sample() for k, s in self.spaces.items()}

    def contains(self, x: Any) -> bool:
        return isinstance(x, Mapping) and set(x.keys()) == set(self.spaces) and all(s.contains(x[k]) for k, s in self.spaces.items())

    def __getitem__(self, key: str) -> Space:
        return self.spaces[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.spaces)

    def __len__(self) -> int:
        return len(self.spaces)

    def keys(self) -> Any:
        return self.spaces.keys()

    def items(self) -> Any:
        return self.spaces.items()

    def values(self) -> Any:
        return self.spaces.values()

    def __repr__(self) -> str:
        return "Dict(" + ", ".join(f"{k!r}: {s!r}" for k, s in self.spaces.items()) + ")"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dict) and self.spaces == other.spaces

    __hash__ = None  # type: ignore[assignment]


def from_descriptor(desc: Mapping[str, Any], use_gymnasium: Optional[bool] = None) -> Any:
    """The space of a server descriptor: a ``gymnasium.spaces`` space when gymnasium is importable
    (or ``use_gymnasium=True``), else a light space of this module (or ``use_gymnasium=False``).

    Raises ``ValueError`` for an unknown space type.
    """
    gs = None
    if use_gymnasium is None or use_gymnasium:
        gs = _gymnasium_spaces()
        if gs is None and use_gymnasium:
            raise ImportError("gymnasium is not importable")
    return _build(desc, gs)


def _build(desc: Mapping[str, Any], gs: Any) -> Any:
    t = desc.get("type")
    if t == "Discrete":
        n = int(desc["n"])
        return gs.Discrete(n) if gs else Discrete(n)
    if t == "Box":
        shape = tuple(int(s) for s in desc.get("shape", ()))
        dtype = np.dtype(desc.get("dtype", "float32"))
        low, high = _bound(desc.get("low", -np.inf), shape, dtype), _bound(desc.get("high", np.inf), shape, dtype)
        return gs.Box(low=low, high=high, shape=shape, dtype=dtype) if gs else Box(low, high, shape, dtype)
    if t == "MultiBinary":
        n = int(desc["n"])
        return gs.MultiBinary(n) if gs else MultiBinary(n)
    if t == "MultiDiscrete":
        nvec = [int(x) for x in np.asarray(desc["nvec"]).ravel()]
        return gs.MultiDiscrete(nvec) if gs else MultiDiscrete(nvec)
    if t == "Dict":
        subs = {str(k): _build(v, gs) for k, v in desc["spaces"].items()}
        return gs.Dict(subs) if gs else Dict(subs)
    raise ValueError(f"unknown space type {t!r} in descriptor {dict(desc)!r}")


def _bound(v: Any, shape: Tuple[int, ...], dtype: np.dtype) -> Any:
    if isinstance(v, np.ndarray):
        return v.astype(dtype).reshape(shape) if v.size == int(np.prod(shape)) else v.astype(dtype)
    if isinstance(v, list):
        return np.asarray(v, dtype=dtype).reshape(shape)
    if v is None:
        return np.inf
    return float(v)


def batch_space(space: Any, n: int) -> Any:
    """The space of ``n`` stacked elements of ``space`` (what a vector env returns): ``Box`` with a
    leading ``n``, ``Dict`` of batched sub-spaces, ``MultiDiscrete([k] * n)`` for ``Discrete(k)``.
    Uses gymnasium's ``batch_space`` for gymnasium spaces."""
    if not isinstance(space, Space):
        from gymnasium.vector.utils import batch_space as gbatch  # type: ignore[import-not-found]

        return gbatch(space, n)
    if isinstance(space, Discrete):
        return MultiDiscrete([int(space.n)] * n)
    if isinstance(space, Box):
        return Box(np.broadcast_to(space.low, (n, *space.shape)), np.broadcast_to(space.high, (n, *space.shape)), (n, *space.shape), space.dtype)
    if isinstance(space, MultiBinary):
        return MultiBinary([n, *space.shape])
    if isinstance(space, MultiDiscrete):
        return MultiDiscrete(np.broadcast_to(space.nvec, (n, *space.shape)))
    if isinstance(space, Dict):
        return Dict({k: batch_space(s, n) for k, s in space.spaces.items()})
    raise TypeError(f"cannot batch {space!r}")
