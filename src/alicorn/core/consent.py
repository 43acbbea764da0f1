"""Consent for a transcript that records none: Core asks the person, and reads the answer conservatively.

A `.vtt`, `.srt` or typed-minutes transcript names who spoke but not whether they agreed to being recorded and to
having the recording processed (the notes pack needs both, per speaker, before it uses anyone's words). Core asks
once, naming the speakers, and reads the answer in en/pl/ru:

- "yes" ("tak", "да", "everyone agreed"): every speaker consented;
- "no" ("nie", "нет", "nobody"): none did;
- names: each clause's names consented unless the clause negates ("Tom did not agree", "oprócz Marty",
  "кроме Олега"); a speaker the answer does not name consented only when the answer says the others did ("yes,
  except Tom") or names only people who did not (the question asks for those), never by default.

An answer that says none of this is no answer: Core asks again, and after that treats every speaker as not having
consented (their words are left out, and the report says so). Nobody's words are used on a guess.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from alicorn.i18n import tr

#: Words that say yes, for everyone (lower-case, whole words).
_YES = frozenset(
    "yes yep yeah y all everyone everybody agreed agree consented ok okay sure "
    "tak wszyscy wszystkie zgoda zgodzili zgodziły zgodził zgodziła zgadzają "
    "да все всё согласны согласились согласен согласна согласие".split()
)
#: Words that say no, or that make the clause's names the ones who did not agree.
_NO = frozenset(
    "no not nobody none never didn't didnt don't dont refused declined except excluding without "
    "nie nikt żaden żadna oprócz poza bez odmówił odmówiła odmówili "
    "нет не никто ни кроме без отказался отказалась отказались".split()
)
#: "except" words: the names after them did not agree, and the answer's yes holds for everyone else.
_EXCEPT = frozenset({"except", "excluding", "oprócz", "poza", "кроме"})
#: "everyone but Tom" is "everyone except Tom"; any other "but" turns the sentence, as "ale" and "но" do.
_ALL_BUT = re.compile(r"\b(everyone|everybody|all|anyone)\s+but\b", re.IGNORECASE)
#: Clause boundaries: punctuation, and the conjunctions that turn a sentence ("Anna agreed but Tom did not").
_CLAUSES = re.compile(r"[,;.!?\n]+|\s(?:but|however|ale|lecz|jednak|но|однако|а)\s", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


#: Cyrillic letters in Latin (a Russian answer about "Tom Reyes" says "Тома"), and Polish letters without their
#: marks, so a name meets its spelling in the other alphabet.
_LATIN = str.maketrans(
    {
        **dict(zip("абвгдезийклмнопрстуфыэ", "abvgdeziyklmnoprstufye", strict=True)),
        **{"ё": "e", "ж": "zh", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ю": "yu", "я": "ya"},
        **{"ь": "", "ъ": "", "ł": "l"},
    }
)


def _folded(word: str) -> str:
    plain = unicodedata.normalize("NFKD", word.lower().translate(_LATIN))
    return "".join(ch for ch in plain if not unicodedata.combining(ch))


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def _stem(word: str) -> str:
    """Enough of a name to meet its declined forms ("Toma", "Marty", "Олега" for Tom, Marta, Олег)."""
    return word if len(word) <= 3 else word[: max(3, len(word) - 2)]


def _named(words: Sequence[str], speakers: Sequence[str]) -> list[str]:
    """The speakers `words` name: by any word of their name of three letters or more, in any declined form, in
    either alphabet."""
    found = []
    plain = [_folded(w) for w in words]
    for speaker in speakers:
        parts = [_folded(p) for p in _WORD.findall(speaker) if len(p) >= 3] or [_folded(speaker)]
        if any(w.startswith(_stem(p)) and len(w) <= len(p) + 3 for p in parts for w in plain):
            found.append(speaker)
    return found


def read_consent(answer: str, speakers: Sequence[str]) -> dict[str, bool] | None:
    """Each speaker's consent as `answer` states it (see the module docstring); None when it states nothing."""
    said: dict[str, bool] = {}
    everyone: bool | None = None
    others_agreed = unclear = False
    plain = _ALL_BUT.sub(r"\1 except", answer)
    for clause in _CLAUSES.split(f" {plain} "):
        words = _words(clause)
        if not words:
            continue
        names = _named(words, speakers)
        no = any(w in _NO for w in words)
        yes = any(w in _YES for w in words)
        excepted = any(w in _EXCEPT for w in words)
        if names:
            for name in names:
                said[name] = not no
            others_agreed = others_agreed or (no and excepted)
        elif excepted:
            unclear = True  # "except …" naming nobody who speaks: someone is excluded, but who is not known
        elif yes or no:
            everyone = not no  # "nobody agreed", "not everyone agreed": the negation decides
    if unclear or (not said and everyone is None):
        return None
    if everyone is None and not any(said.values()):
        others_agreed = True  # only names of people who did not agree, as the question asks for
    rest = everyone if everyone is not None else others_agreed
    return {speaker: said.get(speaker, rest) for speaker in speakers}


def consent_question(files: Mapping[str, Sequence[str]], language: str) -> str:
    """The question for transcripts that record no consent: which files, who speaks, how to answer."""
    people = sorted({name for names in files.values() for name in names})
    return tr(
        language,
        "{files} records no consent. Did everyone who speaks in it ({people}) agree to being recorded and to "
        "having the recording turned into notes? Answer “yes”, “no”, or name who did not agree; the words of anyone "
        "without consent are left out.",
        files=", ".join(files),
        people=", ".join(people),
    )


def consent_said(consents: Mapping[str, bool], by: str, language: str) -> str:
    """One evidence line: who consented and who did not, and who said so."""
    agreed = [n for n, ok in consents.items() if ok]
    refused = [n for n, ok in consents.items() if not ok]
    nobody = tr(language, "nobody")
    return tr(
        language,
        "consent as stated by {by}: agreed: {agreed}; not agreed, words left out: {refused}",
        by=by,
        agreed=", ".join(agreed) or nobody,
        refused=", ".join(refused) or nobody,
    )
