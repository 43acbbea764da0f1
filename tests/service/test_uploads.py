"""Files for Core over real HTTP (httpx against uvicorn on loopback): an upload answers the data question Core asked
(the turn goes on to a report that counts the file's rows, as `alicorn ask --attach` would have), and every refused
upload (no token, a viewer, too large, nothing pending, no file) stores nothing and journals nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from alicorn.app import artifact_root
from alicorn.context.artifacts import ArtifactStore
from tests.core.test_user_data import ALARMS, alarm_log
from tests.service.acting import Acting, ask, serving, settled
from tests.service.test_web_signin import browser, heads, hidden, sign_in
from tests.service.webhome import WebHome

NO_DATA = "nodata"  # a project that declares no data: Core asks for the alarm log


@pytest.fixture
def acting(tmp_path: Path) -> Iterator[Acting]:
    with serving(tmp_path / "home") as served:
        yield served


def _asked(acting: Acting) -> str:
    with acting_client(acting, "rita") as client:
        conversation = ask(client, ALARMS, project=NO_DATA)
        body = settled(client, conversation, waiting="answer")
    assert "POST /api/v1/conversations/" in body["question"] and "--attach" not in body["question"]  # api wording
    return conversation


def acting_client(acting: Acting, who: str) -> httpx.Client:
    return httpx.Client(base_url=acting.url, headers={"Authorization": f"Bearer {acting.tokens[who]}"}, timeout=20)


def _stored(acting: Acting) -> list[Path]:
    root = artifact_root(acting.home, NO_DATA)
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_an_upload_answers_the_data_question_and_the_report_counts_its_rows(acting: Acting, tmp_path: Path) -> None:
    conversation = _asked(acting)
    log = alarm_log(tmp_path / "cams.csv", ["2026-11-28", "2026-11-29", "2026-11-30"])
    with acting_client(acting, "rita") as client:
        files = {"file": ("folder/../cams.csv", log.read_bytes(), "text/csv")}
        sent = client.post(f"/api/v1/conversations/{conversation}/attachments", files=files, data={"text": "here"})
        assert sent.status_code == 202, sent.text
        (view,) = sent.json()["attachments"]
        assert view["name"] == "cams.csv" and view["bytes"] == log.stat().st_size  # never a folder of the sender's
        body = settled(client, conversation, phase="reported")
    assert body["report"]["outcome"] == "complete", body["report"]
    assert "of 6 alarms" in body["report"]["headline"]  # yesterday's six rows of the uploaded file, not the samples
    answered = [e for e in acting.store.read(conversation) if e.kind == "clarification.answered"]
    assert answered[-1].data["attachments"] == [view["sha256"]] and answered[-1].data["by"] == "human:rita"
    store = ArtifactStore(artifact_root(acting.home, NO_DATA))  # the project's store, where --attach puts files
    assert store.get(view["sha256"]) == log.read_bytes()


def test_refused_uploads_store_and_journal_nothing(acting: Acting, tmp_path: Path) -> None:
    conversation = _asked(acting)
    route = f"/api/v1/conversations/{conversation}/attachments"
    data = alarm_log(tmp_path / "cams.csv", ["2026-11-29"]).read_bytes()
    before, stored = {n: h.seq for n, h in acting.store.heads().items()}, _stored(acting)
    with httpx.Client(base_url=acting.url, timeout=20) as anonymous:
        assert anonymous.post(route, files={"file": ("a.csv", data)}).status_code == 401
    with acting_client(acting, "vic") as viewer:
        assert viewer.post(route, files={"file": ("a.csv", data)}).json()["type"].endswith("role-not-allowed")
    with acting_client(acting, "rita") as client:
        big = client.post(route, files={"file": ("big.csv", b"x" * (21 * 1024 * 1024))})
        assert big.status_code == 413 and big.json()["type"].endswith("body-too-large"), big.text
        assert "nothing was stored" in big.json()["detail"]
        empty = client.post(route, files={"file": ("empty.csv", b"")})
        assert empty.status_code == 422 and empty.json()["type"].endswith("empty-file")
        none = client.post(route, data={"text": "no file"})
        assert none.status_code == 422  # the file field is required
        unknown = client.post("/api/v1/conversations/conv-nope/attachments", files={"file": ("a.csv", data)})
        assert unknown.status_code == 404
        assert {n: h.seq for n, h in acting.store.heads().items()} == before and _stored(acting) == stored
        assert client.post(f"{route[: -len('/attachments')]}/close").status_code == 202
        assert settled(client, conversation)["waiting_for"] is None
        before, stored = {n: h.seq for n, h in acting.store.heads().items()}, _stored(acting)
        late = client.post(route, files={"file": ("a.csv", data)})
        assert late.status_code == 409 and late.json()["type"].endswith("not-waiting-for-files"), late.text
    assert {n: h.seq for n, h in acting.store.heads().items()} == before and _stored(acting) == stored


def test_the_upload_route_is_in_the_openapi_schema(acting: Acting) -> None:
    schema = httpx.get(f"{acting.url}/openapi.json").json()
    route = schema["paths"]["/api/v1/conversations/{conversation}/attachments"]["post"]
    assert "multipart/form-data" in route["requestBody"]["content"]


def test_the_page_upload_needs_its_csrf_token_and_a_too_large_one_is_one_sentence(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "ada")
        before = heads(web)
        files = {"file": ("a.csv", b"id,ts\n1,2026-11-29T00:00:00\n", "text/csv")}
        forged = client.post("/chat/conv-20261130-000000000000/attach", files=files, data={"csrf": "forged"})
        assert forged.status_code == 403 and "security token (CSRF)" in forged.text
        big = client.post("/chat/conv-20261130-000000000000/attach", files={"file": ("b.csv", b"x" * (21 << 20))})
        assert big.status_code == 413 and big.headers["content-type"].startswith("text/plain")
        assert big.text.startswith("the upload is larger than") and "nothing was stored" in big.text
        assert heads(web) == before


def test_a_new_request_from_the_page_carries_its_files(web: WebHome, tmp_path: Path) -> None:
    log = alarm_log(tmp_path / "cams.csv", ["2026-11-29"]).read_bytes()
    with browser(web) as client:
        sign_in(client, "ada")
        csrf = hidden(client.get("/chat").text, "csrf")
        form = {"text": ALARMS, "project": "default", "csrf": csrf}
        sent = client.post("/chat", data=form, files={"file": ("cams.csv", log, "text/csv")})
        assert sent.status_code == 303, sent.text
        conversation = sent.headers["location"].rsplit("/", 1)[-1]
        plain = client.post("/chat", data=form)  # a request with no file is as before: urlencoded, no attachments
        assert plain.status_code == 303
    first = web.store.read(conversation)[0]
    assert first.kind == "intent.received" and first.data["envelope"]["attachments"] == [
        hashlib.sha256(log).hexdigest()
    ]
