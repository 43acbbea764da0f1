"""Words Anvil's sentences share, in a person's language: effect classes, lists, what only the run will know.

English is what the journal keeps: `decide` journals each decision's sentence in English, and replay compares it
byte for byte, so a sentence in English names an effect class by its code (`local_write`) exactly as it always has.
The same sentence in another language names the class in words (`effect_said`), as everything Core says does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from alicorn.i18n import N_, tr, tr_marked

#: Each effect class as a person reads it. The journal, `--json` and the configuration keep the class's code
#: (`external_transmission`); what Core says to a person uses these words, in the person's language.
_EFFECT_WORDS: dict[str, str] = {
    "none": N_("no effect"),
    "read": N_("reading"),
    "local_write": N_("writing local files"),
    "code_execution": N_("running code"),
    "external_transmission": N_("sending outside"),
    "publication": N_("publication"),
    "installation": N_("installing software"),
    "physical": N_("acting on physical devices"),
}

#: Each data label as a person reads it (the journal and the configuration keep the label's code).
_LABEL_WORDS: dict[str, str] = {
    "public": N_("public"),
    "internal": N_("internal"),
    "private": N_("private"),
    "secret": N_("secret"),
}

#: A destination (a host, a path) computed at run time (a reference), unknown when the plan is judged.
UNKNOWN = "?"


def effect_said(effect: str, language: str) -> str:
    """An effect class (`local_write`) in words, in `language`; a code this module does not know is shown as it is."""
    words = _EFFECT_WORDS.get(effect)
    return tr_marked(language, words) if words else effect


def effects_said(effects: Iterable[str], language: str) -> str:
    """Effect classes in words, comma-separated, in their given order."""
    return ", ".join(effect_said(e, language) for e in effects)


def effect_class(effect: str, language: str) -> str:
    """An effect class as a decision's sentence names it: its code in English (the journaled sentence), its words
    in any other language."""
    return effect if language == "en" else effect_said(effect, language)


def label_said(label: str, language: str) -> str:
    """A data label (`private`) as a decision's sentence names it: its code in English, its word otherwise."""
    words = _LABEL_WORDS.get(label)
    return tr_marked(language, words) if words and language != "en" else label


def listed(items: Sequence[str], language: str) -> str:
    """`a, b and c`, with the language's word for "and"."""
    if len(items) <= 1:
        return "".join(items)
    return tr(language, "{items} and {last}", items=", ".join(items[:-1]), last=items[-1])


def host_said(host: str, language: str) -> str:
    """A host, or the words for one the run computes."""
    return tr(language, "a host computed at run time") if host == UNKNOWN else host


def hosts_said(hosts: Sequence[str], language: str) -> str:
    """Hosts as a list (`host_said` each)."""
    return listed([host_said(h, language) for h in hosts], language)


def path_said(path: str, language: str) -> str:
    """A path, or the words for one the run computes."""
    return tr(language, "a path computed at run time") if path == UNKNOWN else path
