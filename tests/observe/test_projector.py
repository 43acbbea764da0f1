"""The projector: journal events of a real run → GenAI spans, ids and times from the journal, content by reference."""

from __future__ import annotations

import json
from typing import Any

from alicorn.journal.events import Draft, Event
from alicorn.journal.memory import InMemoryStore
from alicorn.observe import semconv as sc
from alicorn.observe.export import trace
from alicorn.observe.projector import Projector, project
from alicorn.observe.spans import SpanRecord, span_id_of, time_ns, trace_id_of
from tests.observe.conftest import Journal

#: What a conforming span of each GenAI operation must carry, with the type of each value.
REQUIRED: dict[str, dict[str, type | tuple[type, ...]]] = {
    sc.CHAT: {
        sc.OPERATION_NAME: str,
        sc.PROVIDER_NAME: str,
        sc.REQUEST_MODEL: str,
        sc.RESPONSE_MODEL: str,
        sc.USAGE_INPUT_TOKENS: int,
        sc.USAGE_OUTPUT_TOKENS: int,
        sc.RESPONSE_FINISH_REASONS: (list, tuple),
        sc.CONVERSATION_ID: str,
        sc.PROJECT: str,
    },
    sc.EXECUTE_TOOL: {
        sc.OPERATION_NAME: str,
        sc.TOOL_NAME: str,
        sc.TOOL_TYPE: str,
        sc.TOOL_CALL_ID: str,
        sc.NODE: str,
        sc.ATTEMPT: int,
        sc.EFFECT: str,
        sc.RUN: str,
        sc.PROJECT: str,
    },
}


def conforms(span: SpanRecord | Any, attributes: dict[str, Any]) -> list[str]:
    """What is missing or mistyped on a span of a GenAI operation (empty: it conforms)."""
    problems = []
    for name, kind in REQUIRED[attributes[sc.OPERATION_NAME]].items():
        if name not in attributes:
            problems.append(f"{span.name}: no {name}")
        elif not isinstance(attributes[name], kind) or isinstance(attributes[name], bool):
            problems.append(f"{span.name}: {name} is {type(attributes[name]).__name__}")
    return problems


def test_every_model_and_tool_step_has_a_conforming_span(journal: Journal) -> None:
    store, ran = journal.store, journal.ran
    found = trace(store, ran.conversation)
    spans = found.spans
    chats = [s for s in spans if s.operation == sc.CHAT]
    tools = [s for s in spans if s.operation == sc.EXECUTE_TOOL]
    requests = [e for e in store.read(ran.conversation) if e.kind == "llm.request"]
    calls = [e for e in store.read(ran.run) if e.kind == "tool.call"]
    assert len(chats) == len(requests) == 2 and len(tools) == len(calls) == 7
    problems = [p for s in chats + tools for p in conforms(s, dict(s.attributes))]
    assert problems == []
    # Each tool span sits under its node's span, which sits under the run's span.
    by_id = {s.span_id: s for s in spans}
    run_span = by_id[span_id_of(ran.run, "run")]
    assert run_span.operation == sc.INVOKE_WORKFLOW and run_span.parent_id is None and run_span.status == "ok"
    for tool in tools:
        node = by_id[tool.parent_id or ""]
        assert node.name == f"node {tool.attributes[sc.NODE]}" and node.parent_id == run_span.span_id
    # Tokens are the journal's, under the current names (not the deprecated prompt/completion ones).
    usage = [e.data["usage"] for e in store.read(ran.conversation) if e.kind == "llm.response"]
    assert sum(int(s.attributes[sc.USAGE_INPUT_TOKENS]) for s in chats) == sum(u["prompt_tokens"] for u in usage)  # type: ignore[arg-type]
    assert not any("gen_ai.usage.prompt_tokens" in s.attributes or "gen_ai.system" in s.attributes for s in spans)


def test_ids_and_times_come_from_the_journal_alone(journal: Journal) -> None:
    events = journal.store.read(journal.ran.run)
    first, second = project(journal.ran.run, events), project(journal.ran.run, events)
    assert first == second
    assert {s.trace_id for s in first} == {trace_id_of(journal.ran.run)}
    calls = {e.seq: e for e in events if e.kind == "tool.call"}
    for span in (s for s in first if s.operation == sc.EXECUTE_TOOL):
        seq = span.attributes[sc.EVENT_SEQ]
        assert span.span_id == span_id_of(journal.ran.run, str(seq))
        assert span.start_ns == time_ns(calls[seq].at)  # type: ignore[index]
        end = next(e for e in events if e.seq == span.attributes[sc.END_SEQ])
        assert span.end_ns == time_ns(end.at)


def test_live_projection_in_any_batches_equals_the_one_after_the_fact(journal: Journal) -> None:
    events = journal.store.read(journal.ran.run)
    whole = project(journal.ran.run, events)
    projector = Projector(journal.ran.run)
    live = [span for event in events for span in projector.feed([event])]
    assert projector.open_spans == 0 and sorted(live, key=lambda s: s.span_id) == sorted(whole, key=lambda s: s.span_id)


def test_policy_decisions_carry_their_rules_and_effects_their_key(journal: Journal) -> None:
    spans = project(journal.ran.run, journal.store.read(journal.ran.run))
    checks = [e for e in journal.store.read(journal.ran.run) if e.kind == "anvil.check"]
    policies = [s for s in spans if sc.POLICY_DECISION in s.attributes]
    assert len(policies) == len(checks)
    assert all(s.attributes[sc.POLICY_RULES] == ["permit-within-rights"] for s in policies)
    effects = [s for s in spans if sc.EFFECT_KEY in s.attributes]
    intended = [e for e in journal.store.read(journal.ran.run) if e.kind == "effect.intended"]
    assert [s.attributes[sc.EFFECT_KEY] for s in effects] == [e.data["key"] for e in intended]
    assert all(s.attributes[sc.EFFECT_STATE] == "done" for s in effects)


def test_content_is_off_by_default_and_referenced_never_copied_when_on(journal: Journal) -> None:
    store, conv = journal.store, journal.ran.conversation
    texts = [m["content"] for e in store.read(conv) if e.kind == "llm.request" for m in e.data["messages"]]
    texts += [e.data["text"] for e in store.read(conv) if e.kind == "llm.response"]
    for content in (False, True):
        spans = trace(store, conv, content=content).spans
        dumped = json.dumps([dict(s.attributes) for s in spans])
        assert not any(text[:40] in dumped for text in texts)
        refs = [s.attributes.get(sc.CONTENT_REQUEST) for s in spans if s.operation == sc.CHAT]
        if not content:
            assert refs == [None, None]
            continue
        by_seq = {f"{conv}#{e.seq}": e for e in store.read(conv)}
        assert [by_seq[str(r)].kind for r in refs] == ["llm.request", "llm.request"]


def _events(stream: str, items: list[tuple[str, dict[str, Any]]]) -> list[Event]:
    store = InMemoryStore()
    return store.append(
        stream, [Draft(k, f"2026-11-30T08:00:{i:02d}.000000Z", d) for i, (k, d) in enumerate(items)], expect=0
    )


def test_retries_unknown_effects_mcp_tools_and_waiting_runs() -> None:
    run = "run-test"
    events = _events(
        run,
        [
            ("run.created", {"plan": {"goal_hash": "g" * 64}, "plan_hash": "p", "project": "ops"}),
            ("tool.call", {"node": "ask", "attempt": 1, "op": "mcp.time.get_current_time", "effect": "read"}),
            ("tool.result", {"node": "ask", "attempt": 1, "ok": False, "error": {"type": "timeout", "message": "x"}}),
            ("node.failed", {"node": "ask", "attempt": 1, "final": False, "retry_in_s": 1}),
            ("tool.call", {"node": "ask", "attempt": 2, "op": "mcp.time.get_current_time", "effect": "read"}),
            ("tool.result", {"node": "ask", "attempt": 2, "ok": True, "output": {}}),
            ("node.succeeded", {"node": "ask", "attempt": 2}),
            (
                "tool.call",
                {"node": "post", "attempt": 1, "op": "http.post_json", "effect": "external_transmission", "key": "k1"},
            ),
            ("effect.intended", {"node": "post", "attempt": 1, "key": "k1"}),
            ("effect.unknown", {"node": "post", "attempt": 1, "key": "k1"}),
            ("run.awaiting_approval", {}),
        ],
    )
    spans = {s.name + str(s.attributes.get(sc.ATTEMPT, "")): s for s in project(run, events)}
    failed, retried = spans["execute_tool mcp.time.get_current_time1"], spans["execute_tool mcp.time.get_current_time2"]
    assert (
        failed.status == "error"
        and failed.attributes[sc.ERROR_TYPE] == "timeout"
        and failed.status_message == "timeout"
    )
    assert retried.status == "ok" and retried.parent_id == failed.parent_id  # both attempts under one node span
    assert (
        failed.attributes[sc.MCP_METHOD_NAME] == "tools/call" and failed.attributes[sc.TOOL_NAME] == "get_current_time"
    )
    assert spans["node ask"].status == "ok" and spans["node ask"].start_ns == failed.start_ns
    post = spans["execute_tool http.post_json1"]
    assert post.attributes[sc.EFFECT_STATE] == "unknown" and post.attributes[sc.OPEN] is True  # no result yet
    assert spans["await_approval"].attributes[sc.OPEN] is True
    assert spans["invoke_workflow alicorn.plan"].attributes[sc.PROJECT] == "ops"


def test_model_errors_and_repairs() -> None:
    conv = "conv-test"
    profile = {"id": "p", "model": "m", "provider": "openai", "location": "remote"}
    events = _events(
        conv,
        [
            ("intent.received", {"envelope": {"project": "ops", "provenance": "trigger", "channel": "api"}}),
            ("llm.request", {"profile": profile, "provider": "openai", "purpose": "plan", "schema": "s"}),
            (
                "llm.error",
                {"call": f"{conv}#2", "error": "ProviderTimeout", "message": "secret prompt", "retryable": True},
            ),
            ("llm.request", {"profile": profile, "provider": "openai", "purpose": "plan:repair1", "schema": "s"}),
            (
                "llm.response",
                {
                    "call": f"{conv}#4",
                    "model": "m-2",
                    "usage": {"prompt_tokens": 5, "completion_tokens": 2},
                    "finish_reason": "length",
                    "cost": 0.5,
                    "currency": "EUR",
                },
            ),
            ("report.written", {}),
        ],
    )
    spans = project(conv, events)
    error, repair, turn = spans
    assert error.status == "error" and error.status_message == "ProviderTimeout" and error.kind == "client"
    assert "secret prompt" not in json.dumps([dict(s.attributes) for s in spans] + [s.status_message for s in spans])
    assert repair.attributes[sc.REPAIR] == 1 and repair.attributes[sc.PURPOSE] == "plan"
    assert repair.attributes[sc.RESPONSE_FINISH_REASONS] == ["length"] and repair.attributes[sc.COST] == 0.5
    assert turn.operation == sc.INVOKE_AGENT and turn.attributes[sc.PROVENANCE] == "trigger"
    assert {error.parent_id, repair.parent_id} == {turn.span_id}
