"""Understanding a request: its kind, and the replies that need no plan (an answer, an alarm's triage).

Conversation and question get an answer with no effect; an alarm gets triage (how severe, who must look, now);
task and process go on to the planner. All of it is journaled in the conversation's stream by the caller.

A question in a home with a memory store is answered from it (`answer_from_memory`): the hits of a journaled
`memory.search` run that are close enough to count as evidence, then, with a model, an answer that must cite the
records it was given (anything else is rejected, repaired once, then replaced by the records themselves); without
a model, the records themselves, cited; and "I don't know" when no hit is close enough. A hard question (two
best records about as relevant) is asked of several profiles where the home allows (alicorn.core.consulting).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from alicorn.app import App
from alicorn.context.builder import ContextBuilder, Target, system_prompt, user_prompt
from alicorn.context.errors import ContextError
from alicorn.context.fragments import Classification, Fragment
from alicorn.context.tap import JournalTap
from alicorn.core import consulting
from alicorn.core.conversation import run_id_for
from alicorn.core.decided import triage_said
from alicorn.core.intake import IntentEnvelope
from alicorn.i18n import N_, tr, tr_marked
from alicorn.models.errors import ModelError
from alicorn.models.messages import ChatRequest
from alicorn.models.recorder import ModelClient
from alicorn.models.structured import ask_structured
from alicorn.plan.dsl import Node, Plan, goal_digest
from alicorn.runtime.state import fold as fold_run

_GREETING = {
    "en": "Hello. Tell me what you need done; I plan it, show you its effects, and act only once it is approved.",
    "pl": "Dzień dobry. Powiedz, co mam zrobić; przygotuję plan, pokażę jego skutki i zadziałam po zatwierdzeniu.",
    "ru": "Здравствуйте. Скажите, что нужно сделать: я составлю план, покажу его последствия и начну после одобрения.",
}
#: The reply to words in a language Core does not read (German, Ukrainian…), said in the three it does: nothing is
#: planned from words it may misread.
OTHER_LANGUAGE = (
    "I understand English, Polish and Russian; please say it again in one of them. "
    "Rozumiem po angielsku, polsku i rosyjsku; napisz to, proszę, w jednym z tych języków. "
    "Я понимаю английский, польский и русский; напишите, пожалуйста, на одном из них."
)
_NO_MODEL = {
    "en": "No model is configured to answer questions here, so I cannot answer this reliably. I can plan work of "
    "these kinds: {menu}.",
    "pl": "Nie mam skonfigurowanego modelu do odpowiadania na pytania, więc nie odpowiem rzetelnie. Mogę zaplanować "
    "prace tego rodzaju: {menu}.",
    "ru": "Модель для ответов на вопросы не настроена, поэтому надёжно ответить я не могу. Я могу спланировать "
    "работы такого рода: {menu}.",
}

# Severity cues of an alarm, in the three languages (stems: inflections match by prefix).
_CRITICAL = ("fire", "smoke", "gas", "flood", "intrus", "break-in", "weapon", "injur", "pożar", "dym", "gaz", "zalan",
             "włam", "ranny", "пожар", "дым", "газ", "затоп", "взлом", "проникн", "ранен",
             # a break-in said with the verb, and flames: "ktoś się włamuje", "кто-то ломится", "burglars", "ogień",
             # "огонь", "пламя"
             "burglar", "flame", "ogień", "ognia", "огон", "огн", "плам", "ломит", "ломят")  # fmt: skip
#: English says a break-in with two words: "someone is breaking into the yard", "they broke in last night".
_BREAKING_IN = re.compile(r"\b(?:break|breaks|breaking|broke)\s+in(?:to)?\b", re.IGNORECASE)
_HIGH = ("down", "outage", "offline", "failure", "fail", "breach", "leak", "awari", "niedostęp", "wyciek", "авари",
         "недоступ", "отказ", "утечк", "сбой")  # fmt: skip
_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)?", re.UNICODE)


@dataclass(frozen=True)
class Triage:
    """An alarm's severity, the words that set it, and what a human must do."""

    severity: str
    cues: tuple[str, ...]
    action: str

    def to_json(self) -> dict[str, Any]:
        return {"severity": self.severity, "cues": list(self.cues), "action": self.action}


#: What each severity asks of a human (the journal keeps the English; a report says it in the request's language).
_ACTION_NOW = N_("a human must look now; call the on-site responder if people are at risk")
_ACTION_WITHIN_THE_HOUR = N_("a human on duty must look within the hour")
_ACTION_TODAY = N_("a human should review it today")


def triage(text: str) -> Triage:
    """Severity from the words: critical (danger to people or property), high (a service down), else normal.

    Triage never acts: an alarm always ends with a human decision, at once for critical ones.
    """
    words = [w.lower() for w in _WORD.findall(text)]
    critical = tuple(w for w in words if w.startswith(_CRITICAL))
    critical += tuple(m.group(0).lower() for m in _BREAKING_IN.finditer(text))
    high = tuple(w for w in words if w.startswith(_HIGH))
    if critical:
        return Triage("critical", critical, _ACTION_NOW)
    if high:
        return Triage("high", high, _ACTION_WITHIN_THE_HOUR)
    return Triage("normal", (), _ACTION_TODAY)


def triage_report_words(found: Triage, utterance: str, language: str) -> dict[str, Any]:
    """The triage report's words in `language`: its headline, what is known, the decision it asks for and the
    effects it leaves (none). The action is one of the three marked above; an unknown one is shown as it is."""
    cues = ", ".join(found.cues) or tr(language, "none")
    return {
        "headline": triage_said(found.severity, found.action, language),
        "known": [
            tr(language, "the alarm says: {text}", text=utterance),
            tr(language, "severity cues: {cues}", cues=cues),
        ],
        "decisions_needed": [tr_marked(language, found.action)],
        "pending_effects": [tr(language, "none: triage starts no effect")],
    }


def answer(text: str, kind: str, language: str, client: ModelClient | None, menu: list[str]) -> dict[str, Any]:
    """A reply with no effect: the model's (when one is routed) or a fixed one that says what Core can do."""
    lang = language if language in _GREETING else "en"
    if client is not None:
        system = (
            "You are Alicorn's assistant. Answer briefly and only from general knowledge; say so when you are not "
            f"sure. Never claim to have done anything. Reply in the language of the message ({lang})."
        )
        try:
            response = client.complete(ChatRequest.chat(system, text, max_tokens=200), purpose="answer")
            if response.text.strip():
                return {"text": response.text.strip(), "by": client.profile.id, "effects": []}
        except ModelError as exc:
            fixed = _fixed(kind, lang, menu)
            return {"text": fixed, "by": "fixed reply", "model_error": str(exc)[:300], "effects": []}
    return {"text": _fixed(kind, lang, menu), "by": "fixed reply", "effects": []}


def _fixed(kind: str, language: str, menu: list[str]) -> str:
    if kind == "conversation":
        return _GREETING[language]
    return _NO_MODEL[language].format(menu="; ".join(menu))


# ---- questions answered from memory ------------------------------------------------------------------------------

#: How a question searches memory. Vector, not hybrid: on bench/data/memory_questions.jsonl hybrid search's
#: recall@5 is lower (0.83 against 0.95; bench/question_bench.py), because its full-text side matches every word of
#: the question, stop words included ("the", "w", "в"), and fusion lifts those matches over the right record.
RECALL_MODE: Literal["vector"] = "vector"
RECALL_K = 5
#: A hit counts as evidence only when its e5 cosine with the question is at least this. e5 puts unrelated text
#: at 0.72-0.79 (the 12 unanswerable questions of the bench set) and the record holding the answer at 0.76-0.92;
#: 0.79 refuses every unanswerable question of the set and keeps the evidence of most answerable ones.
MIN_SIMILARITY = 0.79
#: The memory labels as context classifications (memory's `confidential` is the context builder's `private`).
_CLASSIFICATION: dict[str, Classification] = {
    "public": "public",
    "internal": "internal",
    "confidential": "private",
    "secret": "secret",
}
_ANSWER_RULES = (
    "You answer questions from the project's memory records given as data blocks, each with its record id. Use "
    "only what those records say. Reply with a JSON object: `answer` (short, in the language of the question) and "
    "`citations` (the ids of the records the answer uses: at least one, only ids you were given). If the records "
    "do not answer the question, say so in `answer` and cite the closest record."
)


class CitedAnswer(BaseModel):
    """A model's answer from memory: the text and the ids of the records it rests on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: str = Field(min_length=1, max_length=2000)
    citations: list[str] = Field(min_length=1, max_length=20)


def cited_answer_schema(ids: Sequence[str]) -> type[CitedAnswer]:
    """`CitedAnswer` whose citations may only be `ids`: an answer citing nothing, or an id it was not given, fails
    validation (so it is fed back and repaired), and a provider that constrains decoding cannot write one."""
    allowed = Literal[tuple(ids)]  # type: ignore[valid-type]
    model: type[CitedAnswer] = create_model(
        "CitedAnswer",
        __base__=CitedAnswer,
        citations=(list[allowed], Field(min_length=1, max_length=max(1, len(ids)))),  # type: ignore[valid-type]
    )
    return model


@dataclass(frozen=True)
class Recalled:
    """What the question's `memory.search` run found: its id, its hits (best first), or why it found nothing."""

    run: str
    hits: tuple[dict[str, Any], ...]
    error: str | None = None


def recall_plan(question: str, project: str) -> Plan:
    """One read-only node: `memory.search` of the project's memory for the question's words."""
    goal = f"answer from memory: {question}"[:4000]
    inputs = {"query": {"value": question[:4000]}, "k": {"value": RECALL_K}, "mode": {"value": RECALL_MODE}}
    # The project is the run's (its terms), never an input: a plan cannot read another project's memory.
    node = Node.model_validate({"node_id": "search", "operation": "memory.search", "inputs": inputs})
    return Plan(goal=goal, goal_hash=goal_digest(goal, project=project), nodes=[node])


def recall(app: App, conversation: str, intent: IntentEnvelope, proposed_by: str) -> Recalled | None:
    """Search the project's memory for the question in a run of its own (each call journaled as `tool.call` and
    `tool.result`, Anvil's decision with it); None when the home has no memory store to ask.

    The run's number is 0, before any plan's run of the conversation (those count from 1), so a resumed
    conversation finds the search it ran before a crash instead of running it twice."""
    if not (app.home / "memory.db").is_file():
        return None
    run_id = run_id_for(conversation, 0)
    root = app.home / "inputs" / conversation  # the run reads no data: an empty data root of its own
    if app.store.head(run_id) is None:
        terms = app.anvil.terms(
            proposed_by, project=intent.project, provenance=intent.provenance, channel=intent.channel
        )
        app.anvil.prepare(terms)
        root.mkdir(parents=True, exist_ok=True)
        state = app.executor(root).start(recall_plan(intent.utterance, intent.project), run_id=run_id, terms=terms)
    else:
        state = fold_run(app.store.read(run_id), run_id)
        if not state.finished:
            root.mkdir(parents=True, exist_ok=True)
            state = app.executor(root).resume(run_id)
    node = state.nodes["search"]
    if node.status != "succeeded" or node.output is None:
        reason = (node.error or {}).get("message") or node.reason or state.status
        return Recalled(run_id, (), str(reason)[:500])
    return Recalled(run_id, tuple(node.output.get("hits", ())))


def evidence(hits: Sequence[Mapping[str, Any]], threshold: float = MIN_SIMILARITY) -> list[dict[str, Any]]:
    """The hits close enough to the question to count as evidence, best first."""
    return [dict(h) for h in hits if (h.get("similarity") or 0.0) >= threshold]


def answer_from_memory(
    question: str,
    language: str,
    recalled: Recalled,
    client: ModelClient | None,
    *,
    project: str,
    tap: JournalTap | None = None,
    untrusted: bool = False,
    consultants: Callable[[], Sequence[ModelClient]] | None = None,
) -> dict[str, Any]:
    """The reply to a question from memory hits (see the module docstring); `answer.given`'s data.

    `untrusted`: the question came from a trigger or an external channel, so it goes to the model as data too.
    `consultants`: the profiles a hard question is asked of (alicorn.core.consulting), asked for only when the
    question is hard, so an easy one journals no consultation.
    """
    lang = language if language in _GREETING else "en"
    hits = recalled.hits
    found = evidence(hits)
    reply: dict[str, Any] = {
        "run": recalled.run,
        "retrieved": [{"id": h["id"], "similarity": h.get("similarity"), "score": h.get("score")} for h in hits],
        "threshold": MIN_SIMILARITY,
        "effects": [],
    }
    if recalled.error is not None:
        text = tr(lang, "I could not search this project's memory ({error}), so I cannot answer from it.",
                  error=recalled.error)  # fmt: skip
        return {**reply, "text": text, "by": "memory", "citations": [], "memory_error": recalled.error}
    if not found:
        text = tr(lang, "I don't know: nothing in this project's memory answers that.")
        hint = tr(lang, "Add what you know with `alicorn memory add`.")
        return {**reply, "text": f"{text} {hint}", "by": "memory", "citations": []}
    many = list(consultants()) if consultants is not None and consulting.hard_question(found) else []
    if len(many) >= 2:
        consulted = _consulted(question, found, many, lang, project=project, tap=tap, untrusted=untrusted)
        if consulted is not None:
            return {**reply, **consulted}
    if client is not None:
        try:
            cited = _cited(question, found, client, project=project, tap=tap, untrusted=untrusted)
        except (ModelError, ContextError) as exc:
            reply["model_error"] = str(exc)[:300]
        else:
            if cited is not None:
                answer, citations, rejected = cited
                lines = [answer, tr(lang, "Sources:"), *_cite_lines([h for h in found if h["id"] in citations])]
                data = {"text": "\n".join(lines), "by": client.profile.id, "citations": citations}
                return {**reply, **data, "rejected": rejected}
    lines = [tr(lang, "From this project's memory (most relevant first):"), *_cite_lines(found[:3])]
    return {**reply, "text": "\n".join(lines), "by": "memory", "citations": [h["id"] for h in found[:3]]}


def _consulted(
    question: str,
    found: Sequence[Mapping[str, Any]],
    clients: Sequence[ModelClient],
    language: str,
    *,
    project: str,
    tap: JournalTap | None,
    untrusted: bool,
) -> dict[str, Any] | None:
    """A hard question asked of every consultant, the arbiter settling on the records the answers rest on; None
    when no consultant answered (the caller falls back to the records themselves)."""
    opinions = []
    for client in clients:
        try:
            cited = _cited(question, found, client, project=project, tap=tap, untrusted=untrusted)
        except (ModelError, ContextError) as exc:
            opinions.append(consulting.CitedOpinion(client.profile.id, None, error=str(exc)[:300]))
            continue
        if cited is None:
            opinions.append(consulting.CitedOpinion(client.profile.id, None, error="no record may reach this model"))
        else:
            opinions.append(consulting.CitedOpinion(client.profile.id, cited[0], tuple(cited[1])))
    answered = [o for o in opinions if o.answer]
    if not answered:
        return None
    verdict = consulting.arbitrate_answers(opinions, [str(h["id"]) for h in found])
    by_id = {str(h["id"]): h for h in found}
    record = {"verdict": verdict.model_dump(mode="json"), "consultants": [o.profile for o in opinions]}
    if verdict.settled:
        winner = next(o for o in answered if o.answer is not None and o.answer[:1000] == verdict.answer)
        agreeing = [o.profile for o in answered if set(o.citations) == set(winner.citations)]
        lines = [winner.answer or "", tr(language, "Sources:"), *_cite_lines([by_id[c] for c in winner.citations])]
        lines.append(tr(language, "Consulted {count} models; these sources settled it ({who}).",
                        count=len(clients), who=", ".join(agreeing)))  # fmt: skip
        citations = list(winner.citations)
        return {"text": "\n".join(lines), "by": winner.profile, "citations": citations, "consultation": record}
    lines = [tr(language, "The models I consulted disagree, and the records do not settle it; judge for yourself:")]
    citations = []
    for number, position in enumerate((p for p in verdict.positions if not p.refuted), 1):
        owner = next(o for o in answered if o.profile == position.supporters[0])
        lines.append(f"{number}) {', '.join(position.supporters)}: {owner.answer}")
        lines.extend(_cite_lines([by_id[c] for c in owner.citations]))
        citations.extend(c for c in owner.citations if c not in citations)
    return {"text": "\n".join(lines), "by": "consultants", "citations": citations, "consultation": record}


def _cite_lines(hits: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = []
    for hit in hits:
        text = " ".join(str(hit["text"]).split())
        lines.append(f"- [{hit['id']}] {text[:240] + ('…' if len(text) > 240 else '')}")
    return lines


def _cited(
    question: str,
    found: Sequence[Mapping[str, Any]],
    client: ModelClient,
    *,
    project: str,
    tap: JournalTap | None,
    untrusted: bool,
) -> tuple[str, list[str], list[str]] | None:
    """(answer, citations, the rejected attempts' errors), or None when no record may reach this model."""
    fragments = [
        Fragment(id="answer-rules", layer="rules", source="system:core", text=_ANSWER_RULES, trust="instruction"),
        Fragment(
            id="question",
            layer="task",
            source="chat:untrusted channel" if untrusted else "human:request",
            text=question,
            trust="data" if untrusted else "instruction",
            required=True,
        ),
    ]
    for rank, hit in enumerate(found):
        fragments.append(
            Fragment(
                id=str(hit["id"]),
                layer="memory",
                source=f"memory:{project}/{hit['id']}",
                text=str(hit["text"]),
                classification=_CLASSIFICATION.get(str(hit.get("classification")), "internal"),
                trust="data",
                priority=max(0, 90 - rank),
            )
        )
    envelope = ContextBuilder(tap=tap).build(fragments, Target(client.profile.id, client.profile.external))
    ids = [f.id for f in envelope.fragments if f.layer == "memory"]
    if not ids:  # every record was dropped (policy or budget): the records are shown instead
        return None
    request = ChatRequest.chat(system_prompt(envelope), user_prompt(envelope), max_tokens=400, temperature=0.0)
    result = ask_structured(client, request, cited_answer_schema(ids), max_repairs=1, purpose="answer")
    citations = list(dict.fromkeys(result.value.citations))
    if not citations or not set(citations) <= set(ids):  # the schema refuses both; checked again all the same
        raise ModelError(f"the answer of profile {client.profile.id!r} cites records it was not given: {citations}")
    return result.value.answer.strip(), citations, list(result.errors)
