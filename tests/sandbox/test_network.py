"""Network grants: through the filtering proxy a sandboxed child reaches the granted hosts and nothing else."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

from alicorn.sandbox import Spec, run
from alicorn.sandbox.network import FilteringProxy, _target


def fetch(home: Path, hosts: frozenset[str], url: str, port: int) -> tuple[str, tuple[str, ...]]:
    work = home / "workspaces" / "run-1" / "work"
    code = (
        "import socket, urllib.request\n"
        f"try:\n    print('BODY', urllib.request.urlopen({url!r}, timeout=5).read().decode())\n"
        "except Exception as exc:\n    print('ERROR', exc)\n"
        f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    print('DIRECT')\n"
        "except OSError:\n    print('NO DIRECT')\n"
    )
    spec = Spec(work, work, {"PATH": "/usr/bin:/bin"}, protected=(home,), hosts=hosts)
    done = run(spec, [sys.executable, "-I", "-c", code], 30, threading.Event())
    assert done.returncode == 0, done.output
    return done.output.decode(), done.refused


def test_a_granted_host_is_reached_through_the_proxy_only(home: Path, server: int) -> None:
    out, refused = fetch(home, frozenset({"127.0.0.1"}), f"http://127.0.0.1:{server}/x", server)
    assert "BODY hello from the host" in out and refused == ()
    assert "NO DIRECT" in out  # the proxy is the only way out, even to the granted host


def test_a_host_not_granted_is_refused_with_a_clear_message(home: Path, server: int) -> None:
    out, refused = fetch(home, frozenset({"127.0.0.1"}), f"http://localhost:{server}/x", server)
    assert "BODY" not in out
    assert "ERROR HTTP Error 403: host localhost is not granted to this operation (granted: 127.0.0.1)" in out
    assert refused == (f"localhost:{server}",)
    assert "[alicorn sandbox] refused connections to localhost" in out


def test_without_a_grant_there_is_no_proxy_and_no_network(home: Path, server: int) -> None:
    out, refused = fetch(home, frozenset(), f"http://127.0.0.1:{server}/x", server)
    assert "BODY" not in out and "ERROR" in out and refused == ()


def test_the_proxy_refuses_https_tunnels_to_hosts_not_granted(tmp_path: Path) -> None:
    proxy = FilteringProxy(frozenset({"allowed.example"}), tmp_path)
    proxy.start()
    try:
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(proxy.socket_path))
            client.sendall(b"CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n")
            answer = client.recv(4096).decode()
    finally:
        proxy.close()
    assert answer.startswith("HTTP/1.1 403 host evil.example is not granted to this operation")
    assert proxy.refused == ["evil.example:443"] and proxy.allowed == []


def test_request_heads_are_read_as_proxy_targets() -> None:
    assert _target(b"CONNECT api.example.org:8443 HTTP/1.1\r\n\r\n") == ("CONNECT", "api.example.org", 8443)
    assert _target(b"GET http://a.example/x?y=1 HTTP/1.1\r\n\r\n") == ("GET", "a.example", 80)
    assert _target(b"GET /relative HTTP/1.1\r\n\r\n")[1] is None
    assert _target(b"garbage")[1] is None
