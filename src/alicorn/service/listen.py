"""The listening socket of `alicorn serve`, bound before anything in the home is opened.

`alicorn serve` binds its address first and hands the bound socket to uvicorn (`Server.run(sockets=[...])`), so a
port in use or a host that cannot be bound refuses the command before the service opens the journal, creates its
files or resumes the home's interrupted runs: the refusal is one sentence and nothing was changed.

A --host that does not resolve or is not an address of this machine is bad input (AlicornError, exit 1); a port
in use, or one this user may not bind, is the environment (EnvironmentFailure, exit 5).
"""

from __future__ import annotations

import errno
import socket

from alicorn.errors import AlicornError, EnvironmentFailure

#: What uvicorn asks of the kernel by default (its `--backlog`).
BACKLOG = 2048


class ListenError(AlicornError):
    """The --host cannot be listened on as given (bad input); nothing was changed."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host`:`port` and listening; ListenError or EnvironmentFailure, naming the option and
    the fix, when it cannot be. An address with a colon is IPv6, anything else IPv4, as uvicorn itself decides."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        found = socket.getaddrinfo(host, port, family=family, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        cause = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ListenError(
            f"--host {host!r} is not an address this machine can resolve ({cause}); give an IP address such as "
            "127.0.0.1, or a host name that resolves; nothing was changed"
        ) from None
    family, kind, proto, _, address = found[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a port in TIME_WAIT is free
        sock.bind(address)
        sock.listen(BACKLOG)  # now the port is ours: no other process can take it before the service starts
    except OSError as exc:
        sock.close()
        raise _refusal(exc, host, port) from None
    sock.set_inheritable(True)
    return sock


def _refusal(exc: OSError, host: str, port: int) -> AlicornError:
    cause = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return EnvironmentFailure(
            f"port {port} on {host} is in use; choose another --port (or stop what listens there); nothing was changed"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return ListenError(
            f"--host {host} is not an address of this machine ({cause}); give one of its addresses, such as "
            "127.0.0.1; nothing was changed"
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return EnvironmentFailure(
            f"port {port} on {host} may not be used by this user ({cause}); choose a --port above 1023; nothing "
            "was changed"
        )
    return EnvironmentFailure(f"cannot listen on port {port} of {host} ({cause}); nothing was changed")
