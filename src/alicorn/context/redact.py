"""Finding and redacting private data and secrets in text (English, Polish, Russian).

Two severities:

* ``secret``: API keys, tokens, passwords, private keys, payment cards. Never allowed in a prompt, a journal or a log,
  whatever the provider: `scrub_secrets` replaces them everywhere.
* ``private``: names, e-mail addresses, phone numbers and identifiers (PESEL, IBAN, passport, SSN-like, SNILS...).
  Allowed for a local model; replaced in the minimized projection sent to an external provider.

Detectors err on the side of redacting: a false positive costs a word of context, a false negative leaks. Values
that carry a checksum (PESEL, IBAN, payment cards) are checked so that ordinary long numbers survive; a value that
follows a keyword ("PESEL:", "paszport", "пароль:") is redacted whether or not it checks out.

A `Redactor` gives each distinct value one placeholder (``[EMAIL_1]``), so the text stays coherent, and keeps the
mapping in memory only (`restore` puts values back into a local answer). Neither values nor their hashes are ever
returned in a form meant for the journal: `Redactor.counts()` is what gets recorded.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from alicorn.context.names import find_names

Severity = Literal["secret", "private"]

#: What redaction leaves in place of a secret (`[SECRET:api_key]`, `[SECRET_3]`): never detected again, so redacting
#: redacted text changes nothing (a replayed journal, a prompt built from journaled text).
PLACEHOLDER = re.compile(r"\[SECRET(?::[a-z_]+|_\d+)\]")


@dataclass(frozen=True, slots=True)
class Finding:
    """One detected value: where it is and what it is (the value itself stays in the caller's text)."""

    start: int
    end: int
    category: str
    severity: Severity


Check = Callable[[str], bool]


class _Source(NamedTuple):
    """A detector's regular expression as written: compiled on the first search (`_compiled_detectors`), so
    importing this module (every command does, through the journal) costs no compilation."""

    text: str
    flags: int = 0


@dataclass(frozen=True, slots=True)
class _Detector:
    category: str
    severity: Severity
    pattern: _Source
    check: Check | None = None
    group: int = 0
    #: Characters stripped from the end of what the group matched before `check` sees it (a sentence's punctuation
    #: after a value): cheaper and safer than a lazy match that looks ahead at every character.
    trim: str = ""
    #: When given, the pattern counts only after this one's first match in the same text (an AWS secret key after
    #: its key id): one search, so the cost stays linear however many ids the text holds.
    after: _Source | None = None


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def pesel_ok(text: str) -> bool:
    """PESEL checksum (weights 1,3,7,9 repeating)."""
    digits = _digits(text)
    if len(digits) != 11:
        return False
    weights = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)
    total = sum(int(d) * w for d, w in zip(digits, weights, strict=False))
    return (10 - total % 10) % 10 == int(digits[10])


def iban_ok(text: str) -> bool:
    """ISO 13616 mod-97 check; a bare 26-digit Polish NRB is checked as PL."""
    compact = re.sub(r"\s", "", text).upper()
    if compact.isdigit() and len(compact) == 26:
        compact = "PL" + compact
    if len(compact) < 15 or not compact[:2].isalpha():
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in moved)
    return int(number) % 97 == 1


def luhn_ok(text: str) -> bool:
    """Payment card checksum."""
    digits = _digits(text)
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, ch in enumerate(reversed(digits)):
        value = int(ch)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _enough_digits(minimum: int) -> Check:
    return lambda text: len(_digits(text)) >= minimum


def _secretish(text: str) -> bool:
    """A password given after 'is'/'to'/'—' must look like one (a digit or a symbol), not like a plain word."""
    return len(text) >= 4 and any(not ch.isalpha() for ch in text)


#: Values after "pass="/"token:" that are settings, not secrets ("tests_must_pass=True", "token: none").
_FLAG_VALUES = frozenset({"true", "false", "none", "null", "yes", "no", "on", "off", "required", "optional"})


def _not_a_flag(text: str) -> bool:
    return text.lower() not in _FLAG_VALUES


#: What a labelled credential's value never holds: code and markup (`os.environ["X"]`, `getpass()`, `<your-token>`,
#: `[hidden]`) rather than a value.
_NOT_IN_A_VALUE = frozenset("()[]{}<>\"'`\\")
#: Characters that join the parts of names, paths, numbers and dates (`max_tokens`, `keys/api.json`, `12:30`,
#: `2026-11-30`): they do not make a value look like a credential.
_JOINERS = frozenset("_-./:,")
#: A value made of these only is masked (`******`, `xxxxxxxx`), not given.
_MASKS = frozenset("*xX•#.")
#: A reference to a value held elsewhere (`$DB_PASS`, `${DB_PASS}`, `%PASSWORD%`), not the value.
_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?|%\w+%")
#: A path (`/home/u`, `~/x`, `./x`, `../x`): `PWD=/home/u` is the working directory, not a password.
_PATH = re.compile(r"(?:/|~/|\.\.?/).*", re.S)


def _credential_value(text: str) -> bool:
    """Whether a value given after a credential's label ("password: X") is one: at least 6 characters, mixing at
    least two of letters, digits and symbols (`_-./:,` join words and numbers and count as neither), and not code,
    markup, a variable, a path, a glob, a URL or a mask. A plain word ("password: required"), a number ("token:
    4096"), a name (`token = max_tokens`), a file (`secret: keys/api.json`), a date or a call is left alone; so is a
    credential that looks like one of those ("password: qwerty"): the journal redacts only what is not a guess."""
    if len(text) < 6 or "://" in text or "**" in text or set(text) <= _MASKS:
        return False
    if _VARIABLE.fullmatch(text) or _PATH.fullmatch(text) or any(ch in _NOT_IN_A_VALUE for ch in text):
        return False
    kinds = {"letter" if ch.isalpha() else "digit" if ch.isdigit() else "symbol" for ch in text if ch not in _JOINERS}
    return len(kinds) >= 2


def _not_a_template(text: str) -> bool:
    """A URL's password that is not a stand-in for one (`${DB_PASS}`, `$PW`, `{{pw}}`, `<password>`, `***`)."""
    return not (text[0] in "{<" or set(text) <= _MASKS or _VARIABLE.fullmatch(text))


#: The labels a credential is given under, as a key: "password: X", "DB_PASSWORD=X", "hasło: X", "пароль: X",
#: "api_key = X", `"token": "X"`. A label ends its word (`tokens:`, `token_type:` and `password_policy:` are not
#: labels) and starts one, or follows `_`, `-`, `.` or a lower-case letter (`db_password`, `spring.datasource.password`,
#: `dbPassword`).
_LABELS = r"passw(?:or)?d|passphrase|pwd|secret|token|(?:api|secret|access)[_-]?key|has(?:ł|l)o|пароль"
_CAMEL_LABELS = r"Passw(?:or)?d|Passphrase|Pwd|Secret|Token|(?:Api|Secret|Access)Key"
_LABEL = rf"(?:(?<![^\W_])(?i:{_LABELS})|(?<=[a-z0-9])(?:{_CAMEL_LABELS}))"
#: Between the label and its value: a closing quote (`"password": "X"`), then ':', '=', ':=' or '=>' (never '==' or
#: '::': code compares and names there), spaces or tabs only (a label at a line's end gives no value).
_LABEL_SEPARATOR = r"[\"'`]?[ \t]*(?:=>|:=|:(?![:=])|=(?!=))[ \t]*"
#: A URL's user information with a password: the password is the group (the user and the password are bounded).
_URL_PASSWORD = r"://[^\s:/?#@]{0,256}:([^\s/?#]{1,256})@"
#: AWS's secret access key: 40 characters of base64 mixing upper and lower case with a digit, '/' or '+' (a hex
#: digest has one case; a word no digit), standing alone.
_AWS_SECRET = (
    r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[0-9/+])"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)

_I = re.IGNORECASE
_SECRET_WORDS = (
    r"pass(?:word|wd|phrase)?|pwd|secret|client[_ -]?secret|api[_ -]?key|apikey|access[_ -]?key|auth[_ -]?token"
    r"|token|has(?:ł|l)(?:o|a|em|u)|klucz(?:a|em)?(?: api)?|tajn\w*|парол(?:ь|я|ем|ю)|токен\w*|ключ\w*(?: api)?"
    r"|секрет\w*"
)
_ID_WORDS = (
    r"pesel|passport(?: (?:no|number))?|paszport\w*|dow(?:ó|o)d\w*(?: osobist\w*)?|nip|regon|ssn|social security"
    r"(?: number)?|id number|numer (?:dowodu|paszportu|pesel)|паспорт\w*|инн|снилс|серия(?: и номер)?"
)

_DETECTORS: tuple[_Detector, ...] = (
    _Detector(
        "private_key",
        "secret",
        _Source(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S),
    ),
    _Detector("api_key", "secret", _Source(r"\bsk-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_-]{16,}")),
    _Detector("api_key", "secret", _Source(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    _Detector("api_key", "secret", _Source(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    _Detector("api_key", "secret", _Source(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    _Detector("api_key", "secret", _Source(r"\bAIza[0-9A-Za-z_-]{30,}")),
    _Detector("api_key", "secret", _Source(r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    _Detector("api_key", "secret", _Source(r"\bhf_[A-Za-z0-9]{20,}")),
    _Detector("token", "secret", _Source(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    _Detector("token", "secret", _Source(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{12,}=*)"), group=1),
    # The password of a URL's user information, whatever the scheme: "postgres://admin:S3cr3t@db/x" keeps "admin"
    # and the host. The last '@' before the path ends it (a password typed with an '@' in it). Bounded, and stopped
    # by the next URL's '/', so a text of many URLs costs linear time.
    _Detector(
        "url_password",
        "secret",
        _Source(_URL_PASSWORD),
        check=_not_a_template,
        group=1,
    ),
    # An AWS secret access key, after an access key id in the same text or under its own label.
    _Detector("aws_secret_key", "secret", _Source(_AWS_SECRET), after=_Source(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    _Detector(
        "aws_secret_key",
        "secret",
        _Source(rf"(?i:secret[_-]?access[_-]?key){_LABEL_SEPARATOR}[\"'`]?({_AWS_SECRET})"),
        group=1,
    ),
    # keyword, then ':' or '=' (any value): "password: hunter2", "hasło=Kot!23", "пароль: qwerty"
    _Detector(
        "password",
        "secret",
        _Source(rf"(?:{_SECRET_WORDS})[\"']?\s*(?:[:=]|=>)\s*[\"']?([^\s\"',;]{{3,}})", _I),
        check=_not_a_flag,
        group=1,
    ),
    # keyword and up to three short words, then ':' (the value must look like a secret): "hasło do serwera:
    # Kot!23", "пароль от почты: Медведь#1"
    _Detector(
        "password",
        "secret",
        _Source(rf"(?:{_SECRET_WORDS})(?:[ \t]+[^\s:=,;.]{{1,15}}){{1,3}}\s*[:=]\s*[\"']?([^\s\"',;]{{4,}})", _I),
        check=_secretish,
        group=1,
    ),
    # keyword, then 'is'/'to'/'jest'/'—'/'это' (the value must look like a secret)
    _Detector(
        "password",
        "secret",
        _Source(rf"(?:{_SECRET_WORDS})\s+(?:is|was|to|jest|brzmi|—|-|–|это|будет)\s+[\"'«]?([^\s\"'»,;]{{4,}})", _I),
        check=_secretish,
        group=1,
    ),
    # A credential given as a labelled value (after the keyword guesses: where both find one, prompts and logs keep
    # calling it a password): the label, a separator, then one token that looks like a credential
    # (`_credential_value`), quoted or not ("password: Tr0ub4dor&3", 'DB_PASSWORD="S3cr3t!x"', "hasło=Kot!23x").
    # Trailing punctuation ("password: X, then") is the sentence's, not the value's; "&name=" ends a URL query's
    # value ("?token=X&page=2"), while a lone '&' is the value's ("password: Tr0ub4dor&3").
    _Detector(
        "labelled_secret",
        "secret",
        _Source(rf"{_LABEL}{_LABEL_SEPARATOR}([\"'`])([^\s\"'`]{{1,4096}})\1"),
        check=_credential_value,
        group=2,
    ),
    _Detector(
        "labelled_secret",
        "secret",
        _Source(rf"{_LABEL}{_LABEL_SEPARATOR}(?![\"'`])((?:[^\s&]|&(?![A-Za-z_][\w.-]{{0,64}}=))+)"),
        check=_credential_value,
        group=1,
        trim=".,;:)]}»\"'`",
    ),
    _Detector("payment_card", "secret", _Source(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])"), check=luhn_ok),
    _Detector("email", "private", _Source(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}")),
    _Detector(
        "iban",
        "private",
        _Source(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b"),
        check=iban_ok,
    ),
    _Detector("iban", "private", _Source(r"(?<!\d)\d{2}(?:[ ]?\d{4}){6}(?!\d)"), check=iban_ok),
    _Detector("pesel", "private", _Source(r"(?<!\d)\d{11}(?!\d)"), check=pesel_ok),
    # keyword, then an identifier with digits: "PESEL 12345678901", "паспорт 45 09 123456", "ИНН: 7707083893"
    _Detector(
        "identifier",
        "private",
        _Source(
            rf"(?:{_ID_WORDS})\s*(?:no\.?|nr\.?|№|#|number|numer)?\s*[:=]?\s*([A-ZА-Я]{{0,3}}[\d][\d \-]{{3,}}\d)", _I
        ),
        check=_enough_digits(5),
        group=1,
    ),
    _Detector("ssn", "private", _Source(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")),
    _Detector("snils", "private", _Source(r"(?<![\d-])\d{3}-\d{3}-\d{3}[ -]\d{2}(?![\d-])")),
    _Detector("passport", "private", _Source(r"\b[A-Z]{2}\d{7}\b")),  # Polish passport form: AB1234567
    _Detector("passport", "private", _Source(r"\b[A-Z]{3} ?\d{6}\b")),  # Polish ID card: ABC 123456
    _Detector("passport", "private", _Source(r"(?<!\d)\d{2} ?\d{2} \d{6}(?!\d)")),  # Russian passport 4509 123456
    _Detector(
        "phone",
        "private",
        _Source(r"(?<![\w+])(?:\+|00)\d{1,3}[\s.-]?(?:\(?\d{1,4}\)?[\s.-]?){2,5}\d{2,4}(?!\d)"),
        check=_enough_digits(9),
    ),
    _Detector(
        "phone",
        "private",
        _Source(r"(?<![\d.])(?:8[\s-]?)?\(?\d{3}\)?[\s-]\d{3}[\s-]?\d{2,3}[\s-]?\d{2,3}(?!\d|\.\d)"),
        check=_enough_digits(9),
    ),
    _Detector("phone", "private", _Source(r"(?<![\d.])\(\d{3}\)[\s.-]?\d{3}[\s.-]\d{4}(?!\d|\.\d)")),  # US
    _Detector("phone", "private", _Source(r"(?<![\d.-])\d{3}[ -]\d{3}[ -]\d{3}(?![\d-]|\.\d)")),  # PL mobile
)


@functools.cache
def _compiled_detectors() -> tuple[tuple[_Detector, re.Pattern[str], re.Pattern[str] | None], ...]:
    def compiled(source: _Source) -> re.Pattern[str]:
        return re.compile(source.text, source.flags)

    return tuple((d, compiled(d.pattern), compiled(d.after) if d.after else None) for d in _DETECTORS)


SECRET_CATEGORIES = frozenset(d.category for d in _DETECTORS if d.severity == "secret")
PRIVATE_CATEGORIES = frozenset({*(d.category for d in _DETECTORS if d.severity == "private"), "name"})


def _placeholder_part(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether `text[start:end]` is part of a placeholder a previous redaction left, or nothing but placeholders
    (and punctuation): redacting it again would only garble the placeholder."""
    if any(s < start < e or (s <= start and end <= e) for s, e in spans):  # it starts inside one
        return True
    value = text[start:end]
    rest = PLACEHOLDER.sub("", value)
    return rest != value and not any(ch.isalnum() for ch in rest)


def find(
    text: str,
    *,
    severities: Iterable[Severity] = ("secret", "private"),
    names: Iterable[str] = (),
    categories: frozenset[str] | None = None,
) -> list[Finding]:
    """Every secret / private value in `text` (of `categories` only, when given), overlaps resolved (earliest, then
    longest, wins; a detector left out never hides what another finds).

    `names` are people known to the project (a staff list, the conversation's participants); they are found in
    their inflected forms too. Other names are found through titles, introductions and first-name/surname shapes.
    """
    wanted = set(severities)
    found: list[Finding] = []
    kept_spans = [m.span() for m in PLACEHOLDER.finditer(text)] if "[SECRET" in text else []
    for detector, pattern, after in _compiled_detectors():
        if detector.severity not in wanted or (categories is not None and detector.category not in categories):
            continue
        position = 0
        if after is not None:
            anchor = after.search(text)
            if anchor is None:
                continue
            position = anchor.end()
        for match in pattern.finditer(text, position):
            start, end = match.span(detector.group)
            if detector.trim and end > start:
                end = start + len(text[start:end].rstrip(detector.trim))
            if start < 0 or end <= start:
                continue
            if detector.check is not None and not detector.check(text[start:end]):
                continue
            if detector.severity == "secret" and _placeholder_part(text, start, end, kept_spans):
                continue
            found.append(Finding(start, end, detector.category, detector.severity))
    if "private" in wanted:
        found.extend(Finding(s, e, "name", "private") for s, e in find_names(text, names))
    # Secrets first at the same place; then earliest, then longest.
    found.sort(key=lambda f: (f.start, f.severity != "secret", -(f.end - f.start)))
    kept: list[Finding] = []
    for item in found:
        if kept and item.start < kept[-1].end:
            if item.end > kept[-1].end and item.severity == "secret":
                kept[-1] = Finding(kept[-1].start, item.end, item.category, "secret")
            continue
        kept.append(item)
    return kept


class Redactor:
    """Replaces findings with stable placeholders; remembers values only in memory, to restore local answers."""

    def __init__(self, *, names: Iterable[str] = ()) -> None:
        self._names = tuple(names)
        self._placeholders: dict[tuple[str, str], str] = {}
        self._values: dict[str, str] = {}
        self._counts: Counter[str] = Counter()

    def redact(self, text: str, *, severities: Iterable[Severity] = ("secret", "private")) -> tuple[str, Counter[str]]:
        """`text` with every finding of the given severities replaced; also the count per category."""
        findings = find(text, severities=severities, names=self._names)
        counts: Counter[str] = Counter()
        out: list[str] = []
        position = 0
        for item in findings:
            value = text[item.start : item.end]
            key = (item.category, value)
            placeholder = self._placeholders.get(key)
            if placeholder is None:
                number = sum(1 for c, _ in self._placeholders if c == item.category) + 1
                placeholder = f"[{item.category.upper()}_{number}]"
                self._placeholders[key] = placeholder
                self._values[placeholder] = value
            out.append(text[position : item.start])
            out.append(placeholder)
            position = item.end
            counts[item.category] += 1
        out.append(text[position:])
        self._counts.update(counts)
        return "".join(out), counts

    def restore(self, text: str) -> str:
        """Put the original values back into text produced from redacted input (for local display only)."""
        if not self._values:
            return text
        pattern = re.compile("|".join(re.escape(p) for p in sorted(self._values, key=len, reverse=True)))
        return pattern.sub(lambda m: self._values[m.group(0)], text)

    def counts(self) -> dict[str, int]:
        """How many values of each category were replaced so far: safe to journal."""
        return dict(sorted(self._counts.items()))


#: The secrets that are credentials (keys, tokens, passwords), not a customer's payment card: what the journal
#: scrubs from every event (a card's checksum also matches ordinary long numbers in data).
CREDENTIAL_CATEGORIES = SECRET_CATEGORIES - {"payment_card"}


#: The credentials known by their format alone (a private key block, a provider's key prefix, a JWT, a bearer
#: token, a URL's password, an AWS secret key next to its key id, a credential-looking value under a credential's
#: label): what the journal replaces in every event besides the home's known values. A keyword detector ("token
#: count: 1234", "secret santa list: 2026-12", "hasło do wifi: …") is a guess; in the journal a wrong guess would
#: change the data that runs pass on, so those are for prompts and logs only. A labelled value is not a guess: the
#: label is a key ("password:", "DB_PASSWORD=", `"token": `) directly followed by its value, and the value must look
#: like a credential (`_credential_value`), so prose ("reset my password tomorrow", "the password policy", "token
#: bucket") and settings ("token: 4096", "pwd=/home/u") are left alone.
FORMAT_CREDENTIALS = frozenset({"private_key", "api_key", "token", "url_password", "aws_secret_key", "labelled_secret"})


#: Something every credential detector needs in its match (lower-cased): a few substring tests rule most text out
#: (journaled events are many and mostly plain). Keep it in step with the credential detectors above
#: (tests/secret_safety/test_known_secrets.py pins it).
_CREDENTIAL_HINTS = (
    "-----begin", "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "akia", "asia", "xox", "aiza",
    "_live_", "_test_", "hf_", "eyj", "bearer", "://", "pass", "pwd", "secret", "api", "access", "auth", "token",
    "hasł", "hasl", "klucz", "tajn",
    "парол", "токен", "ключ", "секрет",
)  # fmt: skip


#: What the format detectors alone need (FORMAT_CREDENTIALS: the journal's): the prefixes and markers of
#: `_CREDENTIAL_HINTS` without the keywords, which only the keyword detectors ("password: …") need. Most events
#: name a secret-labelled path or policy text ("secret", "auth") and would otherwise be scanned in full.
_FORMAT_HINTS = (
    "-----begin", "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "akia", "asia", "xox", "aiza",
    "_live_", "_test_", "hf_", "eyj", "bearer",
)  # fmt: skip
#: A label directly followed by a separator and the first character a labelled value may have (lower-cased): the
#: labelled detectors' hint. It holds in an event's canonical JSON too (`\"password\": \"X\"`, `password:\tX`), and
#: a structure's own key (`"secret":["keys/**"]`, in every `run.created`) does not pass it. Its labels are spelled
#: out: an alternation of plain words is scanned several times faster than one of patterns (`passw(?:or)?d`).
_LABEL_WORDS = (
    "password", "passwd", "passphrase", "pwd", "secret", "token", "hasło", "haslo", "пароль",
    *(f"{kind}{joint}key" for kind in ("api", "secret", "access") for joint in ("", "_", "-")),
)  # fmt: skip
_LABEL_HINT = (
    rf"(?:{'|'.join(map(re.escape, _LABEL_WORDS))})\\?[\"'`]?(?:[ \t]|\\t)*(?:=>|:=|:|=)[ \t]*\\?[\"'`]?"
    r"[^\s\"'`\[\]{}()<>]"
)
#: A URL with a password in its user information (looked for only in text holding "://": most URLs have none).
_URL_PASSWORD_HINT = re.compile(_URL_PASSWORD)


#: The hints as one alternation each: one scan of the lowered text instead of one `in` test per hint (every journaled
#: event is probed, so this is on every step's path). The same answer as `any(hint in lowered for hint in hints)`.
#: The label hint is matched on its own, only where a stem of its labels starts (`_label_hint`): joined to the format
#: hints' plain strings it made their scan five times slower; scanned alone over every event, it doubled the cost.
_FORMAT_HINT_SCAN = re.compile("|".join(map(re.escape, _FORMAT_HINTS)))
_CREDENTIAL_HINT_SCAN = re.compile("|".join(map(re.escape, _CREDENTIAL_HINTS)))
_LABEL_HINT_SCAN = re.compile(_LABEL_HINT)


#: The start of every label word (`_LABEL_WORDS`), rare in events ("key" would not be: "idempotency_key", "keys/**").
_LABEL_STEMS = ("pass", "pwd", "secret", "token", "api", "access", "hasło", "haslo", "пароль")

#: Everything the format detectors' three hints start from, as one scan: a format hint, a label's stem or "://".
#: Text holding none of them passes none of the hints, and almost every journaled event holds none: one scan of
#: plain strings answers them for a third of the cost of the three tests in turn (it runs on every event).
_FORMAT_PROBE_SCAN = re.compile("|".join(map(re.escape, (*_FORMAT_HINTS, *_LABEL_STEMS, "://"))))


def _label_hint(lowered: str) -> bool:
    """Whether the label hint matches `lowered`, tried only where a label's stem starts: most events hold none, and
    a few substring searches cost a fraction of the hint's scan over the whole text."""
    for stem in _LABEL_STEMS:
        at = lowered.find(stem)
        while at >= 0:
            if _LABEL_HINT_SCAN.match(lowered, at) is not None:
                return True
            at = lowered.find(stem, at + 1)
    return False


def might_hold_credential(text: str, categories: frozenset[str] = CREDENTIAL_CATEGORIES) -> bool:
    """False when `text` cannot hold anything a detector of `categories` finds (a fast test before
    `scrub_secrets`); the format detectors alone need fewer hints than the keyword ones."""
    lowered = text.lower()
    if not categories <= FORMAT_CREDENTIALS:
        return _CREDENTIAL_HINT_SCAN.search(lowered) is not None
    if _FORMAT_PROBE_SCAN.search(lowered) is None:
        return False
    if _FORMAT_HINT_SCAN.search(lowered) is not None:
        return True
    if _label_hint(lowered):
        return True
    return "://" in text and _URL_PASSWORD_HINT.search(text) is not None


def scrub_secrets(text: str, categories: frozenset[str] = SECRET_CATEGORIES) -> tuple[str, int]:
    """`text` with every secret (of `categories`) replaced by ``[SECRET:category]``; also how many were replaced."""
    findings = find(text, severities=("secret",), categories=categories)
    if not findings:
        return text, 0
    out: list[str] = []
    position = 0
    for item in findings:
        out.append(text[position : item.start])
        out.append(f"[SECRET:{item.category}]")
        position = item.end
    out.append(text[position:])
    return "".join(out), len(findings)


def contains_secret(text: str) -> bool:
    """Whether `text` holds anything `scrub_secrets` would replace."""
    return bool(find(text, severities=("secret",)))
