"""The client's direct ZMTP transport (clustergym.zmtp) against libzmq itself, and the client over
both transports against the real server.

libzmq (pyzmq's ROUTER, in a thread of this process) is the reference peer: whatever it accepts and
answers, the direct DEALER must too."""
from __future__ import annotations

import os
import random
import signal
import socket
import struct
import threading
import time
from typing import Any, List

import numpy as np
import pytest
import zmq

import clustergym
from clustergym import zmtp
from clustergym.errors import ClusterGymTimeoutError, ProtocolError, ServerError, ServerLostError
from conftest import small_config

JOB = "clustergym/Job-v0"


# -- the wire format ------------------------------------------------------------------------------


def test_frames_survive_any_chunking() -> None:
    """Bytes arriving in any chunks: the header is read only once whole, and the frames come out as
    they went in (200 random streams: sizes around the 1-byte/8-byte size boundary, commands, MORE)."""
    rng = random.Random(20261127)
    for _ in range(200):
        frames = []
        for _ in range(rng.randint(1, 12)):
            size = rng.choice([0, 1, 254, 255, 256, 257, rng.randint(0, 3000)])
            flags = rng.choice([0, zmtp._FLAG_MORE, zmtp._FLAG_COMMAND])
            frames.append((flags, bytes(rng.getrandbits(8) for _ in range(size))))
        stream = b"".join(zmtp.encode_frame(b, f) for f, b in frames)
        buf = bytearray()
        got: List[Any] = []
        i = fed = 0
        while fed < len(stream):
            step = rng.choice([1, 2, 3, 9, 64, 1000, 5000])
            buf += stream[fed : fed + step]
            fed = min(len(stream), fed + step)
            while True:
                h = zmtp.frame_header(buf, i, len(buf))
                if h is None:
                    assert len(buf) - i < (9 if len(buf) > i and buf[i] & zmtp._FLAG_LONG else 2)
                    break
                flags, head, size = h
                if len(buf) - i < head + size:
                    break
                got.append((flags & ~zmtp._FLAG_LONG, bytes(buf[i + head : i + head + size])))
                i += head + size
        assert got == frames and i == len(stream)


def test_frame_sizes_are_encoded_as_the_spec_says() -> None:
    assert zmtp.encode_frame(b"abc") == b"\x00\x03abc"
    assert zmtp.encode_frame(b"x" * 255)[:2] == b"\x00\xff"
    assert zmtp.encode_frame(b"x" * 256)[:9] == b"\x02" + struct.pack(">Q", 256)
    assert zmtp.command(b"PING", b"\x00\x0a") == b"\x04\x07\x04PING\x00\x0a"
    g = zmtp.greeting()
    assert len(g) == 64 and g[0] == 0xFF and g[9] == 0x7F and g[10:12] == b"\x03\x01" and g[12:16] == b"NULL" and g[32] == 0
    props = zmtp.ready_properties({"Socket-Type": b"DEALER", "Identity": b""})
    assert zmtp.parse_properties(props) == {"socket-type": b"DEALER", "identity": b""}
    with pytest.raises(zmtp.ZmtpError, match="truncated"):
        zmtp.parse_properties(props[:-3] + b"\x00\x00\x00\x09")


def test_greetings_that_are_not_zmtp3_null_are_refused() -> None:
    zmtp.check_greeting(zmtp.greeting(as_server=True))
    with pytest.raises(zmtp.ZmtpError, match="signature"):
        zmtp.check_greeting(b"HTTP/1.1 400 Bad Request\r\n".ljust(64, b" "))
    old = bytearray(zmtp.greeting())
    old[10] = 2
    with pytest.raises(zmtp.ZmtpError, match="ZMTP 2"):
        zmtp.check_greeting(bytes(old))
    with pytest.raises(zmtp.ZmtpError, match="CURVE"):
        zmtp.check_greeting(zmtp.greeting(mechanism=b"CURVE"))


def test_bad_endpoints_say_what_is_expected() -> None:
    with pytest.raises(ValueError, match="tcp://host:port"):
        zmtp.ZmtpDealer("tcp://127.0.0.1")
    with pytest.raises(ValueError, match="transport='libzmq'"):
        zmtp.ZmtpDealer("inproc://x")
    with pytest.raises(ValueError, match="transport must be one of"):
        zmtp.make_transport("tcp://127.0.0.1:1", "udp")


# -- against libzmq -------------------------------------------------------------------------------


class EchoRouter:
    """A pyzmq (libzmq) ROUTER in a thread answering each message with its frames reversed in
    order of bytes, so an echo cannot pass for a reply by accident."""

    def __init__(self, endpoint: str = "tcp://127.0.0.1:*", **options: int) -> None:
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        for k, v in options.items():
            self.sock.setsockopt(getattr(zmq, k), v)
        self.sock.bind(endpoint)
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self.identities: List[bytes] = []
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        while not self.stop:
            if not poller.poll(20):
                continue
            ident, *frames = self.sock.recv_multipart()
            self.identities.append(ident)
            self.sock.send_multipart([ident] + [f[::-1] for f in frames])

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.sock.close(linger=0)
        self.ctx.term()


@pytest.fixture
def router() -> Any:
    r = EchoRouter()
    yield r
    r.close()


@pytest.mark.parametrize("size", [0, 1, 255, 256, 65536 + 7, 8 << 20])
def test_a_libzmq_router_answers_the_direct_dealer(router: EchoRouter, size: int) -> None:
    d = zmtp.ZmtpDealer(router.endpoint)
    try:
        assert d.peer_properties["socket-type"] == b"ROUTER"
        body = bytes(random.Random(size).getrandbits(8) for _ in range(min(size, 4096))) * max(1, size // 4096)
        body = body[:size]
        for _ in range(3):
            d.send(body)
            assert d.recv() == body[::-1]
    finally:
        d.close()


def test_many_dealers_each_get_their_own_replies(router: EchoRouter) -> None:
    dealers = [zmtp.ZmtpDealer(router.endpoint) for _ in range(8)]
    try:
        for round_ in range(20):
            for i, d in enumerate(dealers):
                d.send(f"{i}:{round_}".encode())
            for i, d in enumerate(dealers):
                assert d.recv() == f"{i}:{round_}".encode()[::-1]
        assert len(set(router.identities)) == 8
    finally:
        for d in dealers:
            d.close()


def test_the_direct_dealer_answers_libzmq_heartbeats() -> None:
    """A ROUTER with ZMQ_HEARTBEAT_IVL sends PINGs while the dealer waits for a slow reply; the
    dealer's PONGs keep the connection (libzmq drops a peer silent for HEARTBEAT_TIMEOUT)."""
    ctx = zmq.Context()
    r = ctx.socket(zmq.ROUTER)
    r.setsockopt(zmq.HEARTBEAT_IVL, 20)
    r.setsockopt(zmq.HEARTBEAT_TIMEOUT, 100)
    r.setsockopt(zmq.ROUTER_MANDATORY, 1)
    r.bind("tcp://127.0.0.1:*")
    d = zmtp.ZmtpDealer(r.getsockopt_string(zmq.LAST_ENDPOINT))
    try:
        d.send(b"slow")
        ident, msg = r.recv_multipart()
        d.set_timeout(600)
        # the dealer waits in recv (answering PINGs) while the router "computes" for 0.5 s
        done = threading.Event()

        def reply_later() -> None:
            time.sleep(0.5)
            r.send_multipart([ident, b"done"])  # ROUTER_MANDATORY: raises if the peer was dropped
            done.set()

        t = threading.Thread(target=reply_later)
        t.start()
        assert d.recv() == b"done"
        t.join()
        assert done.is_set()
    finally:
        d.close()
        r.close(linger=0)
        ctx.term()


def test_connect_waits_for_a_server_that_is_still_starting() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    holder: List[EchoRouter] = []

    def start_later() -> None:
        time.sleep(0.3)
        holder.append(EchoRouter(f"tcp://127.0.0.1:{port}"))

    t = threading.Thread(target=start_later)
    t.start()
    d = zmtp.ZmtpDealer(f"tcp://127.0.0.1:{port}", connect_timeout=5.0)
    t.join()
    try:
        d.send(b"hi")
        assert d.recv() == b"ih"
    finally:
        d.close()
        holder[0].close()


def test_nobody_there_is_a_timeout_naming_the_address() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(ClusterGymTimeoutError, match=f"127.0.0.1:{port}"):
        clustergym.Client(f"tcp://127.0.0.1:{port}", connect_timeout=0.3)
    assert time.monotonic() - t0 < 3


def _one_shot_server(script: Any) -> str:
    """A TCP server that runs ``script(conn)`` on its first connection; its endpoint."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def run() -> None:
        conn, _ = srv.accept()
        try:
            script(conn)
        finally:
            conn.close()
            srv.close()

    threading.Thread(target=run, daemon=True).start()
    return f"tcp://127.0.0.1:{srv.getsockname()[1]}"


def _handshake_as_router(conn: socket.socket) -> None:
    conn.sendall(zmtp.greeting(as_server=True))
    got = b""
    while len(got) < 64:
        got += conn.recv(64 - len(got))
    conn.sendall(zmtp.command(b"READY", zmtp.ready_properties({"Socket-Type": b"ROUTER"})))


def test_something_that_is_not_zeromq_is_a_protocol_error() -> None:
    address = _one_shot_server(lambda c: c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n".ljust(80, b" ")))
    with pytest.raises(ProtocolError, match="not speak ZMTP"):
        clustergym.Client(address, connect_timeout=2, transport="zmtp")


def test_a_server_closing_mid_reply_is_an_error_not_a_hang() -> None:
    def script(conn: socket.socket) -> None:
        _handshake_as_router(conn)
        conn.recv(65536)  # the READY, maybe the request
        conn.sendall(b"\x02" + struct.pack(">Q", 1000) + b"only part of it")

    d = zmtp.ZmtpDealer(_one_shot_server(script))
    d.set_timeout(2000)
    d.send(b"request")
    with pytest.raises(zmtp.ConnectionClosed, match="closed the connection"):
        d.recv()


def test_an_error_command_is_raised_with_its_reason() -> None:
    def script(conn: socket.socket) -> None:
        _handshake_as_router(conn)
        conn.recv(65536)
        conn.sendall(zmtp.command(b"ERROR", b"\x0bgo away now"))
        time.sleep(0.2)

    d = zmtp.ZmtpDealer(_one_shot_server(script))
    d.set_timeout(2000)
    d.send(b"request")
    with pytest.raises(zmtp.ZmtpError, match="go away now"):
        d.recv()


def test_a_timeout_keeps_a_partial_reply_for_the_next_receive() -> None:
    release = threading.Event()

    def script(conn: socket.socket) -> None:
        _handshake_as_router(conn)
        conn.recv(65536)
        frame = zmtp.encode_frame(b"y" * 1000)
        conn.sendall(frame[:500])
        release.wait(5)
        conn.sendall(frame[500:])
        time.sleep(0.2)

    d = zmtp.ZmtpDealer(_one_shot_server(script))
    d.set_timeout(100)
    d.send(b"request")
    with pytest.raises(zmtp.TransportTimeout):
        d.recv()
    release.set()
    d.set_timeout(2000)
    assert d.recv() == b"y" * 1000


# -- the client over both transports, against the real server ---------------------------------------


def test_both_transports_step_the_same_episode(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same seed and actions over the direct transport and over pyzmq give identical steps."""
    runs = []
    for transport in zmtp.TRANSPORTS:
        monkeypatch.setenv("CLUSTERGYM_TRANSPORT", transport)
        with clustergym.make(JOB, small_config(JOB), address=address) as env:
            assert env.client.transport == transport
            obs, _ = env.reset(seed=11)
            steps = [obs]
            for _ in range(40):
                obs, r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
                steps.append((obs, r, term, trunc, info.get("steps")))
                if term or trunc:
                    break
            runs.append(steps)
    a, b = runs
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_equal(x, y)


def test_a_closed_connection_from_a_live_server_is_a_server_error(address: str) -> None:
    c = clustergym.Client(address, transport="zmtp")
    try:
        c.hello()
        sock = c._sock._sock  # noqa: SLF001 -- break the connection under the client
        sock.shutdown(socket.SHUT_RDWR)
        with pytest.raises(ServerError):
            c.hello()
        # the next request connects afresh
        assert c.hello()["protocol"] == clustergym.PROTOCOL_VERSION
    finally:
        c.close()


# -- heartbeats --------------------------------------------------------------------------------


def test_heartbeat_settings_from_the_environment() -> None:
    assert zmtp.heartbeat_from_env("") is zmtp.DEFAULT_HEARTBEAT
    assert (zmtp.DEFAULT_HEARTBEAT.interval, zmtp.DEFAULT_HEARTBEAT.timeout) == (1.0, 10.0)
    h = zmtp.heartbeat_from_env(" 0.5, 4 ")
    assert h is not None and (h.interval, h.timeout) == (0.5, 4.0)
    assert zmtp.heartbeat_from_env("0") is None and zmtp.heartbeat_from_env("off") is None
    for bad in ("1", "a,b", "2,1", "0,1"):
        with pytest.raises(ValueError):
            zmtp.heartbeat_from_env(bad)


@pytest.mark.parametrize("server_transport", ["zmtp", "libzmq"])
def test_an_idle_client_that_the_server_dropped_reconnects_with_its_next_request(server_transport: str) -> None:
    """The server's heartbeat drops a client silent past --heartbeat-timeout (the direct transport
    sends nothing between requests); the client's next request goes out on a fresh connection, and its
    envs are still there."""
    args = ["--transport", server_transport, "--heartbeat-ivl", "0.1", "--heartbeat-timeout", "0.4"]
    with clustergym.LocalServer(bind="tcp://127.0.0.1:0", extra_args=args) as s:
        with clustergym.Client(s.address, transport="zmtp") as c, clustergym.make("clustergym/Job-v0", {"k": 8, "trajectory": {"length": 20}}, client=c) as env:
            env.reset(seed=4)
            before = env.client._sock._sock  # noqa: SLF001 -- the connection itself
            time.sleep(1.2)
            _, _, _, _, info = env.step(int(env.action_masks().argmax()))
            assert info["steps"] == 1
            assert env.client._sock._sock is not before  # noqa: SLF001 -- a new connection was made


def test_a_make_longer_than_the_heartbeat_timeout_waits_for_its_reply() -> None:
    """The server answers heartbeats between requests; a ``make`` that keeps it busy longer than the
    client's heartbeat timeout (here a 300,000-job generator, about a second) is waited for."""
    with clustergym.LocalServer(bind="tcp://127.0.0.1:0") as s:
        with clustergym.Client(s.address, heartbeat=zmtp.Heartbeat(0.05, 0.25), transport="zmtp") as c:
            t0 = time.monotonic()
            r = c.request("make", env_id="clustergym/Job-v0", config={"generator": {"model": "poisson", "jobs": 300_000}})
            assert time.monotonic() - t0 > 0.25, "the make should outlast the heartbeat timeout for this test to say anything"
            assert r["env"].startswith("e")
            assert c.request("ping")["pong"] is True


@pytest.mark.parametrize("transport", ["zmtp", "libzmq"])
def test_a_stopped_server_ends_a_wait_without_timeout_naming_it(transport: str) -> None:
    """timeout=None used to wait forever on a half-open connection: the heartbeat ends it with
    ServerLostError naming the server."""
    with clustergym.LocalServer(bind="tcp://127.0.0.1:0") as s:
        with clustergym.Client(s.address, timeout=None, heartbeat=zmtp.Heartbeat(0.1, 0.6), transport=transport) as c:
            c.request("ping")
            os.kill(s.pid, signal.SIGSTOP)
            try:
                t0 = time.monotonic()
                with pytest.raises(ServerLostError, match=s.address.replace(".", r"\.")):
                    c.request("ping")
                assert 0.55 <= time.monotonic() - t0 < 2.5
            finally:
                os.kill(s.pid, signal.SIGCONT)
