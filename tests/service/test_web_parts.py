"""The web UI's parts without a server: the plan drawing, the templates, the words, the sign-in guards."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.passwords import Passwords
from alicorn.anvil.people import People
from alicorn.app import open_app
from alicorn.service.dag import draw, layout
from alicorn.service.pages import HERE, Pages
from alicorn.service.sessions import Session, Sessions, SignInRefused, load_key
from alicorn.service.web import _local
from alicorn.service.words import LANGUAGES, words
from tests.service.conftest import StepClock


def node(node_id: str, *after: str, ref: str | None = None) -> dict[str, object]:
    inputs = {"records": {"ref": {"node": ref, "output": "records"}}} if ref else {}
    return {"node_id": node_id, "operation": "util.noop", "depends_on": list(after), "inputs": inputs}


def test_nodes_go_in_columns_by_their_longest_upstream_chain() -> None:
    plan = [node("a"), node("b", "a"), node("c", ref="a"), node("d", "b", ref="c"), node("e", "a", "d")]
    places = layout(plan)
    assert {n: c for n, (c, _) in places.items()} == {"a": 0, "b": 1, "c": 1, "d": 2, "e": 3}
    assert places["b"] != places["c"]  # same column, different rows


def test_the_drawing_colours_each_node_by_state_and_escapes_names() -> None:
    plan = {"nodes": [node("load"), node("<x>", ref="load")]}
    svg = draw(plan, {"load": "succeeded", "<x>": "failed"}, "the plan")
    assert svg.startswith("<svg") and 'role="img"' in svg and 'aria-label="the plan"' in svg
    assert 'class="node state-succeeded"' in svg and 'class="node state-failed"' in svg
    assert "<x>" not in svg and "&lt;x&gt;" in svg
    assert svg.count("marker-end=") == 1  # one edge: load -> <x>
    assert draw({"nodes": []}, {}, "empty") == ""


def test_every_template_compiles_and_every_word_it_uses_exists(tmp_path: Path) -> None:
    application = open_app(tmp_path / "home")
    pages = Pages(Sessions(application.people, load_key(application.home), StepClock()))
    names = sorted(p.name for p in (HERE / "templates").glob("*.html"))
    assert {"base.html", "signin.html", "runs.html", "run.html", "inbox.html", "conversation.html"} <= set(names)
    used: set[str] = set()
    for name in names:
        pages.env.get_template(name)
        used |= set(re.findall(r"\bw\.([a-z_]+)", (HERE / "templates" / name).read_text()))
    assert used and used <= set(words("en"))
    application.close()


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_the_words_are_translated(language: str) -> None:
    english, other = words("en"), words(language)
    assert other.keys() == english.keys()
    same = [k for k in english if english[k] == other[k] and english[k] not in ("Plan",)]
    assert not same, f"untranslated in {language}: {same}"


def test_only_a_path_of_this_site_is_a_place_to_go_back_to() -> None:
    assert _local("/runs?status=failed") == "/runs?status=failed"
    for outside in ("https://evil.example/", "//evil.example/x", "/\\evil.example", "runs"):
        assert _local(outside) == "/runs"


def test_a_session_is_the_person_its_cookie_was_signed_for(tmp_path: Path) -> None:
    application = open_app(tmp_path / "home")
    clock = StepClock()
    people = People(application.store, tmp_path / "home" / "keys", clock)
    ada = parse_principal("human:ada")
    people.bootstrap(ada)
    Passwords(people, clock).set("ada", "ada-long-password", by=ada)
    sessions = Sessions(people, load_key(application.home), clock, failure_delay_s=0.0, max_failures=2)
    session = sessions.sign_in("ADA", "ada-long-password")  # names are canonical, case and all
    found = sessions.read(sessions.cookie(session))
    assert found is not None and found[0] == session and found[1].id == "human:ada"
    forged = Session("human:ada", session.sid, session.issued_at)
    other_key = Sessions(people, b"k" * 32, clock)
    assert other_key.read(other_key.cookie(forged)) is not None and sessions.read(other_key.cookie(forged)) is None
    assert sessions.csrf_ok(session, sessions.csrf(session))
    assert not sessions.csrf_ok(session, None) and not sessions.csrf_ok(session, sessions.csrf(forged) + "x")
    for _ in range(2):
        with pytest.raises(SignInRefused, match="not right"):
            sessions.sign_in("ada", "wrong-password!")
    with pytest.raises(SignInRefused, match="too many wrong passwords"):
        sessions.sign_in("ada", "ada-long-password")
    people.add("abe", "approver", by=ada)
    Passwords(people, clock).set("abe", "abe-long-password", by=ada)
    cookie = sessions.cookie(sessions.sign_in("abe", "abe-long-password"))
    assert sessions.read(cookie) is not None
    people.remove("abe", by=ada)  # a person removed from the home has no session any more
    assert sessions.read(cookie) is None
    application.close()


def test_each_part_s_words_are_one_read_only_table_per_language() -> None:
    from alicorn.service.words import words
    from alicorn.service.words_knowledge import knowledge_words

    for table in (words, knowledge_words):
        polish = table("pl")
        assert table("pl") is polish and table("en") is not polish  # built once per language
        with pytest.raises(TypeError):
            polish["runs"] = "changed"  # type: ignore[index]
    assert (words("pl")["runs"], knowledge_words("ru")["memory"]) == ("Przebiegi", "Память")


def test_only_a_person_who_may_decide_is_offered_the_approval_form(tmp_path: Path) -> None:
    # a requester saw Approve on her own conversation's waiting plan, and pressing it was refused
    from types import SimpleNamespace

    from alicorn.core.conversation import ConversationState

    application = open_app(tmp_path / "home")
    pages = Pages(Sessions(application.people, load_key(application.home), StepClock()))
    template = pages.env.get_template("conversation.html")
    state = ConversationState(id="conv-1", phase="running", envelope={"utterance": "Publish variant 2"},
                              runs=["run-1"])  # fmt: skip
    run = SimpleNamespace(status="awaiting_approval", plan_hash="a" * 64)
    for may_decide, shown in ((True, 'action="/inbox/run-1/approve"'), (False, "waits for a decision")):
        html = template.render(w=words("en"), c=state, run=run, working=False, may_decide=may_decide, csrf="x",
                               lang="en", languages={}, path="/chat/conv-1", person=None)  # fmt: skip
        assert shown in html
        assert ('action="/inbox/run-1/approve"' in html) is may_decide
    application.close()


def test_an_answer_is_shown_once(tmp_path: Path) -> None:
    # a reply to small talk was shown twice, under two "Report" headings: the answer, then the report saying it
    from alicorn.core.conversation import ConversationState

    application = open_app(tmp_path / "home")
    pages = Pages(Sessions(application.people, load_key(application.home), StepClock()))
    said = "Hello. Tell me what you need done."
    state = ConversationState(id="conv-1", phase="answered", envelope={"utterance": "hi"},
                              answer={"text": said}, report={"outcome": "answered", "headline": said})  # fmt: skip
    html = pages.env.get_template("conversation.html").render(
        w=words("en"),
        c=state,
        run=None,
        working=False,
        may_decide=False,
        csrf="x",
        lang="en",
        languages={},
        path="/chat/conv-1",
        person=None,
    )
    assert html.count(said) == 1 and html.count(">Report<") == 1
    application.close()
