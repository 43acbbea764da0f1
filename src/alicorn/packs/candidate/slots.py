"""The candidate template's slots and how they are found in an utterance (English, Polish, Russian).

- `app`: the application's folder under the data root (default `app`), only when named in quotes after a word for
  application ("the app 'stockroom'", "aplikacji „shop”", "приложение «shop»").
- `variant`: only `demo` ("demo", "demonstracyjną", "демо-версию").
- `install`: True only for an affirmative install verb that no negation governs ("and install it", "zainstaluj",
  "установи"); "stop before installation", "do not install", "without installing", "nie instaluj", "bez
  instalacji", "zatrzymaj się przed instalacją", "не устанавливай", "остановись перед установкой" give False. A
  noun alone ("installation") never asks for an installation.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class CandidateParameters(BaseModel):
    """Slots of the build-a-candidate template."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    app: str = Field(
        "app",
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9_./-]*$",
        description="the application's folder under the data root",
    )
    variant: Literal["demo"] = Field("demo", description="which variant to build")
    install: bool = Field(False, description="install the package afterwards (only when the request asks)")

    @field_validator("app")
    @classmethod
    def _relative(cls, value: str) -> str:
        if ".." in value.split("/"):
            raise ValueError("app must be a folder inside the data root (no '..')")
        return value


_INSTALL_VERB = (
    r"install|installs|installing|reinstall|zainstaluj\w*|instaluj\w*|zainstalowa\w*|instalowa\w*"
    r"|установи|установите|установить|установим|устанавливай\w*|устанавливать|инсталлир\w*|проинсталлир\w*"
)
_INSTALL_NOUN = r"installation|instalacj\w*|установк\w*|инсталляци\w*"
_INSTALL = re.compile(rf"(?<!\w)(?:({_INSTALL_VERB})|{_INSTALL_NOUN})(?!\w)", re.IGNORECASE)
_NEGATORS = frozenset(
    {
        "not", "don't", "dont", "never", "no", "without", "before", "skip", "avoid", "instead", "prior", "nor",
        "won't", "shouldn't", "mustn't", "cannot", "can't",
        "nie", "bez", "przed", "zanim", "pomiń", "pomijając", "zamiast", "nigdy",
        "не", "без", "перед", "до", "пропусти", "вместо", "никогда", "нельзя",
    }
)  # fmt: skip
_CLAUSE = re.compile(r"[,.;:!?()\n]|\b(?:but|however|then|ale|lecz|potem|но|однако|затем|потом)\b", re.IGNORECASE)
_WORD = re.compile(r"[\w']+")
_DEMO = re.compile(r"(?<!\w)(?:demo\w*|demonstra\w*|демо\w*|демонстрац\w*)", re.IGNORECASE)
_APP = re.compile(
    r"(?<!\w)(?:app|application|aplikacj\w*|program\w*|приложени\w*|программ\w*)\s+"
    r"[\"'`«„“]([A-Za-z0-9_][A-Za-z0-9_.-]{0,63})[\"'`»”]",
    re.IGNORECASE,
)


def _negated(text: str, start: int) -> bool:
    """Whether a negation governs the word at `start`: one of the up to four words before it, in its clause."""
    before = text[:start]
    ends = [m.end() for m in _CLAUSE.finditer(before)]
    clause = before[ends[-1] :] if ends else before
    words = [w.lower() for w in _WORD.findall(clause)][-4:]
    return any(w in _NEGATORS or w.endswith("n't") for w in words)


def wants_install(text: str) -> bool | None:
    """True for an un-negated install verb, False when installation is mentioned only negated, else None."""
    mentioned = False
    for m in _INSTALL.finditer(text):
        mentioned = True
        if m.group(1) and not _negated(text, m.start()):
            return True
    return False if mentioned else None


def extract(text: str, language: str, now: datetime) -> dict[str, Any]:
    """Slot values found in `text` (only those found)."""
    found: dict[str, Any] = {}
    if m := _APP.search(text):
        found["app"] = m.group(1)
    if _DEMO.search(text):
        found["variant"] = "demo"
    install = wants_install(text)
    if install is not None:
        found["install"] = install
    return found


QUESTIONS: dict[str, dict[str, str]] = {
    "app": {
        "en": "Which application folder should I build the candidate from?",
        "pl": "Z którego folderu aplikacji mam zbudować kandydata?",
        "ru": "Из какой папки приложения собрать кандидата?",
    },
    "install": {
        "en": "Should I install the package after the build, or stop before installation?",
        "pl": "Czy zainstalować pakiet po zbudowaniu, czy zatrzymać się przed instalacją?",
        "ru": "Установить пакет после сборки или остановиться перед установкой?",
    },
}

EXAMPLES: dict[str, tuple[str, ...]] = {
    "en": (
        "Build a demo version of the application in an isolated candidate and stop before installation.",
        "Make a demo build of the app in a sandbox, run its tests and package it, but do not install it.",
        "Prepare an isolated demo candidate of our application and show me the diff and test results.",
        "Create a demo release candidate of the app, test it, and install it when the tests pass.",
    ),
    "pl": (
        "Zbuduj wersję demo aplikacji w izolowanym kandydacie i zatrzymaj się przed instalacją.",
        "Przygotuj demonstracyjną wersję aplikacji w osobnym katalogu, uruchom testy, nie instaluj.",
        "Zrób kandydata wersji demo naszej aplikacji i pokaż różnice oraz wyniki testów.",
        "Zbuduj demo aplikacji, przetestuj je i zainstaluj pakiet.",
    ),
    "ru": (
        "Собери демо-версию приложения в изолированном кандидате и остановись перед установкой.",
        "Подготовь демонстрационную сборку приложения в песочнице, прогони тесты, не устанавливай.",
        "Сделай изолированного кандидата демо-версии приложения и покажи дифф и результаты тестов.",
        "Собери демо приложения, протестируй и установи пакет.",
    ),
}
