"""A recurring request becomes a proposed schedule, which a person approves, changes or declines.

"Every Monday at 8, summarise the weekend's alarms" is a process with a time rule in the words (read by
`alicorn.models.intent.recurrence` as a cron). Core does not run it once: it asks the person to approve a schedule:

* **what** each firing asks for: the request with the time words taken out ("summarise the weekend's alarms"), so
  a firing's request is one piece of work and does not read as recurring again;
* **when**: the cron in words, in the person's zone (`Norbi.schedule_zone`, else the `TZ` the person's shell sets
  when it names an IANA zone, else UTC), and the next 3 times, local;
* **which effect classes** each firing may have without asking: those of the plan the fitting template would
  build (of its operations when the words do not fill it), less what the person forbade; none and read only when
  no template fits;
* the defaults: a time that comes while the previous firing is going is skipped; after downtime only the last
  missed time fires.

The answer is read in the request's language: yes / tak / да adds it (`alicorn.schedule.book.add_schedule`, its
author the person who answered, checked by `alicorn.schedule.authority`), no / nie / нет drops it (nothing but the
answer and the report is journaled), another time ("every Tuesday at 7", "o 9", "в 10:30") proposes again. A process
with no time rule in the words asks when first ("once" runs it once now, as a task). A request that came from a
trigger (a schedule's own firing) is never proposed again: it runs once; one from an external channel is not
scheduled (only a person adds schedules). What the schedule package refuses (a forbidden effect, a rule with no
slot) is reported in the request's language, and nothing is scheduled.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from alicorn.anvil.risk import UNKNOWN, assess
from alicorn.anvil.words import effects_said
from alicorn.context.tap import JournalTap
from alicorn.core.choosing import NONE_WORDS, YES_WORDS, describe_recurrence
from alicorn.core.conversation import ConversationState
from alicorn.core.intake import IntentEnvelope
from alicorn.core.report import Report, fallback
from alicorn.core.select import WorkflowSelector
from alicorn.core.turn import Turn
from alicorn.i18n import tr
from alicorn.models.intent.recurrence import find_recurrence
from alicorn.packs.workflow import Workflow
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass, Plan, goal_digest
from alicorn.runtime.world import parse_time
from alicorn.schedule.authority import Authority
from alicorn.schedule.book import add_schedule, upcoming
from alicorn.schedule.errors import ScheduleError
from alicorn.schedule.rules import next_slot, parse_cron, zone_of
from alicorn.schedule.spec import ALWAYS_ALLOWED, SENDING, ScheduleSpec

if TYPE_CHECKING:
    from alicorn.app import App
    from alicorn.runtime.world import Clock

#: How many times Core asks (the proposal, or "when?") before it stops safely, scheduling nothing.
MAX_ASKS = 3
#: How many of the next times a proposal and its report show.
NEXT_SLOTS = 3
#: Answers (first word, lowercased) to "when should it run?" that mean "just once, now".
ONCE_WORDS = ("once", "now", "raz", "teraz", "jednorazowo", "однажды", "сейчас", "один", "разово")
#: A bare clock time in an answer: "at 9", "o 9:30", "в 10", "7:15".
_CLOCK = re.compile(r"(?:\b(?:at|o|godz\.?|в|во)\s+(\d{1,2})(?:[:.](\d{2}))?\b)|(?:\b(\d{1,2})[:.](\d{2})\b)", re.I)


@dataclass(frozen=True)
class Proposal:
    """A schedule as Core proposes it (journaled in the question's `schedule_proposal`)."""

    request: str
    cron: str
    zone: str
    allow: tuple[EffectClass, ...]
    recurrence: dict[str, Any]
    template: str | None = None
    #: The hosts the template's plan reaches, which a schedule allowed to send data out must name.
    hosts: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "cron": self.cron,
            "zone": self.zone,
            "allow": list(self.allow),
            "recurrence": self.recurrence,
            "template": self.template,
            "hosts": list(self.hosts),
            "overlap": "skip",
            "catch_up": "last",
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        return cls(
            data["request"], data["cron"], data["zone"], tuple(data["allow"]), data["recurrence"], data.get("template"),
            tuple(data.get("hosts", ())),
        )  # fmt: skip

    def spec(self, author: str, project: str, language: str) -> ScheduleSpec:
        return ScheduleSpec(
            request=self.request,
            author=author,
            project=project,
            language=language if language in ("en", "pl", "ru") else None,
            rule=parse_cron(self.cron),
            zone=self.zone,
            allow=self.allow,
            hosts=self.hosts,
        )


def without_time_words(text: str, words: str) -> str:
    """`text` less the words that said when ("Every Monday … at 8"), tidied; `text` itself if nothing is left."""
    out = text
    for piece in (p.strip(" ,") for p in words.split("…")):
        if piece:
            out = re.sub(re.escape(piece), " ", out, count=1, flags=re.IGNORECASE)
    out = re.sub(r"\s+([,.;:!?])", r"\1", " ".join(out.split())).strip(" ,;:-–—")
    return out[:1].upper() + out[1:] if out else text


def changed_time(answer: str, language: str, recurrence: dict[str, Any]) -> dict[str, Any] | None:
    """The recurrence an answer changes the proposal to: a whole new rule ("every Tuesday at 7") or a new clock time
    for the same days ("o 9"); None when the answer names no time (or a time a rule of this kind has no place for)."""
    found = find_recurrence(answer, language)
    if found is not None:
        return found.model_dump(mode="json")
    match = _CLOCK.search(answer)
    fields = str(recurrence.get("cron", "")).split()
    if match is None or len(fields) != 5 or not (fields[0].isdigit() and fields[1].isdigit()):
        return None
    hour = int(match.group(1) or match.group(3))
    minute = int(match.group(2) or match.group(4) or 0)
    if hour > 23 or minute > 59:
        return None
    cron = " ".join([str(minute), str(hour), *fields[2:]])
    return {**recurrence, "cron": cron, "at": f"{hour:02d}:{minute:02d}", "description": None, "part_of_day": None}


def person_zone() -> str:
    """The zone the person's shell names (`TZ`, when an IANA zone), else UTC."""
    name = os.environ.get("TZ", "").removeprefix(":")
    try:
        zone_of(name)
    except ScheduleError:
        return "UTC"
    return name


class Recurring:
    """Proposing, changing, declining and adding a schedule for a recurring request (see the module docstring)."""

    app: App
    clock: Clock
    selector: WorkflowSelector
    workflows: dict[str, Workflow]
    #: The zone proposed schedules are read in (None: the person's `TZ`, else UTC).
    schedule_zone: str | None = None

    if TYPE_CHECKING:  # provided by Norbi and Execution (alicorn.core.norbi, alicorn.core.execution)

        def _language(self, state: ConversationState) -> str: ...

        def _forbidden(self, state: ConversationState, intent: IntentEnvelope) -> set[EffectClass]: ...

        def _write_report(self, conversation: str, tap: JournalTap, report: Report) -> None: ...

    def _recurring_schedule(
        self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap, recurrence: dict[str, Any] | None
    ) -> Turn | bool | None:
        """A process: propose a schedule (or ask when). True: go on as a one-off; None: a step was journaled."""
        if intent.provenance == "trigger":
            return True  # a schedule's own firing: one piece of work, never a new schedule
        language = self._language(state)
        if intent.provenance != "human":
            self._stop(state, intent, tap, tr(
                language,
                "a recurring request from a {provenance} channel: only a person can add a schedule (alicorn "
                "schedule add); nothing was scheduled or run",
                provenance=intent.provenance,
            ))  # fmt: skip
            return None
        asked = [i for i, q in enumerate(state.questions) if q.get("schedule_proposal") or q.get("schedule_when")]
        if not asked:
            if recurrence is None:
                self._ask_when(tap, language)
            else:
                self._propose(state, intent, tap, recurrence, None)
            return None
        question = state.questions[asked[-1]]
        answer = state.answers[asked[-1]] if len(state.answers) > asked[-1] else None
        if answer is None:
            return None
        text = str(answer["text"]).strip()
        first = text.lower().strip(" .!").split(" ")[0] if text else ""
        again = len(asked) < MAX_ASKS
        if question.get("schedule_when"):
            found = find_recurrence(text, language)
            if found is not None:
                self._propose(state, intent, tap, found.model_dump(mode="json"), None)
            elif first in ONCE_WORDS:
                return True
            elif again:
                self._ask_when(tap, language)
            else:
                self._stop(state, intent, tap, tr(language, "no answer said when it should run; nothing was scheduled"))
            return None
        proposal = Proposal.from_json(question["schedule_proposal"])
        changed = changed_time(text, language, proposal.recurrence)
        if changed is not None and changed.get("cron") != proposal.cron:
            self._propose(state, intent, tap, changed, proposal.request)
        elif first in YES_WORDS or text.lower().strip(" .!") in YES_WORDS:
            self._add(state, intent, tap, proposal, str(answer.get("by", "")))
        elif first in NONE_WORDS or text.lower().strip(" .!") in NONE_WORDS:
            self._stop(state, intent, tap, tr(language, "you declined the schedule; nothing was scheduled or run"))
        elif again:
            self._propose(state, intent, tap, proposal.recurrence, proposal.request, unclear=True)
        else:
            self._stop(state, intent, tap, tr(language, "no answer said yes, no or a time; nothing was scheduled"))
        return None

    # ---- the steps ------------------------------------------------------------------------------------------

    def _ask_when(self, tap: JournalTap, language: str) -> None:
        question = tr(
            language,
            "This is ongoing work: when should it run? Answer with a time rule, like “every Monday at 8”, or "
            "“once” to do it once now.",
        )
        tap.append("clarification.asked", {"question": question, "schedule_when": True})

    def _propose(
        self,
        state: ConversationState,
        intent: IntentEnvelope,
        tap: JournalTap,
        recurrence: dict[str, Any],
        request: str | None,
        *,
        unclear: bool = False,
    ) -> None:
        language = self._language(state)
        words = request or without_time_words(intent.utterance, str(recurrence.get("words", "")))
        zone = self.schedule_zone or person_zone()
        cron = str(recurrence.get("cron", ""))
        template, allow, hosts, held_back = self._allowance(words, intent, state, language)
        proposal = Proposal(words, cron, zone, allow, recurrence, template, hosts)
        try:
            rule = parse_cron(cron)
            tz = zone_of(zone)
        except ScheduleError as exc:
            self._stop(state, intent, tap, tr(language, "the schedule was not added: {error}", error=str(exc)))
            return
        slots: list[datetime] = []
        after = parse_time(self.clock.now())
        while len(slots) < NEXT_SLOTS and (slot := next_slot(rule, tz, None, after)) is not None:
            slots.append(slot)
            after = slot
        question = tr(
            language,
            "Shall I add this as a schedule? Each run does: {request}. When: {when}, in {zone} (cron {cron}); the "
            "next times: {slots}. Each run may: {effects}, without asking; anything more waits for a person. A time "
            "that comes while the previous run is still going is skipped; after downtime only the last missed time "
            "runs. Answer yes to add it, no to drop it, or give another time (like “every Tuesday at 7”).",
            request=words,
            when=describe_recurrence(recurrence, language),
            zone=zone,
            cron=cron,
            slots="; ".join(_local(s, zone, language) for s in slots),
            effects=_effects(allow, language, hosts),
        )
        if held_back:
            question += " " + tr(
                language,
                "Sending data out is not among what each run may do alone: its plan names no host to allow it for, "
                "so each run's sending waits for a person.",
            )
        if unclear:
            question = tr(language, "I did not take that as yes, no or a time.") + " " + question
        data = {"question": question, "schedule_proposal": proposal.to_json(), "next": [_utc(s) for s in slots]}
        tap.append("clarification.asked", data)

    def _allowance(
        self, request: str, intent: IntentEnvelope, state: ConversationState, language: str
    ) -> tuple[str | None, tuple[EffectClass, ...], tuple[str, ...], tuple[EffectClass, ...]]:
        """The fitting template, the effect classes its plan has (less what the request forbids), the hosts it
        reaches, and the classes held back. A schedule that may send data out names where to (`ScheduleSpec.hosts`):
        when the plan's hosts are not known now (the words do not fill the template, an operation sends without
        naming a host, or a host is computed at run time), sending is held back: each firing's sends wait for a
        person, and the question says so."""
        selection = self.selector.select(request, None, untrusted=not intent.authoritative)
        workflow = self.workflows.get(selection.workflow or "")
        if workflow is None:
            return None, ALWAYS_ALLOWED, (), ()
        found: set[EffectClass] = set()
        hosts: tuple[str, ...] = ()
        forbidden = self._forbidden(state, intent)
        try:
            now = parse_time(self.clock.now())
            params = workflow.parameters.model_validate(workflow.extract(request, language, now))
            built = workflow.build(params, frozenset(forbidden))
            found = {self.app.registry.get(node.operation).effect for node in built.nodes}
            plan = Plan(goal=request, goal_hash=goal_digest(request), nodes=list(built.nodes))
            reached = assess(plan, self.app.registry).hosts
            hosts = () if UNKNOWN in reached else tuple(reached)
        except (ValidationError, KeyError, ValueError):  # the words do not fill the template: its operations
            found = {op.effect for op in workflow.operations}
        wanted = {c for c in found if c not in forbidden}
        held_back = tuple(c for c in EFFECT_ORDER if c in wanted and c in SENDING and not hosts)
        allowed = (wanted - set(held_back)) | set(ALWAYS_ALLOWED)
        return workflow.id, tuple(c for c in EFFECT_ORDER if c in allowed), hosts, held_back

    def _add(
        self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap, proposal: Proposal, by: str
    ) -> None:
        language = self._language(state)
        if not by.startswith("human:"):
            self._stop(state, intent, tap, tr(
                language, "only an authenticated person can approve a schedule, not {by}; nothing was scheduled", by=by
            ))  # fmt: skip
            return
        try:
            spec = proposal.spec(by, intent.project, language)
            added = add_schedule(self.app.store, spec, self.clock, authority=Authority.from_app(self.app))
        except ScheduleError as exc:
            self._stop(state, intent, tap, tr(language, "the schedule was not added: {error}", error=str(exc)))
            return
        except ValidationError as exc:
            error = "; ".join(str(e["msg"]) for e in exc.errors())
            self._stop(state, intent, tap, tr(language, "the schedule was not added: {error}", error=error))
            return
        slots = upcoming(added, parse_time(self.clock.now()), NEXT_SLOTS)
        when = describe_recurrence(proposal.recurrence, language)
        times = "; ".join(_local(s, spec.zone, language) for s in slots)
        report = Report(
            conversation=state.id,
            outcome="complete",
            headline=tr(language, "Schedule {id} added: {when}, in {zone}.", id=added.id, when=when, zone=spec.zone),
            result=[tr(language, "the next times: {slots}", slots=times)],
            known=[
                tr(language, "each run does: {request}", request=spec.request),
                tr(language, "each run may: {effects}; anything more waits for a person", effects=_effects(
                    spec.allow, language, spec.hosts
                )),
                tr(language, "approved by {person}", person=by),
            ],
            decisions_needed=[
                tr(language, "see it: alicorn schedule show {id}; pause it: alicorn schedule pause {id}", id=added.id)
            ],
            pending_effects=[tr(language, "none: adding a schedule starts no run")],
            metrics={"schedule": added.id, "cron": proposal.cron, "zone": spec.zone, "next": [_utc(s) for s in slots]},
            language=language,
        )  # fmt: skip
        self._write_report(state.id, tap, report)

    def _stop(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap, why: str) -> None:
        language = self._language(state)
        report = fallback(
            state.id,
            why,
            known=[tr(language, "the request: {text}", text=intent.utterance)],
            missing=[],
            language=language,
        )
        self._write_report(state.id, tap, report)


def _utc(slot: datetime) -> str:
    return slot.strftime("%Y-%m-%dT%H:%M:%SZ")


def _local(slot: datetime, zone: str, language: str) -> str:
    """A slot as the person reads it: weekday, date and time in the schedule's zone."""
    from babel.dates import format_datetime

    local = slot.astimezone(zone_of(zone))
    return f"{format_datetime(local, 'EEE d MMM yyyy, HH:mm', locale=language)} {local.tzname()}"


def _effects(allow: tuple[str, ...], language: str, hosts: tuple[str, ...] = ()) -> str:
    beyond = [c for c in allow if c not in ALWAYS_ALLOWED]
    if not beyond:
        return tr(language, "only look (read), change nothing")
    said = effects_said(["read", *beyond], language)
    if hosts and any(c in SENDING for c in beyond):
        return tr(language, "{effects}, reaching only {hosts}", effects=said, hosts=", ".join(hosts))
    return said
