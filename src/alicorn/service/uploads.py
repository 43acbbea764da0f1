"""Files from the browser and from programs: the data Core asks for, uploaded instead of named by a path.

    POST /api/v1/conversations/{id}/attachments   multipart: `file` (1-5 files), `text` (an optional answer)
    POST /chat/{id}/attach                        the same from the conversation page's upload field (CSRF)
    POST /chat                                    a new request may carry files too (the same field)

A file is stored exactly as `alicorn ask --attach FILE` stores it: in the project's content-addressed artifact
store (alicorn.context.artifacts: sniffed, classified, flagged), and its sha256 goes to Core. Sent to a conversation
that waits for an answer, the files answer the question (`Norbi.reply(..., attachments=…)`): Core's data step
reads them as the request's own attachments, so the turn goes on as if they had been attached to the request. Sent
with a new request, they are the envelope's attachments.

Bounds: the request is at most `UPLOAD_LIMIT` bytes (`create_app(upload_limit=…)`; the body-limit middleware
refuses a larger one with 413 before any byte reaches the route), at most `MAX_FILES` files. The checks come first
(who may, CSRF on the page, which state, a worker to take it): a refused upload stores nothing and journals
nothing. A conversation that waits for no answer (working, waiting for an approval, ended) is 409: after a report,
start a new request with the files.
"""

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi.responses import JSONResponse

from alicorn.context.artifacts import ArtifactStore
from alicorn.context.errors import ArtifactError
from alicorn.service.auth import Caller, needs
from alicorn.service.problems import Problem
from alicorn.service.shared import API

#: The most bytes one upload request may carry (the files and the form around them).
UPLOAD_LIMIT = 20 * 1024 * 1024
#: The most files one upload carries.
MAX_FILES = 5
#: The request paths that take files (the body-limit middleware lets these carry `UPLOAD_LIMIT` bytes).
UPLOAD_PATHS = re.compile(r"/api/v1/conversations/[^/]+/attachments|/chat/[^/]+/attach|/chat")
_TEXT = 2000


def safe_name(raw: str | None) -> str:
    """The file's own name, without any folder the browser or program sent (never a path), at most 200 characters."""
    name = PureWindowsPath(PurePosixPath(raw or "").name).name.strip().replace("\x00", "")
    return name[:200] or "upload"


def chosen(files: list[UploadFile] | None) -> list[UploadFile]:
    """The files actually chosen: a browser sends an empty part for a file field left empty."""
    return [f for f in files or [] if f.filename]


def store_files(actions: Any, project: str, files: list[UploadFile]) -> list[dict[str, Any]]:
    """Store `files` in `project`'s artifact store (as `alicorn ask --attach` does); their views (name, sha256,
    media type, classification, flags). A file the store refuses is 422 and nothing of this upload is kept."""
    if len(files) > MAX_FILES:
        raise Problem(422, "too-many-files", f"{len(files)} files in one upload; send at most {MAX_FILES}")
    store = ArtifactStore(actions.service.app.artifacts(project))
    read = [(safe_name(f.filename), f.file.read(store.max_bytes + 1)) for f in files]
    for name, data in read:
        if len(data) > store.max_bytes:
            raise Problem(
                413, "file-too-large", f"{name} is larger than {store.max_bytes:,} bytes, the most an attachment "
                "may be; send a smaller file; nothing was stored",
            )  # fmt: skip
        if not data:
            raise Problem(422, "empty-file", f"{name} is empty; choose the file with the data; nothing was stored")
    views = []
    for name, data in read:
        try:
            view = store.put_bytes(data, name=name, source="attachment")
        except ArtifactError as exc:
            raise Problem(422, "attachment-refused", f"{name}: {exc}; nothing was journaled") from None
        views.append(
            {"name": view.name, "sha256": view.sha256, "bytes": len(data), "media_type": view.media_type,
             "classification": view.classification, "flags": list(view.flags)}
        )  # fmt: skip
    return views


def waiting_for_files(state: Any) -> None:
    """Problem(409) unless the conversation waits for an answer (the only time Core takes files in it)."""
    if state.waiting_for_answer and not state.finished:
        return
    after = "; start a new request with the files" if state.finished else ""
    raise Problem(
        409, "not-waiting-for-files", f"conversation {state.id} is {state.phase}, so it takes no files now{after}; "
        "nothing was stored or journaled",
    )  # fmt: skip


def attach(actions: Any, state: Any, files: list[UploadFile], text: str, person: str) -> list[dict[str, Any]]:
    """Check, store and hand to a worker: the files (and `text`) answer `state`'s pending question."""
    waiting_for_files(state)
    if not files:
        raise Problem(422, "no-file", "the upload holds no file; choose the file with the data and send it again")
    actions.workers("take files")  # 503 before anything is stored when no worker would take them
    project = str(state.envelope.get("project") or "default")
    views = store_files(actions, project, files)
    shas = [v["sha256"] for v in views]
    conversation, words = state.id, " ".join(text.split())[:_TEXT]

    def job() -> object:
        return actions.core().reply(conversation, words, by=person, attachments=shas)

    actions.submit(conversation, f"files for {conversation}", job)
    return views


def router(actions: Any, signed_in: Any) -> APIRouter:
    """`POST /api/v1/conversations/{id}/attachments` over `actions` (alicorn.service.actions.Actions)."""
    routes = APIRouter(prefix=f"{API}/conversations", tags=["conversations"])
    asker = needs(signed_in, "requester", "write", "send Core files")

    @routes.post(
        "/{conversation}/attachments",
        status_code=202,
        summary="Send Core the files it asked for (multipart `file`, 1-5 files; optional `text`)",
        description=(
            f"The files answer the conversation's pending question, as `alicorn ask --attach FILE` would have given "
            f"them. At most {UPLOAD_LIMIT:,} bytes in all (413 beyond, nothing stored); 409 when the conversation "
            "waits for no answer."
        ),
    )
    def upload(
        conversation: str,
        caller: Annotated[Caller, Depends(asker)],
        file: Annotated[list[UploadFile], File(description="The file(s) Core asked for.")],
        text: Annotated[str, Form(max_length=_TEXT)] = "",
    ) -> JSONResponse:
        state = actions.conversation(conversation)
        views = attach(actions, state, chosen(file), text, caller.person)
        location = f"{API}/conversations/{conversation}"
        body = {
            "conversation": conversation,
            "attachments": views,
            "location": location,
            "events": f"{location}/events",
        }
        return JSONResponse(body, status_code=202, headers={"Location": location})

    return routes
