"""A run's files over HTTP: listed with their digests, downloaded as attachments a browser never renders, and
nothing outside the run's workspace reachable by any spelling of a path."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.service.conftest import Served, at
from tests.service.test_runs import clone_run
from tests.service.test_web_signin import browser, sign_in
from tests.service.webhome import WebHome


@pytest.fixture
def run_with_files(served: Served, tmp_path: Path) -> tuple[str, Path]:
    workspace = tmp_path / "workspaces" / "run-files"
    (workspace / "out").mkdir(parents=True)
    (workspace / "report.md").write_text("# the report\n", encoding="utf-8")
    (workspace / "out" / "page.html").write_text("<script>alert(1)</script>", encoding="utf-8")
    secret = tmp_path / "outside.txt"
    secret.write_text("not the run's", encoding="utf-8")
    os.symlink(secret, workspace / "link.txt")  # a link out of the workspace
    clone_run(served.store, "corpus-stop", "run-files", at(27), workspace=str(workspace))
    return "run-files", workspace


def test_a_runs_files_are_listed_with_their_digests(served: Served, run_with_files: tuple[str, Path]) -> None:
    run, _ = run_with_files
    with served.client("vic") as client:
        listed = client.get(f"/api/v1/runs/{run}/files").json()
    assert [f["path"] for f in listed["files"]] == ["out/page.html", "report.md"]  # the link is not listed
    report = next(f for f in listed["files"] if f["path"] == "report.md")
    assert report["sha256"] == hashlib.sha256(b"# the report\n").hexdigest() and report["bytes"] == 13


def test_a_download_is_an_attachment_that_is_never_rendered(served: Served, run_with_files: tuple[str, Path]) -> None:
    run, _ = run_with_files
    with served.client("vic") as client:
        answer = client.get(f"/api/v1/runs/{run}/files/out/page.html")
    assert answer.status_code == 200 and answer.content == b"<script>alert(1)</script>"
    assert answer.headers["content-type"] == "application/octet-stream"
    assert answer.headers["content-disposition"].startswith("attachment;")
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in answer.headers["content-security-policy"]


@pytest.mark.parametrize(
    "path",
    [
        "../outside.txt",
        "out/../../outside.txt",
        "%2e%2e/outside.txt",
        "..%2Foutside.txt",
        "link.txt",
        "out",
        "missing.txt",
        "out\\..\\..\\outside.txt",
        "%2Fetc%2Fpasswd",
    ],
)
def test_no_spelling_of_a_path_reaches_outside_the_workspace(
    served: Served, run_with_files: tuple[str, Path], path: str
) -> None:
    run, _ = run_with_files
    before = served.heads()
    with served.client("vic") as client:
        answer = client.get(f"/api/v1/runs/{run}/files/{path}")
    assert answer.status_code == 404, (path, answer.status_code)
    assert b"not the run's" not in answer.content and b"root:" not in answer.content
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert served.heads() == before


def test_files_need_a_signed_in_viewer_and_a_known_run(served: Served, run_with_files: tuple[str, Path]) -> None:
    run, _ = run_with_files
    with served.client(None) as client:
        assert client.get(f"/api/v1/runs/{run}/files").status_code == 401
        assert client.get(f"/runs/{run}/files/report.md").status_code == 401  # the browser route: a session
    with served.client("vic") as client:
        assert client.get("/api/v1/runs/run-nope/files").status_code == 404
        assert client.get("/api/v1/runs/control:tokens/files").status_code == 404


def test_the_run_page_links_its_files_and_a_signed_in_browser_downloads_them(web: WebHome, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "variants.csv").write_text("variant,cost\n1,100\n", encoding="utf-8")
    clone_run(web.store, "corpus-stop", "run-page-files", at(27), workspace=str(workspace))
    with browser(web) as client:
        sign_in(client, "vic")
        page = client.get("/runs/run-page-files")
        assert page.status_code == 200 and 'href="/runs/run-page-files/files/variants.csv" download' in page.text
        got = client.get("/runs/run-page-files/files/variants.csv")
        assert got.status_code == 200 and got.content == b"variant,cost\n1,100\n"
        assert got.headers["content-disposition"].startswith("attachment;")
        assert client.get("/runs/run-page-files/files/../../etc/passwd").status_code == 404


def test_a_second_listing_reads_no_unchanged_file(
    served: Served, run_with_files: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    run, workspace = run_with_files
    with served.client("vic") as client:
        first = client.get(f"/api/v1/runs/{run}/files").json()
        opened: list[Path] = []
        real_open = Path.open

        def counting_open(self: Path, *args: object, **kwargs: object) -> object:
            if self.is_relative_to(workspace.resolve()):
                opened.append(self)
            return real_open(self, *args, **kwargs)  # type: ignore[call-overload]

        monkeypatch.setattr(Path, "open", counting_open)
        again = client.get(f"/api/v1/runs/{run}/files").json()
        assert again == first and opened == []  # nothing re-read: the digests came from the cache
        (workspace / "report.md").write_text("# the REPORT\n", encoding="utf-8")  # same size, new bytes
        opened.clear()  # writing opened it too
        edited = client.get(f"/api/v1/runs/{run}/files").json()
    assert [p.name for p in opened] == ["report.md"]  # only the changed file was read again
    report = next(f for f in edited["files"] if f["path"] == "report.md")
    assert report["sha256"] == hashlib.sha256(b"# the REPORT\n").hexdigest()
