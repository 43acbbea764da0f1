"""A run page's event stream over real HTTP (httpx): signed by the session cookie, resumable exactly like the API's
(`Last-Event-ID` wins over `?after=`), and a refusal is one plain sentence with nothing journaled."""

from __future__ import annotations

import httpx

from tests.service.test_web_signin import browser, heads, sign_in
from tests.service.webhome import WAITING, WebHome


def _take(client: httpx.Client, path: str, count: int, headers: dict[str, str] | None = None) -> list[int]:
    """The seqs of the first `count` events of the stream at `path`; then the connection is dropped."""
    seqs: list[int] = []
    with client.stream("GET", path, headers=headers or {}) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("id: "):
                seqs.append(int(line[4:]))
                if len(seqs) == count:
                    break
    return seqs


def test_a_signed_in_person_streams_a_run_and_resumes_exactly(web: WebHome) -> None:
    last = web.store.require(WAITING).seq
    with browser(web) as client:
        sign_in(client, "vic")  # a viewer: reading runs is all the stream needs
        assert _take(client, f"/runs/{WAITING}/stream", last) == list(range(1, last + 1))
        assert _take(client, f"/runs/{WAITING}/stream?after=2", last - 2) == list(range(3, last + 1))
        header_wins = _take(client, f"/runs/{WAITING}/stream?after=0", 1, {"Last-Event-ID": str(last - 1)})
        assert header_wins == [last]


def test_refused_streams_say_why_in_one_sentence_and_change_nothing(web: WebHome) -> None:
    before = heads(web)
    with browser(web) as client:
        answer = client.get(f"/runs/{WAITING}/stream")
        assert answer.status_code == 401 and "sign in again" in answer.text
        sign_in(client, "vic")
        answer = client.get("/runs/run-nothing-here/stream")
        assert answer.status_code == 404 and "there is no run 'run-nothing-here'" in answer.text
        answer = client.get("/runs/..%2Fjournal/stream")
        assert answer.status_code == 404
        answer = client.get(f"/runs/{WAITING}/stream", headers={"Last-Event-ID": "seven"})
        assert answer.status_code == 422 and "is not an event seq" in answer.text
        answer = client.get(f"/runs/{WAITING}/stream?after=-1")
        assert answer.status_code == 422
    assert heads(web) == before
