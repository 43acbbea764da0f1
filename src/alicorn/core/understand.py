"""Understanding a request: its kind, and the replies that need no plan (an answer, an alarm's triage).

Conversation and question get an answer with no effect; an alarm gets triage (how severe, who must look, now);
task and process go on to the planner. All of it is journaled in the conversation's stream by the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from alicorn.models.errors import ModelError
from alicorn.models.messages import ChatRequest
from alicorn.models.recorder import ModelClient

_GREETING = {
    "en": "Hello. Tell me what you need done; I plan it, show you its effects, and act only once it is approved.",
    "pl": "Dzień dobry. Powiedz, co mam zrobić; przygotuję plan, pokażę jego skutki i zadziałam po zatwierdzeniu.",
    "ru": "Здравствуйте. Скажите, что нужно сделать: я составлю план, покажу его последствия и начну после одобрения.",
}
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
             "włama", "ranny", "пожар", "дым", "газ", "затоп", "взлом", "проникн", "ранен")  # fmt: skip
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


def triage(text: str) -> Triage:
    """Severity from the words: critical (danger to people or property), high (a service down), else normal.

    Triage never acts: an alarm always ends with a human decision, at once for critical ones.
    """
    words = [w.lower() for w in _WORD.findall(text)]
    critical = tuple(w for w in words if w.startswith(_CRITICAL))
    high = tuple(w for w in words if w.startswith(_HIGH))
    if critical:
        return Triage("critical", critical, "a human must look now; call the on-site responder if people are at risk")
    if high:
        return Triage("high", high, "a human on duty must look within the hour")
    return Triage("normal", (), "a human should review it today")


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
