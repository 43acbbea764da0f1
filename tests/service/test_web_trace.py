"""A run's and a conversation's trace in the web service, over real HTTP (httpx against uvicorn on loopback): the
JSON is the projector's span records for the same stream, in the waterfall's order; the page draws every span with
its label and marks the failed and the denied; sign-in, roles and unknown streams answer as the run page does; no
prompt or output ever appears."""

from __future__ import annotations

import re

from alicorn.journal.events import Draft
from alicorn.journal.store import JournalStore
from alicorn.observe import semconv as sc
from alicorn.observe.projector import project
from alicorn.service.web_trace import MIN_WIDTH, SCALE
from tests.service.conftest import Served, at
from tests.service.test_web_signin import browser, sign_in
from tests.service.webhome import WebHome

RETRY = "corpus-retry-alternative"  # three nodes; `slow` fails twice (timeouts), an alternative takes over
DENIED = "corpus-anvil-denied"  # Anvil denies the plan's only node
SECRET = "SECRET-PROMPT-TEXT"


def _conversation(store: JournalStore) -> str:
    """conv-trace: a turn with one model call (whose prompt and output are SECRET) that started a run."""
    conv = "conv-trace"
    profile = {"id": "p", "model": "m", "provider": "openai", "location": "remote"}
    store.append(
        conv,
        [
            Draft("intent.received", at(24), {"envelope": {"project": "ops", "utterance": SECRET, "channel": "web"}}),
            Draft("llm.request", at(24), {"profile": profile, "provider": "openai", "purpose": "plan",
                                          "schema": "s", "messages": [{"role": "user", "content": SECRET}]}),
            Draft("llm.response", at(24), {"call": f"{conv}#2", "model": "m-2", "text": SECRET,
                                           "usage": {"prompt_tokens": 5, "completion_tokens": 2}}),
            Draft("run.linked", at(24), {"run": RETRY, "plan_hash": "x", "goal_hash": "y"}),
        ],
        expect=0,
    )  # fmt: skip
    return conv


def test_the_json_is_the_projectors_spans_of_the_run(served: Served) -> None:
    with served.client("vic") as client:
        answer = client.get(f"/api/v1/runs/{RETRY}/trace")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    expected = {s.span_id: s for s in project(RETRY, served.store.read(RETRY))}
    assert body["root"] == RETRY and body["content"] is False
    assert len(body["spans"]) == len(expected) == 10 and {s["span_id"] for s in body["spans"]} == set(expected)
    for got in body["spans"]:
        span = expected[got["span_id"]]
        assert (got["name"], got["parent_id"], got["trace_id"], got["kind"]) == (
            span.name, span.parent_id, span.trace_id, span.kind
        )  # fmt: skip
        assert (got["start_ns"], got["end_ns"], got["status"], got["status_message"]) == (
            span.start_ns, span.end_ns, span.status, span.status_message
        )  # fmt: skip
        assert got["attributes"] == {
            k: list(v) if isinstance(v, list | tuple) else v for k, v in span.attributes.items()
        }
    root = body["spans"][0]
    assert root["name"] == "invoke_workflow alicorn.plan" and root["depth"] == 0 and root["parent_id"] is None
    by_id = {s["span_id"]: s for s in body["spans"]}
    for later, got in enumerate(body["spans"][1:], 1):  # every child after its parent, one level deeper
        parent = by_id[got["parent_id"]]
        assert body["spans"].index(parent) < later and got["depth"] == parent["depth"] + 1
    failed = [s for s in body["spans"] if s["status"] == "error"]
    assert {s["name"] for s in failed} == {"node slow", "execute_tool util.sleep"}


def test_the_trace_route_is_in_the_openapi_schema(served: Served) -> None:
    with served.client(None) as client:
        schema = client.get("/openapi.json").json()
    run = schema["paths"]["/api/v1/runs/{run_id}/trace"]["get"]
    assert "TraceOut" in run["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert "/api/v1/conversations/{conversation}/trace" in schema["paths"]
    assert {"spans", "root", "content"} <= set(schema["components"]["schemas"]["TraceOut"]["properties"])


def test_the_json_needs_a_token_like_the_run_and_names_an_unknown_run(served: Served) -> None:
    before = served.heads()
    with served.client(None) as client:
        refused = client.get(f"/api/v1/runs/{RETRY}/trace")
    assert refused.status_code == 401 and "carries no token" in refused.json()["detail"]
    with served.client("vic") as client:
        unknown = client.get("/api/v1/runs/run-nobody/trace")
        control = client.get("/api/v1/runs/control:people/trace")  # a stream that is not a run
    assert unknown.status_code == 404 and unknown.json()["detail"].startswith("there is no run 'run-nobody'")
    assert control.status_code == 404
    assert served.heads() == before  # reading a trace writes nothing


def test_a_conversations_trace_carries_its_runs_and_never_its_content(served: Served) -> None:
    conv = _conversation(served.store)
    with served.client("vic") as client:
        answer = client.get(f"/api/v1/conversations/{conv}/trace")
        unknown = client.get("/api/v1/conversations/conv-nobody/trace")
    assert answer.status_code == 200, answer.text
    assert unknown.status_code == 404 and "there is no conversation 'conv-nobody'" in unknown.json()["detail"]
    spans = answer.json()["spans"]
    names = [(s["depth"], s["name"]) for s in spans]
    assert names[:3] == [(0, "invoke_agent norbi"), (1, "chat m"), (1, "invoke_workflow alicorn.plan")]
    assert (2, "invoke_workflow alicorn.plan") in names  # the run's own root, under the span that linked it
    chat = spans[1]
    assert chat["attributes"][sc.USAGE_INPUT_TOKENS] == 5 and chat["attributes"][sc.RESPONSE_MODEL] == "m-2"
    assert {s["trace_id"] for s in spans} == {spans[0]["trace_id"], spans[3]["trace_id"]}  # two traces, linked
    assert SECRET not in answer.text
    assert not any(k.startswith("alicorn.content") for s in spans for k in s["attributes"])


def test_the_page_draws_every_span_nested_with_labels_and_marks_the_failed(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        run = client.get(f"/runs/{RETRY}")
        page = client.get(f"/runs/{RETRY}/trace")
    assert f'href="/runs/{RETRY}/trace"' in run.text  # reachable from the run page
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    spans = project(RETRY, web.store.read(RETRY))
    rows = re.findall(
        r'<tr class="wf-row( wf-marked)?" data-span="(\w+)" data-parent="(\w*)" data-depth="(\d)"', page.text
    )
    assert {r[1] for r in rows} == {s.span_id for s in spans}
    marked = {r[1] for r in rows if r[0]}
    assert marked == {s.span_id for s in spans if s.status == "error"}
    assert page.text.count("<title>") == len(spans) + 1  # each bar's own label, and the page's
    assert "tool util.sleep; node slow; attempt 2; effect none; error timeout" in page.text
    assert "node slow; 115.9 ms; status error; node failed" in page.text
    bars = [
        (int(x), int(w)) for x, w in re.findall(r'<rect class="wf-[a-z_]+" x="(\d+)" y="1" width="(\d+)"', page.text)
    ]
    assert bars[0] == (0, SCALE)  # the run's root spans the whole time line
    assert all(w >= MIN_WIDTH and x + w <= SCALE for x, w in bars)
    assert "style=" not in page.text.split("<main", 1)[1]  # positioned by SVG attributes: no inline style
    assert SECRET not in page.text


def test_a_denied_policy_decision_is_marked_with_its_rule(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        page = client.get(f"/runs/{DENIED}/trace")
    assert page.status_code == 200
    marked = re.findall(r'<tr class="wf-row wf-marked"[^>]*>.*?</tr>', page.text, re.S)
    assert len(marked) == 2  # the run, denied, and the decision that denied it; the skipped node is not
    run, policy = marked
    assert "invoke_workflow alicorn.plan" in run and "run denied" in run
    assert "policy workspace.write_file" in policy and 'class="badge s-denied">denied<' in policy
    assert "policy decision deny; rules forbid-forbidden-effects" in policy


def test_the_page_asks_for_sign_in_and_names_an_unknown_run_or_conversation(web: WebHome) -> None:
    with browser(web) as client:
        signed_out = client.get(f"/runs/{RETRY}/trace")
        assert signed_out.status_code == 303
        assert signed_out.headers["location"] == f"/signin?next=%2Fruns%2F{RETRY}%2Ftrace"
        sign_in(client, "vic")
        unknown = client.get("/runs/run-nobody/trace")
        conversation = client.get("/chat/conv-nobody/trace")
        polish = client.get(f"/runs/{RETRY}/trace?lang=pl")
    assert (
        unknown.status_code == 404
        and "there is no run &#39;run-nobody&#39;; the Runs page lists the runs" in unknown.text
    )
    assert conversation.status_code == 404 and "there is no conversation" in conversation.text
    assert "Traceback" not in unknown.text + conversation.text
    assert polish.status_code == 200 and "Ślad" in polish.text and "Wróć do przebiegu" in polish.text


def test_a_conversations_page_draws_its_turn_and_its_run_under_it(web: WebHome) -> None:
    conv = _conversation(web.store)
    with browser(web) as client:
        sign_in(client, "vic")
        chat = client.get(f"/chat/{conv}")
        page = client.get(f"/chat/{conv}/trace")
    assert f'href="/chat/{conv}/trace"' in chat.text
    assert page.status_code == 200 and f'href="/chat/{conv}"' in page.text
    depths = re.findall(r'data-depth="(\d)"[^>]*>\s*<td class="wf-name wf-d\d"><details><summary>([^<]+)<', page.text)
    assert depths[:4] == [("0", "invoke_agent norbi"), ("1", "chat m"), ("1", "invoke_workflow alicorn.plan"),
                          ("2", "invoke_workflow alicorn.plan")]  # fmt: skip
    assert "request model m; response model m-2; input tokens 5; output tokens 2" in page.text
    assert SECRET not in page.text
