"""Network grants: a sandboxed command reaches the hosts its approved terms grant, and nothing else.

The sandbox has no network of its own (`--unshare-net`: only its private loopback). When a node is granted hosts,
Alicorn starts a filtering HTTP proxy on the host side listening on a Unix socket in a private folder, binds that
folder into the sandbox, and starts the command through a small bridge (`BRIDGE`, run by the sandbox's Python) that
listens on the sandbox's loopback and forwards each connection to the socket. The command sees `HTTP(S)_PROXY`
pointing at that port. The proxy reads one request head (`CONNECT host:port` for HTTPS, or an absolute-form
`GET http://host/...`), opens the connection only if the host is granted, and refuses any other with a 403 whose
reason names the host and the grant; every refusal is kept so the transcript can say it.

The grant is by host name (case-insensitive), on any port: what the plan names is what Anvil judged.
"""

from __future__ import annotations

import contextlib
import select
import socket
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from alicorn.errors import OperationError

#: Where the bridge listens inside the sandbox (its loopback is private, so any free port works).
BRIDGE_PORT = 3128
SOCKET_NAME = "proxy.sock"
_HEAD_LIMIT = 16 * 1024

#: Run by the sandbox's Python: `python -I -c BRIDGE SOCKET PORT -- ARGV...`. Listens on 127.0.0.1:PORT, forwards
#: every connection to the Unix socket, runs ARGV and exits with its status.
BRIDGE = r"""
import os, select, socket, subprocess, sys, threading
path, port, argv = sys.argv[1], int(sys.argv[2]), sys.argv[4:]
server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port)); server.listen(64)
def pipe(a, b):
    try:
        while True:
            ready, _, _ = select.select([a, b], [], [])
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        pass
    finally:
        a.close(); b.close()
def serve():
    while True:
        client, _ = server.accept()
        upstream = socket.socket(socket.AF_UNIX); upstream.connect(path)
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
threading.Thread(target=serve, daemon=True).start()
sys.stdout.flush()
code = subprocess.call(argv)
sys.stdout.flush()
os._exit(code if code >= 0 else 128 - code)
"""


def proxy_env() -> dict[str, str]:
    """What the sandboxed command is told about the proxy (both spellings: tools read either)."""
    url = f"http://127.0.0.1:{BRIDGE_PORT}"
    return {"HTTP_PROXY": url, "HTTPS_PROXY": url, "http_proxy": url, "https_proxy": url, "NO_PROXY": ""}


def bridged(argv: list[str], python: str, socket_path: Path) -> list[str]:
    """`argv` started through the bridge, by the sandbox's Python."""
    return [python, "-I", "-c", BRIDGE, str(socket_path), str(BRIDGE_PORT), "--", *argv]


@dataclass
class FilteringProxy:
    """A CONNECT / absolute-form HTTP proxy on a Unix socket that lets through only the granted hosts."""

    hosts: frozenset[str]
    folder: Path
    refused: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)
    _server: socket.socket | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def socket_path(self) -> Path:
        return self.folder / SOCKET_NAME

    def start(self) -> None:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(self.socket_path))
        server.listen(64)
        server.settimeout(0.2)
        self._server = server
        threading.Thread(target=self._accept, args=(server,), name="sandbox-proxy", daemon=True).start()

    def close(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.close()

    def _accept(self, server: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                client, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _note(self, kept: list[str], text: str) -> None:
        with self._lock:
            if text not in kept:
                kept.append(text)

    def _serve(self, client: socket.socket) -> None:
        client.settimeout(30)
        try:
            head = _read_head(client)
            method, host, port = _target(head)
            if host is None:
                client.sendall(b"HTTP/1.1 400 Alicorn sandbox proxy: not an HTTP proxy request\r\n\r\n")
                return
            if host.lower().rstrip(".") not in self.hosts:
                granted = ", ".join(sorted(self.hosts)) or "none"
                reason = f"host {host} is not granted to this operation (granted: {granted})"
                self._note(self.refused, f"{host}:{port}")
                body = f"Alicorn sandbox: {reason}\n".encode()
                client.sendall(
                    f"HTTP/1.1 403 {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
                    "Connection: close\r\n\r\n".encode()
                    + body
                )
                return
            with socket.create_connection((host, port), timeout=30) as upstream:
                self._note(self.allowed, f"{host}:{port}")
                if method == "CONNECT":
                    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                else:
                    upstream.sendall(head)
                _splice(client, upstream)
        except OSError as exc:
            with contextlib.suppress(OSError):
                client.sendall(f"HTTP/1.1 502 Alicorn sandbox proxy: {exc.strerror or exc}\r\n\r\n".encode())
        finally:
            client.close()


def _read_head(client: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < _HEAD_LIMIT:
        chunk = client.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _target(head: bytes) -> tuple[str, str | None, int]:
    """(method, host, port) of a proxy request head; host None when it is not one."""
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    if len(parts) != 3:
        return "", None, 0
    method, target = parts[0].upper(), parts[1]
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        return method, host.strip("[]") or None, int(port) if port.isdigit() else 443
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        return method, None, 0
    return method, url.hostname, url.port or 80


def _splice(a: socket.socket, b: socket.socket) -> None:
    a.settimeout(None)
    b.settimeout(None)
    while True:
        ready, _, _ = select.select([a, b], [], [], 300)
        if not ready:
            return
        for s in ready:
            data = s.recv(65536)
            if not data:
                return
            (b if s is a else a).sendall(data)


@contextlib.contextmanager
def granted(hosts: frozenset[str]) -> Iterator[FilteringProxy]:
    """A running proxy for `hosts` in a private temporary folder, closed (and the folder removed) on exit."""
    with tempfile.TemporaryDirectory(prefix="alicorn-proxy-") as folder:
        proxy = FilteringProxy(frozenset(h.lower() for h in hosts), Path(folder))
        try:
            proxy.start()
        except OSError as exc:
            raise OperationError(
                f"cannot start the sandbox's network proxy in {folder}: {exc.strerror or exc}; set TMPDIR to a short, "
                "writable folder. Nothing was run.",
                retryable=False,
            ) from None
        try:
            yield proxy
        finally:
            proxy.close()
