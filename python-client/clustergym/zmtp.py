"""The client's two transports: ZeroMQ's wire protocol spoken directly, or pyzmq.

A clustergym server is a ZeroMQ ROUTER (DESIGN §6), and any ZeroMQ DEALER reaches it. This module
gives :class:`~clustergym.client.Client` two DEALERs behind one small interface
(:class:`Transport`: ``send``, ``recv``, ``set_timeout``, ``close``):

* :class:`ZmtpDealer` (the default) speaks ZMTP 3.1 (rfc.zeromq.org/spec/37), the protocol libzmq
  itself speaks, over a plain blocking socket: ``tcp://host:port`` or ``ipc:///path`` (a Unix
  socket). The subset a DEALER of a request/reply client needs: the 64-byte greeting (version 3.1,
  the NULL mechanism, as client), the ``READY`` command with ``Socket-Type: DEALER``, frames with the
  ``MORE``/``LONG``/``COMMAND`` flags (1- or 8-byte sizes), ``PING`` answered with ``PONG``, an
  ``ERROR`` command raised. Messages go out as one ``sendall`` each, replies are read with
  ``recv_into`` into one reused buffer. No background thread: libzmq moves every message through an
  I/O thread on each side, a thread hop that costs about half of a ZeroMQ round trip on a small
  machine (measured in docs/protocol.md).
* :class:`PyzmqDealer` is pyzmq's DEALER, i.e. libzmq (``transport="libzmq"``, or
  ``CLUSTERGYM_TRANSPORT=libzmq``): for endpoints other than ``tcp``/``ipc``, or to rule the direct
  transport out when something looks wrong. ``CLUSTERGYM_TRANSPORT`` is the variable
  ``clustergym serve`` reads too, with the same two values (its ROUTER: ZMTP spoken by Node itself,
  or zeromq.js's libzmq), so one setting switches both ends of a local server.

What the direct transport does not do that libzmq's DEALER does: it does not queue messages while
disconnected nor reconnect in the background. It connects when made (retrying until the connect
timeout, so a server that is still starting is waited for), and a connection the server closes is an
error of the request that was waiting (``ConnectionClosed``), the next request connecting afresh. A
connection the server closed while no request waited (its heartbeat timeout dropped an idle client)
is found before the next request is sent, and that request goes out on a fresh connection.

**Heartbeats** (:class:`Heartbeat`; ZMTP 3.1's ``PING``/``PONG``, libzmq's ``ZMQ_HEARTBEAT_*``): while a
request waits for its reply, either transport PINGs the server after ``interval`` seconds without
traffic from it, and a server from which nothing came for ``timeout`` seconds is taken for dead:
``ConnectionClosed`` naming it (the direct transport closes its connection; pyzmq's DEALER is
watched through its socket monitor, which reports libzmq's heartbeat timeout as a disconnection). A
server killed outright is seen at once (its kernel closes the connection); the heartbeat is for a
host that died or a network that broke, which close nothing. The PINGs carry a TTL of 0: a client
that computes between requests sends nothing and must not be dropped for it. The server answers
PINGs between requests; one request that keeps it busy longer than ``timeout`` (a ``make`` of a
huge trace) would look dead, so a request may lift the limit (``Transport.patient``: the client
does for ``make``).
"""
from __future__ import annotations

import os
import socket
import struct
import time
from typing import Any, List, Optional, Tuple

__all__ = [
    "Heartbeat",
    "DEFAULT_HEARTBEAT",
    "heartbeat_from_env",
    "Transport",
    "ZmtpDealer",
    "PyzmqDealer",
    "TransportTimeout",
    "ConnectionClosed",
    "ZmtpError",
    "make_transport",
    "TRANSPORTS",
    "greeting",
    "command",
    "encode_frame",
    "frame_header",
]

#: The transports :func:`make_transport` knows, the default first.
TRANSPORTS = ("zmtp", "libzmq")


class TransportTimeout(Exception):
    """No message arrived within the receive timeout."""


class ConnectionClosed(Exception):
    """The peer closed the connection (or it broke) before a whole message arrived."""


class ZmtpError(Exception):
    """The peer broke the protocol, or refused us with an ``ERROR`` command."""


class Heartbeat:
    """When a waiting client PINGs its server (``interval`` seconds without traffic) and when it takes
    the server for dead (``timeout`` seconds without traffic). Both in seconds, ``timeout`` at least
    ``interval``."""

    __slots__ = ("interval", "timeout")

    def __init__(self, interval: float, timeout: float) -> None:
        if not (interval > 0 and timeout >= interval):
            raise ValueError(f"a heartbeat needs 0 < interval <= timeout, got interval {interval!r}, timeout {timeout!r}")
        self.interval = float(interval)
        self.timeout = float(timeout)

    def __repr__(self) -> str:
        return f"Heartbeat(interval={self.interval:g}, timeout={self.timeout:g})"


#: The default heartbeat: a PING after 1 s of silence, the server dead after 10 s of it.
DEFAULT_HEARTBEAT = Heartbeat(1.0, 10.0)


def heartbeat_from_env(value: Optional[str] = None) -> Optional[Heartbeat]:
    """The heartbeat of ``$CLUSTERGYM_HEARTBEAT`` (``value`` when given): ``"INTERVAL,TIMEOUT"`` in
    seconds, ``"0"`` or ``"off"`` for none; unset or empty: :data:`DEFAULT_HEARTBEAT`."""
    v = os.environ.get("CLUSTERGYM_HEARTBEAT", "") if value is None else value
    v = v.strip().lower()
    if v == "":
        return DEFAULT_HEARTBEAT
    if v in ("0", "off", "none"):
        return None
    parts = v.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return Heartbeat(float(parts[0]), float(parts[1]))
    except ValueError:
        raise ValueError(f"CLUSTERGYM_HEARTBEAT must be INTERVAL,TIMEOUT in seconds (e.g. 1,10) or 0 for none, got {v!r}") from None


# -- the wire format (pure functions, unit-tested) --------------------------------------------

_FLAG_MORE, _FLAG_LONG, _FLAG_COMMAND = 1, 2, 4


def greeting(as_server: bool = False, mechanism: bytes = b"NULL") -> bytes:
    """The 64-byte ZMTP 3.1 greeting: signature, version 3.1, mechanism, as-server, filler."""
    return b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x01" + mechanism.ljust(20, b"\x00") + (b"\x01" if as_server else b"\x00") + b"\x00" * 31


def encode_frame(body: bytes, flags: int = 0) -> bytes:
    """One frame: flags, size (1 byte up to 255, else 8 bytes big-endian with the LONG flag), body."""
    n = len(body)
    if n <= 255:
        return bytes((flags, n)) + body
    return struct.pack(">BQ", flags | _FLAG_LONG, n) + body


def command(name: bytes, data: bytes = b"") -> bytes:
    """A command frame: the name's length, the name, its data."""
    return encode_frame(bytes((len(name),)) + name + data, _FLAG_COMMAND)


def ready_properties(properties: "dict[str, bytes]") -> bytes:
    """The metadata of a ``READY`` command: per property, a 1-byte name length, the name, a 4-byte
    big-endian value length, the value."""
    out = b""
    for k, v in properties.items():
        kb = k.encode("ascii")
        out += bytes((len(kb),)) + kb + struct.pack(">I", len(v)) + v
    return out


def parse_properties(data: bytes) -> "dict[str, bytes]":
    """The properties of a ``READY`` command's metadata (names lower-cased); raises ZmtpError when
    the metadata is truncated."""
    props = {}
    i, n = 0, len(data)
    while i < n:
        ln = data[i]
        if i + 1 + ln + 4 > n:
            raise ZmtpError("truncated READY metadata")
        name = data[i + 1 : i + 1 + ln].decode("ascii", "replace").lower()
        (vl,) = struct.unpack_from(">I", data, i + 1 + ln)
        j = i + 1 + ln + 4
        if j + vl > n:
            raise ZmtpError("truncated READY metadata")
        props[name] = data[j : j + vl]
        i = j + vl
    return props


def check_greeting(g: bytes) -> None:
    """Raises ZmtpError unless ``g`` is a ZMTP 3.x greeting with the NULL mechanism."""
    if len(g) < 64 or g[0] != 0xFF or g[9] & 1 != 1:
        raise ZmtpError("the peer does not speak ZMTP (bad greeting signature): is this a clustergym server?")
    if g[10] < 3:
        raise ZmtpError(f"the peer speaks ZMTP {g[10]}.{g[11]}; this client needs ZMTP 3 (libzmq 4 or later)")
    mech = g[12:32].rstrip(b"\x00")
    if mech != b"NULL":
        raise ZmtpError(f"the peer asks for the {mech.decode('ascii', 'replace')} security mechanism; this client speaks NULL only")


def frame_header(buf: Any, i: int, end: int) -> Optional[Tuple[int, int, int]]:
    """The header of the frame starting at ``buf[i]`` when its bytes up to ``end`` hold the whole
    header: ``(flags, header length, body size)``; None when more bytes are needed."""
    if end - i < 2:
        return None
    flags = buf[i]
    if flags & _FLAG_LONG:
        if end - i < 9:
            return None
        return flags, 9, struct.unpack_from(">Q", buf, i + 1)[0]
    return flags, 2, buf[i + 1]


# -- the transports ---------------------------------------------------------------------------


class Transport:
    """A DEALER connected to one server: ``send`` one single-frame message, ``recv`` the next one
    (raising :class:`TransportTimeout` after the timeout set by ``set_timeout``, in ms, -1 for none;
    :class:`ConnectionClosed` when the server is gone, or silent for longer than the heartbeat's
    timeout while a reply is awaited, unless ``patient`` is set), ``close``."""

    endpoint: str
    #: The heartbeat (None: none).
    heartbeat: Optional[Heartbeat] = None
    #: While true, silence does not end a wait (only the caller's timeout does): set by a client for
    #: a request the server may take long over (``make``).
    patient: bool = False

    def send(self, data: bytes) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def recv(self) -> bytes:  # pragma: no cover - interface
        raise NotImplementedError

    def set_timeout(self, ms: int) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError


def _parse_endpoint(endpoint: str) -> Tuple[int, Any]:
    """(address family, address) of a ``tcp://host:port``, ``ipc:///path`` or ``ipc://@name`` (Linux's
    abstract namespace: no file) endpoint."""
    if endpoint.startswith("ipc://"):
        path = endpoint[len("ipc://") :]
        if not path or path == "@" or not hasattr(socket, "AF_UNIX"):
            raise ValueError(f"bad ipc endpoint {endpoint!r} (expected ipc:///path/to/socket or ipc://@name on a system with Unix sockets)")
        if path.startswith("@"):
            # Linux's abstract namespace, as libzmq spells it: the socket's name starts with a NUL byte
            return socket.AF_UNIX, "\0" + path[1:]  # type: ignore[attr-defined]
        return socket.AF_UNIX, path  # type: ignore[attr-defined]
    if endpoint.startswith("tcp://"):
        rest = endpoint[len("tcp://") :]
        host, sep, port = rest.rpartition(":")
        if not sep or not port.isdigit() or not host:
            raise ValueError(f"bad tcp endpoint {endpoint!r} (expected tcp://host:port)")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        return socket.AF_INET, (host, int(port))
    raise ValueError(f"the direct ZMTP transport reaches tcp:// and ipc:// endpoints, not {endpoint!r} (use transport='libzmq')")


class ZmtpDealer(Transport):
    """A ZeroMQ DEALER speaking ZMTP 3.1 itself over one blocking socket (see the module's text).

    Args:
        endpoint: ``tcp://host:port``, ``ipc:///path`` or ``ipc://@name``.
        connect_timeout: seconds to keep trying to connect and handshake (a server still starting
            is waited for); :class:`TransportTimeout` after it.
        max_message: the largest reply accepted, in bytes.
        heartbeat: PINGs while waiting and the silence that ends a wait (:class:`Heartbeat`; None:
            none, a wait ends only by the timeout or the connection closing).
    """

    def __init__(self, endpoint: str, connect_timeout: Optional[float] = 5.0, max_message: int = 1 << 34, heartbeat: Optional[Heartbeat] = DEFAULT_HEARTBEAT) -> None:
        self.endpoint = endpoint
        self._family, self._addr = _parse_endpoint(endpoint)
        self._connect_timeout = connect_timeout
        self._max = max_message
        self.heartbeat = heartbeat
        self._sock: Optional[socket.socket] = None
        self._timeout_s: Optional[float] = None
        # heartbeats: when the last bytes came (or the last request left), and the last PING
        self._heard = time.monotonic()
        self._pinged = 0.0
        self._buf = bytearray(1 << 16)
        self._view = memoryview(self._buf)
        self._start = 0  # unread bytes are self._buf[self._start:self._end]
        self._end = 0
        self._pending: List[bytes] = []  # frames of a message whose last frame has not arrived
        self.peer_properties: "dict[str, bytes]" = {}
        self._connect()

    # connection ---------------------------------------------------------------------------------

    def _connect(self) -> None:
        deadline = None if self._connect_timeout is None else time.monotonic() + self._connect_timeout
        last: Optional[BaseException] = None
        while True:
            try:
                self._sock = self._open(deadline)
                return
            except (ConnectionRefusedError, FileNotFoundError, ConnectionResetError, BrokenPipeError, TransportTimeout, socket.timeout) as e:
                last = e
                if deadline is not None and time.monotonic() >= deadline:
                    raise TransportTimeout(f"could not connect to {self.endpoint} within {self._connect_timeout:g} s: {last}") from None
                time.sleep(0.02)

    def _open(self, deadline: Optional[float]) -> socket.socket:
        def left() -> Optional[float]:
            if deadline is None:
                return None
            t = deadline - time.monotonic()
            if t <= 0:
                raise TransportTimeout("handshake timed out")
            return t

        if self._family == socket.AF_INET:
            s = socket.create_connection(self._addr, timeout=left())
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        else:
            s = socket.socket(self._family, socket.SOCK_STREAM)
            s.settimeout(left())
            try:
                s.connect(self._addr)
            except BaseException:
                s.close()
                raise
        try:
            s.sendall(greeting(as_server=False))
            # the peer's greeting, then its READY (or ERROR), read through the stream buffer
            self._sock, self._start, self._end, self._pending = s, 0, 0, []
            try:
                s.settimeout(left())
                self._fill(64)
                check_greeting(bytes(self._buf[:64]))
                self._start = 64
                s.sendall(command(b"READY", ready_properties({"Socket-Type": b"DEALER"})))
                s.settimeout(left())
                flags, body = self._next_frame()
            except (TransportTimeout, ConnectionClosed) as e:
                raise ConnectionResetError(f"no greeting and READY from the server: {e}") from None
            finally:
                self._sock = None
            name = body[1 : 1 + body[0]] if flags & _FLAG_COMMAND and body else b""
            if name == b"ERROR":
                raise ZmtpError(f"the server refused the connection: {body[1 + body[0] + 1 :].decode('utf-8', 'replace')}")
            if name != b"READY":
                raise ZmtpError(f"expected the server's READY command, got {body[:16]!r}")
            self.peer_properties = parse_properties(body[1 + body[0] :])
            stype = self.peer_properties.get("socket-type", b"")
            if stype != b"ROUTER":
                raise ZmtpError(f"the peer is a ZeroMQ {stype.decode('ascii', 'replace') or '?'} socket; a clustergym server is a ROUTER")
            self._heard = time.monotonic()
            s.settimeout(self._wait_s())
            return s
        except BaseException:
            s.close()
            raise

    # messages -----------------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Sends ``data`` as a one-frame message (one ``sendall``). After a pause longer than the
        heartbeat interval, a connection the server closed meanwhile is replaced first."""
        sock = self._sock
        now = time.monotonic()
        hb = self.heartbeat
        if sock is not None and hb is not None and now - self._heard > hb.interval and self._closed_while_idle(sock):
            sock = None
        if sock is None:
            self._connect()
            sock = self._sock
            assert sock is not None
        self._heard = now  # silence is counted from the request on
        n = len(data)
        try:
            if n <= 255:
                sock.sendall(b"\x00" + bytes((n,)) + data)
            else:
                sock.sendall(struct.pack(">BQ", _FLAG_LONG, n) + data)
        except OSError as e:
            self._drop()
            raise ConnectionClosed(f"the connection to {self.endpoint} broke while sending: {e}") from None

    def _closed_while_idle(self, sock: socket.socket) -> bool:
        """Whether the server closed the connection while no request waited (its PINGs, if any,
        are answered on the way); the connection is dropped then."""
        try:
            sock.setblocking(False)
            try:
                while True:
                    got = sock.recv_into(self._view[self._end :]) if self._end < len(self._buf) else -1
                    if got == 0:
                        self._drop()
                        return True
                    if got < 0:
                        break
                    self._end += got
                    self._ensure(1)
            finally:
                if self._sock is sock:
                    sock.settimeout(self._wait_s())
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop()
            return True
        # whole commands that came meanwhile (PINGs) are handled now; a partial frame stays buffered
        while True:
            h = frame_header(self._buf, self._start, self._end)
            if h is None or not h[0] & _FLAG_COMMAND or self._end - self._start < h[1] + h[2]:
                return False
            _, body = self._next_frame()
            try:
                self._command(body)
            except ZmtpError:
                return True

    def _wait_s(self) -> Optional[float]:
        """The socket's timeout: the caller's, cut to the heartbeat interval (PINGs go out between)."""
        t, hb = self._timeout_s, self.heartbeat
        if hb is None:
            return t
        return hb.interval if t is None else min(t, hb.interval)

    def set_timeout(self, ms: int) -> None:
        """The receive timeout in ms (-1: wait forever)."""
        self._timeout_s = None if ms < 0 else ms / 1000.0
        if self._sock is not None:
            self._sock.settimeout(self._wait_s())

    def _silence(self) -> None:
        """The socket timed out: PINGs the server once per interval of silence; raises
        ConnectionClosed (dropping the connection) after the heartbeat's timeout of it."""
        hb = self.heartbeat
        if hb is None or self._sock is None:
            return
        now = time.monotonic()
        quiet = now - self._heard
        if quiet >= hb.timeout and not self.patient:
            self._drop()
            raise ConnectionClosed(
                f"the clustergym server at {self.endpoint} sent nothing for {quiet:.1f} s (heartbeat timeout {hb.timeout:g} s): "
                "it is dead, stopped, or unreachable"
            )
        if quiet >= hb.interval and now - self._pinged >= hb.interval:
            self._pinged = now
            try:
                # TTL 0: the server need not drop us when we are silent (we compute between requests)
                self._sock.sendall(command(b"PING", b"\x00\x00" + b"cg"))
            except OSError as e:
                self._drop()
                raise ConnectionClosed(f"the connection to {self.endpoint} broke: {e}") from None

    def _ensure(self, extra: int) -> None:
        """Room for ``extra`` more bytes after the unread ones (compacting, then growing)."""
        if self._end + extra <= len(self._buf):
            return
        unread = self._end - self._start
        if unread + extra <= len(self._buf) and self._start > 0:
            self._buf[:unread] = self._buf[self._start : self._end]
        else:
            size = len(self._buf)
            while size < unread + extra:
                size *= 2
            nb = bytearray(size)
            nb[:unread] = self._buf[self._start : self._end]
            self._buf = nb
            self._view = memoryview(nb)
        self._start, self._end = 0, unread

    def _fill(self, need: int) -> None:
        """Reads until at least ``need`` unread bytes are buffered (TransportTimeout after the caller's
        timeout; the heartbeat's checks at each interval of silence)."""
        sock = self._sock
        assert sock is not None
        self._ensure(need - (self._end - self._start))
        started = None
        while self._end - self._start < need:
            try:
                got = sock.recv_into(self._view[self._end :])
            except socket.timeout:
                self._silence()
                t = self._timeout_s
                if self.heartbeat is not None and (t is None or t > self.heartbeat.interval):
                    now = time.monotonic()
                    if started is None:
                        started = now - self.heartbeat.interval
                    if t is None or now - started < t:
                        continue
                raise TransportTimeout() from None
            except OSError as e:
                self._drop()
                raise ConnectionClosed(f"the connection to {self.endpoint} broke: {e}") from None
            if got == 0:
                self._drop()
                raise ConnectionClosed(f"the clustergym server at {self.endpoint} closed the connection")
            self._end += got
            self._heard = time.monotonic()

    def recv(self) -> bytes:
        """The next message's one frame (PING commands are answered on the way). A message of
        several frames is a ZmtpError: clustergym replies are one frame. A timeout keeps any partial
        message for the next call."""
        if self._sock is None:
            self._connect()
        while True:
            flags, body = self._next_frame()
            if flags & _FLAG_COMMAND:
                self._command(body)
                continue
            if flags & _FLAG_MORE:
                self._pending.append(body)
                continue
            if self._pending:
                frames, self._pending = self._pending + [body], []
                raise ZmtpError(f"a reply of {len(frames)} frames; clustergym replies are one frame")
            return body

    def _next_frame(self) -> Tuple[int, bytes]:
        """The next frame of the stream, ``(flags, body)``, read as far as needed."""
        h = frame_header(self._buf, self._start, self._end)
        while h is None:
            self._fill(self._end - self._start + 1)
            h = frame_header(self._buf, self._start, self._end)
        flags, head, size = h
        if size > self._max:
            self._drop()
            raise ZmtpError(f"a message of {size} bytes from {self.endpoint}, over the limit of {self._max}")
        i = self._start
        if self._end - i < head + size:
            self._fill(head + size)
            i = self._start
        body = bytes(self._buf[i + head : i + head + size])
        self._start = i + head + size
        if self._start == self._end:
            self._start = self._end = 0
        return flags, body

    def _command(self, body: bytes) -> None:
        name = body[1 : 1 + body[0]] if body else b""
        data = body[1 + body[0] :] if body else b""
        if name == b"PING":
            # PING: 2-byte TTL, then a context echoed in the PONG
            assert self._sock is not None
            self._sock.sendall(command(b"PONG", data[2:]))
        elif name == b"ERROR":
            self._drop()
            raise ZmtpError(f"the server sent ERROR: {data[1:].decode('utf-8', 'replace')}")
        # PONG and unknown commands are ignored, as libzmq does

    def _drop(self) -> None:
        s, self._sock = self._sock, None
        self._start = self._end = 0
        self._pending = []
        if s is not None:
            try:
                s.close()
            except OSError:
                pass

    def close(self) -> None:
        """Closes the connection. Idempotent."""
        self._drop()


class PyzmqDealer(Transport):
    """pyzmq's DEALER (libzmq), with ``LINGER`` 0: any endpoint libzmq knows, reconnecting in the
    background. With a heartbeat, libzmq's ``ZMQ_HEARTBEAT_IVL`` / ``ZMQ_HEARTBEAT_TIMEOUT`` (and a
    TTL of 0) are set, and a socket monitor reports the connection's loss: a wait for a reply ends
    with :class:`ConnectionClosed` when libzmq disconnects (the server closed the connection, or its
    heartbeat timed out), where libzmq alone would reconnect and leave the request unanswered."""

    def __init__(self, endpoint: str, context: Any = None, heartbeat: Optional[Heartbeat] = DEFAULT_HEARTBEAT) -> None:
        import zmq

        self.endpoint = endpoint
        self.heartbeat = heartbeat
        self._zmq = zmq
        ctx = context or zmq.Context.instance()
        self.socket = ctx.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self._monitor: Any = None
        self._timeout_ms = -1
        if heartbeat is not None:
            self.socket.setsockopt(zmq.HEARTBEAT_IVL, max(1, int(heartbeat.interval * 1000)))
            self.socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, max(1, int(heartbeat.timeout * 1000)))
            self.socket.setsockopt(zmq.HEARTBEAT_TTL, 0)
            self._monitor = self.socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
            self._poller = zmq.Poller()
            self._poller.register(self.socket, zmq.POLLIN)
            self._poller.register(self._monitor, zmq.POLLIN)
        self.socket.connect(endpoint)
        send = None
        for base in zmq.Socket.__mro__[1:]:  # pyzmq's compiled send (the Python wrapper costs ~1.4 us)
            send = base.__dict__.get("send")
            if send is not None:
                break
        sock, compiled = self.socket, send or zmq.Socket.send
        if self._monitor is None:
            self.send = lambda data: compiled(sock, data)  # type: ignore[method-assign]
        else:
            monitor = self._monitor

            def send_watched(data: bytes) -> None:
                # a disconnection while no request waited is past: libzmq reconnected (or will)
                while monitor.poll(0):
                    monitor.recv_multipart()
                compiled(sock, data)

            self.send = send_watched  # type: ignore[method-assign]
        self._recv = sock.recv

    def recv(self) -> bytes:
        if self._monitor is not None:
            return self._recv_watched()
        try:
            return self._recv()  # type: ignore[no-any-return]
        except self._zmq.Again:
            raise TransportTimeout() from None

    def _recv_watched(self) -> bytes:
        """The next message, or ConnectionClosed as soon as the monitor reports a disconnection."""
        zmq = self._zmq
        deadline = None if self._timeout_ms < 0 else time.monotonic() + self._timeout_ms / 1000
        while True:
            left = None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000))
            events = dict(self._poller.poll(left))
            if self.socket in events:
                return self.socket.recv(zmq.NOBLOCK)  # type: ignore[no-any-return]
            if self._monitor not in events:
                raise TransportTimeout()
            self._monitor.recv_multipart()
            if self.patient:
                continue  # a long request: only its timeout ends the wait
            raise ConnectionClosed(
                f"lost the connection to the clustergym server at {self.endpoint} (libzmq disconnected: the server closed it, "
                f"or sent nothing for the heartbeat timeout of {self.heartbeat.timeout:g} s)"  # type: ignore[union-attr]
            )

    def set_timeout(self, ms: int) -> None:
        self._timeout_ms = ms
        self.socket.setsockopt(self._zmq.RCVTIMEO, ms)

    def close(self) -> None:
        if self._monitor is not None:
            try:
                self.socket.disable_monitor()
            except Exception:
                pass
            self._monitor.close(linger=0)
            self._monitor = None
        self.socket.close(linger=0)


def make_transport(
    endpoint: str, transport: Optional[str] = None, *, connect_timeout: Optional[float] = 5.0, context: Any = None, heartbeat: Optional[Heartbeat] = DEFAULT_HEARTBEAT
) -> Transport:
    """The DEALER for ``endpoint``: ``transport`` ``"zmtp"`` (the default for ``tcp://`` and
    ``ipc://``; ``$CLUSTERGYM_TRANSPORT`` when not given) or ``"libzmq"`` (pyzmq's DEALER: the default for other
    endpoints, and whenever a pyzmq ``context`` is passed), with ``heartbeat``."""
    if transport is None:
        transport = os.environ.get("CLUSTERGYM_TRANSPORT") or None
    if transport is None:
        direct = endpoint.startswith("tcp://") or (endpoint.startswith("ipc://") and hasattr(socket, "AF_UNIX"))
        transport = "zmtp" if direct and context is None else "libzmq"
    if transport == "zmtp":
        return ZmtpDealer(endpoint, connect_timeout=connect_timeout, heartbeat=heartbeat)
    if transport == "libzmq":
        return PyzmqDealer(endpoint, context, heartbeat=heartbeat)
    raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
