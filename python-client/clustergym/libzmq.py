"""The client's libzmq transport: pyzmq's DEALER behind :class:`~clustergym.zmtp.Transport`
(``transport="libzmq"``, or ``CLUSTERGYM_TRANSPORT=libzmq``; :func:`clustergym.zmtp.make_transport`
makes it). :mod:`clustergym.zmtp` has the interface, the heartbeats and the direct transport."""

from __future__ import annotations

import time
from typing import Any, Optional

from .zmtp import DEFAULT_HEARTBEAT, ConnectionClosed, Heartbeat, Transport, TransportTimeout


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
