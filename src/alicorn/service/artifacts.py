"""A run's files: what a run wrote into its workspace, listed and downloaded, never anything beside it.

    GET /api/v1/runs/{run}/files            every file under the run's workspace: path, bytes, sha256 (a viewer)
    GET /api/v1/runs/{run}/files/{path}     one of them, as a download
    GET /runs/{run}/files/{path}            the same for a signed-in browser (the run page links here)

The workspace is the one `run.created` names. A path is taken apart and checked before anything is opened: no
absolute path, no `..`, no backslash or NUL, and the file it resolves to (symbolic links followed) must lie inside
the workspace and be a regular file; anything else is a 404 that names no file outside. A run's files are data a
model may have written (HTML with a script, say), so every download is `application/octet-stream` with
`Content-Disposition: attachment`, `X-Content-Type-Options: nosniff` and a sandboxing CSP: the browser saves it,
never renders it on this site.

Digests are remembered per file by its size, mtime, ctime and inode (`Digests`), so listing an unchanged workspace
again reads none of its files.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import FileResponse, PlainTextResponse, Response

from alicorn.service.auth import needs
from alicorn.service.problems import Problem
from alicorn.service.sessions import COOKIE

#: The most files a listing names (a run that wrote more is listed up to here, and says so).
MAX_LISTED = 1000
_DOWNLOAD_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "Cache-Control": "no-store",
}


def workspace_of(service: Any, run_id: str) -> Path:
    """The run's workspace as `run.created` names it; Problem(404) for an unknown run."""
    created = service.run_events(run_id)[0].data
    return Path(str(created.get("workspace", ""))).resolve()


def confined(workspace: Path, relative: str) -> Path:
    """The regular file `relative` names inside `workspace`; Problem(404) for anything else (see the module
    docstring), saying what was wrong with the path, never what lies outside."""
    parts = PurePosixPath(relative).parts
    if (
        not relative
        or "\\" in relative
        or "\x00" in relative
        or relative.startswith("/")
        or any(part in ("..", ".") for part in parts)
    ):
        why = f"{relative!r} is not a path inside the run's workspace; list the files first"
        raise Problem(404, "unknown-file", why)
    target = (workspace / Path(*parts)).resolve()
    if not target.is_relative_to(workspace) or not target.is_file():
        raise Problem(404, "unknown-file", f"the run's workspace holds no file {relative!r}; list the files first")
    return target


class Digests:
    """The sha256 of workspace files, remembered by what `stat` says of them, so a page view does not read them again.

    A run page lists its workspace on every view (and htmx refreshes a live one every 2 s); hashing a 200 MB
    workspace each time would re-read 200 MB per view. So a file's digest is kept under its resolved path together
    with its size, `mtime_ns`, `ctime_ns` and inode: while all four are unchanged the file is not opened again. A
    write changes the ctime (which no program can set back), a replacement changes the inode, so an edited file is
    hashed again on the next listing. At most `limit` files are remembered (the least recently listed go first);
    the cache lives with the service and is forgotten when it stops (it is only a cache: nothing is journaled).
    """

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self._guard = threading.Lock()
        self._known: OrderedDict[str, tuple[tuple[int, int, int, int], str]] = OrderedDict()

    def sha256(self, path: Path, stat: os.stat_result) -> str:
        """The digest of `path`, whose `stat` the caller just took; read only when the file changed or is new."""
        key = str(path)
        mark = (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)
        with self._guard:
            known = self._known.get(key)
            if known is not None and known[0] == mark:
                self._known.move_to_end(key)
                return known[1]
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        found = digest.hexdigest()
        with self._guard:
            self._known[key] = (mark, found)
            self._known.move_to_end(key)
            while len(self._known) > self.limit:
                self._known.popitem(last=False)
        return found


def listing(workspace: Path, digests: Digests | None = None) -> dict[str, Any]:
    """The workspace's regular files (links left out), sorted, each with its size and sha256 (from `digests`, which
    reads only files that changed since it last saw them; without one every file is read)."""
    digests = digests if digests is not None else Digests()
    files: list[dict[str, Any]] = []
    truncated = False
    if workspace.is_dir():
        for path in sorted(workspace.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            if len(files) >= MAX_LISTED:
                truncated = True
                break
            stat = path.stat()
            relative = path.relative_to(workspace).as_posix()
            files.append({"path": relative, "bytes": stat.st_size, "sha256": digests.sha256(path, stat)})
    return {"files": files, "truncated": truncated}


def download(target: Path) -> Response:
    """`target` as an attachment that a browser saves and never renders (see the module docstring)."""
    name = quote(target.name)
    headers = {**_DOWNLOAD_HEADERS, "Content-Disposition": f"attachment; filename*=UTF-8''{name}"}
    return FileResponse(target, media_type="application/octet-stream", headers=headers)


def router(service: Any, signed_in: Any) -> APIRouter:
    """The API's file routes over `service` (alicorn.service.app.Service); reading needs a viewer."""
    routes = APIRouter(prefix="/api/v1/runs", tags=["runs"])
    viewer = Depends(needs(signed_in, "viewer", "read", "read a run's files"))

    @routes.get("/{run_id}/files", dependencies=[viewer])
    def run_files(run_id: str) -> dict[str, Any]:
        """The files the run wrote into its workspace, with their sizes and digests."""
        return {"run": run_id, **listing(workspace_of(service, run_id), service.digests)}

    @routes.get("/{run_id}/files/{relative:path}", dependencies=[viewer], response_class=FileResponse)
    def run_file(run_id: str, relative: str) -> Response:
        """One file of the run's workspace, as a download."""
        return download(confined(workspace_of(service, run_id), relative))

    return routes


def install(api: FastAPI, service: Any, signed_in: Any) -> None:
    """Add the API's file routes, and the browser's download route (after the pages, whose sessions it reads)."""
    api.include_router(router(service, signed_in))
    pages = api.state.pages

    @api.get("/runs/{run_id}/files/{relative:path}", include_in_schema=False)
    def page_file(request: Request, run_id: str, relative: str) -> Response:
        if pages.sessions.read(request.cookies.get(COOKIE)) is None:
            return PlainTextResponse("sign in to download a run's files", status_code=401)
        try:
            return download(confined(workspace_of(service, run_id), relative))
        except Problem as exc:
            return PlainTextResponse(exc.detail, status_code=exc.status)
