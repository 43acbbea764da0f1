"""A decision's sentence in the person's language: every default rule's words in Polish and Russian, made from the
same facts as the journaled English sentence, which stays byte for byte what `decide` journals."""

from __future__ import annotations

import re
from typing import Any

import pytest

from alicorn.anvil.decide import Check, decide
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.replan import compare
from alicorn.anvil.rights import HUMAN_RIGHTS, MINIMAL_AGENT_RIGHTS, Rights, Subject
from alicorn.anvil.risk import assess
from alicorn.anvil.sentences import cause_of, decision_sentence
from alicorn.plan.dsl import Plan
from tests.anvil.support import node, plan, ref, registry

REG = registry()
DEFAULT = compile_policies(default_policy_text())
HUMAN = Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human")
AGENT = Subject("agent:planner", "agent", True, MINIMAL_AGENT_RIGHTS, ("planner",), 0, "standard", 1)
GHOST = Subject("agent:ghost", "agent", False, Rights())
LABELS = DataLabels(private=("hr/**",), secret=("keys/**",))

WRITE = plan([node("load", "t.read", path="a.csv"), node("save", "t.write", path="out/a.txt", content="x")])
SEND = plan([node("load", "t.read", path="a.csv"), node("send", "t.send", url="https://api.example.com/x")])
HR_GET = plan([node("load", "t.read", path="hr/pay.csv"), node("get", "t.get", url="https://api.example.com/q",
                                                                params=ref("load"))])  # fmt: skip
SECRET_GET = plan([node("load", "t.read", path="keys/k.csv"), node("get", "t.get", url="https://x.io/q",
                                                                     params=ref("load"))])  # fmt: skip
SECRET_READ = plan([node("load", "t.read", path="keys/k.csv"), node("save", "t.write", path="out/k.txt",
                                                                      content=ref("load"))])  # fmt: skip
TRIGGER = {"schedule": "sched-1", "slot": "2026-12-07T08:00:00Z", "fired_at": "2026-12-07T08:00:01Z"}


def _allowance(**extra: Any) -> dict[str, Any]:
    return {"schedule": "sched-1", "effects": ["none", "read", "external_transmission"], "approved_by": "human:bob",
            **extra}  # fmt: skip


def _facts(p: Plan, subject: Subject = AGENT, **extra: Any) -> Facts:
    return Facts(p.plan_hash(), p.goal_hash, "default", assess(p, REG, LABELS), subject, **extra)


#: Facts under which each default rule decides something (its own sentence among the checks).
SCENARIOS: dict[str, Facts] = {
    "within rights": _facts(WRITE),
    "beyond rights": _facts(SEND),
    "private data upgraded": _facts(HR_GET),
    "unknown agent": _facts(SEND, GHOST),
    "forbidden effect": _facts(SEND, forbidden=("external_transmission",)),
    "secret outbound": _facts(SECRET_GET, HUMAN),
    "mail request": _facts(SEND, HUMAN, provenance="external", channel="mail"),
    "schedule allows": _facts(
        SEND, provenance="trigger", channel="schedule", trigger=TRIGGER, allowance=_allowance(hosts=["api.example.com"])
    ),
    "schedule host not named": _facts(
        SEND,
        provenance="trigger",
        channel="schedule",
        trigger=TRIGGER,
        allowance=_allowance(hosts=["hooks.example.com"]),
    ),
    "schedule allows nothing": _facts(
        SEND,
        provenance="trigger",
        channel="schedule",
        trigger=TRIGGER,
        allowance={"schedule": "sched-1", "effects": [], "reason": "it was removed"},
    ),
    "secret read": _facts(SECRET_READ, HUMAN, secret_sources=("keys/k.csv",)),
    "secret read allowed": _facts(SECRET_READ, HUMAN, secret_sources=("keys/k.csv",), secret_allowed=("keys/**",)),
    "material change": _facts(SEND, material=True, material_reasons=("it adds effect class(es) x",)),
    "approved": _facts(SEND, approval="granted", approved_by=("human:bob",)),
    "carried": _facts(SEND, approval="carried", approved_by=("human:bob",)),
}

#: English that a Polish or Russian sentence must not contain once commands (`…`), quoted names ('…') and the
#: rule ids ([…]) are set aside: the words of every phrase of alicorn.anvil.sentences.
ENGLISH = re.compile(
    r"\b(because|needs|allowed|denied|may|plan|rules?|schedule|approv\w*|rights|effects?|class|secret|private|"
    r"computed|run time|host|data|which|only|and|the|reads?|sends?|reaches|firings?|slot|channel|request)\b",
    re.IGNORECASE,
)

#: Words that are the language's own as well.
SAME_WORD = {"pl": {"plan", "host"}, "ru": set()}


def _checks() -> list[tuple[str, Check, Facts]]:
    return [(name, c, f) for name, f in SCENARIOS.items() for c in decide(DEFAULT, f).checks]


def _words_only(sentence: str, facts: Facts) -> str:
    """The sentence without what is not a word of ours: commands, quoted names, rule ids, ids and hosts."""
    text = re.sub(r"`[^`]*`|'[^']*'|\[[^\]]*\]|--host \S+", " ", sentence)
    for name in (facts.subject.id, "human:bob", "api.example.com", "x.io", "hooks.example.com", "t.send", "t.get",
                 "t.write", "t.read", "sched-1", "mail", "external", "trigger", "it was removed",
                 "it adds effect class(es) x", facts.plan_hash[:12], "local_write"):  # fmt: skip
        text = text.replace(name, " ")
    return text


def test_the_scenarios_reach_every_default_rule() -> None:
    decided = {rule for _, check, _ in _checks() for rule in check.rules}
    assert decided == set(DEFAULT.rules)


def test_the_english_sentence_is_the_journaled_one() -> None:
    for _, check, facts in _checks():
        said = decision_sentence(check.decision, check.operation, facts, check.blocked_by, check.permitted_by)
        assert said == check.sentence


@pytest.mark.parametrize("language", ["pl", "ru"])
def test_every_rules_sentence_reads_in_the_language(language: str) -> None:
    leftovers = {}
    for name, check, facts in _checks():
        said = decision_sentence(check.decision, check.operation, facts, check.blocked_by, check.permitted_by, language)
        assert said != check.sentence and check.operation in said and facts.plan_hash[:12] in said
        english = [w for w in ENGLISH.findall(_words_only(said, facts)) if w.lower() not in SAME_WORD[language]]
        if english:
            leftovers[f"{name} / {check.operation}"] = (english, said)
    assert not leftovers


@pytest.mark.parametrize(("language", "start"), [("pl", "Wymaga zatwierdzenia"), ("ru", "Нужно одобрение")])
def test_one_cause_of_many_operations_is_found_in_the_language(language: str, start: str) -> None:
    facts = SCENARIOS["beyond rights"]
    check = next(c for c in decide(DEFAULT, facts).checks if c.decision == "needs_approval")
    a, b = (decision_sentence(check.decision, op, facts, check.blocked_by, check.permitted_by, language)
            for op in ("t.send", "t.other"))  # fmt: skip
    assert a.startswith(start) and a != b
    assert cause_of(a, language) == cause_of(b, language) != a
    assert cause_of(check.sentence) == check.sentence.split(", because ", 1)[1]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("pl", "wysyła dane oznaczone jako prywatne (z load) do api.example.com"),
        ("ru", "отправляет данные с меткой «частные» (из load) на api.example.com"),
    ],
)
def test_a_node_upgraded_by_the_data_it_carries_says_so_in_the_language(language: str, words: str) -> None:
    facts = SCENARIOS["private data upgraded"]
    check = next(c for c in decide(DEFAULT, facts).checks if c.decision == "needs_approval")
    assert "get (t.get) sends private data from load to api.example.com: an external transmission" in check.sentence
    said = decision_sentence(check.decision, check.operation, facts, check.blocked_by, check.permitted_by, language)
    assert f"get (t.get) {words}" in said


@pytest.mark.parametrize("language", ["pl", "ru"])
def test_every_material_change_reason_reads_in_the_language(language: str) -> None:
    old = {"goal_hash": "a" * 64, "classes": ["read"], "hosts": [], "operations": ["t.read"], "paths": [],
           "flows": [], "outbound": "public", "cost": {"steps": 1, "effects": 0, "amount": 0.0},
           "effect_inputs": [{"node": "w", "operation": "t.write", "inputs": {"path": "1", "content": "2"}},
                             {"node": "v", "operation": "t.write", "inputs": {}}]}  # fmt: skip
    new = {"goal_hash": "b" * 64, "classes": ["read", "external_transmission"], "hosts": ["?", "x.io"],
           "operations": ["t.read", "t.send"], "paths": ["?"], "flows": ["load->send"], "outbound": "private",
           "cost": {"steps": 9, "effects": 3, "amount": 5.0},
           "effect_inputs": [{"node": "w", "operation": "t.write", "inputs": {"path": "9", "extra": "3"}},
                             {"node": "v", "operation": "t.send", "inputs": {}},
                             {"node": "s", "operation": "t.send", "inputs": {"url": "4"}}]}  # fmt: skip
    english = compare(old, new, from_data=True)
    said = compare(old, new, from_data=True, language=language)
    assert len(english.reasons) == len(said.reasons) == 14
    for en, there in zip(english.reasons, said.reasons, strict=True):
        assert en != there
        left = ENGLISH.findall(re.sub(r"\b[a-z]+\.[a-z]+\b|load->send|x\.io", " ", there))
        assert not [w for w in left if w.lower() not in SAME_WORD[language]], there
