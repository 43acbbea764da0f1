"""How Core decides what a request is before it plans: recurring or not, work or a question, which template (or
none of them), and what the person meant when answering "which of these".

Mixed into Norbi (alicorn.core.norbi), which provides the conversation's tap, the routed model clients, the
contract and the reports.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from alicorn.context.tap import JournalTap
from alicorn.core.contract import OutcomeContract
from alicorn.core.conversation import ConversationState
from alicorn.core.intake import IntentEnvelope
from alicorn.core.report import Report, fallback
from alicorn.core.select import Selection, WorkflowSelector
from alicorn.core.turn import Turn
from alicorn.i18n import tr, tr_marked, trn
from alicorn.models.intent.cues import asks_for_a_fact
from alicorn.models.recorder import ModelClient
from alicorn.packs.workflow import Workflow
from alicorn.periods import InvalidDate, find_period


def impossible_date(text: str, language: str, now: datetime) -> str | None:
    """The words of a date `text` names that does not exist ("30 February", "31 listopada"), or None."""
    try:
        find_period(text, language, now)
    except InvalidDate as exc:
        return exc.words
    return None


#: What `_chosen_by_answer` returns when the human says no offered template fits.
NONE_OF_THESE = "-none-"
#: Answers that mean "none of these" (compared with the whole answer, lowercased).
NONE_WORDS = (
    "none",
    "none of these",
    "neither",
    "no",
    "nothing",
    "żadne",
    "żaden",
    "zadne",
    "nic",
    "nie",
    "żadne z nich",
    "ни одно",
    "ничего",
    "никакое",
    "нет",
    "ни то ни другое",
)

#: Answers that mean "yes" (the first word of the answer, lowercased).
YES_WORDS = (
    "y",
    "yes",
    "yeah",
    "ok",
    "okay",
    "sure",
    "please",
    "t",
    "tak",
    "jasne",
    "dobrze",
    "д",
    "да",
    "давай",
    "конечно",
    "хорошо",
)

#: A question that matches a template's examples this closely (and leads the runner-up by the margin) is work.
QUESTION_AS_WORK = 0.45
QUESTION_MARGIN = 0.2


def describe_recurrence(recurrence: dict[str, Any], language: str) -> str:
    """A recurring schedule (alicorn.models.intent.recurrence, as journaled) in `language`."""
    if language == "en" and recurrence.get("description"):
        return str(recurrence["description"])
    from babel.dates import get_day_names

    n = int(recurrence.get("interval") or 1)
    frequency = recurrence.get("frequency")
    weekdays = [int(d) for d in recurrence.get("weekdays") or []]
    if weekdays:
        names = get_day_names("wide", locale=language if language in ("pl", "ru") else "en")
        when = tr(language, "on these days: {days}", days=", ".join(str(names[d]) for d in weekdays))
    elif frequency == "minutely":
        when = tr(language, "every minute") if n == 1 else trn(language, "every {n} minute", "every {n} minutes", n)
    elif frequency == "hourly":
        when = tr(language, "every hour") if n == 1 else trn(language, "every {n} hour", "every {n} hours", n)
    elif frequency == "weekly":
        when = tr(language, "every week") if n == 1 else trn(language, "every {n} week", "every {n} weeks", n)
    elif frequency == "monthly" and recurrence.get("day_of_month"):
        when = tr(language, "every month on day {day}", day=recurrence["day_of_month"])
    elif frequency == "monthly":
        when = tr(language, "every month") if n == 1 else trn(language, "every {n} month", "every {n} months", n)
    else:
        when = tr(language, "every day") if n == 1 else trn(language, "every {n} day", "every {n} days", n)
    if recurrence.get("at"):
        when = tr(language, "{when} at {time}", when=when, time=recurrence["at"])
    return when


class Choosing:
    """Recurring requests, work vs questions, templates and "none of these" (see the module docstring)."""

    workflows: dict[str, Workflow]
    selector: WorkflowSelector

    if TYPE_CHECKING:  # provided by Norbi and Execution (alicorn.core.norbi, alicorn.core.execution)

        def _language(self, state: ConversationState) -> str: ...

        def _client(self, role: str, state: ConversationState, tap: JournalTap) -> ModelClient | None: ...

        def _contract(
            self, state: ConversationState, intent: IntentEnvelope, workflow: Workflow | None, values: dict[str, Any]
        ) -> OutcomeContract: ...

        def _write_report(self, conversation: str, tap: JournalTap, report: Report) -> None: ...

    def _recurring(
        self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap, recurrence: dict[str, Any]
    ) -> Turn | bool | None:
        """A recurring request is a process: Core says so, with the schedule it understood. There is no scheduler
        yet, so it offers to run the work once now (True: go on, as a one-off), and never runs it unasked."""
        language = self._language(state)
        asked = [i for i, q in enumerate(state.questions) if q.get("recurring")]
        if not asked:
            question = tr(
                language,
                "This is a recurring request: {schedule} (cron {cron}). Alicorn cannot run it on a "
                "schedule yet; shall I do it once now? (yes / no)",
                schedule=describe_recurrence(recurrence, language),
                cron=recurrence.get("cron", ""),
            )
            tap.append("clarification.asked", {"question": question, "recurring": True})
            return None
        # Questions and answers pair up in order: the answer to the recurring question has its index.
        answer = state.answers[asked[0]]["text"].lower().strip(" .!") if len(state.answers) > asked[0] else ""
        if answer.split(" ")[0] in YES_WORDS:
            return True
        report = fallback(
            state.id,
            tr(language, "a recurring request; nothing was run, and nothing will run on its own"),
            known=[
                tr(language, "the request: {text}", text=intent.utterance),
                tr(
                    language,
                    "its schedule: {schedule} (cron {cron})",
                    schedule=describe_recurrence(recurrence, language),
                    cron=recurrence.get("cron", ""),
                ),
            ],
            missing=[tr(language, "a scheduler to run it every time (not available yet)")],
            language=language,
        )
        self._write_report(state.id, tap, report)
        return None

    def _looks_like_work(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> bool:
        """A kind set only by a weak signal ("a statement without a request") yields to a workflow template the
        words clearly match: "Announce it, then run the farm job" is work, not small talk; so does a question whose
        answer is a template's work, when the words match it closely. Journaled."""
        classification = state.classification or {}
        decided = str(classification.get("decided_by", {}).get("kind", ""))
        weak = "weak" in decided or decided == "default"
        if not weak and classification.get("kind") != "question":
            return False
        if classification.get("kind") == "question" and asks_for_a_fact(intent.utterance):
            return False  # "Didn't we already publish the schedule?": a fact, whatever template it is about
        selection = self.selector.select(intent.utterance, None)
        if selection.workflow is None or not selection.decided_by.startswith(("examples", "words")):
            return False
        if not weak and (selection.similarity < QUESTION_AS_WORK or selection.examples_margin < QUESTION_MARGIN):
            # A question is answered, unless answering it *is* a template's work ("Which of yesterday's alarms
            # need a human?"): then the words must match that template closely.
            return False
        tap.append(
            "intent.reclassified",
            {
                "kind": "task",
                "was": (state.classification or {}).get("kind"),
                "why": f"only a weak signal said {decided}; the words clearly match workflow {selection.workflow} "
                f"(similarity {selection.similarity})",
            },
        )
        return True

    def _work_an_alarm_names(self, intent: IntentEnvelope) -> str | None:
        """The workflow whose work an alarm's words name ("Cold store monitoring has gone mental, coldstore_events.csv
        got 50 rows in ten minutes, tell me which are real"), or None: only the words decide (the template's subject
        named in them), never similarity alone."""
        selection = self.selector.select(intent.utterance, None)
        if selection.workflow is None or not selection.decided_by.startswith("words"):
            return None
        return selection.workflow

    def _chosen_by_answer(self, state: ConversationState) -> str | None:
        """The workflow the human named when answering a "which of these" question (by number, id or title), or
        NONE_OF_THESE when they said none fits."""
        if not state.questions or not state.answers or not state.questions[-1].get("options"):
            return None
        answer = state.answers[-1]["text"].lower().strip(" .!")
        options = [w for w in state.questions[-1]["options"] if w in self.workflows]
        if answer.isdigit():
            number = int(answer)
            return options[number - 1] if 1 <= number <= len(options) else NONE_OF_THESE
        if any(answer == w or answer.startswith(w + " ") for w in NONE_WORDS) or answer in NONE_WORDS:
            return NONE_OF_THESE
        titles = {
            w: (self.workflows[w].title.lower(), tr_marked(self._language(state), self.workflows[w].title).lower())
            for w in options
        }
        named = [w for w in options if w.lower() in answer or any(t in answer for t in titles[w])]
        return named[0] if len(named) == 1 else None

    def _no_template(
        self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap, selection: Selection | None
    ) -> Turn | None:
        """No template was chosen: ask which one (offering "none of these") when some are plausible, else let a
        planner-grade model write a free plan, else say so — never run a template the words do not support."""
        language = self._language(state)
        asked = [q for q in state.questions if q.get("options")]
        if selection is not None and selection.ambiguous and len(asked) < 2:
            options = [w for w in dict.fromkeys((selection.examples_vote, selection.runner_up)) if w]
            numbered = [f"{i}) {tr_marked(language, self.workflows[w].title)}" for i, w in enumerate(options, 1)]
            none = f"{len(options) + 1}) " + tr(language, "none of these")
            question = tr(language, "Which of these do you mean: {options}?", options="; ".join([*numbered, none]))
            tap.append("clarification.asked", {"question": question, "options": options})
            return None
        planner = self._client("planner", state, tap)
        if planner is not None:
            contract = self._contract(state, intent, None, {})
            tap.append(
                "contract.fixed", {"contract": contract.model_dump(mode="json"), "goal_hash": contract.goal_hash}
            )
            return None
        menu = "; ".join(tr_marked(language, w.title) for w in self.workflows.values())
        report = fallback(
            state.id,
            tr(
                language,
                "no workflow template fits this request, and no model strong enough to write a plan of its "
                "own is available",
            ),
            known=[
                tr(language, "the request: {text}", text=intent.utterance),
                tr(language, "what I can do: {menu}", menu=menu),
            ],
            missing=[
                tr(language, "a template for this kind of work, or a planner-grade model profile (reasoning ≥ 2)")
            ],
            language=language,
        )
        self._write_report(state.id, tap, report)
        return None
