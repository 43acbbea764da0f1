"""Redaction: the labelled set in English, Polish and Russian (recall 100% for secrets), placeholders, restore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alicorn.context.redact import Redactor, contains_secret, iban_ok, luhn_ok, pesel_ok, scrub_secrets

CASES = [
    json.loads(line)
    for line in (Path(__file__).parents[2] / "bench" / "data" / "redaction.jsonl").read_text("utf-8").splitlines()
]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_labelled_case_is_fully_redacted(case: dict[str, object]) -> None:
    redacted, _ = Redactor().redact(str(case["text"]))
    for severity, value in case["values"]:  # type: ignore[attr-defined]
        assert value not in redacted, f"{severity} value leaked: {redacted}"


def test_the_set_covers_three_languages_and_both_severities() -> None:
    assert {c["lang"] for c in CASES} == {"en", "pl", "ru"}
    for lang in ("en", "pl", "ru"):
        severities = {s for c in CASES if c["lang"] == lang for s, _ in c["values"]}
        assert severities == {"secret", "private"}


def test_secrets_alone_are_scrubbed_everywhere() -> None:
    for case in CASES:
        scrubbed, _ = scrub_secrets(case["text"])
        for severity, value in case["values"]:
            if severity == "secret":
                assert value not in scrubbed


def test_placeholders_are_stable_and_restorable() -> None:
    redactor = Redactor()
    text = "Mail anna.kowalska@firma.pl, then mail anna.kowalska@firma.pl again, and bob@x.org."
    redacted, counts = redactor.redact(text)
    assert redacted == "Mail [EMAIL_1], then mail [EMAIL_1] again, and [EMAIL_2]."
    assert counts == {"email": 3} and redactor.counts() == {"email": 3}
    assert redactor.restore("Reply to [EMAIL_2] first") == "Reply to bob@x.org first"


def test_known_names_are_found_in_inflected_forms() -> None:
    redactor = Redactor(names=["Zenobia Gąsienica", "Аркадий Стругацкий"])
    text = "Grafik dla Zenobii Gąsienicy. Позвони Аркадию Стругацкому. Gąsienicy nie ma."
    redacted, _ = redactor.redact(text)
    assert "Zenobi" not in redacted and "Gąsienic" not in redacted and "Аркади" not in redacted


def test_ordinary_text_survives() -> None:
    for text in (
        "Prepare three variants of next month's work schedule and do not publish changes.",
        "Zbuduj wersję demonstracyjną aplikacji i zatrzymaj się przed instalacją.",
        "Проанализируй вчерашние тревоги камер и удали дубликаты.",
        "Render time grew from 120 s to 150 s on 2026-01-05 in version 3.11.7.",
    ):
        assert Redactor().redact(text)[0] == text


def test_checksums() -> None:
    assert pesel_ok("44051401359") and not pesel_ok("44051401358")
    assert iban_ok("PL61 1090 1014 0000 0712 1981 2874") and not iban_ok("PL61 1090 1014 0000 0712 1981 2875")
    assert luhn_ok("4111 1111 1111 1111") and not luhn_ok("4111 1111 1111 1112")


_KEYS = st.one_of(
    st.from_regex(r"sk-(proj-)?[A-Za-z0-9]{20,40}", fullmatch=True),
    st.from_regex(r"ghp_[A-Za-z0-9]{36}", fullmatch=True),
    st.from_regex(r"AKIA[0-9A-Z]{16}", fullmatch=True),
    st.from_regex(r"xoxb-[0-9]{10,12}-[A-Za-z0-9]{10,24}", fullmatch=True),
)
_FILLER = st.text(alphabet=st.sampled_from("abc xyz ąęł жзи.,:\n"), max_size=40)


@given(_FILLER, _KEYS, _FILLER)
def test_any_api_key_in_any_text_is_scrubbed(before: str, key: str, after: str) -> None:
    text = f"{before} {key} {after}"
    assert contains_secret(text)
    assert key not in scrub_secrets(text)[0]


@given(
    st.sampled_from(["password", "Password", "hasło", "Hasło", "пароль", "Пароль", "api_key", "token"]),
    st.sampled_from([": ", "=", " = ", ":"]),
    st.from_regex(r"[A-Za-z0-9!#%]{6,20}", fullmatch=True),
)
def test_any_keyword_secret_is_scrubbed(keyword: str, separator: str, value: str) -> None:
    assert value not in scrub_secrets(f"the {keyword}{separator}{value} is set")[0]


def test_a_setting_after_a_secret_word_is_not_a_secret() -> None:
    # "tests_must_pass=True" is a validation criterion in a report, not a password: redacting it corrupted reports.
    for text in ("accepted when: installed=False, tests_must_pass=True", "token: none", "require_password = false"):
        assert scrub_secrets(text) == (text, 0), text
    assert scrub_secrets("db_pass=Kot!23x")[1] == 1 and scrub_secrets("password: yes-really-7")[1] == 1
