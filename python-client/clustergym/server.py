"""A local clustergym server in a subprocess, for :func:`clustergym.make` without an address.

The server is ``clustergym serve --bind ipc://<private temp folder>/serve.sock --parent-pid <this pid>``
(``tcp://127.0.0.1:0`` where there are no Unix sockets, or with ``CLUSTERGYM_LOCAL_TRANSPORT=tcp``);
it prints the endpoint it bound as the first line of its stdout. The command is found, in order:

1. the ``command`` argument (a list: ``["node", "/path/to/dist/cli/main.js"]``);
2. the ``CLUSTERGYM_SERVER`` environment variable: a path to ``main.js`` (run with node), or a
   command line (``"clustergym"``, ``"node /x/dist/cli/main.js"``);
3. the repository's ``dist/cli/main.js`` next to this package (``python-client/`` in a clone;
   build it with ``npx tsc -p .``);
4. ``clustergym`` on ``PATH`` (``npm install -g clustergym``).

Node is ``CLUSTERGYM_NODE`` or ``node`` on ``PATH``.

No orphan is left behind:

* :meth:`LocalServer.stop` (called by ``Env.close()``) sends SIGTERM, then SIGKILL after a grace period;
* an ``atexit`` hook stops every server still running when the interpreter exits normally;
* on Linux, the child asks the kernel (``prctl(PR_SET_PDEATHSIG, SIGKILL)``) to be killed when its
  parent dies, even by SIGKILL; this is only set when the server is started from the main thread,
  since the kernel ties it to the starting *thread*;
* ``--parent-pid`` lets the server itself exit when this process disappears (all platforms).
"""
from __future__ import annotations

import atexit
import os
import shlex
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import IO, Any, List, Optional, Sequence, Tuple

from .errors import ServerStartError

__all__ = ["LocalServer", "find_server_command", "token_for", "remember_token"]

# tokens of servers this process started elsewhere (clustergym.dask.start_servers), by address
_remembered: "dict[str, str]" = {}


def remember_token(address: str, token: Optional[str]) -> None:
    """Makes :class:`~clustergym.client.Client` objects of this process send ``token`` to the server at
    ``address`` (a server this process started on another machine; ``None`` forgets it)."""
    if token is None:
        _remembered.pop(address, None)
    else:
        _remembered[address] = token


def token_for(address: str) -> Optional[str]:
    """The token of a running :class:`LocalServer` of this process at ``address``, or one remembered
    for it (:func:`remember_token`), if any."""
    for s in list(_live):
        if s.address == address and s.token is not None and s.running:
            return s.token
    return _remembered.get(address)

_PR_SET_PDEATHSIG = 1

_live: "weakref.WeakSet[LocalServer]" = weakref.WeakSet()


def _repo_main_js() -> Optional[Path]:
    here = Path(__file__).resolve()
    for parent in list(here.parents)[:4]:
        p = parent / "dist" / "cli" / "main.js"
        if p.is_file():
            return p
    return None


def _node() -> str:
    node = os.environ.get("CLUSTERGYM_NODE") or shutil.which("node")
    if not node:
        raise ServerStartError("server_start", "cannot start a local clustergym server: node is not on PATH (set CLUSTERGYM_NODE to the node binary)")
    return node


def find_server_command() -> List[str]:
    """The command that runs the ``clustergym`` CLI (without ``serve`` and its flags).

    Raises :class:`~clustergym.errors.ServerStartError` naming what was tried when nothing is found.
    """
    env = os.environ.get("CLUSTERGYM_SERVER")
    if env:
        if env.endswith((".js", ".mjs")) and Path(env).is_file():
            return [_node(), env]
        parts = shlex.split(env)
        if parts and parts[0].endswith((".js", ".mjs")):
            return [_node(), *parts]
        return parts
    main_js = _repo_main_js()
    if main_js is not None:
        return [_node(), str(main_js)]
    exe = shutil.which("clustergym")
    if exe:
        return [exe]
    raise ServerStartError(
        "server_start",
        "cannot find the clustergym server: set CLUSTERGYM_SERVER (path to dist/cli/main.js or a command), "
        "build the repository (npx tsc -p . in the clone that holds python-client/), put `clustergym` on PATH, "
        "or pass address= to connect to a running `clustergym serve`",
    )


def _pdeathsig_preexec() -> None:  # runs in the child between fork and exec
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except Exception:
        pass


def _default_bind() -> Tuple[str, Optional[str]]:
    """The endpoint a local server binds by default, and the private folder of its socket file.

    ``ipc://`` (a Unix socket in a fresh 0700 temporary folder) where the platform has Unix sockets and
    the path fits their length limit: client and server are on the same machine, and a round trip over
    it took a fifth less than over loopback TCP in one alternating measurement (docs/protocol.md, "Speed"); else, or with
    ``CLUSTERGYM_LOCAL_TRANSPORT=tcp``, ``tcp://127.0.0.1:0`` (a free port)."""
    if os.name != "posix" or not hasattr(socket, "AF_UNIX") or os.environ.get("CLUSTERGYM_LOCAL_TRANSPORT", "ipc").lower() == "tcp":
        return "tcp://127.0.0.1:0", None
    folder = tempfile.mkdtemp(prefix="clustergym-")
    path = os.path.join(folder, "serve.sock")
    if len(path.encode()) > 100:  # sun_path holds 108 bytes
        os.rmdir(folder)
        return "tcp://127.0.0.1:0", None
    return "ipc://" + path, folder


class LocalServer:
    """A ``clustergym serve`` subprocess on this machine, bound to a Unix socket (``ipc://``) in a
    private temporary folder, or to a free port on 127.0.0.1 (see ``bind``).

    Use as a context manager, or call :meth:`stop` (idempotent). :attr:`address` is the endpoint,
    :attr:`pid` the process id.

    Args:
        command: the CLI command (default: :func:`find_server_command`).
        bind: endpoint to bind. Default: ``ipc://`` in a fresh 0700 temporary folder (removed by
            :meth:`stop`) where Unix sockets exist, else ``tcp://127.0.0.1:0`` (a free port);
            ``CLUSTERGYM_LOCAL_TRANSPORT=tcp`` makes TCP the default. Any endpoint ``clustergym
            serve --bind`` takes works (``tcp://127.0.0.1:0`` keeps the former default).
        parent_pid: pass ``--parent-pid <os.getpid()>`` so the server exits when this process is gone.
        extra_args: more ``serve`` flags (e.g. ``["--idle-timeout", "60"]``).
        data_roots: the folders whose files configs may name (``--data-root``). Default: the whole
            file system (``/``) for a private server (below), else the working directory (as
            ``clustergym serve``). Devices and FIFOs are refused all the same. Ignored when
            ``extra_args`` has ``--data-root``.
        private: protect the server with a random token (``--token-file``, a 0600 temporary file)
            that only this process knows: :class:`~clustergym.client.Client` objects of this process
            find it by the address (:attr:`token`); other processes (and other local users) are
            refused. :func:`clustergym.make` without an address starts a private server. Default
            false. Ignored when ``extra_args`` has ``--token-file``.
        token: the token of a private server (default: a random one; a Dask worker's server takes
            the one its client made, :mod:`clustergym.dask`).
        start_timeout: seconds to wait for the endpoint line.
        env: environment of the child (default: this process's).
    """

    def __init__(
        self,
        command: Optional[Sequence[str]] = None,
        *,
        bind: Optional[str] = None,
        parent_pid: bool = True,
        extra_args: Sequence[str] = (),
        start_timeout: float = 30.0,
        env: Optional[dict] = None,
        data_roots: Optional[Sequence[str]] = None,
        private: bool = False,
        token: Optional[str] = None,
    ) -> None:
        cmd = list(command) if command is not None else find_server_command()
        self._ipc_folder: Optional[str] = None
        if bind is None:
            bind, self._ipc_folder = _default_bind()
        args = [*cmd, "serve", "--bind", bind]
        if parent_pid:
            args += ["--parent-pid", str(os.getpid())]
        extra = list(extra_args)
        #: The token requests to this server carry (None when it has none, or it was given in ``extra_args``).
        self.token: Optional[str] = None
        self._token_file: Optional[str] = None
        if "--data-root" not in extra and (data_roots is not None or private):
            args += ["--data-root", os.pathsep.join(data_roots) if data_roots is not None else os.sep]
        if private and "--token-file" not in extra:
            self.token = token if token is not None else secrets.token_hex(24)
            fd, self._token_file = tempfile.mkstemp(prefix="clustergym-token-")
            with os.fdopen(fd, "w") as f:  # mkstemp creates it 0600
                f.write(self.token + "\n")
            args += ["--token-file", self._token_file]
        args += extra
        self.args = args
        self.address = ""
        self._stdout: IO[bytes] = tempfile.TemporaryFile(prefix="clustergym-serve-out-")
        self._stderr: IO[bytes] = tempfile.TemporaryFile(prefix="clustergym-serve-err-")
        popen_kw: dict = {}
        if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
            popen_kw["preexec_fn"] = _pdeathsig_preexec
        if os.name == "posix":
            popen_kw["start_new_session"] = True  # Ctrl-C in a terminal is Python's to handle
        try:
            self.proc: subprocess.Popen = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=self._stdout, stderr=self._stderr, env=env, close_fds=True, **popen_kw
            )
        except OSError as e:
            self._close_files()
            raise ServerStartError("server_start", f"cannot start the clustergym server ({shlex.join(args)}): {e}") from e
        _live.add(self)
        try:
            self.address = self._read_endpoint(start_timeout)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        """Process id of the server."""
        return self.proc.pid

    def _read_endpoint(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        delay = 0.002
        while True:
            self._stdout.seek(0)
            out = self._stdout.read()
            nl = out.find(b"\n")
            if nl >= 0:
                line = out[:nl].decode("utf-8", "replace").strip()
                if "://" not in line:
                    raise ServerStartError("server_start", f"the clustergym server printed {line!r} instead of its endpoint ({shlex.join(self.args)}){self._stderr_tail()}")
                return line
            code = self.proc.poll()
            if code is not None:
                raise ServerStartError("server_start", f"the clustergym server exited with code {code} before printing its endpoint ({shlex.join(self.args)}){self._stderr_tail()}")
            if time.monotonic() > deadline:
                raise ServerStartError("server_start", f"the clustergym server printed no endpoint within {timeout:g} s ({shlex.join(self.args)}){self._stderr_tail()}")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def _stderr_tail(self, limit: int = 4000) -> str:
        try:
            self._stderr.seek(0)
            err = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; its stderr:\n{err[-limit:]}" if err else ""

    def check_alive(self) -> Optional[str]:
        """``None`` while the server runs; else why it is gone (exit code and end of stderr)."""
        code = self.proc.poll()
        if code is None:
            return None
        return f"exit code {code}{self._stderr_tail()}"

    @property
    def running(self) -> bool:
        """Whether the process is still running."""
        return self.proc.poll() is None

    def stop(self, grace: float = 3.0) -> Optional[int]:
        """Stops the server: SIGTERM, then SIGKILL after ``grace`` seconds; waits for it. Idempotent.
        Returns the exit code."""
        proc = self.proc
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                self._kill()
                proc.wait()
            except (OSError, ValueError):
                pass
        self._kill_group()
        _live.discard(self)
        self._close_files()
        return proc.returncode

    def _kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass

    def _kill_group(self) -> None:
        # The server runs in its own session: anything it spawned is in its process group.
        if os.name == "posix":
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass

    def _close_files(self) -> None:
        if self._ipc_folder is not None:
            shutil.rmtree(self._ipc_folder, ignore_errors=True)
            self._ipc_folder = None
        if self._token_file is not None:
            try:
                os.unlink(self._token_file)
            except OSError:
                pass
            self._token_file = None
        for f in (self._stdout, self._stderr):
            try:
                f.close()
            except Exception:
                pass

    def __enter__(self) -> "LocalServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __del__(self) -> None:
        try:
            if self.proc.poll() is None:
                self.stop(grace=1.0)
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"LocalServer(address={self.address!r}, pid={self.proc.pid}, running={self.running})"


@atexit.register
def _stop_all() -> None:
    for s in list(_live):
        try:
            s.stop(grace=1.0)
        except Exception:
            pass
