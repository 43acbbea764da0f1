"""A multilingual lexicon of forbidden actions: "do not publish", "nie wysyłaj", "остановись перед установкой".

    text ─► tokens (lowercased, punctuation kept as tokens; sentences end at . ; ! ?)
         ─► negation scopes:  a negator (don't, never, without, nie, bez, не, без, нельзя…) opens a window of a few
                              tokens, closed by punctuation or "but / ale / но"; the first action word in it is
                              forbidden, and one more after "or / ani / или" (and "nie/не" repeated opens its own)
         ─► stop-before:      a stop word (stop, wait, ask, zatrzymaj, zapytaj, остановись, спроси…) and a
                              "before" word (before, przed, перед, до) in one sentence: the action after "before"
         ─► action words → effect classes (publication, external_transmission, installation, physical,
                           local_write), matched by stem after stripping Polish/Russian verb prefixes, so
                           "opublikuj", "wysłać", "отправляй", "установкой" all match; past tenses
                           ("nie wysłał", "не отправил") describe, they do not forbid, and are skipped

Every finding carries the words that triggered it, for the classification record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from alicorn.plan.dsl import EffectClass

_TOKEN = re.compile(r"[\w']+|[^\w\s]", re.UNICODE)
_SENTENCE_END = {".", ";", "!", "?"}
_SCOPE_BREAK = {",", ":", ".", ";", "!", "?", "but", "however", "ale", "lecz", "jednak", "но", "однако", "а"}
_CONTINUE = {"or", "nor", "and", "ani", "lub", "albo", "ni", "или", "и", "ни", "i", "też", "&", "/"}

# fmt: off
_NEGATORS = {
    "avoid", "bez", "can't", "cannot", "don't", "dont", "mustn't", "never", "nic", "niczego", "nie", "nigdy", "no",
    "nothing", "refrain", "shouldn't", "without", "won't", "zadnych", "żadnych", "без", "запрещается", "запрещено",
    "не", "нельзя", "никогда", "ничего",
}
#: "not" describes rather than forbids after these ("did not send", "is not published").
_NOT_DESCRIBES = {
    "am", "are", "been", "did", "does", "had", "has", "have", "is", "it's", "that's", "was", "were",
}
#: Words that negate the action just before them ("send nothing").
_NEGATE_BEFORE = {
    "nic", "nothing", "ничего",
}
_STOP_WORDS = {
    "ask", "check", "confirm", "czekaj", "halt", "pause", "poczekaj", "potwierdź", "przerwij", "stop", "stój",
    "wait", "wstrzymaj", "zapytaj", "zatrzymaj", "zatrzymać", "жди", "остановись", "остановитесь", "остановить",
    "остановиться", "подожди", "подождите", "прервись", "согласуй", "спроси", "спросите", "стоп", "уточни",
}
_BEFORE_WORDS = {
    "before", "prior", "przed", "до", "перед",
}

# Stems: "=" marks a whole English word (with -s/-ed/-ing/-es endings allowed), otherwise a prefix.
_ACTIONS: dict[EffectClass, tuple[str, ...]] = {
    "publication": (
        "publish", "publication", "=post", "=repost", "release", "announce", "=go-live", "public", "publik", "ogłos",
        "ogłas", "ogłoś", "oglos", "oglas", "публик", "выклад", "выложи", "обнарод", "анонс", "размещ", "размест",
),
    "external_transmission": (
        "=send", "=sent", "mail", "email", "forward", "transmit", "upload", "=share", "=reply", "=message", "notify",
        "=contact", "=text", "=call", "wysył", "wysyl", "wysł", "wysl", "wyśl", "przesył", "przesyl", "prześl",
        "przesl", "mail", "udostępn", "udostepn", "odpowiad", "odpisz", "odpisyw", "kontakt", "powiadam", "powiadom",
        "dzwoń", "dzwon", "отправ", "отсыл", "отошл", "посыл", "пошли", "пересыл", "перешл", "рассыл", "разошл",
        "подел", "делис", "сообщ", "уведом", "звон", "пиши", "писать", "отвеч", "ответь", "мейл", "письм",
),
    "installation": (
        "install", "deploy", "upgrade", "=rollout", "instal", "wdroż", "wdraż", "wdroz", "wdraz", "aktualiz",
        "устан", "установ", "инстал", "развер", "развёр", "деплой", "обнов",
),
    "physical": (
        "unlock", "=actuate", "=dispense", "=power", "odblok", "włącz", "wyłącz", "wlacz", "wylacz", "разблок",
        "включ", "выключ",
),
    "local_write": (
        "modify", "=change", "=edit", "overwrite", "=delete", "=save", "=write", "zmieni", "zmian", "modyfik",
        "edytuj", "edyt", "nadpis", "usuw", "usuń", "zapisuj", "zapisz", "измен", "меняй", "менять", "редакт",
        "перезапис", "удал", "сохран", "записыв", "запиш",
),
}
#: Words that are physical only with a physical object nearby ("open the door", "otwórz bramę").
_PHYSICAL_OPEN = (
    "open", "otwier", "otwór", "otworz", "открыв", "открой", "откры", "=turn", "=switch", "uruchom",
)
_PHYSICAL_OBJECTS = (
    "door", "gate", "lock", "window", "valve", "barrier", "garage", "heating", "light", "machine", "pump", "drzwi",
    "bram", "zamek", "okn", "zawór", "zawor", "szlaban", "garaż", "ogrzewan", "światł", "maszyn", "pomp", "двер",
    "ворот", "замок", "окн", "клапан", "шлагбаум", "гараж", "отоплен", "свет", "станок", "насос",
)
#: Adjectives that keep an action from happening ("unpublished", "niewysłane", "неустановленным").
_NEGATED_ADJECTIVES: tuple[tuple[str, EffectClass], ...] = (
    ("unpublished", "publication"), ("nieopublikowan", "publication"), ("неопубликован", "publication"),
    ("unsent", "external_transmission"), ("niewysłan", "external_transmission"),
    ("неотправлен", "external_transmission"), ("uninstalled", "installation"),
)
_PREFIXES = (
    "prze", "roz", "wy", "za", "po", "o", "z", "u", "na", "do", "pod", "пере", "раз", "рас", "вы", "за", "по", "о",
    "об", "от", "с", "у", "на", "про", "до", "под",
)
# fmt: on
_PRESENT_RU = ("ет", "ит", "ют", "ят", "ут", "ется", "ится", "ются", "ятся")
_PRESENT_PL = ("uje", "ują", "yła", "ła", "ywa", "iwa", "a", "ą")
_PAST_PL = re.compile(r"(?:ł|łe[mś]|ła|łam|łaś|li|ły|łyśmy|liśmy|no)$")
_PAST_RU = re.compile(r"(?:л|ла|ли|ло|лся|лась|лись)$")


@dataclass(frozen=True, slots=True)
class ForbiddenAction:
    """An effect class the text forbids, with the words that show it."""

    effect: EffectClass
    trigger: str
    word: str


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'").replace("ё", "е"))


def _stem_match(stem: str, word: str) -> bool:
    if stem.startswith("="):
        base = stem[1:]
        return word in (base, base + "s", base + "es", base + "ed", base + "d", base + "ing", base[:-1] + "ing")
    if word.startswith(stem):
        return True
    return any(word.startswith(p) and word[len(p) :].startswith(stem) for p in _PREFIXES if len(word) > len(p) + 2)


def _is_past(word: str) -> bool:
    cyrillic = any("\u0400" <= ch <= "\u04ff" for ch in word)
    if len(word) <= 4:
        return False
    return bool(_PAST_RU.search(word)) if cyrillic else bool(_PAST_PL.search(word)) and not word.isascii()


def action_of(words: list[str], index: int) -> EffectClass | None:
    """The effect class of the action word at `index`, or None (also for a past tense: it describes)."""
    word = words[index]
    if not word[0].isalnum():
        return None
    for effect, stems in _ACTIONS.items():
        if any(_stem_match(stem, word) for stem in stems):
            return None if _is_past(word) else effect
    if any(_stem_match(stem, word) for stem in _PHYSICAL_OPEN):
        window = words[index + 1 : index + 5]
        if any(any(_stem_match(o, w) for o in _PHYSICAL_OBJECTS) for w in window):
            return "physical"
        if word in ("turn", "switch") and window[:1] and window[0] in ("on", "off"):
            return "physical"
    return None


def _describes(word: str) -> bool:
    """A present-tense third person after "nie"/"не" describes ("nie działa", "не отвечает"), it does not forbid."""
    if len(word) <= 5:
        return False
    if any("\u0400" <= ch <= "\u04ff" for ch in word):
        return word.endswith(_PRESENT_RU)
    return (not word.isascii() and word.endswith(_PRESENT_PL)) or word.endswith(("uje", "ują", "ywa", "iwa"))


def _scan(words: list[str], start: int, limit: int, *, verbal: bool = False) -> tuple[int, EffectClass] | None:
    for index in range(start, min(len(words), start + limit)):
        if words[index] in _SCOPE_BREAK:
            return None
        if _is_action_stem(words[index]) and (_is_past(words[index]) or (verbal and _describes(words[index]))):
            return None  # "не отправил письмо": the negation belongs to a past verb, nothing is forbidden
        effect = action_of(words, index)
        if effect is not None:
            return index, effect
    return None


def _is_action_stem(word: str) -> bool:
    return any(_stem_match(stem, word) for stems in _ACTIONS.values() for stem in stems)


def forbidden_actions(text: str) -> list[ForbiddenAction]:
    """Every forbidden action in `text`, in order of appearance (an effect may appear more than once)."""
    words = tokens(text)
    found: list[ForbiddenAction] = []
    for index, word in enumerate(words):
        if word in _NEGATE_BEFORE and index > 0:
            effect = action_of(words, index - 1)
            if effect is not None:
                found.append(ForbiddenAction(effect, word, words[index - 1]))
        negates = word in _NEGATORS or (word == "not" and (index == 0 or words[index - 1] not in _NOT_DESCRIBES))
        if not negates:
            continue
        verbal = word in ("nie", "не")
        hit = _scan(words, index + 1, 5, verbal=verbal)
        while hit is not None:
            position, effect = hit
            found.append(ForbiddenAction(effect, word, words[position]))
            # "do not publish it or email it": one more action after "or" / "ani" / "или", within a few words.
            follow = next(
                (i for i in range(position + 1, min(len(words), position + 4)) if words[i] in _CONTINUE), None
            )
            blocked = any(words[i] in _SCOPE_BREAK for i in range(position + 1, follow or position + 1))
            hit = _scan(words, follow + 1, 3, verbal=verbal) if follow is not None and not blocked else None
    # "keep them unpublished", "niech zostaną nieopublikowane", "оставь неотправленным": the negated adjective
    for word in words:
        for stem, effect in _NEGATED_ADJECTIVES:
            if word.startswith(stem):
                found.append(ForbiddenAction(effect, word, word))
    # stop-before: "stop before installation", "przed instalacją zatrzymaj się", "спроси перед отправкой"
    sentence: list[int] = []
    for index, word in enumerate([*words, "."]):
        if word not in _SENTENCE_END:
            sentence.append(index)
            continue
        if any(words[i] in _STOP_WORDS for i in sentence):
            for i in sentence:
                if words[i] in _BEFORE_WORDS:
                    hit = _scan(words, i + 1, 4)
                    if hit is not None:
                        found.append(ForbiddenAction(hit[1], f"{words[i]} (stop before)", words[hit[0]]))
        sentence = []
    return found


def forbidden_effects(text: str) -> list[EffectClass]:
    """The distinct forbidden effect classes, sorted."""
    return sorted({f.effect for f in forbidden_actions(text)})
