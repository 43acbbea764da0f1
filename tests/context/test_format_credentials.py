"""The credentials the journal redacts by their format: a URL's password, an AWS secret key next to its key id, and
a credential-looking value right after a credential's label. Each detector with what it must leave alone, the fast
hint that gates them, and the project's own corpora (which none of them may change)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from alicorn import canonical
from alicorn.context.redact import FORMAT_CREDENTIALS, find, might_hold_credential, scrub_secrets
from alicorn.packs import pack_dir
from alicorn.secrets import KnownSecrets

ROOT = Path(__file__).parents[2]
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def journaled(text: str) -> str:
    """`text` as the journal stores it (the home knows no values: only the format detectors act)."""
    return KnownSecrets().redact_text(text)[0]


def categories(text: str) -> list[str]:
    return [f.category for f in find(text, severities=("secret",), categories=FORMAT_CREDENTIALS)]


# ---- a URL's password ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("db postgres://admin:S3cr3tPass@db.local/x", "db postgres://admin:[SECRET:url_password]@db.local/x"),
        ("mysql://root:pw@10.0.0.5:3306/db", "mysql://root:[SECRET:url_password]@10.0.0.5:3306/db"),
        ("redis://:s3cret@cache:6379", "redis://:[SECRET:url_password]@cache:6379"),  # no user
        ("amqp://u:p@ss:w0rd@mq/vhost", "amqp://u:[SECRET:url_password]@mq/vhost"),  # an '@' typed in the password
        ("https://bob:hunter2@example.com?x=1", "https://bob:[SECRET:url_password]@example.com?x=1"),
        ('{"url": "ftp://me:Pa55%40x@files"}', '{"url": "ftp://me:[SECRET:url_password]@files"}'),
    ],
)
def test_a_urls_password_is_replaced_and_its_user_and_host_kept(text: str, expected: str) -> None:
    assert journaled(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "https://example.com:8443/path",
        "http://host:8080/users/@me",  # '@' in the path, not the authority
        "ssh://git@github.com:22/org/repo.git",  # a user, no password
        "git@github.com:org/repo.git",
        "mail anna@example.com, see https://x.example/a:b",
        "postgres://app:${DB_PASSWORD}@db/x",  # a variable, not a value
        "postgres://app:$PGPASS@db/x",
        "postgres://app:{{ password }}@db/x",
        "postgres://app:<password>@db/x",
        "postgres://app:****@db/x",  # masked
        "postgres://app:[SECRET_1]@db/x",  # already redacted
    ],
)
def test_urls_without_a_password_are_left_alone(text: str) -> None:
    assert journaled(text) == text


# ---- an AWS secret access key ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"AWS {AWS_ID} secret {AWS_SECRET}, github",
        f"aws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n",
        f"export AWS_ACCESS_KEY_ID=ASIAY34FZKBOKMUTVV7A AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
        f'{{"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "SecretAccessKey": "{AWS_SECRET}"}}',
        f"aws_secret_access_key: {AWS_SECRET}",  # under its own label, no key id in the text
    ],
)
def test_an_aws_secret_key_next_to_its_key_id_or_under_its_label_is_replaced(text: str) -> None:
    assert AWS_SECRET not in journaled(text)
    assert "aws_secret_key" in categories(text)


@pytest.mark.parametrize(
    "text",
    [
        f"release notes: {AWS_SECRET}",  # 40 characters of base64 without a key id: could be anything
        f"{AWS_ID} commit da39a3ee5e6b4b0d3255bfef95601890afd80709",  # a hex digest: one case only
        f"{AWS_ID} path/to/some/long/file/name/in/the/repo/x",  # no digit nor '+': a path
        f"{AWS_ID} {AWS_SECRET}Z",  # 41 characters: not a key
        f"{AWS_ID} {'a' * 20}{'B' * 20}",  # no digit, '/' or '+'
    ],
)
def test_forty_characters_that_are_not_an_aws_key_are_left_alone(text: str) -> None:
    assert "aws_secret_key" not in categories(text)


# ---- a credential under its label -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my password: Tr0ub4dor&3xyz, AWS", "Tr0ub4dor&3xyz"),
        ("password=hunter2", "hunter2"),
        ("Password: Hunter2-SuperSecret!", "Hunter2-SuperSecret!"),
        ("hasło: Kot!23x.", "Kot!23x"),
        ("Hasło=mruczek77", "mruczek77"),
        ("пароль: Медведь#1", "Медведь#1"),
        ("passwd: s3cr3t-Pa55", "s3cr3t-Pa55"),
        ("pwd=Ab12cd34", "Ab12cd34"),
        ("secret: 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
        ("token: 3f2a-77bc-91de-aa01", "3f2a-77bc-91de-aa01"),
        ("DB_PASSWORD=hunter2!x\n", "hunter2!x"),
        ('DB_PASSWORD="S3cr3t!x"', "S3cr3t!x"),
        ("spring.datasource.password = Pa55word", "Pa55word"),
        ('{"password": "Hunter2-SuperSecret!"}', "Hunter2-SuperSecret!"),
        ("dbPassword: abc123!", "abc123!"),
        ("client_secret: 7Fj2kL9mQ", "7Fj2kL9mQ"),
        ("API_KEY=a8f5f167f44f4964e6c998dee827110c", "a8f5f167f44f4964e6c998dee827110c"),
        ("https://api.example/v1?token=abc123def&page=2", "abc123def"),
        ("password := 'Kot!23x'", "Kot!23x"),
    ],
)
def test_a_credential_given_under_its_label_is_replaced(text: str, value: str) -> None:
    redacted = journaled(text)
    assert value not in redacted and "[SECRET:labelled_secret]" in redacted, redacted
    assert redacted == text.replace(value, "[SECRET:labelled_secret]", 1)  # the label and the punctuation kept


@pytest.mark.parametrize(
    "text",
    [
        # prose: a label is a key, directly followed by its value
        "reset my password tomorrow",
        "the password policy requires 12 characters",
        "token bucket with 4096 slots",
        "the password: at least 12 characters",  # the value must be one credential-like token
        "Password: Use a strong one",
        "secret santa list: 2026-12",
        "hasło do wifi: Kot!23",  # a guess (keyword, then words): prompts and logs only
        "token count: 1234",
        "ключ к успеху: 42-й",
        # settings and numbers
        "token: 4096",
        "max_tokens=512",
        "tokens: 1234",
        "token_type: bearer",
        "password_min_length: 12",
        "require_password = false",
        "password: required",
        "token: none",
        "expires: 2026-11-30T12:00:00Z",
        "secret: 12:30:45",
        # references, paths, globs, masks, placeholders
        "pwd=/home/alice/projects",
        "PWD=./build/out",
        "password: $DB_PASS",
        "password: ${DB_PASS}",
        "password: %PASSWORD%",
        "token: <your-token>",
        "password: ********",
        "password: xxxxxxxx",
        "secret: keys/**",
        "secret: keys/api.json",
        "token: [SECRET:api_key]",
        "password: [SECRET_1]",
        "token: https://auth.example/callback2",
        # code
        "password = os.environ['DB_PASSWORD']",
        "password = getpass()",
        "token = tokens[i+1]",
        "token = max_tokens",
        "if token == abc123x:",
        "token::Kind",
        # plain words and numbers after a label are not told from a credential: left to prompts and logs
        "password: qwerty",
        "pwd: 12345678",
    ],
)
def test_prose_settings_references_and_code_after_a_label_are_left_alone(text: str) -> None:
    assert journaled(text) == text


def test_prompts_and_logs_still_use_the_keyword_guesses() -> None:
    assert scrub_secrets("password: qwerty")[1] == 1 and scrub_secrets("hasło do wifi: Kot!23")[1] == 1


# ---- properties ----------------------------------------------------------------------------------------------------

_PIECES = [
    "password", "Password", "DB_PASSWORD", "hasło", "пароль", "pwd", "token", "secret", "api_key",
    ": ", "=", ":", '"', "'", "\n", "\t", " ", ",", ".", "\\", "&", "?", "@", "/", "://", "postgres", "admin",
    "Tr0ub4dor&3", "hunter2", "S3cr3t!", "4096", "word", "${X}", "[SECRET_1]", AWS_ID, AWS_SECRET, "ghp_" + "a1B2" * 6,
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14))
# JSON writes these strings with escapes ("\\n", "\\t", '\\"') a detector must not be run over.
@example(["x", "\n", "ghp_" + "a1B2" * 6])
@example(["password", ":", "\t", "Tr0ub4dor&3"])
@example(["say ", '"', "password", '"', ": ", '"', "S3cr3t!", '"'])
@example([AWS_ID, "\n", AWS_SECRET])
def test_the_journals_redaction_is_idempotent_and_the_same_inside_a_structure(parts: list[str]) -> None:
    text = "".join(parts)
    once = journaled(text)
    assert journaled(once) == once  # a replayed, already-redacted journal comes out unchanged
    # An event's strings are redacted as the strings alone are, whatever the JSON escapes of its text look like.
    assert KnownSecrets().redact({"a": [text], text: 1}) == {"a": [once], once: 1}
    value = {"out": text}
    redacted, encoded = KnownSecrets().redact_encoded(value)
    assert redacted == {"out": once} and encoded == canonical.dumps(redacted)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14))
def test_the_journals_fast_hint_never_hides_what_the_new_detectors_find(parts: list[str]) -> None:
    text = "".join(parts)
    if scrub_secrets(text, FORMAT_CREDENTIALS)[1]:
        assert might_hold_credential(text, FORMAT_CREDENTIALS)
        assert might_hold_credential(canonical.dumps({"a": text}), FORMAT_CREDENTIALS)


def test_a_value_that_passes_the_hint_but_holds_nothing_is_returned_itself() -> None:
    """ "task-" holds the hint "sk-": such an event is walked, and comes back as the same object (not re-encoded)."""
    value = {"node": "task-1", "inputs": [{"note": "password policy: strict"}, 3]}
    assert might_hold_credential(canonical.dumps(value), FORMAT_CREDENTIALS)
    assert KnownSecrets().redact(value) is value
    assert KnownSecrets().redact_encoded(value)[0] is value


def test_the_hint_looks_past_a_label_word_without_a_value() -> None:
    text = "the password policy applies; password: Hunter2!x"
    assert might_hold_credential(text, FORMAT_CREDENTIALS)
    assert journaled(text) == "the password policy applies; password: [SECRET:labelled_secret]"
    assert KnownSecrets().redact({"note": text}) == {"note": journaled(text)}


def test_a_structures_own_secret_key_does_not_pass_the_hint() -> None:
    """Every `run.created` holds the data labels (`"secret":["keys/**"]`): a hint on that would scan each in full."""
    labels = canonical.dumps({"labels": {"private": ["hr/**"], "secret": ["keys/**"]}, "token_budget": 4096})
    assert not might_hold_credential(labels, FORMAT_CREDENTIALS)


# ---- the project's own texts -----------------------------------------------------------------------------------------


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_no_request_or_memory_text_of_the_benches_is_changed() -> None:
    """bench/data's request, utterance and memory texts (thousands, three languages): none holds a credential, so
    the journal keeps every one as written. The redaction set (labelled secrets) is tested elsewhere."""
    checked = 0
    for path in sorted((ROOT / "bench" / "data").glob("*.jsonl")):
        if path.name == "redaction.jsonl":
            continue
        for line in path.read_text("utf-8").splitlines():
            for text in _strings(json.loads(line)):
                checked += 1
                assert journaled(text) == text, (path.name, text)
    assert checked > 3000


def test_the_packs_sample_files_and_the_journal_corpus_are_unchanged() -> None:
    samples = [p for p in pack_dir("alarms").parent.rglob("*") if p.is_file() and p.suffix not in {".py", ".pyc"}]
    assert len(samples) >= 10
    for path in samples:
        text = path.read_text("utf-8")
        assert journaled(text) == text, path
    corpus = sorted((ROOT / "tests" / "corpus").glob("*.jsonl"))
    assert corpus
    for path in corpus:
        for line in path.read_text("utf-8").splitlines():
            event = json.loads(line)
            assert KnownSecrets().redact(event) is event, path  # recorded journals replay and import as they are


@pytest.mark.parametrize(
    "text",
    [
        "password=a" + "." * 50_000 + "x",  # a lazy value looking ahead at each character took minutes
        ("password=" + ".") * 5_000,
        ('token="' + "a" * 5) * 4_000,
        "AKIAIOSFODNN7EXAMPLE " * 6_000 + "x" * 100,  # each id scanning the rest of the text for a key: quadratic
        "://a:" * 10_000,
        "token=" + "&a" * 25_000,
    ],
    ids=["dots", "labels", "quotes", "aws-ids", "urls", "ampersands"],
)
def test_hostile_text_costs_linear_time(text: str) -> None:
    """Journaled text comes from tool outputs and web pages: these take a fraction of a second here; a detector that
    backtracks quadratically makes this test run for minutes (no clock is read: the suite's own time shows it)."""
    assert journaled(journaled(text)) == journaled(text)
