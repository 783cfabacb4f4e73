"""Exceptions of the clustergym client.

Every error reply of the server becomes a :class:`ClusterGymError` carrying the server's ``code``,
``message`` and ``details``; the subclass is chosen by the code (see :data:`ERROR_CLASSES`). The
errors that name fields (``bad_request``, ``bad_config``) expose them as :attr:`ClusterGymError.issues`
(``[{"path": "$.K", "message": "..."}]``) and :attr:`ClusterGymError.paths`.

Each subclass also derives from the closest built-in exception (``ValueError`` for bad input,
``LookupError`` for unknown names, ``RuntimeError`` for state and server problems,
``TimeoutError`` for timeouts), so generic handlers keep working.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Type

import numpy as np

__all__ = [
    "ClusterGymError",
    "BadMessageError",
    "UnknownOpError",
    "BadRequestError",
    "UnknownEnvError",
    "UnknownEnvIdError",
    "ConfigError",
    "InvalidActionError",
    "BadStateError",
    "LimitExceededError",
    "ForbiddenError",
    "UnauthorizedError",
    "InternalServerError",
    "ProtocolError",
    "ServerError",
    "ServerStartError",
    "ServerDiedError",
    "ServerLostError",
    "ClusterGymTimeoutError",
    "ERROR_CLASSES",
    "error_from_reply",
]


class ClusterGymError(Exception):
    """An error of the clustergym bridge.

    Attributes:
        code: the server's error code (``bad_config``, ``invalid_action``, ...) or a client-side code
            (``protocol``, ``timeout``, ``server_start``, ``server_died``).
        message: the server's message, unchanged.
        details: the server's details (decoded; ndarrays as numpy arrays), or ``None``.
    """

    code: str = "error"

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"

    def __reduce__(self) -> Any:  # picklable (e.g. across multiprocessing workers)
        return (type(self), (self.code, self.message, self.details))

    @property
    def issues(self) -> List[Dict[str, str]]:
        """The field issues of the error (``[{"path": "$.K", "message": "..."}]``); empty if none."""
        d = self.details
        if isinstance(d, dict) and isinstance(d.get("issues"), list):
            return [i for i in d["issues"] if isinstance(i, dict)]
        return []

    @property
    def paths(self) -> List[str]:
        """The JSON paths of the fields the error names (``["$.K", "$.platform.nodes"]``)."""
        return [str(i.get("path")) for i in self.issues if i.get("path") is not None]


class BadMessageError(ClusterGymError, ValueError):
    """The server could not decode the message (``bad_message``)."""


class UnknownOpError(ClusterGymError, ValueError):
    """The op is not one the server knows (``unknown_op``)."""


class BadRequestError(ClusterGymError, ValueError):
    """A request field is missing or of the wrong type, e.g. a non-integer action (``bad_request``).

    :attr:`issues` names each bad field with its path (``$.action``).
    """


class UnknownEnvError(ClusterGymError, LookupError):
    """The env handle names no open environment: closed, reclaimed when idle, or never made
    (``unknown_env``)."""


class UnknownEnvIdError(ClusterGymError, LookupError):
    """The env id given to ``make`` is not registered (``unknown_env_id``); :attr:`valid_ids` lists
    the registered ones when the server says."""

    @property
    def valid_ids(self) -> List[str]:
        d = self.details
        if isinstance(d, dict):
            for k in ("ids", "env_ids", "valid"):
                if isinstance(d.get(k), list):
                    return [str(x) for x in d[k]]
        return []


class ConfigError(ClusterGymError, ValueError):
    """The environment config failed validation (``bad_config``).

    The server names every bad field: :attr:`issues` (path + message each) and :attr:`paths`.
    """


class InvalidActionError(ClusterGymError, ValueError):
    """The action is not allowed now (``invalid_action``). The environment state is unchanged:
    pick another action. :attr:`mask` is the action mask at the time (bool array) when the server
    sends it; for a batch, :attr:`index` is the position of the refused action."""

    @property
    def mask(self) -> Optional[np.ndarray]:
        d = self.details
        m = d.get("mask") if isinstance(d, dict) else None
        if isinstance(m, np.ndarray):
            return m.astype(bool)
        if isinstance(m, list):
            return np.asarray(m, dtype=bool)
        return None

    @property
    def action(self) -> Any:
        """The refused action, when the server says."""
        d = self.details
        return d.get("action") if isinstance(d, dict) else None

    @property
    def reason(self) -> Optional[str]:
        """Why the action was refused (``"outside the action space Discrete(5)"``), when the server says."""
        d = self.details
        r = d.get("reason") if isinstance(d, dict) else None
        return str(r) if r is not None else None

    @property
    def index(self) -> Optional[int]:
        d = self.details
        i = d.get("index") if isinstance(d, dict) else None
        return i if isinstance(i, int) else None


class BadStateError(ClusterGymError, RuntimeError):
    """The environment cannot do that now, e.g. ``step`` before ``reset`` or after the episode
    ended (``bad_state``)."""


class LimitExceededError(ClusterGymError, ValueError):
    """A limit of the server was reached (``limit_exceeded``); ``details`` has ``limit``, ``value``,
    ``max`` and ``flag``, the ``clustergym serve`` flag that raises it."""


class ForbiddenError(ClusterGymError, PermissionError):
    """The request names a file the server may not read (``forbidden``): outside its
    ``--data-root`` folders, or a device, FIFO or socket."""


class UnauthorizedError(ClusterGymError, PermissionError):
    """The server needs a token (``serve --token-file``) and the request had none or a wrong one
    (``unauthorized``): set ``CLUSTERGYM_TOKEN`` or pass ``token=``."""


class InternalServerError(ClusterGymError, RuntimeError):
    """A bug in the server (``internal``); the server keeps serving."""


class ProtocolError(ClusterGymError, RuntimeError):
    """The peer does not speak this client's protocol (version mismatch, malformed reply)."""


class ServerError(ClusterGymError, RuntimeError):
    """A problem with the local server process."""


class ServerStartError(ServerError):
    """The local server could not be started (command not found, exited, no endpoint printed)."""


class ServerDiedError(ServerError):
    """The local server process exited while a request was waiting for its reply."""


class ServerLostError(ServerError):
    """The connection to a server was lost while a request waited for its reply: the server closed it
    (it was killed, or stopped), or sent nothing for the heartbeat's timeout (its host died, the
    network broke, or it is stopped). The message names the server's address."""


class ClusterGymTimeoutError(ClusterGymError, TimeoutError):
    """No reply came within the timeout."""


#: Exception class by server error code.
ERROR_CLASSES: Dict[str, Type[ClusterGymError]] = {
    "bad_message": BadMessageError,
    "unknown_op": UnknownOpError,
    "bad_request": BadRequestError,
    "unknown_env": UnknownEnvError,
    "unknown_env_id": UnknownEnvIdError,
    "bad_config": ConfigError,
    "invalid_action": InvalidActionError,
    "bad_state": BadStateError,
    "limit_exceeded": LimitExceededError,
    "forbidden": ForbiddenError,
    "unauthorized": UnauthorizedError,
    "internal": InternalServerError,
}


def error_from_reply(error: Any) -> ClusterGymError:
    """The exception for the ``error`` field of an error reply (``{code, message, details}``)."""
    if not isinstance(error, dict):
        return ProtocolError("protocol", f"malformed error reply: {error!r}")
    code = str(error.get("code", "error"))
    message = str(error.get("message", ""))
    cls = ERROR_CLASSES.get(code, ClusterGymError)
    return cls(code, message, error.get("details"))
