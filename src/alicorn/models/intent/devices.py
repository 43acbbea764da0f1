"""Devices operated by a list of verbs under one negation, in en/pl/ru.

"don't start, stop or re-point any of them", "nie włączaj, nie zatrzymuj ani nie przestawiaj żadnej z nich": one
negation governs every verb of the list, and the list shares one object, said after its last verb. The negation
chains read each verb with the words right after it, so a shared object said past the list ("any of them" for the
blowers named before) reaches none of them. A verb of stopping is an operator over an action ("stop sending", "не
останавливайся") but operates a device when a device is its object.

The object is a device, or a pronoun ("them", "их", "je") for a device named before it in its sentence; a verb whose
object is not a device is left to the chains.
"""

from __future__ import annotations

from alicorn.models.intent.lexicon import (
    _CONTINUE,
    _DETERMINERS,
    _OBJECT_PRONOUNS,
    _PHYSICAL_OPEN,
    _SCRIPTS,
    ForbiddenAction,
    _clause_span,
    _device,
    _operated_device,
    _sentences,
    _whole,
    questions_in,
)

#: The negations that govern a list of verbs after them.
_NEGATIONS = {"not", "don't", "dont", "never", "nie", "не", "ani", "ни"}
#: What separates the verbs of a list: "start, stop or re-aim", "włącz/wyłącz".
_SEPARATORS = {",", "-", "/"} | _CONTINUE
#: Stopping a device: "don't stop the lift", "nie zatrzymuj taśmy", "не останавливай канатку".
_STOPPING = ("=stop", "zatrzym", "!останавлив", "=останови", "=остановить", "=остановите")
#: Words that open an object without naming it: "any of them", "all of the pumps", "żadnej z nich", "ни одну из".
_QUANTIFIERS = {"any", "all", "either", "none", "each", "of", "żadnej", "żadnego", "z", "ни", "одну", "один", "из"}

#: Words that open a clause or an adjunct after a verb, not its object: "don't stop until …", "не останавливай, пока …".
_NOT_AN_OBJECT = {
    "until", "till", "before", "after", "when", "if", "unless", "because", "while", "for", "dopóki", "zanim", "póki",
    "aż", "kiedy", "jeśli", "bo", "пока", "до", "когда", "если", "потому", "чтобы", "żeby",
}  # fmt: skip


def devices_operated(words: list[str]) -> list[tuple[int, ForbiddenAction]]:
    """(position, reading) for each verb of operating or stopping, negated alone or with the verbs listed before it,
    whose object is a device."""
    sentence = _sentences(words)
    questions = questions_in(words, sentence)
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if sentence[index] in questions:
            continue
        stopping = _whole(_STOPPING, word)
        if not (stopping or any(_whole((stem,), word) for stem in _PHYSICAL_OPEN)):
            continue
        negation = _negation_over_list(words, index)
        if any(_whole(_SCRIPTS, w) for w in words[_clause_span(words, index)[0] : index]):
            continue  # "Tych skryptów do sterowania nie odpalaj": a script launched is code run (lexicon reads it)
        if negation is not None and _operates_a_device(words, index, sentence):
            found.append((index, ForbiddenAction("physical", f"{words[negation]} {word} (device operated)", word)))
    return found


def _negation_over_list(words: list[str], index: int) -> int | None:
    """The negation before the verb at `index`, right before it or before the verbs listed ahead of it ("don't start,
    stop or re-aim": every verb is negated); None when the walk back meets anything else."""
    after_verb = True  # walking back from a verb: a separator or the negation may come next
    for k in range(index - 1, max(-1, index - 9), -1):
        word = words[k]
        if word in _NEGATIONS and after_verb:
            return k
        if word in _SEPARATORS:
            after_verb = False
        elif word[0].isalpha() and not after_verb and word not in _DETERMINERS:
            after_verb = True  # another verb of the list
        else:
            return None
    return None


def _operates_a_device(words: list[str], index: int, sentence: list[int]) -> bool:
    """The object after the verb list that `index` is in is a device, or a pronoun for a device named before it in its
    sentence. The object starts right after a verb ("stop any of them"), never after a separator ("don't stop, the
    pumps are fine" starts a new clause)."""
    last_alpha = True
    start = None
    for k in range(index + 1, min(len(words), index + 10)):
        word = words[k]
        if word in _SEPARATORS:
            last_alpha = False
            continue
        if not word[0].isalpha():
            return False
        if last_alpha:
            start = k
            break
        if word in _DETERMINERS or word in _QUANTIFIERS:
            return False
        last_alpha = True  # another verb of the list
    if start is None or words[start] in _NOT_AN_OBJECT:
        return False  # "don't stop until the cameras are checked": a time, not what is stopped
    phrase = [
        k for k in range(start, min(len(words), start + 5))
        if words[k] in _OBJECT_PRONOUNS or words[k] not in _DETERMINERS | _QUANTIFIERS
    ]  # fmt: skip
    if any(_operated_device(words, k) for k in phrase[:2]):
        return True  # "don't stop the pumps"; "don't restart the camera server" runs code on a computer
    before = [w for k, w in enumerate(words[:index]) if sentence[k] == sentence[index]][-20:]
    return bool(phrase) and words[phrase[0]] in _OBJECT_PRONOUNS and any(_device(w) for w in before)
