"""What Core says about effect classes and checks is in words, in the request's language: the journal and `--json`
keep the codes (`external_transmission`, `time_limits`); a person reads "sending outside", "limity czasu pracy"."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from alicorn.anvil.words import effect_said, effects_said
from alicorn.packs.workflow import LeftOut
from alicorn.plan.dsl import EFFECT_ORDER
from alicorn.validate.base import CHECK_TITLES, CheckResult

SRC = Path(__file__).resolve().parents[2] / "src" / "alicorn"


@pytest.mark.parametrize("language", ["en", "pl", "ru"])
def test_every_effect_class_has_words_in_every_language(language: str) -> None:
    said = [effect_said(effect, language) for effect in EFFECT_ORDER]
    assert not [s for s in said if "_" in s], said  # no code slips through
    assert len(set(said)) == len(EFFECT_ORDER), said  # and no two classes read the same
    if language != "en":
        english = {effect_said(effect, "en") for effect in EFFECT_ORDER}
        assert not english & set(said), said


def test_effect_words_keep_the_order_and_show_an_unknown_code_as_it_is() -> None:
    assert effects_said(["publication", "external_transmission"], "pl") == "publikacja, wysyłanie na zewnątrz"
    assert effects_said([], "ru") == ""
    assert effect_said("teleportation", "pl") == "teleportation"


def test_a_left_out_node_says_its_effect_in_the_requests_language() -> None:
    node = LeftOut("send", "mail.send", effect="external_transmission")
    assert node.sentence("en") == "send (mail.send, sending outside): left out, the request forbids it"
    assert node.sentence("ru") == "send (mail.send, отправка вовне): пропущено, просьба это запрещает"
    everything = LeftOut("*", effect="read and none")
    assert (
        everything.sentence("pl") == "wszystkie kroki: proces potrzebuje: odczyt, brak efektu, a prośba tego zabrania"
    )


def _literal_check_names() -> set[str]:
    """Every check name written as a literal in src/alicorn: `check("name", …)`, and in alicorn.validate also a
    validator's own `_check("name", …)`, `_result("name", …)` and `CheckResult(name="name", …)` (the arbiter's
    CheckResult is another)."""
    names = set()
    for path in SRC.rglob("*.py"):
        builders = ("check", "_check", "_result", "CheckResult") if path.parent.name == "validate" else ("check",)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            first = node.args[0] if node.args else None
            if callee == "CheckResult":
                first = next((k.value for k in node.keywords if k.arg == "name"), first)
            if callee in builders and isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(first.value)
    return names


def test_every_check_the_code_names_has_a_title() -> None:
    names = _literal_check_names()
    assert {"coverage", "time_limits", "data", "tests", "speakers"} <= names  # the scan finds what it should
    assert names - set(CHECK_TITLES) == set(), "add a title to CHECK_TITLES in src/alicorn/validate/base.py"


@pytest.mark.parametrize(("language", "title"), [("en", "time limits"), ("pl", "limity czasu pracy")])
def test_a_check_is_called_by_its_title(language: str, title: str) -> None:
    result = CheckResult(name="time_limits", passed=True, detail="ok")
    assert result.title(language) == title
    assert CheckResult(name="made_up", passed=True, detail="ok").title(language) == "made_up"
