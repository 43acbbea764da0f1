"""Known secrets: the values that are secrets for this home, and the one function that takes them out of text.

DESIGN.md invariant 7 says no secret reaches the journal, a prompt or a log. Pattern detectors
(`alicorn.context.redact.scrub_secrets`) catch what looks like a key; they cannot know that `Tr0ub4dor&3` in a
file under `keys/` is one. `KnownSecrets` holds the values that are secrets *here*:

* values in the operator's configuration whose key says they are one (`api_key`, `token`, `password`, ...);
* the values of environment variables the configuration references (a model profile's `api_key_env`), and of
  variables whose names say they hold one (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`);
* the contents of the data files the operator labels `secret` (`[data] secret = ["keys/**"]`): the whole value,
  each line and each token of meaningful length.

`redact` replaces each known value (and its base64 and hex forms) with a numbered placeholder (`[SECRET_1]`), then
applies the detectors of credentials known by their format (`FORMAT_CREDENTIALS`: `[SECRET:api_key]`, a URL's
password, an AWS secret key next to its key id, a credential-looking value right after a credential's label such as
"password: Tr0ub4dor&3"; payment cards are left to the prompt path, whose `scrub_secrets` replaces them: their
checksum also matches ordinary long numbers in journaled data). It depends on the text alone (and the home's values),
so a replayed run redacts what it journals exactly as the first did, and it is idempotent: placeholders are never
replaced again, so text already redacted (a journal being replayed) comes out unchanged. The values live in memory
only; neither they nor their hashes are ever returned in a form meant for storage, and `repr` shows only how many
there are.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alicorn import canonical
from alicorn.context.redact import (
    CREDENTIAL_CATEGORIES,
    FORMAT_CREDENTIALS,
    PLACEHOLDER,
    might_hold_credential,
    scrub_secrets,
)

if TYPE_CHECKING:  # the journal imports this module: it stays below anvil
    from alicorn.anvil.labels import DataLabels

#: Shorter values are not treated as known secrets: they would redact ordinary words and numbers.
MIN_LENGTH = 8
#: The most of one secret-labelled file that is read for its values.
MAX_FILE_BYTES = 256 * 1024
#: The most secret-labelled files read under one data root.
MAX_FILES = 2000

_SECRET_KEY = re.compile(r"(?i)(?:api[_-]?key|apikey|token|secret|passw(?:or)?d|passphrase|credential|auth)")
_ENV_REFERENCE = re.compile(r"(?i)(?:^|_)env$")
_SECRET_ENV = re.compile(r"(?i)(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)")
_TOKEN_SPLIT = re.compile(r"[\s\"'`=:,;()\[\]{}<>]+")


def _meaningful(token: str) -> bool:
    """A token long enough, and unlike a plain word, to be worth treating as a secret of its own."""
    if len(token) < MIN_LENGTH:
        return False
    has_digit = any(ch.isdigit() for ch in token)
    has_alpha = any(ch.isalpha() for ch in token)
    has_other = any(not ch.isalnum() for ch in token)
    return len(token) >= 20 or (has_digit and has_alpha) or (has_other and (has_alpha or has_digit))


def pieces(text: str) -> set[str]:
    """The values a secret text yields: the whole (stripped), each line holding a meaningful token, each token."""
    found: set[str] = set()
    whole = text.strip()
    if len(whole) >= MIN_LENGTH:
        found.add(whole)
    for line in text.splitlines():
        tokens = [t for t in _TOKEN_SPLIT.split(line) if _meaningful(t)]
        found.update(tokens)
        if tokens and len(line.strip()) >= MIN_LENGTH:
            found.add(line.strip())
    return found


def _encodings(value: str) -> Iterator[str]:
    """The forms a value is commonly re-encoded in: base64 (standard, URL-safe, unpadded) and hex."""
    raw = value.encode("utf-8")
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = encoded.decode("ascii")
        yield text
        yield text.rstrip("=")
    yield raw.hex()
    yield raw.hex().upper()


class KnownSecrets:
    """The secret values of one home (see the module docstring). Immutable; `merged` makes a larger set."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: tuple[str, ...] = tuple(sorted({v for v in values if len(v) >= MIN_LENGTH}))
        placeholders: dict[str, str] = {}
        for number, value in enumerate(self._values, start=1):
            placeholders.setdefault(value, f"[SECRET_{number}]")
        for number, value in enumerate(self._values, start=1):
            for form in _encodings(value):
                if len(form) >= MIN_LENGTH:
                    placeholders.setdefault(form, f"[SECRET_{number}]")
        self._placeholders = placeholders
        ordered = sorted(placeholders, key=lambda v: (-len(v), v))  # longest first: the alternation takes the first
        self._pattern = re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None
        # What `redact` looks for in a whole value's JSON text first: the values as JSON writes them, too.
        escaped = {json.dumps(v, ensure_ascii=False)[1:-1] for v in ordered} | set(ordered)
        self._probe = re.compile("|".join(re.escape(v) for v in sorted(escaped))) if escaped else None

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"KnownSecrets({len(self._values)} values)"

    def merged(self, other: KnownSecrets | Iterable[str]) -> KnownSecrets:
        """A set holding these values and `other`'s."""
        more = other._values if isinstance(other, KnownSecrets) else tuple(other)
        return KnownSecrets((*self._values, *more))

    # ---- redaction --------------------------------------------------------------------------------------------

    def redact_text(self, text: str, categories: frozenset[str] = FORMAT_CREDENTIALS) -> tuple[str, int]:
        """`text` with every known value and every secret the detectors of `categories` find replaced; also how
        many were replaced. The default (credentials known by their format) is the journal's; logs and CLI errors
        pass CREDENTIAL_CATEGORIES, which adds the keyword detectors ("password: …")."""
        count = 0
        if self._pattern is not None:
            text, count = self._pattern.subn(lambda m: self._placeholders[m.group(0)], text)
        if not might_hold_credential(text, categories):
            return text, count
        # Until nothing more is found: a replacement can give a detector the word boundary it lacked ("…horse" +
        # "password: x" becomes "[SECRET_1]password: x"), and redacting redacted text must change nothing (replay).
        # Placeholders are never replaced again, so each round only shrinks what is left to find.
        for _ in range(8):
            text, detected = scrub_secrets(text, categories)
            count += detected
            if not detected:
                break
        return text, count

    def redact(self, value: Any) -> Any:
        """`value` (JSON-like: dicts, lists, strings) with secrets replaced in every string, keys included.

        Returns `value` itself when nothing needed replacing, so the common case costs one scan of its text.
        """
        if isinstance(value, str):
            probe = value
        else:
            try:
                probe = json.dumps(value, ensure_ascii=False)
            except (TypeError, ValueError):  # not JSON: look at its strings one by one
                probe = "\n".join(_strings(value))
        if not self._may_hold(probe):
            return value
        return self._redact(value)

    def redact_encoded(self, value: Any) -> tuple[Any, str]:
        """`value` as `redact` returns it, and its canonical JSON (what the journal stores and hashes): the value is
        encoded once, and that text is what is probed, so storing or hashing it costs no second encoding. `value`
        must be JSON (canonical.dumps raises TypeError or ValueError otherwise, as storing it would)."""
        text = canonical.dumps(value)
        if not self._may_hold(text):
            return value, text
        redacted = self._redact(value)
        if redacted is value:
            return value, text
        return redacted, canonical.dumps(redacted)

    def _may_hold(self, text: str) -> bool:
        """Whether a value whose JSON is `text` may need redacting: holds a known value or passes the detectors'
        hints. The detectors themselves run on each string (`_redact`), never on the JSON: its escapes would hide
        what they find in a string ("x\\nghp_…" has no word boundary before "ghp_"; a value after "password:\\t")."""
        if self._probe is not None and self._probe.search(text):
            return True
        return might_hold_credential(text, FORMAT_CREDENTIALS)

    def holds_secret(self, text: str) -> bool:
        """Whether `text` holds a known value or anything the pattern detectors would replace."""
        if self._pattern is not None and self._pattern.search(text):
            return True
        return might_hold_credential(text, FORMAT_CREDENTIALS) and scrub_secrets(text, FORMAT_CREDENTIALS)[1] > 0

    def _redact(self, value: Any) -> Any:
        """`value` with its strings redacted; `value` itself (not a copy) when none changed."""
        if isinstance(value, str):
            redacted, count = self.redact_text(value)
            return redacted if count else value
        if isinstance(value, dict):
            items = [(self._redact(k) if isinstance(k, str) else k, self._redact(v)) for k, v in value.items()]
            if all(k is old_k and v is old_v for (k, v), (old_k, old_v) in zip(items, value.items(), strict=True)):
                return value
            return dict(items)
        if isinstance(value, list | tuple):
            parts = [self._redact(v) for v in value]
            if all(part is old for part, old in zip(parts, value, strict=True)):
                return value
            return type(value)(parts)
        return value


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield key
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


# ---- collecting ------------------------------------------------------------------------------------------------


def config_secrets(doc: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """(secret values, names of environment variables referenced) in a parsed configuration document.

    A string under a key that names a secret (`api_key`, `token`, `password`...) is a value; a string under a key
    ending in `env` (`api_key_env`) names an environment variable whose value is one.
    """
    values: set[str] = set()
    names: set[str] = set()
    pending: list[tuple[str, Any]] = list(doc.items())
    while pending:
        key, item = pending.pop()
        if isinstance(item, Mapping):
            pending.extend((str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            pending.extend((key, v) for v in item)
        elif isinstance(item, str) and item:
            if _ENV_REFERENCE.search(key):
                names.add(item)
            elif _SECRET_KEY.search(key):
                values.add(item)
    return values, names


def environment_secrets(env: Mapping[str, str], referenced: Iterable[str] = ()) -> set[str]:
    """The values of the referenced variables, and of every variable whose name says it holds a secret."""
    wanted = set(referenced) | {name for name in env if _SECRET_ENV.search(name)}
    return {env[name] for name in wanted if env.get(name)}


def labelled_file_secrets(root: Path, labels: DataLabels) -> set[str]:
    """The values of every data file under `root` that `labels` classifies `secret` (see `pieces`)."""
    if not labels.secret or not root.is_dir():
        return set()
    found: set[str] = set()
    seen = 0
    for path in sorted(root.rglob("*")):
        if seen >= MAX_FILES:
            break
        try:
            relative = path.relative_to(root).as_posix()
            if not path.is_file() or labels.classify(relative) != "secret":
                continue
            seen += 1
            with path.open("rb") as handle:
                raw = handle.read(MAX_FILE_BYTES)
        except OSError:
            continue  # unreadable here means unreadable to the run too
        found |= pieces(raw.decode("utf-8", "replace"))
    return found


def collect(
    *,
    documents: Iterable[Mapping[str, Any]] = (),
    env: Mapping[str, str] | None = None,
    env_names: Iterable[str] = (),
    data_roots: Iterable[tuple[Path, DataLabels]] = (),
) -> KnownSecrets:
    """The known secrets of a home: its configuration documents, the environment and its secret-labelled files."""
    values: set[str] = set()
    names = set(env_names)
    for doc in documents:
        found, referenced = config_secrets(doc)
        values |= found
        names |= referenced
    values |= environment_secrets(os.environ if env is None else env, names)
    for root, labels in data_roots:
        values |= labelled_file_secrets(root, labels)
    return KnownSecrets(values)


#: The files of a home whose settings may hold secrets or name the variables that do.
HOME_FILES = ("alicorn.toml", "models.toml")


def home_documents(home: Path) -> list[Mapping[str, Any]]:
    """The home's configuration files, parsed (one that does not parse holds nothing here: its loader says why)."""
    import tomllib

    from alicorn.models.defaults import DEFAULT_PROFILES

    docs: list[Mapping[str, Any]] = [DEFAULT_PROFILES]  # the built-in profiles name api_key_env variables too
    for name in HOME_FILES:
        try:
            docs.append(tomllib.loads((home / name).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
            continue
    return docs


def home_secrets(home: Path, env: Mapping[str, str] | None = None) -> KnownSecrets:
    """The known secrets of a home before any run: its settings and the environment they reference."""
    return collect(documents=home_documents(home), env=env)


# ---- logs --------------------------------------------------------------------------------------------------------


class RedactingFilter(logging.Filter):
    """A logging filter that redacts a record's message (arguments merged in) and its exception text.

    `secrets` may be a function returning the current set (a home's grows when a run's data root is known)."""

    def __init__(self, secrets: KnownSecrets | Callable[[], KnownSecrets]) -> None:
        super().__init__()
        self._secrets = secrets

    @property
    def secrets(self) -> KnownSecrets:
        return self._secrets if isinstance(self._secrets, KnownSecrets) else self._secrets()

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = self.secrets
        redacted, count = secrets.redact_text(record.getMessage(), CREDENTIAL_CATEGORIES)
        if count:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_text is None:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = secrets.redact_text(record.exc_text, CREDENTIAL_CATEGORIES)[0]
        if record.stack_info:
            record.stack_info = secrets.redact_text(record.stack_info, CREDENTIAL_CATEGORIES)[0]
        return True


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is at the time of each record (a test runner swaps it)."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> Any:
        import sys

        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        return None


def install_log_redaction(
    secrets: KnownSecrets | Callable[[], KnownSecrets], logger: logging.Logger | None = None
) -> RedactingFilter:
    """Redact every record that reaches the handlers of the `alicorn` logger (its children's records included),
    and of the root logger as they are now; calling it again replaces the secrets.

    A filter on a logger sees only the records logged on it; one on its handlers sees those its children
    propagate too, so the filter goes on each handler (one writing to stderr is added if the logger has none).
    """
    target = logger or logging.getLogger("alicorn")
    if not target.handlers:
        target.addHandler(_StderrHandler())
    chosen = RedactingFilter(secrets)
    for handler in (*target.handlers, *logging.getLogger().handlers):
        for old in [f for f in handler.filters if isinstance(f, RedactingFilter)]:
            handler.removeFilter(old)
        handler.addFilter(chosen)
    return chosen


__all__ = [
    "PLACEHOLDER",
    "KnownSecrets",
    "RedactingFilter",
    "collect",
    "config_secrets",
    "environment_secrets",
    "install_log_redaction",
    "labelled_file_secrets",
    "pieces",
]
