"""A connection to a clustergym bridge server (DESIGN §6).

:class:`Client` holds one ZeroMQ DEALER (:mod:`clustergym.zmtp`: ZMTP spoken directly by
default, or pyzmq's). Each request gets a fresh integer ``id``; the reply
with that id is returned (replies to earlier requests that timed out are discarded). A client is
not thread-safe: use one per thread.
"""
from __future__ import annotations

import itertools
import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from . import binary, wire
from .errors import (
    ClusterGymTimeoutError,
    ProtocolError,
    ServerDiedError,
    ServerLostError,
    error_from_reply,
)
from .zmtp import ConnectionClosed, Heartbeat, PyzmqDealer, Transport, TransportTimeout, ZmtpError, heartbeat_from_env, make_transport

__all__ = ["Client", "PROTOCOL_VERSION", "DEFAULT_TIMEOUT", "CONNECT_TIMEOUT", "MAKE_TIMEOUT", "normalize_address", "check_seed"]

#: The protocol version this client speaks (the server's ``PROTOCOL_VERSION``).
PROTOCOL_VERSION = 1

#: Default time to wait for a reply, in seconds.
DEFAULT_TIMEOUT = 10.0

#: Default time to wait for the first reply (``hello``, sent when the client is made): a client of a
#: dead or unreachable address fails after this many seconds, naming the address.
CONNECT_TIMEOUT = 5.0

#: Default time to wait for ``make`` (it may load a large workload); used when it is longer than the
#: client's timeout.
MAKE_TIMEOUT = 120.0

#: Seeds travel as msgpack integers: any integer in [0, 2**64) (the server hashes those >= 2**53).
SEED_LIMIT = 2**64


def check_seed(seed: Any, what: str = "seed") -> int:
    """``seed`` as an ``int`` if it is an integer in ``[0, 2**64)``; raises ``TypeError`` or
    ``ValueError`` otherwise, before anything is sent (so the server's env does not move)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{what} must be an integer in [0, 2**64) or None, got {type(seed).__name__} {seed!r}")
    s = int(seed)
    if s < 0 or s >= SEED_LIMIT:
        raise ValueError(f"{what} must be an integer in [0, 2**64) or None, got {s}")
    return s

class _Default:
    """The type of the "use the client's timeout" default of :meth:`Client.request`."""


_DEFAULT = _Default()

# How often a waiting request checks that a local server process is still alive (ms).
_LIVENESS_SLICE_MS = 250

# Requests the server may take long over (a `make` that loads a large trace): silence does not end
# their wait, only their timeout does (the server answers heartbeats between requests).
_PATIENT_OPS = frozenset(["make"])


def normalize_address(address: str) -> str:
    """A ZeroMQ endpoint for ``address``: ``tcp://host:port`` as is, ``host:port`` and ``:port``
    prefixed with ``tcp://`` (an empty host meaning 127.0.0.1)."""
    a = address.strip()
    if "://" in a:
        return a
    if a.startswith(":"):
        a = "127.0.0.1" + a
    return "tcp://" + a


class Client:
    """A connection to a clustergym server.

    Args:
        address: the server endpoint, e.g. ``tcp://127.0.0.1:5555`` (``host:port`` works too).
        timeout: seconds to wait for each reply (``None``: forever); a request that gets no reply in
            time raises :class:`~clustergym.errors.ClusterGymTimeoutError` (a ``TimeoutError``).
        check_alive: optional callable returning ``None`` while the server is alive, or a message
            saying why it is gone; checked while waiting, so that a dead local server raises
            :class:`~clustergym.errors.ServerDiedError` at once instead of a timeout.
        hello: send ``hello`` at once and check the protocol version (default true).
        connect_timeout: seconds to wait for that ``hello`` (a dead address fails this fast).
        token: the server's shared secret (``clustergym serve --token-file``), sent with every
            request; default ``$CLUSTERGYM_TOKEN`` when set, else the token of a
            :class:`~clustergym.server.LocalServer` of this process at that address.
        transport: ``"zmtp"`` (ZeroMQ's protocol spoken directly over the socket, no libzmq I/O
            thread: the default for ``tcp://`` and ``ipc://``) or ``"libzmq"`` (pyzmq's DEALER);
            default ``$CLUSTERGYM_TRANSPORT`` when set. See :mod:`clustergym.zmtp`.
        context: a pyzmq context (implies ``transport="libzmq"``; default: the process-wide one).
        binary: send ``step`` and ``step_batch`` as binary frames (:mod:`clustergym.binary`) when
            the server offers them (default: yes, unless ``$CLUSTERGYM_BINARY`` is ``0``); False
            keeps every request msgpack.
        heartbeat: a :class:`~clustergym.zmtp.Heartbeat` (``interval``, ``timeout`` in seconds), or
            ``None`` for none: while a reply is awaited the server is PINGed after ``interval``
            seconds of silence, and taken for dead after ``timeout`` seconds of it
            (:class:`~clustergym.errors.ServerLostError` naming it; ``make`` waits for its own
            timeout). Default ``$CLUSTERGYM_HEARTBEAT`` (``"1,10"``; ``"0"`` for none), else
            :data:`~clustergym.zmtp.DEFAULT_HEARTBEAT` (1 s, 10 s). A server that is killed is seen
            at once, heartbeat or not (its connection closes).
    """

    def __init__(
        self,
        address: str,
        *,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        check_alive: Optional[Callable[[], Optional[str]]] = None,
        hello: bool = True,
        context: Any = None,
        connect_timeout: Optional[float] = CONNECT_TIMEOUT,
        token: Optional[str] = None,
        binary: Optional[bool] = None,
        transport: Optional[str] = None,
        heartbeat: Union[Heartbeat, None, _Default] = _DEFAULT,
    ) -> None:
        self.address = normalize_address(address)
        #: The heartbeat in use (None: none).
        self.heartbeat: Optional[Heartbeat] = heartbeat_from_env() if isinstance(heartbeat, _Default) else heartbeat
        if binary is None:
            binary = os.environ.get("CLUSTERGYM_BINARY", "1") != "0"
        self._want_binary = bool(binary)
        if token is None:
            from .server import token_for  # a LocalServer of this process: its private token wins for its address

            token = token_for(self.address)
        if token is None:
            token = os.environ.get("CLUSTERGYM_TOKEN") or None
        self._token = token
        self._token_bytes = b"" if token is None else token.encode("utf-8")
        self.timeout = timeout
        self._check_alive = check_alive
        self._ids = itertools.count(1)
        self._rcvtimeo = -1
        # the receive slice of the client's timeout, computed when the timeout changes
        self._slice_of: Any = _DEFAULT
        self._slice_ms = -1
        ct = timeout if connect_timeout is None else connect_timeout if timeout is None else min(timeout, connect_timeout)
        try:
            self._sock: Optional[Transport] = make_transport(self.address, transport, connect_timeout=ct, context=context, heartbeat=self.heartbeat)
        except TransportTimeout as e:
            raise ClusterGymTimeoutError(
                "timeout",
                f"no reply to 'hello' from the clustergym server at {self.address} within {ct:g} s "
                f"(is the server running and reachable?): {e}",
            ) from None
        except ZmtpError as e:
            raise ProtocolError("protocol", f"{self.address}: {e}") from None
        #: The transport in use: ``"zmtp"`` or ``"libzmq"``.
        self.transport = "libzmq" if isinstance(self._sock, PyzmqDealer) else "zmtp"
        #: The server's ``hello`` reply (protocol, server, capabilities), once :meth:`hello` ran.
        self.server_info: Dict[str, Any] = {}
        if hello:
            try:
                self.hello(timeout=ct)
            except BaseException:
                self.close()
                raise

    # -- plumbing ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._sock is None

    def request(self, op: str, timeout: Union[float, None, _Default] = _DEFAULT, **fields: Any) -> Dict[str, Any]:
        """Sends ``{id, op, **fields}`` and returns the reply map (without ``id`` and ``ok``).

        Raises the :class:`~clustergym.errors.ClusterGymError` subclass of the server's error code
        on an error reply, :class:`~clustergym.errors.ClusterGymTimeoutError` when no reply comes
        within ``timeout`` seconds (default: the client's), and
        :class:`~clustergym.errors.ServerDiedError` when the local server is gone.
        """
        rid = self.submit(op, **fields)
        reply = self.result(rid, op, timeout)
        assert isinstance(reply, dict)
        return reply

    def submit(self, op: str, **fields: Any) -> int:
        """Sends ``{id, op, **fields}`` without waiting; returns the request's id, whose reply
        :meth:`result` waits for. With one client per server, a caller keeps one request in flight on
        each server at once (:class:`~clustergym.vector.VectorEnv` over several servers does)."""
        sock = self._sock
        if sock is None:
            raise RuntimeError("the clustergym client is closed")
        rid = next(self._ids)
        msg = {"id": rid, "op": op}
        msg.update(fields)
        if self._token is not None:
            msg["token"] = self._token
        sock.patient = op in _PATIENT_OPS
        self._send(sock, wire.pack(msg), op)
        return rid

    def result(self, rid: int, op: str, timeout: Union[float, None, _Default] = _DEFAULT) -> Union[Dict[str, Any], bytes]:
        """The reply to request ``rid`` (of :meth:`submit` or :meth:`submit_step_frame`): the reply map
        without ``id`` and ``ok``, or a binary reply's bytes. Raises as :meth:`request` does."""
        sock = self._sock
        if sock is None:
            raise RuntimeError("the clustergym client is closed")
        if not sock.patient:
            return self._receive(sock, rid, op, timeout)
        try:
            return self._receive(sock, rid, op, timeout)
        finally:
            sock.patient = False

    def submit_step_frame(self, op: str, handles: Sequence[int], actions: Sequence[int], autoreset: bool = True, columns: bool = False) -> int:
        """Sends a binary ``step`` / ``step_batch`` frame (see :meth:`step_frame`) without waiting;
        returns its id for :meth:`result`."""
        sock = self._sock
        if sock is None:
            raise RuntimeError("the clustergym client is closed")
        rid = next(self._ids) & 0xFFFFFFFF
        sock.patient = False
        self._send(sock, binary.encode_request(op, rid, handles, actions, autoreset, self._token_bytes, columns), op)
        return rid

    @property
    def binary(self) -> bool:
        """Whether ``step`` and ``step_batch`` travel as binary frames (the server offers them,
        and this client was not made with ``binary=False``)."""
        caps = self.server_info.get("capabilities") if self.server_info else None
        return self._want_binary and isinstance(caps, dict) and caps.get("binary") == binary.VERSION and len(self._token_bytes) <= 255

    @property
    def binary_columns(self) -> bool:
        """Whether binary ``step_batch`` replies may carry the info as columns (the server offers it)."""
        caps = self.server_info.get("capabilities") if self.server_info else None
        return self.binary and isinstance(caps, dict) and caps.get("binary_info_columns") is True

    def step_frame(
        self,
        op: str,
        handles: Sequence[int],
        actions: Sequence[int],
        autoreset: bool = True,
        timeout: Union[float, None, _Default] = _DEFAULT,
        columns: bool = False,
    ) -> bytes:
        """Sends a binary ``step`` (one env) or ``step_batch`` frame (env handle numbers and int32
        actions; ``columns``: ask for info columns) and returns the binary reply's bytes (decode them
        with :mod:`clustergym.binary`). Raises as :meth:`request` does (error replies are msgpack)."""
        sock = self._sock
        if sock is None:
            raise RuntimeError("the clustergym client is closed")
        rid = next(self._ids) & 0xFFFFFFFF
        self._send(sock, binary.encode_request(op, rid, handles, actions, autoreset, self._token_bytes, columns), op)
        if timeout is _DEFAULT and self._rcvtimeo == self._default_slice_ms():
            # the hot path of every step: the reply is usually the next message, in time
            raw = self._recv_once(sock, op)
            if raw is not None and raw[:1] == b"\xc1" and len(raw) >= 8 and binary.reply_id(raw) == rid:
                return raw
            if raw is not None:
                got = self._accept(raw, rid)
                if got is not None:
                    assert isinstance(got, bytes)
                    return got
        raw = self._receive(sock, rid, op, timeout)
        assert isinstance(raw, bytes)
        return raw

    def step_one(self, layout: "binary.Layout", number: int, action: int) -> Any:
        """One env's binary ``step`` (env handle number, an int32 action), decoded:
        ``(observation, reward, terminated, truncated, info)`` as :func:`clustergym.binary.decode_step`
        gives it. The hot path of ``Env.step``: the frame packed and the reply checked inline, the
        general :meth:`step_frame` for anything else (a late reply first, a timeout, an error)."""
        sock = self._sock
        if sock is None:
            raise RuntimeError("the clustergym client is closed")
        rid = next(self._ids) & 0xFFFFFFFF
        token = self._token_bytes
        self._send(sock, binary._REQUEST_ONE.pack(0xC1, 1, 1, len(token), rid, 1, number, action) + token, "step")
        raw = None
        if self._rcvtimeo == self._default_slice_ms():
            raw = self._recv_once(sock, "step")
        if raw is None or raw[0] != 0xC1 or int.from_bytes(raw[4:8], "little") != rid:
            got = None if raw is None else self._accept(raw, rid)
            raw = got if got is not None else self._receive(sock, rid, "step", _DEFAULT)
        return binary.decode_step(layout, raw)  # type: ignore[arg-type]

    def _default_slice_ms(self) -> int:
        """The receive timeout (ms) that :meth:`_receive` sets for the client's own timeout."""
        t = self.timeout
        if t is self._slice_of:
            return self._slice_ms
        if t is None and self._check_alive is None:
            ms = -1
        else:
            ms = _LIVENESS_SLICE_MS if t is None else max(1, min(_LIVENESS_SLICE_MS, int(t * 1000)))
        self._slice_of, self._slice_ms = t, ms
        return ms

    def _send(self, sock: Transport, data: bytes, op: str) -> None:
        """Sends one request; a broken connection is the server's death when it died, else a
        :class:`~clustergym.errors.ServerError`."""
        try:
            sock.send(data)
        except (ConnectionClosed, TransportTimeout) as e:
            self._closed_by_server(op, e)

    def _recv_once(self, sock: Transport, op: str) -> Optional[bytes]:
        """One receive within the current timeout slice: the message, or None at the slice's end."""
        try:
            return sock.recv()
        except TransportTimeout:
            return None
        except ConnectionClosed as e:
            self._closed_by_server(op, e)
            raise  # (unreachable: _closed_by_server raises)
        except ZmtpError as e:
            raise ProtocolError("protocol", f"{self.address}: {e}") from None

    def _closed_by_server(self, op: str, e: BaseException) -> None:
        """Raises for a connection the server closed: ServerDiedError when the local server is gone
        (waiting up to a second for its exit to show), else ServerError."""
        if self._check_alive is not None:
            end = time.monotonic() + 1.0
            while True:
                why = self._check_alive()
                if why is not None:
                    raise ServerDiedError("server_died", f"the clustergym server died while waiting for the reply to {op!r}: {why}") from None
                if time.monotonic() >= end:
                    break
                time.sleep(0.01)
        raise ServerLostError("server_lost", f"{e} (during {op!r})") from None

    def _receive(self, sock: Transport, rid: int, op: str, timeout: Union[float, None, _Default]) -> Union[Dict[str, Any], bytes]:
        """Waits for the reply to request ``rid``: the reply map, or the bytes of a binary reply."""
        t = self.timeout if isinstance(timeout, _Default) else timeout
        deadline = None if t is None else time.monotonic() + t
        # recv() waits at most one slice, then the liveness and the deadline are checked.
        if t is None and self._check_alive is None:
            slice_ms = -1
        else:
            slice_ms = _LIVENESS_SLICE_MS if t is None else max(1, min(_LIVENESS_SLICE_MS, int(t * 1000)))
        if slice_ms != self._rcvtimeo:
            # (step_frame's fast path receives once with this slice when it is the client's default)
            sock.set_timeout(slice_ms)
            self._rcvtimeo = slice_ms
        while True:
            raw = self._recv_once(sock, op)
            if raw is None:
                if self._check_alive is not None:
                    why = self._check_alive()
                    if why is not None:
                        raise ServerDiedError("server_died", f"the clustergym server died while waiting for the reply to {op!r}: {why}") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise ClusterGymTimeoutError(
                        "timeout",
                        f"no reply to {op!r} from the clustergym server at {self.address} within {t:g} s "
                        "(is the server running and reachable? raise timeout= for slow operations)",
                    ) from None
                continue
            got = self._accept(raw, rid)
            if got is not None:
                return got

    def _accept(self, raw: bytes, rid: int) -> Union[Dict[str, Any], bytes, None]:
        """The reply to request ``rid`` in message ``raw`` (a map, or a binary reply's bytes), or None
        when it answers another request (a late reply to one that timed out); raises on an error reply."""
        if raw[:1] == b"\xc1":
            if len(raw) >= 8 and binary.reply_id(raw) == rid:
                return raw
            return None  # a late binary reply to a request that timed out
        reply = wire.unpack(raw)
        if not isinstance(reply, dict):
            raise ProtocolError("protocol", f"malformed reply (not a map): {reply!r:.200}")
        if reply.get("id") != rid:
            # A late reply to a request that timed out earlier, or an error reply to a message
            # the server could not read an id from: not ours.
            if reply.get("id") is None and reply.get("ok") is False:
                raise error_from_reply(reply.get("error"))
            return None
        if reply.get("ok") is True:
            return reply
        if reply.get("ok") is False:
            raise error_from_reply(reply.get("error"))
        raise ProtocolError("protocol", f"malformed reply (no ok field): {reply!r:.200}")

    def close(self) -> None:
        """Closes the socket. Idempotent."""
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # -- ops -----------------------------------------------------------------------------------

    def hello(self, timeout: Union[float, None, _Default] = _DEFAULT) -> Dict[str, Any]:
        """Sends ``hello``, checks the protocol version and returns the server's reply
        (``protocol``, ``server``, ``capabilities``). Raises :class:`ProtocolError` on a mismatch."""
        r = self.request("hello", timeout=timeout)
        version = r.get("protocol")
        if version != PROTOCOL_VERSION:
            raise ProtocolError(
                "protocol",
                f"the server at {self.address} speaks protocol {version!r}, this client speaks {PROTOCOL_VERSION} "
                "(use the Python client of the same clustergym version as the server)",
                {"server": r},
            )
        self.server_info = r
        return r

    def ping(self, timeout: Union[float, None, _Default] = _DEFAULT) -> float:
        """Sends the heartbeat ``ping``; returns the round trip in seconds (raises
        :class:`~clustergym.errors.ClusterGymTimeoutError` when the server does not answer)."""
        t0 = time.perf_counter()
        self.request("ping", timeout=timeout)
        return time.perf_counter() - t0

    def make_timeout(self) -> Optional[float]:
        """The timeout of ``make``: the longer of the client's and :data:`MAKE_TIMEOUT`."""
        return None if self.timeout is None else max(self.timeout, MAKE_TIMEOUT)

    def list(self) -> Dict[str, Any]:
        """The server's registered env ids (``env_ids``) and open envs (``envs``)."""
        return self.request("list")

    def env_ids(self) -> List[str]:
        """The env ids the server can make."""
        return list(self.list().get("env_ids", []))
