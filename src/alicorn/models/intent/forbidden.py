"""The forbidden actions of a message: the negation chains of `lexicon` and the forms of `prohibitive`, settled.

Both readers share `lexicon`'s vocabulary; this module is the one that uses them together, so the arrows run one way
(forbidden -> prohibitive -> lexicon, forbidden -> lexicon) and neither reader imports the other's user.
"""

from __future__ import annotations

from alicorn.models.intent.devices import devices_operated
from alicorn.models.intent.diacritics import restored
from alicorn.models.intent.fallback import embedded_readings
from alicorn.models.intent.idioms import judged
from alicorn.models.intent.langid import identify
from alicorn.models.intent.lexicon import (
    _CLAUSE_BREAK,
    _SENTENCE_END,
    KEPT_PRIVATE,
    PRESS,
    ForbiddenAction,
    _clause_span,
    _sentences,
    _whole,
    chain_readings,
    names_in,
    told_to_another_at,
    words_of,
)
from alicorn.models.intent.prohibitive import NO_ONE_ELSE, addressed, constructions, is_draft_only, kept_spans
from alicorn.plan.dsl import EffectClass


def read_actions(text: str, language: str | None = None, *, embedder: bool = True) -> list[ForbiddenAction]:
    """Every reading of an action in `text`, in order of appearance: the forbidding ones (`forbids`) and those a
    double negation lifted ("don't forget to send"), each with its words. With `embedder`, a negated command whose
    verb no class claims goes to `fallback` (nearest effect class by meaning)."""
    found = positioned_readings(text, language, embedder=embedder)
    return settle([reading for _, reading in found], [position for position, _ in found])


def positioned_readings(
    text: str, language: str | None = None, *, embedder: bool = True
) -> list[tuple[int, ForbiddenAction]]:
    """(token position, reading) for every reading, sorted by position (see `read_actions`)."""
    words = words_of(text)
    language = language or identify(text).language
    if language == "pl":
        words = restored(words)  # "nie wysylaj": typed without Polish letters, read as "nie wysyłaj"
    found = chain_readings(words, language)
    # "Stronę zostaw bez zmian": inside a kept state the words say what is kept, not an edit of a document
    kept = kept_spans(words)
    found = [item for item in found if not any(a <= item[0] < b for a, b in kept)]
    # the forms said without a negation scope over the action (delegation, a kept state, confinement, …)
    found.extend(constructions(words, language, names_in(text)))
    # judgements on an action ("off the table", "Mark's job", "nothing gets installed or run") read its word more
    # closely than a chain does ("run on either machine" is code, not a device): at their positions they win
    verdicts = judged(words, language) + devices_operated(words)
    claimed = {position for position, _ in verdicts}
    found = [item for item in found if item[0] not in claimed] + verdicts
    found = _named_over_draft(words, found)
    found = found + _sent_to_the_press(words, found)
    found = found + _kept_private_unpublished(words, language, found)
    # "I told the interns not to post anything until the rebrand is out": theirs to keep, whatever reads it; "so
    # hopefully no more typos going live": a hope about others, not a command
    found = [item for item in found if not told_to_another_at(words, item[0]) and not _hoped(words, item[0])]
    # "no fixes go live till I've seen them", "no changes go out without my OK": the noun after "no" is the subject of
    # the verb after it, which the readings of that verb judge; "no" forbids no fixing or changing of its own
    read_at = {position for position, _ in found}
    found = [item for item in found if not (_subject_of_the_next_verb(words, item) and item[0] + 1 in read_at)]
    # "remember to mention that photos won't be posted online": what the writing is to say, not a command
    found = [item for item in found if not _content_of_a_writing(words, item[0])]
    # "Обнови модуль, иначе форму не отправить": what would fail otherwise, not a command
    found = [item for item in found if not _otherwise(words, item[0])]
    # "remind me to text the parents once it's confirmed": the speaker's own errand, nothing asked of the agent
    found = [item for item in found if not _reminded(words, item[0])]
    # "it'd be a shame not to post them", "no reason not to send it": leaving it undone is judged, not asked (a
    # reading the chains already lifted stays recorded)
    found = [item for item in found if not (item[1].forbids and _undoing_judged(words, item[0]))]
    if embedder:
        found.extend(embedded_readings(words, language, {position for position, _ in found}))
    found.sort(key=lambda item: item[0])
    return found


def _sent_to_the_press(words: list[str], found: list[tuple[int, ForbiddenAction]]) -> list[tuple[int, ForbiddenAction]]:
    """A publication kept from the media is kept from being sent to them too: "Do mediów nic nie idzie", "В прессу
    ни слова" (the press is reached by sending, and prints for everyone)."""
    sentence = _sentences(words)
    pressed = {sentence[k] for k, w in enumerate(words) if _whole(PRESS, w)}
    return [
        (p, ForbiddenAction("external_transmission", f"{r.trigger} (to the press)", r.word, r.forbids))
        for p, r in found
        if r.effect == "publication"
        and sentence[p] in pressed
        and not any(q == p and s.effect == "external_transmission" for q, s in found)
    ]


#: Verbs whose subject a "no"-phrase can be: "no fixes go live", "no changes get out", "no updates reach the tills".
_SUBJECT_VERBS = {
    "go",
    "goes",
    "get",
    "gets",
    "reach",
    "reaches",
    "leave",
    "leaves",
    "land",
    "lands",
    "happen",
    "happens",
}


def _subject_of_the_next_verb(words: list[str], item: tuple[int, ForbiddenAction]) -> bool:
    """A reading of a noun negated by "no" only, with a verb of going or arriving right after it (dropped when that
    verb has a reading of its own: "no posts go up on the website" keeps the posts' when the verb has none)."""
    position, reading = item
    return reading.trigger == "no" and position + 1 < len(words) and words[position + 1] in _SUBJECT_VERBS


#: Hoping: "so hopefully no more typos going live", "mam nadzieję, że nic już nie wycieknie", "надеюсь, больше
#: ничего не утечёт" say what the speaker hopes of others.
_HOPING = {"hopefully", "hope", "nadzieję", "nadzieje", "надеюсь", "надеемся", "oby"}


def _hoped(words: list[str], position: int) -> bool:
    """A hope about others opens the clause of `position` (at most eight words before it, with no break between);
    one about the agent asks politely ("I hope you won't send it before Friday")."""
    for k in range(position - 1, max(-1, position - 9), -1):
        if words[k] in _CLAUSE_BREAK and not (words[k] == "," and words[k + 1] in ("że", "ze", "что", "чтобы")):
            return False  # "Hopefully it's fine, but don't send it yet": the command has a clause of its own
        if words[k] in _HOPING:
            return not any(w in _YOU or w.endswith(_SECOND_PERSON) for w in words[k + 1 : position + 1])
    return False


#: Verbs that put words into a writing: "mention that …", "wspomnij, że …", "укажите, что …".
_SAYING = (
    "=mention", "=say", "=state", "=explain", "=add", "=include", "=write", "=warn",
    "wspomn", "wspomin", "napisz", "napisać", "napisac", "zaznacz", "dodaj", "dodać", "dodac", "wyjaśnij", "wyjasnij",
    "uprzedź", "uprzedz", "ostrzeż", "ostrzez",
    "укаж", "указа", "упомян", "упомин", "напиши", "написать", "напишите", "отметь", "отметьте", "отметить",
    "добавь", "добавьте", "добавить", "поясни", "объясни", "предупреди", "предупредить", "предупредите",
)  # fmt: skip
_THAT = {"that", "że", "ze", "что"}


def _content_of_a_writing(words: list[str], position: int) -> bool:
    """The action at `position` stands in a clause that says what a writing is to say: "mention that photos won't
    be posted", "wspomnieć, że zdjęcia nie będą publikowane", "указать, что прививку делать не будут"."""
    for k in range(position - 1, max(-1, position - 13), -1):
        if words[k] in _SENTENCE_END or words[k] in _CLAUSE_BREAK:
            return False  # "Объясни, что он делает, но не запускай его": the command has a clause of its own
        if words[k] in _THAT:
            if any(w in _YOU for w in words[k + 1 : position]):
                return False  # "write to them, but mention that you can't send it": the agent is told
            before = [w for w in words[max(0, k - 5) : k] if w != ","]
            return any(_whole(_SAYING, w) for w in before[-4:])
    return False


#: Asking to be reminded: "remind me to …", "przypomnij mi, żebym …", "напомни мне …".
_REMIND = ("=remind", "przypomnij", "przypomnieć", "przypomniec", "напомни", "напомнить", "напомните")
_ME = {"me", "mi", "mnie", "мне"}


def _reminded(words: list[str], position: int) -> bool:
    """The action at `position` is what the speaker asks to be reminded of ("remind me to text the parents once it's
    confirmed", "напомни мне отправить счёт"): theirs to do, so no condition on it binds the agent."""
    for k in range(position - 1, max(-1, position - 7), -1):
        if words[k] in _SENTENCE_END or (words[k] in _CLAUSE_BREAK and words[k] != ","):
            return False
        if _whole(_REMIND, words[k]) and words[k + 1 : k + 2] and words[k + 1] in _ME:
            return True
    return False


#: The negation of an infinitive ("not to post", "не выложить", "nie wrzucić"), at most three words before it.
_NOT_INFINITIVE = {"not", "не", "nie"}
#: Judging what is left undone: "it'd be silly not to", "было бы глупо не …", "szkoda byłoby nie …".
_JUDGING = (
    "=silly", "=stupid", "=shame", "=pity", "=mistake", "=crazy", "=daft", "=mad", "=waste", "=sin", "=madness",
    "глуп", "жаль", "ошибк", "ошибоч", "странн", "обидн", "грех", "преступн",
    "głupi", "głupo", "szkoda", "błąd", "błęd", "grzech", "żal", "zbrodni",
)  # fmt: skip
#: A reason not to do it, denied: "I can't think of a reason not to", "нет причин не …", "nie widzę powodu, by nie …".
_REASONS = ("=reason", "=reasons", "=excuse", "powod", "powód", "przyczyn", "причин", "повод")
_DENYING = {
    "no", "not", "can't", "cannot", "don't", "dont", "never", "without", "nie", "bez", "не", "нет", "без",
}  # fmt: skip


def _undoing_judged(words: list[str], position: int) -> bool:
    """The action at `position` is a negated infinitive that is judged ("Не выложить их было бы глупо", "it would
    be a shame not to send it": its clause holds a judging word) or whose reason is denied ("I see no reason not to
    publish it", "не вижу причин не отправлять"): the speaker wants it done; the negation commands nothing."""
    negation = next((k for k in range(position, max(-1, position - 4), -1) if words[k] in _NOT_INFINITIVE), None)
    if negation is None:
        return False
    word = words[position]
    english = words[position - 1 : position] == ["to"] and words[negation + 1 : negation + 2] == ["to"]
    if not (english or word.endswith(("ть", "ти", "чь", "ться", "ć", "c", "ść", "źć"))):
        return False
    start, end = _clause_span(words, position)
    if any(_whole(_JUDGING, w) for w in words[start:end]):
        return True
    # the reason, at most five words before the negation (past a comma: "powodu, żeby tego nie wrzucać"), denied at
    # most six words before itself
    for k in range(negation - 1, max(-1, negation - 6), -1):
        if words[k] in _SENTENCE_END:
            return False
        if _whole(_REASONS, words[k]):
            return any(w in _DENYING for w in words[max(0, k - 6) : k])
    return False


#: "Otherwise": what follows is what would go wrong, not what is asked ("иначе не отправить", "inaczej nie wyślemy").
_OTHERWISE = {"otherwise", "иначе", "inaczej"}


def _otherwise(words: list[str], position: int) -> bool:
    """An "otherwise" opens the clause of the action at `position`: "Обнови модуль, иначе новую форму не
    отправить", "Zaktualizuj program, inaczej nie wyślemy deklaracji"."""
    for k in range(position - 1, max(-1, position - 8), -1):
        if words[k] in _SENTENCE_END:
            return False
        if words[k] in _OTHERWISE:
            return words[k + 1] != ","  # "Otherwise, don't send anything": a discourse marker before a command
    return False


_YOU = {"you", "you'll", "you'd", "u", "ty", "ты", "вы"}
#: Polish and Russian second person singular endings: "że nie wyślesz", "что не отправишь".
_SECOND_PERSON = ("esz", "isz", "ysz", "ешь", "ишь", "ёшь")


#: What "only a draft" withholds, and what a prohibition its sentence names may narrow it to.
_DRAFT_WITHHELD = ("external_transmission", "publication")


def _named_over_draft(words: list[str], found: list[tuple[int, ForbiddenAction]]) -> list[tuple[int, ForbiddenAction]]:
    """ "Only a draft" withholds both sending and publishing, unless its sentence names what is withheld: "It's only a
    draft, so don't put it up on the noticeboard", "Только черновик: на сайт не выкладывай" forbid the posting alone.
    """
    sentence = _sentences(words)
    # a word inside the withholding phrase names nothing more ("not for circulation": "circulation" is its own word)
    inside = {q + k for q, r in found if is_draft_only(r) for k in range(4)}
    named = {
        sentence[p]
        for p, r in found
        if r.forbids
        and r.effect in _DRAFT_WITHHELD
        and not is_draft_only(r)
        and not r.trigger.endswith("(confined)")
        and p not in inside
    }
    return [(p, r) for p, r in found if not (is_draft_only(r) and sentence[p] in named)]


def _kept_private_unpublished(
    words: list[str], language: str, found: list[tuple[int, ForbiddenAction]]
) -> list[tuple[int, ForbiddenAction]]:
    """What is kept private ("keep it under your hat", "niech zostanie między nami", "держи при себе") no one else is
    to have: it is not published either, unless the message withholds a writing from its addressee (a reply to the
    parents kept between us is only not sent)."""
    if any(addressed(w, language) for w in words):
        return []
    return [
        (p, ForbiddenAction("publication", f"{r.trigger.removesuffix(f' ({KEPT_PRIVATE})')} ({NO_ONE_ELSE}: "
                            "unpublished)", r.word))
        for p, r in found
        if r.forbids and r.trigger.endswith(f"({KEPT_PRIVATE})")
    ]  # fmt: skip


def settle(readings: list[ForbiddenAction], positions: list[int]) -> list[ForbiddenAction]:
    """A lifted reading of an action word is dropped when another reading of the same word forbids it (a condition
    or a deferral still holds after "don't forget to…"); duplicates are kept once."""
    forbidden_at = {p for r, p in zip(readings, positions, strict=True) if r.forbids}
    seen: set[tuple[int, str, str, bool]] = set()
    kept: list[ForbiddenAction] = []
    for reading, position in zip(readings, positions, strict=True):
        key = (position, reading.effect, reading.trigger, reading.forbids)
        if key in seen or (not reading.forbids and position in forbidden_at):
            continue
        seen.add(key)
        kept.append(reading)
    return kept


def forbidden_actions(text: str, language: str | None = None) -> list[ForbiddenAction]:
    """Every forbidden action in `text`, in order of appearance (an effect may appear more than once)."""
    return [reading for reading in read_actions(text, language) if reading.forbids]


def forbidden_effects(text: str, language: str | None = None) -> list[EffectClass]:
    """The distinct forbidden effect classes, sorted."""
    return sorted({f.effect for f in forbidden_actions(text, language)})
