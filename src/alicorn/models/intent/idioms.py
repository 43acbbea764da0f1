"""Prohibitions said as a judgement on the action rather than a command about it, in en/pl/ru.

    a refusal predicate     "Publishing it is off the table", "emailing them is out of the question", "not on the
                            cards", "Publikacja odpada", "Wysyłka nie wchodzi w grę", "O publikowaniu nie ma mowy",
                            "Отправка исключена", "О публикации и речи нет": the action named in the clause is refused.
    forbidding              "I forbid running the scripts", "Restarting the nodes is not allowed", "restart node'ów
                            zabroniony", "push в репозиторий запрещаю", "останавливать его сам не смей": the same,
                            unless negated ("я не запрещаю") or borne by someone else ("he's not allowed", "ей
                            запрещено").
    someone else's domain   "The upgrade is Mark's job", "to jego działka", "это его зона", "stays under the
                            gardener's control", "zostają w rękach technika", "остаются в ведении техника": what the
                            sentence names (an action, or a device, document, venue or server) is not for us to do.
    kept in-house           "Zestawienie zostaje w firmie", "Сводка остаётся у нас", "the figures stay in-house":
                            the thing named is not to leave (external transmission).
    a negative passive      "nothing gets installed or run", "nothing is to be deleted", "no file gets moved": each
                            coordinated participle is forbidden.
    a feared consequence    "if anything lands on the clubhouse PC before the vote it'll be my neck on the line",
                            "pushing it to the tablets any sooner would be asking for trouble", "jeśli to wyjdzie do
                            prasy, głowa mi poleci", "если это попадёт на сайт, мне конец": the action in the
                            condition (or the subject) of a predicted trouble is not to happen.
    only to look            "так что только смотреть", "tylko patrzeć", "look, don't touch": the things the sentence
                            names (a device, a document, a venue) are for looking at, not for changing.
    read-only, predicated   "Обе таблицы — только на чтение", "the ledger is read-only", "arkusz jest tylko do
                            odczytu", verbless ("oryginalny plik tylko do odczytu") or as access ("read-only access
                            to the HR database"): a named document declared read-only is not written ("read-only
                            please" said of the task, with no document as its subject, is its scope, not a ban).

Each is read from the clause or sentence structure (a predicate and what it is said of), not from the action word
alone; a question states nothing, so none of them reads one.
"""

from __future__ import annotations

from alicorn.models.intent.lexicon import (
    _CHATS,
    _CLAUSE_BREAK,
    _CONTINUE,
    _DATA_OBJECTS,
    _SERVERS,
    _VENUES,
    ForbiddenAction,
    _clause_span,
    _device,
    _sentences,
    _told_to_another,
    _whole,
    action_of,
    borne_by_another,
    questions_in,
)
from alicorn.models.intent.urgency import IF_WORDS
from alicorn.plan.dsl import EffectClass

# fmt: off
#: Refusal predicates, as token sequences; said of the action in their clause.
_REFUSALS: tuple[tuple[str, ...], ...] = (
    ("off", "the", "table"), ("out", "of", "the", "question"), ("not", "on", "the", "cards"), ("not", "an", "option"),
    ("no", "go"), ("ruled", "out"), ("not", "happening"), ("off", "limits"), ("hands", "off"), ("out", "of", "bounds"),
    ("ręce", "precz"), ("łapy", "precz"), ("łapska", "precz"), ("руки", "прочь"), ("лапы", "прочь"), ("ни", "-", "ни"),
    ("no", "-", "go"), ("под", "запретом"), ("pod", "zakazem"), ("tabu",),
    ("табу",), ("ни", "в", "коем", "случае"), ("w", "żadnym", "wypadku"), ("pod", "żadnym", "pozorem"),
    ("odpada",), ("odpadają",), ("nie", "wchodzi", "w", "grę"), ("nie", "wchodzą", "w", "grę"), ("nie", "ma", "mowy"),
    ("wykluczone",), ("wykluczona",), ("wykluczony",), ("nie", "ma", "opcji"), ("nie", "ma", "takiej", "opcji"),
    ("исключено",), ("исключена",), ("исключен",), ("исключены",), ("и", "речи", "нет"), ("речи", "нет"),
    ("речи", "быть", "не", "может"), ("не", "обсуждается"), ("не", "вариант"), ("отпадает",),
    # in no form at all, said as the predicate of a verbless clause: "в общий чат — ни в каком виде", "w żadnej
    # formie" (English "under no circumstances" stands before a verb: "under no circumstances wait for Monday")
    ("ни", "в", "каком", "виде"), ("ни", "под", "каким", "видом"), ("w", "żadnej", "formie"),
    ("pod", "żadną", "postacią"),
)
#: Forbidding, said by the speaker or as a rule: "I forbid running the scripts", "Restarting the nodes is not
#: allowed", "Zabraniam przesyłania go", "restart node'ów zabroniony", "push в репозиторий запрещаю", "не смей".
_FORBIDDING: tuple[tuple[str, ...], ...] = (
    ("forbid",), ("forbidden",), ("prohibit",), ("prohibited",), ("not", "allowed"), ("not", "permitted"), ("banned",),
    ("don't", "you", "dare"), ("dont", "you", "dare"),
    ("zabraniam",), ("zakazuję",), ("zabronione",), ("zabroniony",), ("zabroniona",), ("zabronieni",),
    ("niedozwolone",), ("niedozwolony",), ("zakazane",), ("zakazany",), ("zakazana",), ("nie", "waż", "się"),
    ("nie", "ważcie", "się"),
    ("запрещаю",), ("запрещено",), ("запрещен",), ("запрещена",), ("запрещены",), ("запрещается",),
    ("не", "допускается"), ("недопустимо",), ("не", "смей"), ("не", "смейте"), ("не", "вздумай"),
)
_NEGATIONS = {"not", "don't", "dont", "doesn't", "isn't", "aren't", "nie", "не", "never"}
#: Nouns of a domain someone owns: "Mark's job", "jego działka", "его зона".
_DOMAIN_NOUNS = (
    "=job", "=responsibility", "=call", "=area", "=department", "=territory", "=remit", "=domain", "=task",
    "działka", "działką", "sprawa", "zadanie", "broszka", "działce", "зона", "дело", "задача", "епархия",
    "ответственность", "вотчина", "=business", "=concern", "obowiązek", "забота", "обязанность",
    # a choice someone else makes: "her choice and her click", "to jej wybór", "это его выбор"
    "=choice", "=decision", "wybór", "decyzja", "выбор", "решение",
)
_COPULAS = {"is", "are", "it's", "that's", "remains", "to", "jest", "są", "это", "—", "-"}
_POSSESSIVES = {
    "his", "her", "their", "my", "our", "jego", "jej", "ich", "moja", "moje", "nasza", "nasze", "его", "ее", "их",
    "моя", "мое", "наша", "наше",
}
#: Being in someone's hands: "under the gardener's control", "w rękach technika", "в ведении техника".
_HANDS: tuple[tuple[str, ...], ...] = (
    ("under",), ("in", "the", "hands"), ("w", "rękach"), ("w", "gestii"), ("pod", "kontrolą"), ("в", "ведении"),
    ("в", "руках"), ("под", "контролем"), ("на", "совести"),
)
_STAYING = (
    "=stay", "=remain", "=stays", "=remains", "zostaje", "zostają", "zostanie", "zostaną", "pozostaje", "pozostają",
    "pozostanie", "остается", "остаются", "останется", "останутся", "zostaja", "zostana", "pozostaja",
)
#: Keeping verbs take an object before the place: "Keep the findings in-house", "trzymaj wyniki u nas".
_KEEPING_INSIDE = ("=keep", "trzymaj", "zatrzymaj", "zachowaj", "держи", "держите", "оставь", "оставьте")
#: Your own domain, negated: "Publishing them is not your job", "to nie twoja działka", "это не твоя задача".
_YOURS = {"your", "twoja", "twoje", "twój", "twoim", "twoją", "твоя", "твое", "твой", "ваша", "ваше", "wasza", "wasze"}
_NOT = {"not", "isn't", "nie", "не"}
_ONLY_WORDS = {"only", "just", "tylko", "jedynie", "только", "лишь"}
#: A Polish or Russian owner stands after the domain noun, in the genitive: "restart to zadanie informatyka",
#: "Вентиляция — епархия агронома" (a person's noun ending -a/-y/-i, -а/-я/-ы/-и; not "to zadanie na jutro").
_GENITIVE_OWNER = ("a", "y", "i", "а", "я", "ы", "и")
_COPULAS_BEFORE = {"to", "jest", "это", "—", "–", "-"}
#: Things that are run: under someone else's domain, not for us to run ("the test suite is Marek's territory").
_RUN_THINGS = (
    "=test", "=tests", "=suite", "=script", "=macro", "testy", "testów", "skrypt", "makro", "тест", "скрипт", "макрос",
    # a scheduled job: "the export job itself is off limits", "joba nie ruszaj", "джоб не трогай"
    "=job", "=jobs", "=joba", "=joby", "джоб",
)
_MINE = {"mine", "ours", "moje", "moja", "mój", "nasze", "моё", "мое", "моя", "мой", "наше"}
#: Places that keep a thing inside: "w firmie", "u nas", "у нас", "in-house".
_INSIDE: tuple[tuple[str, ...], ...] = (
    ("in", "-", "house"), ("in", "house"), ("with", "us"), ("inside", "the", "company"), ("within", "the", "company"),
    ("w", "firmie"), ("u", "nas"), ("w", "domu"), ("w", "zespole"), ("у", "нас"), ("в", "компании"),
    ("в", "фирме"), ("внутри", "компании"), ("в", "команде"),
    ("wewnątrz",), ("wewnatrz",), ("w", "obrębie"), ("внутри",), ("inside",), ("within",), ("in", "the", "drawer"),
    ("w", "szufladzie"), ("в", "столе"), ("в", "ящике"), ("u", "mnie"), ("у", "меня"), ("w", "dziale"), ("в", "отделе"),
    ("in", "the", "department"), ("within", "the", "team"),
)
#: The speaker as the place a thing stays, and the words that make it the only one: "zostaje wyłącznie u mnie".
_WITH_ME = {("u", "mnie"), ("у", "меня")}
_SOLELY = {"wyłącznie", "wylacznie", "tylko", "jedynie", "только", "лишь", "исключительно"}
#: What a reading stays within that is no place: "within range", "within limits", "within budget".
_MEASURED_BOUNDS = {"range", "limits", "limit", "tolerance", "norm", "norms", "spec", "specs", "budget", "threshold",
                    "thresholds", "bounds", "normal", "target", "targets"}  # fmt: skip
_PASSIVE_PAST = (
    ("nie", "zostało"), ("nie", "został"), ("nie", "została"), ("nie", "zostały"), ("nie", "było"), ("nie", "były"),
    ("не", "было"),
)  # fmt: skip
#: What turns a past passive into a wish: "żeby nic nie zostało przestawione", "чтобы ничего не было удалено".
_SO_THAT = {"żeby", "zeby", "aby", "by", "чтобы", "чтоб"}
#: Negations of "get" in a passive with its own subject: "so it doesn't get run", "it mustn't get sent".
_NOT_GETTING = {"doesn't", "don't", "won't", "never", "mustn't", "shouldn't", "can't", "cannot"}
_NEGATIVE_SUBJECTS = {"nothing", "no", "none", "nic", "żaden", "żadna", "żadne", "ничего", "ничто", "никакой"}
_PASSIVE_AUX = (
    ("gets",), ("get",), ("is", "to", "be"), ("are", "to", "be"), ("should", "be"), ("must", "be"), ("will", "be"),
    ("may", "be"), ("can", "be"),
    # "nic nie zostanie wysłane", "ничего не будет удалено", "żaden plik nie może zostać usunięty"
    ("nie", "zostanie"), ("nie", "zostaną"), ("nie", "może", "zostać"), ("nie", "mogą", "zostać"), ("nie", "będzie"),
    ("nie", "będą"), ("не", "будет"), ("не", "будут"), ("не", "должно", "быть"), ("не", "должен", "быть"),
    ("не", "должна", "быть"), ("не", "должны", "быть"),
    # a past one only in a wish: "dopilnuj, żeby nic nie zostało przestawione", "чтобы ничего не было удалено"
    *_PASSIVE_PAST,
)
#: Verbs whose English participle is its base: "nothing gets run".
_BARE_PARTICIPLES: dict[str, EffectClass] = {
    "run": "code_execution", "rerun": "code_execution", "sent": "external_transmission",
}
#: Predicted trouble: the action its condition or subject names is not to happen.
_TROUBLE: tuple[tuple[str, ...], ...] = (
    ("my", "neck"), ("asking", "for", "trouble"), ("in", "trouble"), ("my", "head", "on"), ("heads", "will", "roll"),
    ("a", "disaster"), ("a", "nightmare"), ("głowa", "mi"), ("urwą", "mi", "głowę"), ("proszenie", "się", "o"),
    ("będzie", "awantura"), ("będzie", "afera"), ("mam", "przechlapane"), ("мне", "конец"), ("голову", "оторвут"),
    ("будет", "скандал"), ("мне", "влетит"), ("напрашиваться", "на"), ("беды", "не", "оберешься"),
)
_IF = IF_WORDS | {"should"}
#: Before a trouble predicate, what makes the action its subject: "pushing it … would be asking for trouble".
_PREDICTING = {"would", "will", "be", "it'll", "is", "to", "będzie", "byłoby", "это", "будет", "было"}
#: Verbs of looking: "только смотреть", "tylko patrzeć", "look only".
_LOOKING = ("=look", "=watch", "смотр", "гляд", "patrz", "ogląd", "oglad")
#: Read-only, said of a thing: "только на чтение", "tylko do odczytu", "read-only".
_READ_ONLY: tuple[tuple[str, ...], ...] = (
    ("read", "-", "only"), ("только", "на", "чтение"), ("только", "для", "чтения"), ("tylko", "do", "odczytu"),
)
#: Away from a place: "keep it off the troop facebook page", "trzymaj to z dala od fejsa", "держи подальше от сайта".
_OFF: tuple[tuple[str, ...], ...] = (
    ("off",), ("away", "from"), ("out", "of"), ("z", "dala", "od"), ("z", "daleka", "od"), ("подальше", "от"),
    ("вдали", "от"),
)
_KEEPING_OFF = ("=keep", "=stay", "=leave", "trzymaj", "zostaw", "держи", "держите", "оставь")
#: Our own part, said of one thing: "наше дело — памятка", "our job is the guide", "nasza rola to instrukcja".
_OURS = {"our", "наше", "наша", "nasze", "nasza", "naszą"}
# fmt: on


def judged(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """(position, reading) for every prohibition of the forms above in the tokens `words`."""
    sentence = _sentences(words)
    questions = questions_in(words, sentence)
    found: list[tuple[int, ForbiddenAction]] = []
    readings = [*_refused(words, sentence), *_owned_elsewhere(words, sentence, language)]
    readings += [*_kept_inside(words, sentence), *_negative_passive(words, sentence)]
    readings += [*_feared(words, sentence), *_only_looking(words, sentence), *_read_only(words, sentence)]
    readings += [*_kept_off(words, sentence), *_ours_only(words, sentence), *_embargoed(words)]
    found.extend(item for item in readings if sentence[item[0]] not in questions)
    return found


def _at(words: list[str], index: int, phrase: tuple[str, ...]) -> bool:
    return tuple(words[index : index + len(phrase)]) == phrase


#: Prepositions that send a thing into a place: "в общий чат", "do czatu zespołu", "into the team channel".
_INTO_A_PLACE = {"в", "во", "на", "do", "na", "w", "into", "in", "on", "to", "onto"}


def _named(words: list[str], start: int, end: int) -> list[tuple[int, EffectClass]]:
    """The actions in [start, end), else what a change to the things named there would be."""
    actions = [(j, e) for j in range(start, end) if words[j][0].isalpha() and (e := action_of(words, j))]
    if actions:
        return actions
    named: list[tuple[int, EffectClass]] = []
    for j in range(start, end):
        word = words[j]
        if not word[0].isalpha():
            continue
        if _device(word):
            named.append((j, "physical"))
        elif _whole(_VENUES, word):
            named.append((j, "publication"))
        elif _whole(_CHATS, word) and any(w in _INTO_A_PLACE for w in words[max(start, j - 3) : j]):
            named.append((j, "publication"))  # "В общий чат — ни в коем случае": posted where a group reads it
        elif _whole(_SERVERS, word):
            named.append((j, "installation"))
        elif _whole(_DATA_OBJECTS, word) and not (j + 1 < end and _whole(_RUN_THINGS, words[j + 1])):
            named.append((j, "local_write"))  # not "the export job": the job is the thing, the export its kind
        elif _whole(_RUN_THINGS, word) and not (word.startswith(("job", "джоб")) and _someones(words, j)):
            named.append((j, "code_execution"))  # not "the pumps are his job": a duty, not a program
    return named


def _someones(words: list[str], index: int) -> bool:
    """The noun at `index` follows a possessive ("his job", "the security team's job"): someone's."""
    before = words[index - 1] if index else ""
    return before in _POSSESSIVES or before in ("your", "its") or _possessive(before)


def _forbidden_to_another(words: list[str], index: int, phrase: tuple[str, ...]) -> bool:
    """The forbidding at `index` is negated ("я не запрещаю тебе перезапускать", "nie zabraniam") or borne by
    someone other than the agent ("he's not allowed to push", "ей запрещено выкладывать", "подрядчику запрещено
    ставить своё ПО")."""
    before = words[max(0, index - 2) : index]
    if phrase[0] not in _NEGATIONS and before and before[-1] in _NEGATIONS:
        return True
    return borne_by_another(words, index) or _told_to_another(words, index)


#: Stopping and switching off: "останавливать его сам не смей", "nie waż się go wyłączać", "don't you dare stop it".
_STOPPING = ("=stop", "=shut", "останавлив", "останови", "выключ", "отключ", "zatrzym", "wyłącz", "wylacz")


def _stopped_device(words: list[str], start: int, end: int) -> list[tuple[int, EffectClass]]:
    """A verb of stopping in [start, end) whose device is named there or in the twenty words before ("конвейер … мотор
    греется, останавливать его сам не смей"): the device is operated."""
    for j in range(start, end):
        if _whole(_STOPPING, words[j]) and any(_device(w) for w in words[max(0, j - 20) : end]):
            return [(j, "physical")]
    return []


def _refused(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "Publishing it is off the table", "Wysyłka nie wchodzi w grę", "О публикации и речи нет", and forbidding
    ("I forbid running the scripts", "restart node'ów zabroniony"), not when negated or borne by another."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        phrase = next((p for p in _REFUSALS if _at(words, index, p)), None)
        if phrase is None:
            phrase = next((p for p in _FORBIDDING if _at(words, index, p)), None)
            if phrase is None or _forbidden_to_another(words, index, phrase):
                continue
        start, end = _clause_span(words, index)
        named = _named(words, start, end)
        if not named and start > 0 and words[start - 1] in (":", "—", "–", "-"):
            # "The barrier itself: hands off", "Szlaban — ręce precz": what is refused stands before the colon
            start = _clause_span(words, start - 1)[0]
            named = _named(words, start, end)
        if not named and start > 0 and words[start] in _SO:
            # "Any door or heating adjustments I'll make myself, so hands off the controls": what the clauses before
            # it in its sentence name
            start = next(k for k in range(len(words)) if sentence[k] == sentence[index])
            named = _named(words, start, end)
        if not named and phrase in _FORBIDDING:
            named = _stopped_device(words, start, end)
        asked = start
        if not named and start > 0 and words[start - 1] == "?" and sentence[start - 1] == sentence[index] - 1:
            # "Instalacja na serwerze? Nie ma mowy", "Publishing it? Out of the question": the question names it
            start = sentence.index(sentence[start - 1])
            named = _named(words, start, end)
        after = index + len(phrase)
        if words[after : after + 1] in (["o"], ["about"], ["of"], ["об"], ["о"]) and any(j >= after for j, _ in named):
            # "nie ma mowy o puszczaniu tego na bazie": the refusal's own topic is what is refused (not "przed
            # backupem" before it)
            named = [(j, effect) for j, effect in named if j >= after]
        for j, effect in named:
            if not start <= j < index and not index + len(phrase) <= j < end:
                continue
            # read where the refusal is said (a question before it asks nothing by itself)
            found.append((max(j, asked), ForbiddenAction(effect, f"{' '.join(phrase)} (refused)", words[j])))
    return found


#: A consequence opening a clause: "so hands off", "więc ręce precz", "так что руки прочь".
_SO = {"so", "więc", "wiec", "zatem", "так", "поэтому", "значит"}
#: "-'s" that is "is", not a possessive: "it's", "that's", "there's".
_IS_CONTRACTIONS = {"it's", "that's", "there's", "what's", "he's", "she's", "here's", "who's", "where's"}


def _possessive(word: str) -> bool:
    return word.endswith("'s") and word not in _IS_CONTRACTIONS


def _owned_elsewhere(words: list[str], sentence: list[int], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "The upgrade is Mark's job", "to jego działka", "stays under the gardener's control", "в ведении техника"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        owner = False
        in_a_path = index + 1 < len(words) and words[index + 1] in ("/", "\\")  # "is in calls/patel.docx"
        if _whole(_DOMAIN_NOUNS, word) and index and not in_a_path:
            before = [
                w
                for k, w in enumerate(words[max(0, index - 4) : index], max(0, index - 4))
                if sentence[k] == sentence[index]
            ]
            # predicative only ("is Mark's job", "to jego działka", "это его зона"; not "this morning's call", not
            # "it's" of another sentence: "now it's almost 2h. Job log is in the shared folder")
            owner = any(w in _POSSESSIVES or _possessive(w) for w in before) and any(w in _COPULAS for w in before)
            # "not your job": the agent's own domain, denied ("it is your job" asks for it)
            owner = owner or (any(w in _YOURS for w in before) and any(w in _NOT for w in before))
            after = words[index + 1] if index + 1 < len(words) else ""
            # "restart to zadanie informatyka", "это епархия агронома": the owner after, in the genitive
            owner = owner or (
                language != "en"
                and words[index - 1] in _COPULAS_BEFORE
                and len(after) > 3
                and after.isalpha()
                and after.endswith(_GENITIVE_OWNER)
            )
        if word in ("yours", "twoje", "twoja", "twój", "твое", "твоя", "твой", "ваше") and any(
            w in _NOT for w in words[max(0, index - 2) : index]
        ):
            owner = True  # "the heating settings are not yours to play with", "to nie twoje", "это не твоё"
        if word in _MINE and index and (words[index - 1] in _COPULAS or words[index - 1] in ("all", "cała", "całe")):
            owner = True  # "but that pleasure is all mine", "это моё", "to już moje": the speaker keeps it
        hands = next((p for p in _HANDS if _at(words, index, p)), None)
        if hands is not None:
            staying = any(_whole(_STAYING, w) for w in words[max(0, index - 4) : index])
            owner = staying and (hands != ("under",) or any(w.endswith("'s") for w in words[index : index + 4]))
        if not owner:
            continue
        members = [k for k in range(len(words)) if sentence[k] == sentence[index]]
        scope = [k for k in members if k < index] or members
        for j, effect in _named(words, scope[0], scope[-1] + 1):
            if _whole(_DOMAIN_NOUNS, words[j]) and j and (words[j - 1] in _POSSESSIVES or words[j - 1].endswith("'s")):
                continue  # "is the sexton's call, not yours": the domain noun names the owner's say, not a phone call
            found.append((j, ForbiddenAction(effect, f"{word} (someone else's)", words[j])))
    return found


def _kept_inside(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "Zestawienie zostaje w firmie", "Сводка остаётся у нас", "the figures stay in-house"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        keeping = _whole(_KEEPING_INSIDE, word)
        if (not _whole(_STAYING, word) and not keeping) or word.endswith("ed"):
            continue  # "the sensors stayed within range" reports a past state; it keeps nothing in
        _, end = _clause_span(words, index)
        for j in range(index + 1, min(end, index + (6 if keeping else 3))):
            phrase = next((p for p in _INSIDE if _at(words, j, p)), None)
            if phrase == ("within",) and j + 1 < len(words) and words[j + 1] in _MEASURED_BOUNDS:
                break  # "temperatures stay within range": a measure's bounds, not a place data stays in
            if phrase is not None:
                trigger = f"{word} {' '.join(phrase)} (kept inside)"
                found.append((index, ForbiddenAction("external_transmission", trigger, word)))
                if phrase in _WITH_ME and words[j - 1] in _SOLELY:
                    # "protokół zostaje wyłącznie u mnie": with the speaker alone, it is not put up anywhere either
                    found.append((index, ForbiddenAction("publication", f"{trigger} (the speaker's alone)", word)))
                break
    return found


def _negative_passive(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "nothing gets installed or run", "nothing is to be deleted": each coordinated participle."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        negated_get = word in _NOT_GETTING and words[index + 1 : index + 2] in (["get"], ["gets"])
        if negated_get and (not index or words[index - 1] in ("i", "we", "you")):
            continue  # "I don't get paid": the speaker's own lot
        if word not in _NEGATIVE_SUBJECTS and not negated_get:
            continue
        # "so it doesn't get run", "the rota won't get published": the thing is not to be done to
        j = index + 1 if word in ("nothing", "none", "nic", "ничего", "ничто") or negated_get else index + 2
        aux = next((p for p in _PASSIVE_AUX if _at(words, j, p)), None)
        if aux is None or (aux in _PASSIVE_PAST and not any(w in _SO_THAT for w in words[max(0, index - 3) : index])):
            continue  # "nic nie zostało wysłane" reports; "żeby nic nie zostało wysłane" wishes
        k = j + len(aux)
        while k < len(words) and words[k] not in _CLAUSE_BREAK:
            effect = _BARE_PARTICIPLES.get(words[k]) or action_of(words, k)
            if effect is not None:
                found.append((k, ForbiddenAction(effect, f"{word} {' '.join(aux)} (passive)", words[k])))
            elif words[k] not in _CONTINUE and not words[k].endswith("ed"):
                break
            k += 1
    return found


def _feared(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "if anything lands on the clubhouse PC … it'll be my neck on the line", "pushing it to the tablets any sooner
    would be asking for trouble": the action in the condition, or the subject, of a predicted trouble."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        phrase = next((p for p in _TROUBLE if _at(words, index, p)), None)
        if phrase is None:
            continue
        start, _ = _clause_span(words, index)
        condition = next((k for k in range(start, index) if words[k] in _IF), None)
        if condition is None and start > 1 and sentence[start - 2] == sentence[index]:
            # "If it goes on the website, it'll be a disaster": the condition is the clause before
            before, _ = _clause_span(words, start - 1)
            if words[before] in _IF:
                condition, start = before, before
        subject = condition is None and index and words[index - 1] in _PREDICTING
        if condition is None and not subject:
            continue
        for j in range(condition if condition is not None else start, index):
            effect = action_of(words, j) if words[j][0].isalpha() else None
            if effect is not None:
                found.append((j, ForbiddenAction(effect, f"{' '.join(phrase)} (feared)", words[j])))
    return found


def _only_looking(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "Вентиляция — епархия агронома, так что только смотреть", "tylko patrzeć": what the sentence names is only
    looked at (not "only look at the totals and send them": an action after it is the request)."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not (index and words[index - 1] in _ONLY_WORDS and _whole(_LOOKING, word)):
            continue
        end = next((k for k in range(index, len(words)) if sentence[k] != sentence[index]), len(words))
        if any(action_of(words, k) for k in range(index + 1, end) if words[k][0].isalpha()):
            continue
        members = [k for k in range(index - 1) if sentence[k] == sentence[index]]
        for j, effect in _named(words, members[0], index - 1) if members else []:
            if effect != "code_execution":
                found.append((j, ForbiddenAction(effect, f"{words[index - 1]} {word} (only looked at)", words[j])))
    return found


#: What may lead an instruction to work read-only: "please", "strictly", "work", "open it", "keep everything".
_READ_ONLY_LEAD = {
    "please", "strictly", "just", "work", "open", "keep", "treat", "it", "them", "as", "everything", "all", "and",
    "proszę", "prosze", "pracuj", "otwórz", "otworz", "traktuj", "to", "jako", "wszystko", "i", "ściśle", "scisle",
    "работай", "открой", "держи", "все", "всё", "это", "как", "пожалуйста", "строго", "и",
}  # fmt: skip


def _read_only(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "Обе таблицы — только на чтение", "the ledger is read-only": a document the clause names as its subject."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        phrase = next((p for p in _READ_ONLY if _at(words, index, p)), None)
        if phrase is None:
            continue
        trigger = f"{' '.join(phrase)} (read-only)"
        after = index + len(phrase)
        if words[after : after + 1] in (["access"], ["dostęp"], ["доступ"]):
            # "Read-only access to the HR database", "dostęp tylko do odczytu", "доступ только для чтения к базе"
            for j in range(after + 1, min(len(words), after + 6)):
                if words[j] in _CLAUSE_BREAK:
                    break
                if _whole(_DATA_OBJECTS, words[j]):
                    found.append((j, ForbiddenAction("local_write", trigger, words[j])))
            continue
        start = _clause_span(words, index)[0]
        explained = ":" in words[after : after + 4]  # "Read-only job though: no restarting services"
        if all(w in _READ_ONLY_LEAD for w in words[start:index]) and not explained:
            # (after a colon, what follows says what read-only means: "Read-only please: don't execute any scripts")
            # the way of working, said as an instruction: "Read-only please, that file's the only copy", "Work
            # read-only", "Tylko do odczytu, to jedyna kopia", "Только на чтение!": nothing of the user's is written
            found.append((index, ForbiddenAction("local_write", trigger, words[index])))
            continue
        if words[index - 1] not in _COPULAS:
            # verbless: "oryginalny plik tylko do odczytu", "arkusz kadrowy tylko do odczytu", "исходники только для
            # чтения": the document at most two words before, in its clause
            for j in range(index - 1, max(_clause_span(words, index)[0], index - 3) - 1, -1):
                if _whole(_DATA_OBJECTS, words[j]):
                    found.append((j, ForbiddenAction("local_write", trigger, words[j])))
                    break
            continue
        start, _ = _clause_span(words, index - 1)
        if start == index - 1 and start > 0 and words[start - 1] in ("—", "–", "-", ":"):
            start = _clause_span(words, start - 1)[0]  # "Обе таблицы — только на чтение": the subject before the dash
        named = [j for j in range(start, index) if words[j][0].isalpha() and _whole(_DATA_OBJECTS, words[j])]
        if not named and any(w in ("it", "it's", "this", "that's", "to", "это", "ono") for w in words[start:index]):
            # "The 2023 register is closed — as far as you're concerned it's read-only": the pronoun's document is
            # named earlier in its sentence
            first = next(k for k in range(len(words)) if sentence[k] == sentence[index])
            named = [j for j in range(first, start) if words[j][0].isalpha() and _whole(_DATA_OBJECTS, words[j])][:1]
        for j in named:
            found.append((j, ForbiddenAction("local_write", trigger, words[j])))
    return found


def _kept_off(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "keep it off the troop facebook page", "trzymaj to z dala od fejsa", "держи это подальше от сайта": a thing kept
    away from a venue is not published there."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not _whole(_KEEPING_OFF, word) or (index and words[index - 1] in _NOT):
            continue
        _, end = _clause_span(words, index)
        for j in range(index + 1, min(end, index + 5)):
            phrase = next((p for p in _OFF if _at(words, j, p)), None)
            if phrase is None:
                continue
            after = range(j + len(phrase), min(end, j + len(phrase) + 4))
            venue = next((k for k in after if _whole(_VENUES, words[k]) or _shared_place(words, k)), None)
            if venue is not None:
                trigger = f"{word} … {' '.join(phrase)} (kept off)"
                found.append((venue, ForbiddenAction("publication", trigger, words[venue])))
            elif phrase == ("out", "of") and _kept_out_of_it(words, index, j, end):
                # "Police and the monitoring lot stay out of it", "keep the families out of this": not told
                trigger = f"{word} … out of {words[j + 2]} (kept out)"
                found.append((index, ForbiddenAction("external_transmission", trigger, word)))
            break
    return found


#: Places a group shares: "the staff shared drive", "wspólny folder", "общая папка" (read by all who share them).
_SHARED = {"shared", "wspólny", "wspólnego", "wspólnym", "wspólnej", "общий", "общая", "общую", "общей", "общего"}
_SHARED_PLACES = ("=drive", "dysk", "folder", "katalog", "папк", "диск", "=calendar", "kalendarz", "календар")


def _shared_place(words: list[str], index: int) -> bool:
    """A place everyone who shares it reads, named at `index` or just after a "shared" there."""
    if words[index] not in _SHARED:
        return False
    return any(_whole(_SHARED_PLACES, w) for w in words[index + 1 : index + 3])


#: Words before "stay" that are no group kept out: pronouns, auxiliaries, adverbs ("I'll stay out of it").
_NOT_A_GROUP = {
    "i", "you", "we", "he", "she", "it", "they", "i'll", "you'll", "we'll", "'ll", "will", "to", "should", "must",
    "can", "just", "please", "would", "i'd", "you'd", "ll",
}  # fmt: skip
#: What someone is kept out of: the matter itself ("out of it", "out of this"), not a place or a record.
_THE_MATTER = {"it", "this", "that", "the", "loop"}


def _kept_out_of_it(words: list[str], keeping: int, out: int, end: int) -> bool:
    """ "keep the police out of it", "Police … stay out of it", "leave the families out of this" (not "keep it out of
    the report"): people, named before "out of", kept out of the matter."""
    if out + 2 >= min(end, len(words)) or words[out + 2] not in _THE_MATTER:
        return False
    if words[out + 2] == "the" and words[out + 3 : out + 4] != ["loop"]:
        return False  # "keep it out of the report": a place, not the matter
    if words[keeping].startswith("stay"):
        # a group's name before "stay" ("Police and the monitoring lot stay out of it"), not "I'll stay out of it"
        return keeping > 0 and words[keeping - 1][0].isalpha() and words[keeping - 1] not in _NOT_A_GROUP
    named = [w for w in words[keeping + 1 : out] if w[0].isalpha() and w not in ("it", "this", "that", "them")]
    return bool(named) or "them" in words[keeping + 1 : out]


#: An embargo holds back publication: "embargoed until Tuesday 9:00", "obowiązuje embargo", "под эмбарго".
_EMBARGO = ("embargo", "эмбарго")
#: What ends or denies one: "the embargo is lifted", "bez embarga", "эмбарго сняли", "no embargo on this".
_NO_EMBARGO = {"no", "without", "lifted", "over", "ended", "bez", "zniesione", "zdjęte", "minęło", "без", "снято",
               "сняли", "снят", "закончилось", "нет"}  # fmt: skip


def _embargoed(words: list[str]) -> list[tuple[int, ForbiddenAction]]:
    """ "It's embargoed till 9", "Do posiedzenia komisji obowiązuje embargo", "Итоги под эмбарго до заседания": what
    is under an embargo is not published (unless the embargo is denied or over)."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not word.startswith(_EMBARGO):
            continue
        start, end = _clause_span(words, index)
        near = words[max(start, index - 2) : min(end, index + 4)]
        if any(w in _NO_EMBARGO for w in near) or "if" in words[start:index]:
            continue
        found.append((index, ForbiddenAction("publication", f"{word} (embargo)", word)))
    return found


def _ours_only(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "Обновление накатывает айтишник, наше дело — памятка", "the IT firm does the upgrade; our job is the guide":
    when our part is one thing (no action after it), the actions named before it in the sentence are someone
    else's."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not (index and words[index - 1] in _OURS and _whole(_DOMAIN_NOUNS, word)):
            continue
        _, end = _clause_span(words, index + 2)
        rest = [k for k in range(index + 1, end) if words[k][0].isalpha()]
        if not rest or words[index + 1] not in _COPULAS or any(action_of(words, k) for k in rest):
            continue  # "our job is to send it": the action is ours
        members = [k for k in range(index - 1) if sentence[k] == sentence[index]]
        for j in members:
            effect = action_of(words, j) if words[j][0].isalpha() else None
            if effect is not None:
                found.append(
                    (j, ForbiddenAction(effect, f"{words[index - 1]} {word} (ours is only the rest)", words[j]))
                )
    return found
