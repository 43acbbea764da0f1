"""The memory and agents pages over real HTTP (httpx against uvicorn on loopback), and their drawings: search with
scores and provenance, a record's history and entity graph, forgetting with a confirm form (admins, CSRF), agents'
rights and reputation over time; refusals are pages with one sentence and change nothing."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import httpx

from alicorn.anvil.agents import PermissionRegistry
from alicorn.anvil.rights import RightsChange
from alicorn.memory.models import NewRecord, Provenance
from alicorn.memory.open import open_memory
from alicorn.service.drawings import GRAPH_H, GRAPH_W, draw_graph, draw_reputation, graph_places
from alicorn.service.pages import HERE
from alicorn.service.words import LANGUAGES
from alicorn.service.words_knowledge import knowledge_words
from tests.service.test_web_signin import browser, heads, hidden, sign_in
from tests.service.webhome import WebHome

NOWAK = "Our night shift supervisor is Piotr Nowak."
AT = datetime(2026, 11, 30, 7, 0, tzinfo=UTC)


def _remember(web: WebHome) -> str:
    """A fact with two entities in the home's memory, as a chat would have stored it."""
    source = Provenance(origin="human", ref="journal:conv-20261130-0123456789ab#1", note="said by human:abe in a chat")
    with open_memory(web.home / "memory.db", project="default", clock=lambda: AT, journal=web.store) as store:
        draft = NewRecord(text=NOWAK, key="said/night-shift-supervisor", entities=("Piotr Nowak", "Night Shift"),
                          provenance=source)  # fmt: skip
        return store.add(draft).record.id


@contextmanager
def _signed(web: WebHome, name: str) -> Iterator[httpx.Client]:
    with browser(web) as client:
        assert sign_in(client, name).status_code == 303
        yield client


def test_a_search_shows_scores_and_provenance_and_a_record_its_history_and_graph(web: WebHome) -> None:
    record = _remember(web)
    with _signed(web, "vic") as client:
        empty = client.get("/memory")
        assert empty.status_code == 200 and 'id="m-q"' in empty.text
        page = client.get("/memory", params={"q": "who supervises the night shift"})
        assert page.status_code == 200
        row = next(r for r in re.finditer(r'<tr class="hit">(.*?)</tr>', page.text, re.S) if record in r.group(1))
        assert NOWAK in html.unescape(row.group(1))
        assert "journal:conv-20261130-0123456789ab#1" in row.group(1) and ">human<" in row.group(1)
        assert re.search(r'<td class="num">0\.\d{4}</td>', row.group(1))  # the fused score
        assert re.search(r'<td class="num">0\.[89]\d\d</td>', row.group(1))  # the cosine similarity

        shown = client.get(f"/memory/records/{record}")
        text = shown.text
        assert shown.status_code == 200 and NOWAK in html.unescape(text)
        assert text.count('<g class="node') == 3  # the record and its two entities
        assert text.count('<g class="edge">') == 2 and "mentions" in text
        assert 'href="/chat/conv-20261130-0123456789ab"' in text  # the source is the chat it was said in
        assert ">added<" in text and ">related<" in text  # its history
        assert 'action="/memory/records/' not in text  # a viewer sees no forget form
        graph = client.get("/memory/graph", params={"node": "Piotr Nowak"})
        assert graph.status_code == 200 and graph.text.count('<g class="node') == 3


def test_an_admin_forgets_with_the_confirm_form_and_the_record_stays_in_its_history(web: WebHome) -> None:
    record = _remember(web)
    with _signed(web, "ada") as client:
        page = client.get(f"/memory/records/{record}")
        assert f'action="/memory/records/{record}/forget"' in page.text
        form = {"csrf": hidden(page.text, "csrf"), "project": "default", "reason": "Piotr moved to days"}
        done = client.post(f"/memory/records/{record}/forget", data=form)
        assert done.status_code == 303 and done.headers["location"] == f"/memory/records/{record}?project=default"
        after = client.get(done.headers["location"]).text
        assert "Piotr moved to days" in after and ">invalidated<" in after and "forget_reason" not in after
        assert 'id="f-reason"' not in after  # nothing left to forget
    assert [e.kind for e in web.store.read("memory:default")][-1] == "memory.invalidated"


def test_refused_forms_and_bad_input_are_pages_that_change_nothing(web: WebHome) -> None:
    record = _remember(web)
    before = heads(web)
    with _signed(web, "ada") as client:
        page = client.get(f"/memory/records/{record}")
        for csrf in (None, "forged"):
            form = {"reason": "gone"} | ({"csrf": csrf} if csrf else {})
            refused = client.post(f"/memory/records/{record}/forget", data=form)
            assert refused.status_code == 403 and "security token (CSRF)" in refused.text
        empty = client.post(f"/memory/records/{record}/forget", data={"csrf": hidden(page.text, "csrf")})
        assert empty.status_code == 422 and "say why" in empty.text
        unknown = client.get("/memory/records/m-0000000000000000")
        assert unknown.status_code == 404 and 'role="alert"' in unknown.text and "Traceback" not in unknown.text
        assert client.get("/memory", params={"q": "x" * 4001}).status_code == 422
        assert client.get("/memory", params={"q": "x", "project": "../etc"}).status_code == 422
    with _signed(web, "abe") as client:  # an approver is not an admin
        page = client.get(f"/memory/records/{record}")
        assert "Only an admin may forget a record." in page.text
        form = {"csrf": hidden(page.text, "csrf"), "reason": "gone"}
        refused = client.post(f"/memory/records/{record}/forget", data=form)
        assert refused.status_code == 403 and "needs the role admin" in refused.text
    assert heads(web) == before


def _rights(page: httpx.Response) -> str:
    found = re.search(r'<dd id="rights">(.*?)</dd>', page.text, re.S)
    assert found is not None
    return found.group(1)


def test_the_agents_pages_show_rights_then_and_reputation_over_time_with_reasons(web: WebHome) -> None:
    revoked_at = web.store.read("agent:scribe")[-1].at  # registered, then local_write revoked (webhome.py)
    later = PermissionRegistry(web.store, now=lambda: "2026-11-30T09:00:00.000000Z")
    later.change("agent:scribe", RightsChange(effects=("local_write",)), grant=True, cause="trusted again",
                 by="human:abe")  # fmt: skip
    events = web.store.read("agent:scribe")
    with _signed(web, "vic") as client:
        listed = client.get("/agents")
        assert listed.status_code == 200 and 'href="/agents/agent:scribe"' in listed.text
        page = client.get("/agents/agent:scribe")
        assert page.status_code == 200
        assert page.text.count('<g class="point') == len(events) == 3  # one point per change
        assert 'class="chart" role="img"' in page.text
        assert "<td>web</td>" in page.text and "<td>trusted again</td>" in page.text  # each change's reason
        assert "local_write" in _rights(page)
        then = client.get("/agents/agent:scribe", params={"at": revoked_at})
        assert "local_write" not in _rights(then) and revoked_at in then.text
        assert client.get("/agents/nobody").status_code == 404
        assert client.get("/agents/agent:scribe", params={"at": "someday"}).status_code == 422


def test_the_pages_speak_the_persons_language(web: WebHome) -> None:
    with _signed(web, "vic") as client:
        polish = client.get("/memory", params={"lang": "pl"}).text
        assert '<html lang="pl">' in polish and "Pamięć projektu" in polish
        runs = client.get("/runs").text  # the language is remembered, and every page links memory and agents
        assert '<a href="/memory">Pamięć</a>' in runs and '<a href="/agents">Agenci</a>' in runs
        russian = client.get("/agents", params={"lang": "ru"}).text
        assert "Агенты: права и репутация" in russian


def test_every_word_the_knowledge_templates_use_exists_and_is_translated() -> None:
    used: set[str] = set()
    for name in ("memory.html", "memory_record.html", "memory_graph.html", "agents.html", "agent.html"):
        used |= set(re.findall(r"\bk\.([a-z_]+)", (HERE / "templates" / name).read_text()))
        used |= set(re.findall(r"\bk\[m\]", (HERE / "templates" / name).read_text())) and {"hybrid", "vector", "text"}
    english = knowledge_words("en")
    assert used and used <= set(english)
    for language in LANGUAGES:
        if language != "en":
            other = knowledge_words(language)
            assert [k for k in english if other[k] == english[k] and k not in ("agent",)] == []


def test_the_graph_is_radial_and_escaped() -> None:
    nodes = [
        {"id": "m-1", "kind": "fact", "text": "<b>a fact</b>", "depth": 0},
        {"id": "m-2", "kind": "entity", "name": "Piotr", "depth": 1},
        {"id": "m-3", "kind": "entity", "name": "Gate", "depth": 1},
        {"id": "m-4", "kind": "entity", "name": "Far", "depth": 2},
    ]
    places = graph_places(nodes, "m-1")
    assert places["m-1"] == (GRAPH_W / 2, GRAPH_H / 2)
    centre = places["m-1"]

    def away(node: str) -> float:
        return float(((places[node][0] - centre[0]) ** 2 + (places[node][1] - centre[1]) ** 2) ** 0.5)

    assert away("m-2") < away("m-4") and away("m-3") < away("m-4")
    edges = [{"id": "r-1", "source": "m-1", "type": "mentions", "target": "m-2"}]
    svg = draw_graph({"start": "m-1", "nodes": nodes, "edges": edges}, "default", "the graph")
    assert "<b>" not in svg and "&lt;b&gt;a fact&lt;/b&gt;" in svg and svg.count('<g class="edge">') == 1
    assert 'href="/memory/records/m-2?project=default"' in svg


def test_the_reputation_chart_has_one_mark_per_point_with_its_reason() -> None:
    points = [
        {"seq": 1, "at": "2026-11-21T10:00:00Z", "kind": "agent.registered", "reputation": 0, "delta": 0,
         "summary": "registered", "cause": "note taker"},
        {"seq": 2, "at": "2026-11-22T10:00:00Z", "kind": "reputation.changed", "reputation": 2, "delta": 2,
         "summary": "reputation +2", "cause": "run r succeeded"},
        {"seq": 3, "at": "2026-11-23T10:00:00Z", "kind": "reputation.changed", "reputation": -1, "delta": -3,
         "summary": "reputation -3", "cause": "run s failed <badly>"},
    ]  # fmt: skip
    svg = draw_reputation(points, "chart")
    assert svg.count('<g class="point') == 3 and svg.count("<circle") == 2 and svg.count("<rect") == 1
    assert "run s failed &lt;badly&gt;" in svg and 'fill="#9b1c1c"' in svg and 'fill="#1b6b34"' in svg
    assert draw_reputation([], "chart").count("<g") == 0
