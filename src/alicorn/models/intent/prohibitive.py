"""Prohibitions said without a negation scope over the action: the forms a person uses to keep an effect from
happening that `lexicon`'s negation chains do not reach, each read from the sentence's structure, in en/pl/ru.

    delegation to oneself   "I'll publish it myself", "wyślę ją sama", "выложу сам", "Запускать буду сам",
                            "Publikację zostaw mnie", "leave the sending to me": the person keeps that effect.
    a state kept            "leave the file as it is", "the website stays as it is", "Plik zostaw taki, jaki jest",
                            "Bramy zostaw w spokoju", "Насосы оставь как есть": the effect on what is named (a device:
                            physical; a document: local write; a venue: publication; a server: installation).
    a device not handled    "Замки и турникеты не трогай", "Станок не останавливай", "Sprężarek nie ruszaj": the
                            device before the negated verb, or a negated stop verb (a double negation to the chains).
    confinement             "for my eyes only", "keep it internal", "строго внутреннее", "tylko do użytku
                            wewnętrznego", "tylko dla mnie": no external transmission.
    draft only              "draft only", "tylko szkic", "только черновик": neither sent nor published.
    a deferral after it     "Aktualizacja … poczeka do przyszłego tygodnia", "Установку пока отложим", "rolling it
                            out waits until…": the action named before a deferral verb in its clause.
    an approval condition   "once I give you the go-ahead", "только по моей команде", "until Jan approves it": the
                            action it gates is not for now.
    a venue refused         "Not yet on the website", "не на сайт": publication.

None of these reads a reminder ("don't forget to publish it") or a negated deferral ("nie musisz czekać", "ждать не
нужно") as a prohibition: a deferral verb under a negation is skipped, and omission verbs are not deferrals.
"""

from __future__ import annotations

from alicorn.models.intent.cues import imperative_form
from alicorn.models.intent.lexicon import (
    _ACTIONS,
    _ASPECTUAL,
    _CHATS,
    _CLAUSE_BREAK,
    _COORDINATORS,
    _DATA_OBJECTS,
    _DETERMINERS,
    _LEARNING,
    _N_WORDS,
    _NEGATIVE_VERBS,
    _NOT_HANDLING,
    _OUTBOUND_NOUNS,
    _PARTICLES,
    _PHYSICAL_OPEN,
    _SCHEDULE_OBJECTS,
    _SENTENCE_END,
    _SERVERS,
    _SHOWING,
    _VENUES,
    ForbiddenAction,
    _clause_span,
    _device,
    _first_person,
    _in_sentence,
    _into_everyones_chat,
    _is_past,
    _lifted_necessity,
    _nearest_action_before,
    _past_clause_before,
    _sentences,
    _stem_match,
    _whole,
    _wished,
    action_of,
    questions_in,
)
from alicorn.models.intent.urgency import IF_WORDS
from alicorn.plan.dsl import EffectClass

# fmt: off
_SELF = {
    "myself", "ourselves", "sam", "sama", "sami", "samodzielnie", "osobiście", "сам", "сама", "сами", "самостоятельно",
    "лично",
}
#: With "myself" in the clause, "ill", "ive" and "im" are "I'll", "I've" and "I'm" typed without the apostrophe.
_FIRST_EN = {"i", "i'll", "i'd", "i'm", "we", "we'll", "me", "us", "my", "ill", "ive", "im"}
_FIRST_RU = {"я", "мы", "буду", "будем"}
#: "leave it to me", "zostaw mnie", "оставь мне / за мной": the speaker keeps the effect.
_LEAVE = (
    "=leave", "zostaw", "pozostaw", "zachowuj", "zachowam", "оставь", "оставьте",
    "оставить", "оставляю", "оставлю", "оставим", "оставляем",
)
_TO_ME = (
    ("to", "me"), ("to", "us"), ("mnie",), ("nam",), ("sobie",), ("мне",), ("нам",),
    ("за", "мной"), ("за", "нами"), ("за", "собой"), ("себе",),
)
#: "the rollout I'm keeping for myself": keeping is a delegation only with the speaker's own reflexive ("keep
#: sending them to me" asks for more sending).
_KEEP_SELF = ("=keep", "=keeping", "=reserve", "=save")
_FOR_MYSELF = (("for", "myself"), ("to", "myself"), ("for", "ourselves"))
#: A kept state: after a verb of keeping or staying, the thing named is not to change.
_KEEP_STATE = (
    "=leave", "=keep", "=stay", "=remain", "=must", "zostaw", "pozostaw", "zostać", "zostanie", "zostaje", "zostają",
    "zostaną", "pozostaje", "pozostanie", "pozostają", "niech", "оставь", "оставьте", "оставить", "оставлять",
    "оставляй",
    "останется", "остается", "остаются", "останутся", "пусть", "przetrw", "=survive",
)
#: A modal of a state to come out in, as whole words ("ma wyjść z tego nienaruszony", "должен остаться целым"; not
#: "Marek", "majątek").
_STATE_MODALS = {"ma", "mają", "musi", "muszą", "должен", "должна", "должно", "должны"}
#: A device's position: "the barrier stays down", "szlaban zostaje opuszczony", "шлагбаум остаётся опущенным"; read
#: near its verb only ("stays on 4.2 until Marek has signed off" keeps nothing off).
_POSITIONS: tuple[tuple[str, ...], ...] = (
    ("down",), ("locked",), ("off",), ("opuszczony",), ("opuszczona",), ("opuszczone",), ("wyłączony",),
    ("wyłączona",), ("wyłączone",), ("zablokowany",), ("zablokowana",), ("опущенным",), ("выключенным",),
    ("выключенной",), ("запертым",), ("запертой",), ("запертыми",),
    # a siren kept silent: "the siren stays silent", "syrena ma pozostać wyciszona"
    ("silent",), ("wyciszona",), ("wyciszony",), ("wyciszone",),
)  # fmt: skip
#: Words that make a state a description: "the files were untouched", "pliki są nietknięte".
_DESCRIBING = {"is", "are", "was", "were", "been", "be", "jest", "są", "był", "była", "było", "были", "был", "была"}
#: States that say not to touch a thing ("leave the roster alone"), beside those that say it stays as it is.
_UNTOUCHED = {("alone",), ("untouched",), ("w", "spokoju"), ("в", "покое"), ("be",)}
#: "leave the plugins be": "be" says the thing is left alone only after "leave" or "let".
_LEFT_BE = ("be",)
_LEAVING = {"leave", "leaving", "let"}
_STATE_PHRASES: tuple[tuple[str, ...], ...] = (
    _LEFT_BE,
    ("as", "it", "is"), ("as", "they", "are"), ("as", "is"), ("as", "it", "was"), ("alone",), ("untouched",),
    ("unchanged",), ("intact",), ("the", "same"),
    ("w", "spokoju"), ("bez", "zmian"), ("tak", "jak", "jest"), ("jak", "jest"), ("jaki", "jest"), ("jaka", "jest"),
    ("jakie", "jest"), ("jakie", "są"), ("jak", "są"), ("jacy", "są"), ("jak", "było"), ("w", "obecnym", "stanie"),
    ("nietknięty",), ("nietknięte",), ("nietknięta",), ("nietkniete",), ("as", "you", "found", "it"), ("bare",),
    ("empty",), ("pusta",), ("puste",),
    ("pusty",), ("пустой",), ("пустым",), ("shut",), ("closed",), ("zamknięta",), ("zamknięte",), ("zamknięty",),
    ("закрытыми",), ("закрытым",), ("закрытой",),
    *_POSITIONS,
    ("as", "we", "found", "it"), ("byte", "for", "byte"), ("w", "tym", "samym", "stanie"), ("в", "том", "виде"),
    ("как", "есть"), ("как", "было"), ("в", "покое"), ("без", "изменений"), ("нетронутым",), ("нетронутыми",),
    ("нетронутой",), ("в", "том", "же", "виде"),
    # "niech tak zostanie", "пусть так и остаётся", "keep it that way", "ma wyjść z tego nienaruszony", "intact"
    ("tak", "zostanie"), ("tak", "zostaje"), ("tak", "zostaną"), ("так", "и", "остается"), ("так", "и", "останется"),
    ("так", "и", "остаются"), ("that", "way"), ("it", "be"), ("them", "be"), ("nienaruszony",), ("nienaruszone",),
    ("nienaruszona",), ("целым",), ("целой",), ("целыми",),
)
#: What an installation changes: "the installed version stays", "obecną wersję zostaw", "текущую версию не трогай".
_VERSIONS = (
    "=version", "wersj", "верси",
    # parts of installed software, changed only by installing: "leave the Shopify plugins be", "wtyczek nie ruszaj",
    # "плагины не трогай", "the firmware stays as it is"
    "plugin", "plug-in", "=extension", "=extensions", "=add-on", "=add-ons", "=addon", "=addons", "wtycz", "plugin",
    "rozszerzeni", "плагин", "расширени", "firmware", "прошивк",
)  # fmt: skip
_DOCUMENTS = (
    *_DATA_OBJECTS, "=doc", "=docx", "=xlsx", "=csv", "=text", "cennik", "=tekst", "=текст", "прайс",
)
#: Settings and rules are stored data too ("the firewall rules stay as they are", "настройки оставь как есть"),
#: unless they are a device's ("the thermostat settings": physical).
_SETTINGS = (
    "=rules", "=config", "=configuration", "=settings", "reguł", "regul", "konfigurac", "ustawieni", "правил",
    "настройк", "конфиг",
)  # fmt: skip
#: Verbs of handling and of stopping: negated, with a device in their clause, the device is not to be operated.
_TOUCH = (
    "touch", "ruszaj", "ruszajcie", "dotykaj", "трогай", "трогайте", "трогать", "касайся", "=tamper", "=mess",
    # said as the team's rule: "руками не трогаем", "niczego nie ruszamy"
    "трогаем", "ruszamy", "dotykamy",
    # said as what the reader does: "pomp nie ruszasz", "агрегаты не трогаешь"
    "ruszasz", "ruszacie", "dotykasz", "dotykacie", "трогаешь", "трогаете",
    "дергай", "дергайте", "дергать", "szarp", "=fiddle",
    # meddling: "к самому станку не лезь", "nie grzeb w sterowniku", "don't meddle with the pumps"
    "лезь", "лезьте", "лезть", "grzeb", "=meddle",
    # moving it: "don't move the cameras", "nie przesuwaj czujników", "камеры не двигай"
    "=move", "przesuwaj", "przesuń", "przesun", "двигай", "двигайте", "двигать", "передвига", "передвинь", "сдвига",
    "сдвинь", "перемеща", "перемести",
)
_HANDLING = (
    "=stop", "=shut",
    "останавлив", "остановит", "останови", "выключ", "отключ", "zatrzymuj", "zatrzymaj", "wyłącz", "wylacz",
    "przełącz", "przelacz", "переключ", "=switch", "=turn",
    # opening and closing a device: "Ворота из системы не открывай и не закрывай", "nie otwieraj bramy zdalnie"
    "=open", "=close", "otwieraj", "otwórz", "otworz", "zamykaj", "zamknij", "открыва", "открой", "закрыва", "закрой",
)
_NEGATING = {"not", "don't", "dont", "never", "nie", "не", "нельзя"}
_CONFINED: tuple[tuple[str, ...], ...] = (
    ("for", "my", "eyes", "only"), ("eyes", "only"), ("for", "me", "only"), ("only", "for", "me"),
    ("just", "for", "me"), ("internal", "only"), ("internal", "use"), ("strictly", "internal"),
    ("tylko", "dla", "mnie"), ("wyłącznie", "dla", "mnie"), ("tylko", "do", "wglądu"), ("użytku", "wewnętrznego"),
    ("wewnętrznego", "użytku"), ("ściśle", "poufne"),
    ("только", "для", "меня"), ("лишь", "для", "меня"), ("внутреннего", "пользования"),
    ("внутреннего", "использования"), ("строго", "внутреннее"), ("строго", "внутренний"), ("строго", "внутренняя"),
    ("строго", "конфиденциально"),
    # only to the speaker: "Выводы — только мне лично", "wyłącznie do mnie", "send it to me only"
    ("only", "to", "me"), ("just", "to", "me"), ("to", "me", "only"), ("tylko", "do", "mnie"),
    ("wyłącznie", "do", "mnie"), ("jedynie", "do", "mnie"),
    ("tylko", "mnie"), ("только", "мне"), ("лишь", "мне"), ("исключительно", "мне"),
    # nobody else's: "Those drafts are for my inbox and nobody else's", "nikomu innemu", "больше никому"
    # under lock: "Wynik na razie pod kluczem", "держи под замком", "under lock and key"
    ("pod", "kluczem"), ("под", "замком"), ("under", "lock"),
    ("nobody", "else's"), ("no", "one", "else's"), ("for", "my", "inbox"), ("nikomu", "innemu"), ("nikomu", "więcej"),
    ("никому", "другому"), ("больше", "никому"), ("никому", "больше"),
)
#: The speaker as the only reader, said with an intensifier: "strictly for me", "ściśle dla mnie", "Это строго для
#: меня", "исключительно для меня".
_FOR_ME_STRICTLY: tuple[tuple[str, ...], ...] = (
    *(
        (intensifier, *for_me)
        for intensifiers, for_me in (
            (("strictly", "solely", "exclusively", "purely"), ("for", "me")),
            (("ściśle", "jedynie", "wyłącznie", "scisle", "wylacznie"), ("dla", "mnie")),
            (("строго", "исключительно", "сугубо", "чисто"), ("для", "меня")),
        )
        for intensifier in intensifiers
    ),
    ("for", "me", "alone"),
    ("for", "my", "eyes", "alone"),
    # for the speaker's eyes however it is stressed: "Цифры исключительно для моих глаз", "dla moich oczu"
    ("для", "моих", "глаз"), ("dla", "moich", "oczu"),
    # for the speaker's information only: "wyłącznie do mojej wiadomości", "только для моего сведения"
    *(
        (only, *mine)
        for only in ("only", "tylko", "wyłącznie", "jedynie", "только", "исключительно", "лишь")
        for mine in (("do", "mojej", "wiadomości"), ("для", "моего", "сведения"))
    ),
    ("for", "my", "information", "only"),
    ("for", "my", "reference", "only"),
)
#: The speaker's own use: "это мне для себя", "just for myself", "for my own use", "na własny użytek".
_FOR_MY_OWN_USE: tuple[tuple[str, ...], ...] = (
    ("мне", "для", "себя"), ("это", "для", "себя"), ("для", "личного", "пользования"), ("just", "for", "myself"),
    ("only", "for", "myself"), ("for", "my", "own", "use"), ("do", "własnego", "użytku"), ("na", "własny", "użytek"),
    ("do", "wlasnego", "uzytku"), ("na", "wlasny", "uzytek"),
)
#: Not to be handed round at all: "not for circulation", "не для распространения", "nie do rozpowszechniania".
_NOT_FOR_CIRCULATION: tuple[tuple[str, ...], ...] = (
    ("not", "for", "circulation"), ("not", "for", "distribution"), ("not", "for", "publication"),
    ("не", "для", "распространения"), ("не", "для", "публикации"), ("nie", "do", "rozpowszechniania"),
    ("nie", "do", "rozpowszechnienia"), ("nie", "do", "publikacji"), ("nie", "do", "dystrybucji"),
)
_CONFINED += _FOR_ME_STRICTLY + _FOR_MY_OWN_USE + _NOT_FOR_CIRCULATION
#: Too early for the action of the clause: "выкладывать пока рано", "na publikację jest za wcześnie", "it's too early
#: to send it" ("рано утром" alone is a time of day).
_TOO_EARLY: tuple[tuple[str, ...], ...] = (
    ("too", "early"), ("too", "soon"), ("premature",), ("za", "wcześnie"), ("za", "wczesnie"), ("przedwcześnie",),
    ("пока", "рано"), ("еще", "рано"), ("слишком", "рано"), ("рановато",), ("преждевременно",),
)
#: Taking an effect upon oneself: "Wysyłkę biorę na siebie", "Рассылку беру на себя", "I'll handle the sending".
_TAKING = {
    "biorę", "biore", "wezmę", "wezme", "bierzemy", "weźmiemy", "беру", "возьму", "берем", "возьмем",
}
_UPON_ONESELF = (("na", "siebie"), ("на", "себя"))
#: Not a word to someone: "Not a word to the night porter yet", "Охраннику пока ни слова", "Kierowcom ani słowa".
_NOT_A_WORD: tuple[tuple[str, ...], ...] = (
    ("not", "a", "word"), ("no", "word"), ("not", "one", "word"), ("ani", "słowa"), ("ani", "slowa"),
    ("ani", "słówka"), ("ни", "слова"), ("ни", "словечка"), ("ни", "гу", "-", "гу"),
    # not a sound: "ani mru-mru", "ani pary z ust", "ни звука", "not a peep"
    ("ani", "mru"), ("ani", "pary"), ("ни", "звука"), ("ни", "полслова"), ("not", "a", "peep"), ("not", "a", "whisper"),
)
#: Verbs of knowing: too early for someone to know is too early to tell them ("Подрядчику о вариантах знать пока
#: рано", "it's too early for the tenants to know", "za wcześnie, żeby klienci wiedzieli").
_KNOWING = ("=know", "знат", "знал", "wiedzie", "wiedział")
_HANDLE_EN = (
    ("i'll", "handle"), ("i", "will", "handle"), ("i'll", "take", "care", "of"), ("i", "will", "take", "care", "of"),
    ("we'll", "handle"), ("we'll", "take", "care", "of"),
)
#: Working on a copy leaves the original as it is: "work on a duplicate if you must", "treat it as read-only".
_ON_A_COPY: tuple[tuple[str, ...], ...] = (
    ("work", "on", "a", "copy"), ("work", "on", "a", "duplicate"), ("as", "read", "-", "only"),
    ("pracuj", "na", "kopii"), ("tylko", "na", "kopii"), ("работай", "с", "копией"), ("работай", "на", "копии"),
    ("только", "на", "копии"),
)
#: "…, not you": the action before is someone else's ("Публикует графики только отдел кадров, не ты").
_NOT_YOU = {("не", "ты"), ("не", "вы"), ("nie", "ty"), ("nie", "wy"), ("not", "you")}
_ONLINE = {"online", "internet", "internecie", "sieci", "сети", "интернете", "web"}
_PRONOUNS = {"it", "they", "this", "that", "он", "она", "оно", "они", "to", "ono", "on", "ona", "one"}
_PRONOUNS_RU = {"его", "ее", "их", "это", "эти", "им"}
#: Staying in the drafts: "Mail niech sobie poleży w szkicach", "the letter stays in my drafts", "пусть полежит в
#: черновиках": not sent.
_IN_DRAFTS: tuple[tuple[str, ...], ...] = (
    ("in", "drafts"), ("in", "my", "drafts"), ("in", "the", "drafts"), ("w", "szkicach"), ("w", "wersji", "roboczej"),
    ("в", "черновиках"), ("под", "сукном"), ("w", "szufladzie"), ("in", "the", "drawer"), ("on", "ice"),
)
_STAYING_DRAFT = (
    "=stay", "=remain", "=sit", "=sits", "poleż", "polez", "leży", "zostan", "zostaje", "niech", "полежит", "лежит",
    "останется", "пусть",
)
#: Nouns whose deferral defers their effect: messages (sent) and tests or scripts (run).
_DEFERRED_NOUNS: tuple[tuple[tuple[str, ...], EffectClass], ...] = (
    (
        ("=test", "=tests", "testy", "testów", "тест", "=script", "skrypt", "скрипт", "=macro", "makr", "макрос"),
        "code_execution",
    ),
    (
        ("=invitation", "=letter", "=mail", "=email", "zaproszeni", "=list", "приглашени", "письм"),
        "external_transmission",
    ),
    # "the updates themselves wait", "the upgrade can wait till the holidays"
    (("=update", "=updates", "=upgrade", "=upgrades", "=patch", "=patches", "=rollout"), "installation"),
)
_INTERNAL = ("internal", "wewnętrzn", "wewnetrzn", "внутренн")
_PREDICATIVE = {
    "keep", "keeps", "stay", "stays", "remain", "remains", "is", "it's", "jest", "są", "to", "это", "остается",
    "останется",
}
_DRAFT = ("=draft", "szkic", "robocz", "черновик", "набросок", "=sketch", "naszkic")
_ONLY = {"only", "just", "tylko", "jedynie", "wyłącznie", "только", "лишь"}
#: Forgetting and hesitating are negative operators to the chains, but they do not put off what comes before them.
#: Skipping does: the step fronted in its own clause is left out ("Testy pomiń", "Отправку пропусти"), so skipping
#: is read by `_deferred_after` like waiting.
_NOT_DEFERRAL = ("forget", "zapom", "забуд", "забыв", "забыть", "hesitat", "wahaj", "стесня")
_EN_DEFERRAL = {"waits", "postponed", "deferred", "delayed"}
#: Letting a thing rest defers it: "тесты пусть пока спят", "Пусть пока полежит текстом", "niech testy śpią".
_LET = {"пусть", "пускай", "niech", "let"}
_FOR_NOW = {"пока", "еще", "na", "razie", "jeszcze", "for", "now", "it", "them"}
_RESTING = (
    "=sleep", "=rest", "=lie", "спят", "спит", "поспят", "полежит", "полежат", "лежит", "лежат", "отдыхают",
    "отдохнут", "śpi", "śpią", "poleży", "poleżą", "leży", "leżą", "odpoczn",
)
_EN_MODALS = {"can", "will", "must", "should", "'ll", "to", "may", "could"}
#: Conditions that gate what they govern. An "until" is left to `lexicon` (a gate only under a negation): after an
#: affirmative verb it says how long to go on ("Отправляй напоминания, пока я не скажу стоп").
_CONDITION = {
    "once", "when", "if", "after", "po", "jak", "gdy", "kiedy", "jeśli", "когда", "после", "как", "если", "по", "до",
    "za", "with", "z", "с",
}
#: Words of someone's approval: a condition naming one gates the action ("once I give you the go-ahead").
_APPROVAL = (
    "=approve", "approval", "=ok", "=okay", "=sign", "=confirm", "zgod", "zgód", "akcept", "zatwierd",
    "potwierd", "decyz", "одобр", "подтвер", "согласов", "команд", "разреш", "отмашк",
    # signing it off: "musi go podpisać pani dyrektor", "его должна подписать заведующая"
    "podpis", "подпис",
)
#: "the go-ahead" (hyphenated: a plain "go ahead and install" is the instruction itself), "the green light".
_APPROVAL_PHRASES = ("go - ahead", "green light", "zielone światło", "зеленый свет")
#: Weaker ones gate only with the speaker named ("after I've read it", "po moim sprawdzeniu", "когда я проверю").
_SPEAKER_APPROVAL = (
    "=say", "powiem", "скажу", "=review", "=read", "=check", "=decide", "=tried", "=try", "=seen", "=see",
    "przeczyt", "sprawdz", "sprawdź", "dam", "przejrz", "прочита", "провер", "решу", "посмотр", "гляну",
)
_VENUE_PREPOSITIONS = {"on", "onto", "to", "in", "na", "do", "в", "на"}
_SKIP_AFTER_NOT = {"yet", "now", "still", "though", "jeszcze", "teraz", "пока", "сейчас", "еще"}
# fmt: on


def constructions(
    words: list[str], language: str, names: frozenset[str] = frozenset()
) -> list[tuple[int, ForbiddenAction]]:
    """(position, reading) for every prohibition of the forms above in the tokens `words`; `names` are the words
    the message wrote capitalized inside a sentence (people, see `_someone_named`)."""
    sentence = _sentences(words)
    questions = questions_in(words, sentence)
    found: list[tuple[int, ForbiddenAction]] = [
        item for item in _someone_named(words, language, names) if sentence[item[0]] not in questions
    ]
    readers = (
        _unwanted, _not_even_thought, _delegated, _kept_state, _device_left, _confined, _draft_only, _only_prepared,
        _no_programs, _to_nobody, _decided_later, _not_for,
        _deferred_after, _asked_first,
        _approval, _approved_before,
        _not_yours, _not_coming, _venue,
        _not_started, _not_subject_to, _phrased, _gated_destination, _received_after_gate,
    )  # fmt: skip
    for reader in readers:
        found.extend(item for item in reader(words, language) if sentence[item[0]] not in questions)
    return found


def _actions(words: list[str], start: int, end: int) -> list[tuple[int, EffectClass]]:
    return [(j, e) for j in range(start, end) if (e := action_of(words, j)) is not None]


#: What a person named in the message doing an effect keeps from the agent: sending, publishing, installing,
#: operating a device.
_OUTWARD = ("external_transmission", "publication", "installation", "physical")
#: Before a name these make it no doer of its own: a preposition ("to Marek", "do Marka", "к Свете", "from Anna"),
#: or a verb that asks or tells it ("ask Marek to send it" asks the agent to write to Marek).
_NAME_GOVERNORS = {
    "to", "for", "from", "with", "by", "of", "at", "do", "dla", "od", "z", "u", "przez", "o", "к", "для", "от", "у",
    "с", "из", "о", "про", "по", "при", "через",
    "ask", "tell", "remind", "get", "have", "let", "poproś", "popros", "przypomnij", "powiedz", "попроси", "скажи",
    "напомни",
}  # fmt: skip
#: Words that may stand between an English name and its verb: "Kasia will post it", "Tom's going to send it".
_EN_FUTURE = {"will", "'ll", "is", "going", "to", "gonna", "can", "also", "then", "herself", "himself", "later"}
#: The agent or the speaker as a recipient right after the verb: "Anna will send you the file" keeps nothing from
#: the agent.
_US = {"you", "me", "us", "ci", "mi", "nam", "тебе", "мне", "нам", "вам"}
_FIRST_PERSON_ENDINGS = ("ę", "my", "ю", "у", "ем", "им")
#: Polish and Russian names in a case other than the nominative ("Kasi", "Kasię", "Markowi", "Markiem", "Свете",
#: "Свету", "Анной", "Игорю").
_OBLIQUE_NAME_ENDINGS = ("i", "ę", "ą", "owi", "em", "emu", "е", "у", "ю", "ой", "ей", "ем", "ом", "ому")
#: What may stand between a verb and the name after it: "wrzuci je Marek", "Выкладывать будет Света".
_BETWEEN_VERB_AND_NAME = {"je", "go", "to", "ją", "ich", "się", "его", "её", "ее", "это", "их", "будет", "будут"}
#: Taking a task on: "Publikacją zajmie się Kasia", "Рассылкой займётся Света".
_TAKING_ON = ("zajmie", "zajmą", "займ")


def _verbs_beside(words: list[str], index: int, start: int, end: int) -> list[int]:
    """Where the action of the name at `index` may stand in Polish or Russian: right before the name (past a
    pronoun or "будет": "wrzuci je Marek"), right after it ("Marek wyśle"), or, after a verb of taking on, the
    action named in the five words before that verb ("Publikacją zajmie się Kasia", "Instalacją na serwerze zajmie
    się Tomek")."""
    k = index - 1
    while k >= start and words[k] in _BETWEEN_VERB_AND_NAME:
        k -= 1
    found = [k] if k >= start else []
    if k >= start and words[k].startswith(_TAKING_ON):
        found.extend(range(k - 1, max(start, k - 6) - 1, -1))  # "Instalacją na serwerze zajmie się Tomek"
    if index + 1 < end:
        found.append(index + 1)
    return found


def _someone_named(words: list[str], language: str, names: frozenset[str]) -> list[tuple[int, ForbiddenAction]]:
    """ "Kasia will post it", "Na stronę wrzuci je Marek", "Выкладывать будет Света", "wysyłką zajmie się Marek": a
    person named in the message does the effect, so the agent does not. Only where the clause gives no command (not
    "wyślij to Markowi"), the name is no recipient after a preposition, and the verb is no past and no first
    person."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if word not in names or (index and words[index - 1] in _NAME_GOVERNORS):
            continue
        start, end = _clause_span(words, index)
        if language == "en":
            k = index + 1
            while k < end and words[k] in _EN_FUTURE:
                k += 1
            candidates = [k] if k < end and k > index + 1 else []
        else:
            if word.endswith(_OBLIQUE_NAME_ENDINGS):
                continue  # "Kasi", "Markowi", "Свете", "Анной": sent to or done with, not the doer
            candidates = _verbs_beside(words, index, start, end)
        for j in candidates:
            verb = words[j]
            effect = action_of(words, j)
            if effect not in _OUTWARD:
                continue
            if language != "en" and len(verb) > 4 and verb.endswith(_FIRST_PERSON_ENDINGS):
                continue  # "wyślę", "wrzucimy", "выложу", "отправим": the speaker's own doing (another reader's)
            if language != "en" and any(imperative_form(w, language) for w in words[start:end] if w not in names):
                break  # a command in the clause: the name is whom it concerns ("wyślij to Markowi", "Ola wrzuć to")
            if j + 1 < len(words) and words[j + 1] in _US:
                continue
            found.append((j, ForbiddenAction(effect, f"{word} (someone else does it)", verb)))
            break
    return found


#: What the speaker says would be the worst to happen: "The last thing I need is it turning up on Facebook", "Tylko
#: tego brakuje, żeby wisiał na fejsie", "Не хватало ещё, чтобы оно оказалось на сайте".
_UNWANTED: tuple[tuple[str, ...], ...] = (
    ("last", "thing", "i", "need"), ("last", "thing", "we", "need"), ("last", "thing", "i", "want"),
    ("last", "thing", "we", "want"), ("tylko", "tego", "brakuje"), ("tylko", "tego", "brakowało"),
    ("jeszcze", "tego", "brakuje"), ("jeszcze", "tego", "brakowało"), ("tego", "by", "brakowało"),
    ("не", "хватало", "еще"), ("еще", "не", "хватало"), ("только", "этого", "не", "хватало"),
    ("этого", "еще", "не", "хватало"),
)  # fmt: skip


def _unwanted(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """The effect named in the clause after a phrase of the worst to happen ("the last thing I need is…", "tylko tego
    brakuje, żeby…", "не хватало ещё, чтобы…") is forbidden."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        phrase = next((p for p in _UNWANTED if tuple(words[index : index + len(p)]) == p), None)
        if phrase is None:
            continue
        start = index + len(phrase)
        if start < len(words) and words[start] == "," and start + 1 < len(words):
            start += 1  # "Не хватало ещё, чтобы…": the comma before the clause that says it
        end = _clause_span(words, start + 1)[1] if start + 1 < len(words) else len(words)
        for j, effect in _actions(words, start, end):
            found.append((j, ForbiddenAction(effect, f"{' '.join(phrase)} (the worst to happen)", words[j])))
    found.extend(_last_wanted(words))
    return found


#: "Ostatnie, czego nam trzeba, to żeby…", "Последнее, что нам нужно, — чтобы…": the last thing, a relative, a need,
#: then the clause of what must not happen after "żeby"/"чтобы" (not "Последнее, что нужно сделать, — отправить":
#: an instruction, with no "чтобы").
_LAST = {"ostatnie", "ostatnia", "последнее", "последняя"}
_LAST_RELATIVES = {"czego", "co", "której", "ktorej", "jakiej", "что", "чего", "которой"}
_NEEDING = (
    "trzeba", "potrzeb", "chcę", "chce", "chcemy", "brakuje", "нужн", "надо", "хочу", "хотим", "хочется", "требует",
)  # fmt: skip
_SO_THAT = {"żeby", "zeby", "żebyś", "zebys", "żebyście", "aby", "abyś", "by", "чтобы", "чтоб"}
#: Where the clause of what must not happen turns to when: "żeby to wylądowało na kanale przed ogłoszeniem prezesa".
_WHEN = {"przed", "po", "zanim", "перед", "до", "после"}


def _last_wanted(words: list[str]) -> list[tuple[int, ForbiddenAction]]:
    found: list[tuple[int, ForbiddenAction]] = []
    sentence = _sentences(words)
    for index, word in enumerate(words):
        if word not in _LAST:
            continue
        after = [k for k in range(index + 1, min(len(words), index + 4)) if words[k] not in (",", "rzecz", "вещь")]
        if not after or words[after[0]] not in _LAST_RELATIVES:
            continue
        relative = after[0]
        need = next(
            (
                k
                for k in range(relative + 1, min(len(words), relative + 5))
                if any(_stem_match(stem, words[k]) for stem in _NEEDING)
            ),
            None,
        )
        if need is None:
            continue
        so_that = next((k for k in range(need + 1, min(len(words), need + 6)) if words[k] in _SO_THAT), None)
        if so_that is None or sentence[so_that] != sentence[index]:
            continue
        end = _clause_span(words, so_that + 1)[1] if so_that + 1 < len(words) else len(words)
        end = next((k for k in range(so_that + 1, end) if words[k] in _WHEN), end)
        for j, effect in _actions(words, so_that + 1, end):
            trigger = f"{word} … {words[relative]} … {words[need]} (the worst to happen)"
            found.append((j, ForbiddenAction(effect, trigger, words[j])))
    return found


#: "Don't even think about…": "even" and a negation before a verb of thinking.
_EVEN = {"even", "nawet", "даже"}
_THINKING = ("=think", "myśl", "mysl", "pomyśl", "pomysl", "думай", "думайте", "помышляй")


def _not_even_thought(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Don't even think about restarting it", "Nawet nie myśl o wysyłaniu", "Перезапускать рендер сам даже не
    думай": the action named in the clause, before or after, is forbidden outright."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not _whole(_THINKING, word) or index < 2:
            continue
        before = words[max(0, index - 3) : index]
        if not any(w in _EVEN for w in before) or not any(w in _PARTICLES or w == "nie" for w in before):
            continue
        start, end = _clause_span(words, index)
        actions = _actions(words, index + 1, end) or _actions(words, start, index)
        for j, effect in actions[:1]:
            found.append((j, ForbiddenAction(effect, f"{' '.join(before)} {word}", words[j])))
    return found


#: The speaker as the subject: "I'll send it from my own account" (not "send it from my own account, please").
_SPEAKER_SUBJECTS = _FIRST_EN - {"me", "us", "my"}
#: Leave given to the agent: "можешь сам разослать", "możesz sam wysłać" is the agent's own doing, not the speaker's.
_YOU_MAY = {"можешь", "можете", "możesz", "możecie", "можно", "można"}


def _delegated(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "I'll publish it myself", "wyślę ją sama", "выложу сам", "Publikację zostaw mnie", "leave the sending to me"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        start, end = _clause_span(words, index)
        to_me = _whole(_LEAVE, word) and any(
            tuple(words[j : j + len(p)]) == p for j in range(index + 1, end) for p in _TO_ME
        )
        to_me = to_me or (
            _whole(_KEEP_SELF, word)
            and any(tuple(words[j : j + len(p)]) == p for j in range(index + 1, end) for p in _FOR_MYSELF)
        )
        # "I'll send it from my own account", "from my own phone": the speaker's own means, so the speaker does it
        own_means = word == "own" and words[max(0, index - 2) : index] == ["from", "my"]
        if word not in _SELF and not to_me and not own_means:
            continue
        if any(w in _YOU_MAY for w in words[start:end]):
            continue  # "Итоговую версию можешь сам разослать": the agent may do it on its own
        actions = _actions(words, start, end)
        if own_means:
            speaker = any(w in _SPEAKER_SUBJECTS for w in words[start:index])  # "I'll send it", not "Send it"
            owned = [(j, e) for j, e in actions if j < index] if speaker else []
        elif to_me or word in ("myself", "ourselves"):
            owned = actions
        elif any("\u0400" <= ch <= "\u04ff" for ch in word):
            first = any(w in _FIRST_RU for w in words[start:end])
            # a named action with a first-person verb beside it: "Правки внесу сам" (the noun, then "внесу")
            verb = any(len(w) > 3 and w.endswith(("у", "ю")) and action_of(words, k) is None for k, w in
                       enumerate(words[start:end], start) if k != index)  # fmt: skip
            # the action's own first person: "отправлю сам", and the plural "Отправим сами", "разошлём сами"
            owned = [(j, e) for j, e in actions if first or words[j].endswith(("у", "ю", "им", "ем", "ём")) or verb]
        else:
            # Polish first persons: "-ę" ("wyślę", "naniosę"), "-m" ("wgram", "zrobim" is not Polish; "mam") and the
            # plural "-my" ("Raport przekażemy studiu sami", "wyślemy")
            first = any(
                w in ("ja", "my")
                or (len(w) > 3 and (w.endswith("ę") or (w.endswith(("am", "em")) and k != index)))
                or (len(w) > 5 and w.endswith(("emy", "imy", "amy", "ymy")))
                for k, w in enumerate(words[start:end], start)
            )
            owned = actions if first else []
        if language == "en" and word not in ("myself", "ourselves") and not to_me and not own_means:
            owned = []
        if word in ("myself", "ourselves") and not any(w in _FIRST_EN for w in words[start:end]):
            owned = []
        for j, effect in owned:
            found.append((j, ForbiddenAction(effect, f"{word} (kept by the speaker)", words[j])))
    return found


#: Prepositions of place: after a named thing they say where it is.
_LOCATIVE = {"on", "in", "at", "inside", "na", "w", "we", "на", "в", "во"}


def _named_effects(words: list[str], start: int, end: int, *, schedules: bool = False) -> list[tuple[int, EffectClass]]:
    """What the words in [start, end) name, as the effect class a change to it would be; with `schedules`, a roster
    or a schedule too (where touching it is forbidden: "leave the roster alone", "grafiku nie ruszaj")."""
    named: list[tuple[int, EffectClass]] = []
    for j in range(start, end):
        word = words[j]
        if not word[0].isalpha():
            continue
        if named and word in _LOCATIVE:
            break  # "the config files on the web servers": where the named thing is, not a second thing
        if _device(word) and not (j + 1 < end and _whole(_DOCUMENTS, words[j + 1])):
            named.append((j, "physical"))  # not "the alarm log", "the camera export": a device naming a record
        elif _whole(_VENUES, word):
            named.append((j, "publication"))
        elif _whole(_SERVERS, word) or _whole(_VERSIONS, word):
            named.append((j, "installation"))
        elif _whole(_PROGRAMS, word) and not (j and words[j - 1].endswith(("'s", "s'"))):
            # "leave the job itself alone", "skryptu nie ruszaj"; "maintenance's job" is a duty, not a program
            named.append((j, "code_execution"))
        elif (
            _whole(_DOCUMENTS, word)
            or (schedules and _whole(_SCHEDULE_OBJECTS, word))
            or (_whole(_SETTINGS, word) and not any(_device(w) for w in words[start:end]))
        ):
            named.append((j, "local_write"))
        elif (effect := _participle(word)) is not None:
            named.append((j, effect))  # "the installed version", "opublikowany cennik", "отправленные письма"
    return named


def _participle(word: str) -> EffectClass | None:
    """The effect class of an action's participle ("installed", "zainstalowana", "установленную"), or None. A sent
    or shared thing kept as it is ("the shared drive", "wysłane maile") is not kept from being sent: no class."""
    if not word.endswith(("ed", "an", "any", "ana", "ane", "aną", "ą", "ую", "ый", "ая", "ое", "ые", "ую")):
        return None
    effect = next((e for e, stems in _ACTIONS.items() if any(_stem_match(s, word) for s in stems)), None)
    return None if effect == "external_transmission" else effect


def _wished_kept(words: list[str], index: int) -> bool:
    """ "I'd rather you left it as it is", "I would prefer it stayed unchanged": a wish in the past form."""
    return words[index] in ("left", "kept", "stayed", "remained") and _wished(words, index)


def _kept_states(words: list[str]) -> list[tuple[int, tuple[str, ...], int, list[tuple[int, EffectClass]]]]:
    """(index, phrase, verb, what it names) for every kept state: a state phrase after a verb of keeping."""
    states: list[tuple[int, tuple[str, ...], int, list[tuple[int, EffectClass]]]] = []
    sentence = _sentences(words)
    for index in range(len(words)):
        phrase = next((p for p in _STATE_PHRASES if tuple(words[index : index + len(p)]) == p), None)
        if phrase is None:
            continue
        verb = next(
            (
                k
                for k in range(index - 1, max(-1, index - 10), -1)
                if sentence[k] == sentence[index]
                and (_whole(_KEEP_STATE, words[k]) or words[k] in _STATE_MODALS or _wished_kept(words, k))
            ),
            None,
        )
        if phrase == _LEFT_BE:
            # "leave the Shopify plugins be", "let the tank be": the thing between the verb and "be" is left alone
            verb = next((k for k in range(index - 2, max(-1, index - 6), -1) if words[k] in _LEAVING), None)
            if verb is None or index - verb < 2:
                continue
        after = words[index + len(phrase) : index + len(phrase) + 1]
        if verb is None and index and words[index - 1] in ("–", "—", "-") and after and after[0] in _CLAUSE_BREAK:
            verb = index - 1  # verbless, after a dash: "Двери вольеров и свет — как есть", "The config - as is."
        if verb is None and phrase in _UNTOUCHED and (not after or after[0] in _CLAUSE_BREAK):
            start = _clause_span(words, index)[0]
            if index > start and not any(w in _DESCRIBING or _is_past(w) for w in words[start:index]):
                verb = index - 1  # verbless: "Check the readings, vents and heaters untouched."
        if verb is None or ((words[verb].endswith("ed") or _is_past(words[verb])) and not _wished_kept(words, verb)):
            continue  # "all doors stayed shut": a report of how the night went
        if phrase in _POSITIONS and index - verb > 4:
            continue
        start = next((k + 1 for k in range(verb - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
        named = _named_effects(words, start, index, schedules=phrase in _UNTOUCHED)
        # a pronoun, or a "so" that points back ("keep them that way", "пусть так и остаётся"): the clause before
        pronoun = any(w in _PRONOUNS or w == "them" for w in words[start:index]) or phrase[0] in ("tak", "так", "that")
        if not named and pronoun and start:
            before = next((k + 1 for k in range(start - 2, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
            named = _named_effects(words, before, start)  # "that log is the only copy, so it stays as it is"
        if not named and index == verb + 1 and start == verb:
            # "A sam log? Po co go ruszać, zostaw jak jest", "The old export? Leave as is": the state follows its verb
            # with nothing between, so what is kept is the thing named last, at most three clauses back, in its
            # sentence or in a question just before it
            first = sentence.index(sentence[verb])
            if first and words[first - 1] == "?":
                first = sentence.index(sentence[first - 1])
            end = start
            for _ in range(3):
                if named or end <= first:
                    break
                begin = max(first, _clause_span(words, end - 1)[0])
                named = _named_effects(words, begin, end)
                end = begin
        if not named and start and words[start - 1] in ("–", "—", "-"):
            # "Plik z umowami, z którego korzystamy, współdzielimy z kadrami – ma wyjść z tego nienaruszony": after a
            # dash the sentence's subject is kept (from the sentence's start, at most fifteen words)
            first = next((k + 1 for k in range(start - 2, -1, -1) if words[k] in _SENTENCE_END), 0)
            named = _named_effects(words, max(first, start - 16), start)
        states.append((index, phrase, verb, named))
    return states


def kept_spans(words: list[str]) -> list[tuple[int, int]]:
    """The token spans of kept-state phrases that name what they keep ("bez zmian" in "Stronę zostaw bez zmian"):
    a negation inside one ("bez") reads as a state, not as a prohibition of its own."""
    return [(index, index + len(phrase)) for index, phrase, _, named in _kept_states(words) if named]


def _kept_state(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "leave the compressors as they are", "the website stays as it is", "Plik zostaw taki, jaki jest"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for _, phrase, verb, named in _kept_states(words):
        for j, effect in named:
            # read where the keeping is said: the thing may be named in a question before it ("A sam log? … zostaw")
            trigger = f"{words[verb]} … {' '.join(phrase)} (kept)"
            found.append((max(j, verb), ForbiddenAction(effect, trigger, words[j])))
    return found


def _negated(words: list[str], index: int) -> bool:
    """A negation right before `index`: "don't touch", "do not touch", "nie ruszaj", or a wished past ("I'd rather
    you didn't touch the file")."""
    before = words[max(0, index - 2) : index]
    if before and before[-1] in ("didn't", "didnt") and _wished(words, index - 1):
        return True
    return bool(before) and (before[-1] in _NEGATING or before == ["do", "not"])


def _reflexive_state(words: list[str], index: int) -> bool:
    """A device's own state, said with a reflexive verb: "drzwiczki się nie otwierają", "ворота не открываются"."""
    return words[index].endswith(("ется", "ится", "ются", "ятся")) or words[max(0, index - 2)] in ("się", "sie")


def _device_left(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Замки и турникеты не трогай", "Станок не останавливай", "don't switch off the pumps", "Сайт пока не трогай":
    a negated verb of stopping keeps a device running; one of touching keeps whatever it names as it is."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        touching, stopping = _whole(_TOUCH, word), _whole(_HANDLING, word)
        if not (touching or stopping) or not _negated(words, index) or _is_past(word) or _reflexive_state(words, index):
            continue
        start, end = _clause_span(words, index)
        if language == "en":
            # English names what is touched after the verb ("dont touch the config files"); what stands before it
            # in an unpunctuated message is another thought ("check the print server … and dont touch …")
            start = index + 1
        named = _named_effects(words, start, end, schedules=touching)
        if not named and any(w in _NOTHING for w in words[max(0, index - 3) : index + 2]):
            # "Прожекторы и камеры не трогай, ничего не переключай": nothing, among the devices its sentence names
            sentence = _in_sentence(words, index, 0, len(words))
            device = next((j for j, e in _named_effects(sentence, 0, len(sentence)) if e == "physical"), None)
            if device is not None:  # read at the verb: it is the verb that is understood
                trigger = f"{words[index - 1]} {word} (among the devices named: {sentence[device]})"
                found.append((index, ForbiddenAction("physical", trigger, word)))
        for j, effect in named:
            if touching or effect == "physical":
                found.append((j, ForbiddenAction(effect, f"{words[index - 1]} {word} (left as it is)", words[j])))
        if stopping:
            # "Nie zatrzymuj żadnych usług na serwerach", "don't stop the services", "Skryptu nie zatrzymuj": a
            # service or a program stopped is code run
            for j in [*range(index + 1, end), *range(start, index)]:
                if _whole(_SERVICES, words[j]) or _whole(_PROGRAMS, words[j]):
                    found.append((j, ForbiddenAction("code_execution", f"{words[index - 1]} {word}", words[j])))
                    break
    return found


#: "not for" and whom or where: "not for the ops group chat", "not for anyone outside", "nie dla mediów", "не для
#: общего чата".
_NOT_FOR_PAIRS = (("not", "for"), ("nie", "dla"), ("не", "для"))
_ANYONE_OUTSIDE = {"anyone", "anybody", "outsiders", "outside", "nikogo", "никого", "посторонних", "obcych"}


def _not_for(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Keep it in-house - not for the ops group chat and not for anyone outside": a venue or a chat it is not for
    is not published there; anyone outside is not sent it. Not "for me, not for the firm" (read as confined) and not
    "not for long"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words) - 2):
        if tuple(words[index : index + 2]) not in _NOT_FOR_PAIRS:
            continue
        end = _clause_span(words, index)[1]
        named = [k for k in range(index + 2, min(end, index + 7)) if words[k] not in _DETERMINERS]
        trigger = f"{words[index]} {words[index + 1]} (not for)"
        if any(_whole(_VENUES, words[k]) or _whole(_CHATS, words[k]) for k in named[:4]):
            found.append((index, ForbiddenAction("publication", trigger, words[index + 1])))
        elif named and words[named[0]] in _ANYONE_OUTSIDE:
            found.append((index, ForbiddenAction("external_transmission", trigger, words[index + 1])))
    return found


#: The speaker deciding later whether it goes anywhere: "I'll decide whether it goes out at all", "sam zdecyduję, czy
#: w ogóle idzie", "я ещё подумаю, отправлять ли вообще" (the first person only: "proboszcz sam zdecyduje" is his).
_DECIDING = (
    ("i'll", "decide"), ("i", "will", "decide"), ("i'll", "make", "the", "call"), ("sam", "zdecyduję"),
    ("sama", "zdecyduję"), ("zdecyduję", "sam"), ("zdecyduję", "sama"),
    ("я", "сам", "решу"), ("я", "сама", "решу"), ("сам", "решу"), ("сама", "решу"), ("я", "ещё", "подумаю"),
    ("я", "еще", "подумаю"), ("я", "подумаю"),
)  # fmt: skip
#: What may follow the decision: its end, or whether it goes ("whether", "czy", "…ли").
_WHETHER = {"whether", "if", "czy"}


def _decided_later(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Just a draft, I'll decide whether it goes out at all", "Na razie tylko projekt, sam zdecyduję, czy w ogóle
    idzie", "Чисто черновик, я ещё подумаю, отправлять ли вообще": the speaker keeps the decision to send or publish,
    so neither is the agent's. Only a decision that ends its clause or asks whether (not "I'll decide which variant,
    then publish it")."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        phrase = next((p for p in _DECIDING if tuple(words[index : index + len(p)]) == p), None)
        if phrase is None:
            continue
        after = words[index + len(phrase) : index + len(phrase) + 4]
        ends = not after or after[0] in _CLAUSE_BREAK
        whether = bool(after) and (after[0] in _WHETHER or (after[0] == "," and after[1:2] and after[1] in _WHETHER))
        asked = any(w == "ли" for w in after)
        if not (ends or whether or asked):
            continue
        trigger = f"{' '.join(phrase)} (the speaker decides)"
        found.append((index, ForbiddenAction("external_transmission", trigger, words[index])))
        found.append((index, ForbiddenAction("publication", trigger, words[index])))
    return found


#: Nobody as the recipient: "send it to nobody", "show it to no one", "share it with no-one".
_TO_NOBODY = {("to", "nobody"), ("to", "no", "one"), ("to", "no-one"), ("with", "nobody"), ("with", "no", "one"),
              ("with", "no-one")}  # fmt: skip


def _to_nobody(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Publish it, but send it to nobody", "show the figures to no one": the verb's message reaches no one, so it
    is not sent (the English says the negation in the recipient; Polish and Russian say "nikomu nie", read
    elsewhere)."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        effect = action_of(words, index)
        showing = _whole(_SHOWING, words[index])
        if effect != "external_transmission" and not showing:
            continue
        end = _clause_span(words, index)[1]
        for k in range(index + 1, min(end, index + 6)):
            phrase = next((p for p in _TO_NOBODY if tuple(words[k : k + len(p)]) == p), None)
            if phrase is not None and words[k + len(phrase) : k + len(phrase) + 1] == ["else"]:
                break  # "send it to Ola and to nobody else": who receives it is limited, the sending is asked for
            if phrase is not None:
                trigger = f"{words[index]} … {' '.join(phrase)} (to nobody)"
                found.append((index, ForbiddenAction("external_transmission", trigger, words[index])))
                break
    return found


#: Nominal negations that refuse a kind of thing outright: "no scripts", "żadnych skryptów", "никаких скриптов".
_NO_KIND = {"no", "żadnych", "żadnego", "zadnych", "zadnego", "никаких", "никакого", "никакой"}
_HAVING = {"there's", "there", "is", "are", "was", "were", "have", "has", "had", "got", "ma", "mamy", "есть", "было"}
#: A report of what happened, after the refused thing: "no scripts were run", "żadnych skryptów nie było".
_REPORTED = {"were", "was", "ran", "have", "has", "had", "było", "bylo", "nie", "не", "было", "не было"}


def _no_programs(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Tylko żadnych skryptów diagnostycznych na sterowniku", "no test scripts on the box", "никаких скриптов на
    контроллере": programs refused outright are not to be run (not "no scripts were run": a report)."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if word not in _NO_KIND or (index and words[index - 1] in _HAVING):
            continue  # "there's no script for it yet", "we have no jobs for that": what exists, not a refusal
        end = _clause_span(words, index)[1]
        program = next((j for j in range(index + 1, min(end, index + 4)) if _whole(_PROGRAMS, words[j])), None)
        if program is None or any(w in _REPORTED for w in words[program + 1 : min(end, program + 3)]):
            continue
        found.append((program, ForbiddenAction("code_execution", f"{word} {words[program]} (refused)", words[program])))
    return found


#: An object left open: "ничего не переключай", "niczego nie przełączaj", "don't switch anything".
_NOTHING = {"nothing", "anything", "niczego", "nic", "ничего", "ничто"}
#: What runs on a server and is stopped by a command: "usługi", "services", "сервисы", "службы".
_SERVICES = ("usług", "uslug", "=service", "=services", "serwis", "сервис", "служб", "=daemon", "=daemons")
#: Programs that run on their own: stopped or touched, code is run ("Skryptu nie zatrzymuj", "leave the job alone").
_PROGRAMS = ("=job", "=jobs", "=script", "=scripts", "skrypt", "скрипт", "джоб", "=cron", "=cronjob")


#: "for me, not for the security firm": the first person a thing is for, and another it is not for.
_FOR = {"for", "dla", "для"}
_FOR_US = {"me", "us", "mnie", "nas", "меня", "нас"}
_NOT_FOR = {"not", "nie", "не"}


def _for_us_not_them(words: list[str], index: int) -> bool:
    """ "Wyniki są dla mnie, nie dla firmy ochroniarskiej", "The results are for me, not for the firm", "Это для нас,
    а не для поставщика": what is for the speaker is not to reach the one it is said not to be for."""
    if words[index] not in _FOR or words[index + 1 : index + 2] == [] or words[index + 1] not in _FOR_US:
        return False
    rest = [w for w in words[index + 2 : index + 8] if w not in (",", "—", "–", "а", "a", "and", "but", "i")]
    return len(rest) >= 3 and rest[0] in _NOT_FOR and rest[1] in _FOR and rest[2][0].isalpha()


def _confined(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "for my eyes only", "keep it internal", "Это строго внутреннее", "tylko do użytku wewnętrznego"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if _for_us_not_them(words, index):
            said = f"{word} {words[index + 1]}, not for another (confined)"
            found.append((index, ForbiddenAction("external_transmission", said, word)))
            continue
        phrase = next((p for p in _CONFINED if tuple(words[index : index + len(p)]) == p), None)
        trigger = " ".join(phrase) if phrase is not None else None
        if trigger is None and words[index : index + 3] == ["in", "-", "house"]:
            before = words[max(0, index - 2) : index]
            if any(w in _PREDICATIVE or w in ("it", "this", "them") for w in before):
                trigger = f"{' '.join(before)} in-house"  # "keep it in-house", not "our in-house lawyer"
        if trigger is None and word.startswith(_INTERNAL):
            before = words[max(0, index - 2) : index]
            if any(w in _PREDICATIVE for w in before):
                trigger = f"{' '.join(before)} {word}"
        if trigger is not None:
            found.append((index, ForbiddenAction("external_transmission", f"{trigger} (confined)", word)))
            span = range(index, index + len(phrase or ()))  # "do mojej wiadomości" is no message withheld
            withheld_letter = any(addressed(w, language) for k, w in enumerate(words) if k not in span)
            if phrase in _NO_ONE_ELSE and not withheld_letter:
                # no one else reads it: not published either, unless its sentence names what is withheld (a letter or
                # a reply, kept from its addressee, is only not sent: as with "only a draft")
                found.append((index, ForbiddenAction("publication", f"{trigger} ({NO_ONE_ELSE}: unpublished)", word)))
    return found


#: Writings made for an addressee: kept "for my eyes only", they are only not sent ("a draft reply to the parents …
#: for my eyes only until the head has seen it").
_ADDRESSED = (
    "=letter", "=email", "=e-mail", "=mail", "=message", "=reply", "replies", "=invitation", "=invite", "=offer",
    "wiadomoś", "wiadomos", "odpowiedź", "=odpowiedzi", "=maila", "=maile", "=oferta", "=ofertę",
    "zaproszeni", "письм", "=ответ", "=ответа", "сообщени", "приглашени",
)  # fmt: skip
#: A letter in Polish ("list do rodziców"), where English "list" is a list of things ("a list of action items").
_LETTER_PL = ("=list", "=listu")


def addressed(word: str, language: str) -> bool:
    """Whether `word` names a writing made for an addressee (`_ADDRESSED`; Polish "list" too)."""
    return _whole(_ADDRESSED, word) or (language == "pl" and _whole(_LETTER_PL, word))


#: The mark of a "for my eyes only" or "not for circulation" reading of publication in its trigger (`is_draft_only`
#: narrows it like a draft's).
NO_ONE_ELSE = "for no one else"
#: The speaker as the only reader ("for my eyes only", "tylko dla mnie", "только для меня"), or nobody handed it ("not
#: for circulation"); not "internal use": the firm reads it.
_NO_ONE_ELSE: set[tuple[str, ...]] = {
    ("for", "my", "eyes", "only"), ("eyes", "only"), ("for", "me", "only"), ("only", "for", "me"),
    ("just", "for", "me"), ("tylko", "dla", "mnie"), ("wyłącznie", "dla", "mnie"), ("только", "для", "меня"),
    ("лишь", "для", "меня"), *_FOR_ME_STRICTLY, *_FOR_MY_OWN_USE, *_NOT_FOR_CIRCULATION,
    # nobody else's, or under lock: no one else reads it
    ("pod", "kluczem"), ("под", "замком"), ("under", "lock"), ("nobody", "else's"), ("no", "one", "else's"),
    ("nikomu", "innemu"), ("nikomu", "więcej"), ("никому", "другому"), ("больше", "никому"), ("никому", "больше"),
}  # fmt: skip


#: The mark of a "draft only" reading in its trigger (`is_draft_only`).
DRAFT_ONLY = "draft only"


def is_draft_only(reading: ForbiddenAction) -> bool:
    """Whether `reading` is one of "only a draft"'s (or the publication "for my eyes only" withholds), which say what
    is delivered rather than name the effect."""
    return f"({DRAFT_ONLY}:" in reading.trigger or f"({NO_ONE_ELSE}:" in reading.trigger


def _draft_only(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "draft only", "only a draft", "tylko szkic", "только черновик": nothing is sent or published."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not _whole(_DRAFT, word) or (word.endswith("ed") and language == "en"):
            continue
        near = words[max(0, index - 2) : index] + words[index + 1 : index + 2]
        only = next((w for w in near if w in _ONLY), None)
        if only is not None and "not" not in words[max(0, index - 3) : index]:
            found.append(
                (index, ForbiddenAction("external_transmission", f"{only} {word} ({DRAFT_ONLY}: unsent)", word))
            )
            if not any(
                (_whole(_OUTBOUND_NOUNS, w) and not _list_of_things(w, language))
                or action_of(words, k) == "external_transmission"
                for k, w in enumerate(words)
            ):
                # a draft of an email or a reply is only not sent; of an announcement, neither sent nor published
                found.append(
                    (index, ForbiddenAction("publication", f"{only} {word} ({DRAFT_ONLY}: unpublished)", word))
                )
    return found


def _list_of_things(word: str, language: str) -> bool:
    """English "list" is a list of things, Polish "list" a letter ("list do rodziców")."""
    return language == "en" and word in ("list", "lists")


#: Preparing, as the whole of what is asked: "Tylko przygotuj, kierowniczka musi to zatwierdzić", "Только подготовь,
#: сначала покажу управляющей", "Just prepare it, I'll send it myself".
_PREPARING = ("=prepare", "przygotuj", "подготовь", "приготовь", "naszkicuj")
#: The writing prepared, named after "only prepare": "the text", "the letter", "ten tekst", "этот текст".
_WRITINGS = (
    "=text", "=letter", "=email", "=e-mail", "=message", "=reply", "=draft", "=wording", "=post", "=announcement",
    "tekst", "pismo", "list", "wiadomość", "odpowiedź", "текст", "письмо", "сообщение", "ответ", "объявление",
)  # fmt: skip
_PREPARED_OBJECTS = {"it", "them", "to", "je", "go", "это", "его", "их", "everything", "wszystko", "все", "всё"}


def _only_prepared(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Tylko przygotuj", "Только подготовь", "only prepare it": the work stops at preparing, so, as with "only a
    draft", nothing is sent or published unless its sentence names what is withheld."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words) - 1):
        verb = index + 1
        if words[index] not in _ONLY or not _whole(_PREPARING, words[verb]):
            continue
        rest = words[verb + 1 : verb + 4]
        addressed_writing = False
        if (
            len(rest) > 1
            and rest[0] in ("the", "this", "that", "ten", "tę", "это", "этот", "эту")
            and _whole(_WRITINGS, rest[1])
        ):
            # "Just prepare the text, …": the writing, then where the work stops; a letter or a reply is only not sent
            addressed_writing = addressed(rest[1], language)
            rest = rest[2:]
        elif rest and rest[0] in _PREPARED_OBJECTS:
            rest = rest[1:]
        if rest and rest[0] not in _CLAUSE_BREAK:
            continue  # "only prepare two variants": what is prepared, not where the work stops
        trigger = f"{words[index]} {words[verb]}"
        found.append((verb, ForbiddenAction("external_transmission", f"{trigger} ({DRAFT_ONLY}: unsent)", words[verb])))
        if not addressed_writing:
            found.append((verb, ForbiddenAction("publication", f"{trigger} ({DRAFT_ONLY}: unpublished)", words[verb])))
    return found


#: Asking first: "ask me first", "check with me first", "najpierw zapytaj", "сначала спроси меня".
_ASK_FIRST: tuple[tuple[str, ...], ...] = (
    ("ask", "me", "first"),
    ("check", "with", "me", "first"),
    ("najpierw", "zapytaj"),
    ("najpierw", "spytaj"),
    ("zapytaj", "mnie", "najpierw"),
    ("najpierw", "mnie", "zapytaj"),
    ("сначала", "спроси"),
    ("сперва", "спроси"),
    ("спроси", "меня", "сначала"),
    ("сначала", "согласуй"),
)
#: What opens a condition before "ask me first": "if you want to…", "jeśli zechcesz…", "если захочется…".
_IF = IF_WORDS | {"whenever"}


def _asked_first(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "If you want to fix something in the database, ask me first", "Если захочется что-то поправить в базе —
    сначала спроси меня": the action of the condition before it waits for the speaker's answer."""
    found: list[tuple[int, ForbiddenAction]] = []
    sentence = _sentences(words)
    for index in range(len(words)):
        phrase = next((p for p in _ASK_FIRST if tuple(words[index : index + len(p)]) == p), None)
        if phrase is None:
            continue
        condition = next(
            (
                k
                for k in range(index - 1, max(-1, index - 16), -1)
                if sentence[k] == sentence[index] and words[k] in _IF
            ),
            None,
        )
        if condition is None:
            continue
        for j, effect in _actions(words, condition + 1, index):
            found.append((j, ForbiddenAction(effect, f"{' '.join(phrase)} (condition)", words[j])))
    return found


def _deferral_verb(words: list[str], index: int, language: str) -> bool:
    word = words[index]
    if word in _EN_DEFERRAL or (word == "wait" and index and words[index - 1] in _EN_MODALS):
        return True
    if word == "wait" and index and words[index - 1] in ("themselves", "itself"):
        return True  # "the updates themselves wait": the thing is the subject (an imperative has none)
    following = words[index + 1] if index + 1 < len(words) else ""
    if tuple(words[index : index + 3]) == ("hold", "your", "horses"):
        return True  # "but hold your horses on that one"
    if (word, following) in (("on", "hold"), ("sits", "tight"), ("sit", "tight"), ("stays", "put"), ("stay", "put")):
        return True  # "this one sits tight until the board gives its nod"
    drafts = any(tuple(words[k : k + len(p)]) == p for k in range(index + 1, index + 3) for p in _IN_DRAFTS)
    if _whole(_RESTING, word) and any(w in _LET for w in words[max(0, index - 3) : index]) and not drafts:
        return True  # "тесты пусть пока спят", "let the tests sleep" (resting in the drafts: the drafts' reading)
    if language == "en":
        return False
    held = word.startswith(("придерж", "попридерж", "przytrzymaj"))  # "Письмо бригаде придержи, пока…"
    return held or (word.startswith(_NEGATIVE_VERBS) and not word.startswith(_NOT_DEFERRAL))


def _deferred_after(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Aktualizacja aplikacji poczeka do przyszłego tygodnia", "Установку на сервер пока отложим", "rolling it out
    to the server waits until I have tried it": the action named before a deferral verb, in its clause."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        if not _deferral_verb(words, index, language):
            continue
        if index and words[index - 1] in ("about", "of", "o", "об", "о", "про"):
            continue  # "письмо поставщику о задержке поставки": a delay as the topic, not a deferral
        start, end = _clause_span(words, index)
        if any(words[k] in ("не", "nie", "no", "not") and _lifted_necessity(words, k) for k in range(index, end)):
            continue  # "ждать моего ответа не нужно", "czekać nie trzeba": the wait is not needed
        if start == index and start > 1 and words[start - 1] in ("–", "—"):
            start = _clause_span(words, start - 2)[0]  # "ставить новую версию – подожди": the topic before the dash
        if any(w in _NEGATING or w in ("no", "nie", "не") for w in words[start:index]):
            continue  # "С установкой тянуть не нужно" (fronted: "не нужно с установкой тянуть"): not deferred
        hit = None
        if words[start] in ("z", "ze", "с", "со", "with") and start + 1 < index:
            # "Z wysyłaniem do kierowników wstrzymaj się", "С установкой повремени": the action the clause opens with
            effect = action_of(words, start + 1)
            hit = (start + 1, effect) if effect is not None else None
        for j in range(index - 1, max(start - 1, index - 8), -1):
            if hit is not None or words[j] in _COORDINATORS:
                break
            effect = action_of(words, j)
            if effect is not None:
                hit = (j, effect)
                break
        if hit is None:
            # a deferred thing, not an action: "Тесты пусть подождут", "this one sits tight until…" (a pronoun: the
            # nearest message or test named in the two sentences before)
            # ("Пусть пока полежит": a dropped subject is one too)
            lead = words[start:index]
            elided = any(w in _LET for w in lead) and all(w in _LET or w in _FOR_NOW for w in lead)
            pronoun = elided or any(w in _PRONOUNS or w == "one" for w in words[start:index])
            back = max(0, start - 40) if pronoun else start
            if pronoun:
                # the action its own sentence named just before: "No deploying to the server though, that waits
                # until Monday" (not the tests of the sentence before)
                opening = next((k + 1 for k in range(start - 1, back - 1, -1) if words[k] in _SENTENCE_END), back)
                hit = next(
                    ((j, effect) for j in range(start - 1, opening - 1, -1) if (effect := action_of(words, j))),
                    None,
                )
            if hit is None:
                hit = next(
                    ((j, effect) for j in range(index - 1, back - 1, -1) for stems, effect in _DEFERRED_NOUNS
                     if _whole(stems, words[j])),
                    None,
                )  # fmt: skip
        if hit is not None:
            j, effect = hit
            found.append((j, ForbiddenAction(effect, f"{words[index]} (deferred after)", words[j])))
    return found


def _approval(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "share it once I give you the go-ahead", "Устанавливать только по моей команде", "until Jan approves it": an
    action gated on someone's approval is not for now. A condition without approval ("email me once I get a
    ticket") gates nothing."""
    found: list[tuple[int, ForbiddenAction]] = []
    sentence = _sentences(words)
    for index, word in enumerate(words):
        if word not in _CONDITION:
            continue
        _, end = _clause_span(words, index + 1)
        window = words[index + 1 : min(end, index + 8)]
        strong = any(_whole(_APPROVAL, w) for w in window) or any(p in " ".join(window) for p in _APPROVAL_PHRASES)
        speaker = any(_whole(_SPEAKER_APPROVAL, w) for w in window) and _first_person(
            words, index + 1, min(end, index + 8), language
        )
        if not strong and not speaker:
            continue
        if word in ("по", "до", "za", "with", "z", "с") and not any(
            _whole(_APPROVAL, w) for w in words[index + 1 : index + 4]
        ):
            continue  # "по моей команде", "до проверки", "za moją zgodą", not "по почте … проверь"
        if word in ("with", "z", "с") and not (index and words[index - 1] in _ONLY):
            continue  # "only with my approval", "только с моего разрешения"; a bare "with" describes a manner
        target = _nearest_action_before(words, index, sentence)
        if target is None:
            after = range(index + 1, len(words))  # "Только после согласования с директором публикуй"
            target = next((j for j in after if sentence[j] == sentence[index] and action_of(words, j)), None)
        effect = action_of(words, target) if target is not None else None
        if target is not None and effect is not None:
            found.append((target, ForbiddenAction(effect, f"{word} … (approval)", words[target])))
    return found


#: Words that put an action after something else: "before it goes up", "zanim wyślesz", "прежде чем публиковать".
_BEFORE = {"before", "zanim", "przed", "прежде", "перед"}
#: What may open a command to the agent before its verb: "please confirm…", "and then check…".
_COMMAND_OPENERS = {"please", "and", "then", "first", "proszę", "najpierw", "i", "potem", "пожалуйста", "сначала", "и"}


def _approved_before(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "the captain has to sign them off before anything goes up on the intranet", "Zanim cokolwiek wyślesz,
    kierownik musi to zatwierdzić", "Прежде чем публиковать, нужно одобрение директора": the action a before-clause
    names waits for the approval its sentence asks for. An approval the agent is told to give ("confirm the dates
    before you publish") is a step of the work, and one inside the before-clause ("publish before the approval
    meeting") says when, so neither gates anything."""
    found: list[tuple[int, ForbiddenAction]] = []
    sentence = _sentences(words)
    for index, word in enumerate(words):
        if word not in _BEFORE:
            continue
        _, clause_end = _clause_span(words, index + 1)
        actions = [(j, e) for j, e in _actions(words, index + 1, clause_end) if not _is_past(words[j])]
        if not actions or _past_clause_before(words, index, language, subject_reach=3):
            continue  # "Last season you waited for my OK before every email": what used to be
        approval = any(
            sentence[k] == sentence[index]
            and not index <= k < clause_end
            and (_whole(_APPROVAL, w) or (w == "off" and k and _stem_match("=sign", words[k - 1])))
            and not _commanded(words, k)
            for k, w in enumerate(words)
        )
        if approval:
            j, effect = actions[0]
            found.append((j, ForbiddenAction(effect, f"{word} … (approval first)", words[j])))
    return found


def _commanded(words: list[str], index: int) -> bool:
    """The word at `index` opens a command to the agent ("confirm the dates", "please check", "you approve it")."""
    start, _ = _clause_span(words, index)
    lead = [w for w in words[start:index] if w not in _COMMAND_OPENERS]
    return not lead or lead[-1] in ("you", "ty", "ты")


#: Someone else's part: "the cannons are not yours to operate", "not your job to send it", "не тебе её включать".
_NOT_YOURS: tuple[tuple[str, ...], ...] = (
    ("not", "yours", "to"),
    ("not", "ours", "to"),
    ("not", "your", "job", "to"),
    ("not", "your", "call", "to"),
    ("not", "for", "you", "to"),
    ("не", "тебе"),
    ("не", "вам"),
    ("nie", "twoja", "rola"),
    ("nie", "twoje", "zadanie"),
)


def _not_yours(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "the snow cannons are not yours to operate", "не тебе решать, включать ли насосы": an action said to be
    someone else's part is not the agent's to take. Its device may stand before it, as the sentence's subject."""
    found: list[tuple[int, ForbiddenAction]] = []
    sentence = _sentences(words)
    for index in range(len(words)):
        phrase = next((p for p in _NOT_YOURS if tuple(words[index : index + len(p)]) == p), None)
        if phrase is None:
            continue
        after = index + len(phrase)
        for j in range(after, min(len(words), after + 4)):
            if words[j] in _CLAUSE_BREAK:
                break
            effect = action_of(words, j)
            if effect is None and any(_stem_match(stem, words[j]) for stem in _PHYSICAL_OPEN):
                subject = [w for k, w in enumerate(words[:index]) if sentence[k] == sentence[index]]
                effect = "physical" if any(_device(w) for w in subject[-8:]) else None
            if effect is not None:
                found.append((j, ForbiddenAction(effect, f"{' '.join(phrase)} (someone else's)", words[j])))
                break
    return found


#: "there will be none": "Instalacji na serwerze na razie nie będzie", "Публикации не будет".
_NONE_COMING = {("nie", "będzie"), ("nie", "będą"), ("не", "будет"), ("не", "будут")}


def _not_coming(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Instalacji na serwerze produkcyjnym na razie nie będzie", "Рассылки сегодня не будет": an action named as
    a thing that will not happen (the Polish and Russian genitive of negated being) is not to be done."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words) - 1):
        if (words[index], words[index + 1]) not in _NONE_COMING:
            continue
        start, end = _clause_span(words, index)
        named = [(j, e) for j, e in _actions(words, start, index) if not _is_past(words[j])]
        named = named or [(j, e) for j, e in _actions(words, index + 2, min(end, index + 5)) if not _is_past(words[j])]
        if named:
            j, effect = named[0]
            found.append((j, ForbiddenAction(effect, f"{words[index]} {words[index + 1]} (not coming)", words[j])))
    return found


#: What negates a venue without a verb: "not on the website", "ani do gabloty, ani na stronę", "neither on the
#: board nor online", "ни на сайт".
_VENUE_NEGATIONS = {"not", "nie", "не", "ani", "neither", "nor", "ни"}


def _venue(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Not yet on the website", "nie na stronę", "не на сайт", "ani do gabloty, ani na stronę", "не в общий чат": a
    negated venue, or a group's chat, is not to be published on."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if word not in _VENUE_NEGATIONS or (index and words[index - 1] in ("is", "was", "are", "it's")):
            continue
        j = index + 1
        while j < len(words) and words[j] in _SKIP_AFTER_NOT:
            j += 1
        if j < len(words) and words[j] in _VENUE_PREPOSITIONS:
            # the venue's noun phrase: determiners, then at most three modifiers ("the clinic's Facebook page",
            # "naszą szkolną stronę", "наш новый сайт"), never a verb or an action
            k = j + 1
            while k < len(words) and words[k] in _DETERMINERS:
                k += 1
            for m in range(k, min(len(words), k + 4)):
                word_m = words[m]
                if not word_m[0].isalpha() or action_of(words, m) is not None:
                    break
                _, end = _clause_span(words, m)
                # a group's chat is read where the group reads it: "Только мне лично, не в общий чат"
                # (a group alone may be people: "do grupy B, nie do grupy A")
                chat = _whole(_CHATS, word_m) and not word_m.startswith(("grup", "групп", "group"))
                venue = _whole(_VENUES, word_m) or chat
                if venue and not any(_is_past(w) for w in words[m + 1 : end]):
                    found.append((m, ForbiddenAction("publication", f"{word} {words[j]} (venue)", word_m)))
                    break
    return found


#: Hurrying to the action is starting it early: "вешать не спеши", "С публикацией не торопись", "Z wysyłką się nie
#: spiesz" (English "don't rush it" asks for care: "Write it up and don't rush it").
_HURRYING = ("спеш", "тороп", "spiesz", "śpiesz", "pośpiesz", "pospiesz")
_INFINITIVE = ("ть", "ться", "ć", "c")
_WITH = {"с", "со", "z", "ze"}


def _not_started(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Установку на рабочие компьютеры просим не начинать до понедельника", "Wysyłki nie zaczynaj", "the rollout,
    don't start it yet", "вешать не спеши": a negated verb of starting or hurrying with no action after it in its
    clause starts the action named before it (the chains read "don't start the installation" forward)."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        hurrying = _whole(_HURRYING, word)
        if not (hurrying or _whole(_ASPECTUAL, word)) or not _negated(words, index) or _is_past(word):
            continue
        start, end = _clause_span(words, index)
        if _actions(words, index + 1, end):
            continue
        before = [(j, e) for j, e in _actions(words, start, index - 1) if not _is_past(words[j])]
        if hurrying:
            # what one hurries with: an infinitive ("вешать не спеши") or "with" it ("z publikacją"); "Write it and
            # don't rush it" asks for care, not a wait
            before = [(j, e) for j, e in before if words[j].endswith(_INFINITIVE) or (j and words[j - 1] in _WITH)]
        if before:
            j, effect = before[-1]
            found.append((j, ForbiddenAction(effect, f"{words[index - 1]} {word} (not started)", words[j])))
    return found


#: Officialese: a thing not subject to an action ("Сведения разглашению не подлежат", "Dokument nie podlega
#: publikacji", "The list is not subject to disclosure").
_SUBJECT_TO = ("подлеж", "podleg", "=subject")
_NOT_SUBJECT = {"not", "isn't", "aren't", "nie", "не"}
#: A moment named by an action noun: "До открытия (пресс-релиз … не подлежит)", "until the opening", "przed
#: otwarciem": it says when, not what is forbidden.
_UNTIL_THEN = {"до", "после", "перед", "przed", "po", "until", "before", "after"}


def _not_subject_to(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "Пресс-релиз размещению на сайте не подлежит", "nie podlega publikacji", "is not subject to disclosure": a
    negated "subject to" forbids the actions its clause names, before or after it."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not _whole(_SUBJECT_TO, word) or not any(w in _NOT_SUBJECT for w in words[max(0, index - 2) : index]):
            continue
        start, end = _clause_span(words, index)
        for j, effect in _actions(words, start, end):
            if j != index and not _is_past(words[j]) and not (j and words[j - 1] in _UNTIL_THEN):
                found.append((j, ForbiddenAction(effect, f"{words[index - 1]} {word} (not subject to)", words[j])))
    return found


#: Prepositions of a place said before "not a word": "na stronie", "в группе", "on the site".
_PLACES_BEFORE = {"on", "in", "na", "w", "we", "в", "во", "на"}


def _phrased(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """ "выкладывать пока рано", "too early to send it" (the clause's action not now); "Wysyłkę biorę na siebie",
    "I'll handle the sending" (the speaker keeps it). ("Read-only" is not here: people say it of a task's scope,
    "read-only please: don't run any scripts", not as a ban on writing, in every labelled split.)"""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if _negated(words, index):
            continue  # "не рано", "not too early": no longer a restriction
        silent = next((p for p in _NOT_A_WORD if tuple(words[index : index + len(p)]) == p), None)
        said = index and words[index - 1] in ("is", "was", "said", "powiedział", "сказал")
        heard = words[index + len(silent) : index + len(silent) + 1] in (["from"], ["od"], ["от"]) if silent else False
        if silent is not None and not said and not heard:  # "not a peep from the alarms all night": a report
            after = words[index + len(silent) : index + len(silent) + 3]
            online = any(w in _ONLINE or _whole(_VENUES, w) for w in after)  # "ani słowa w sieci": not published
            # the places fronted before it: "На сайте и в соцсетях об этом ни слова", "On the website, not a word"
            front = words[_clause_span(words, index)[0] : index] or words[max(0, index - 8) : index]
            online = online or any(
                front[k] in _PLACES_BEFORE and any(w in _ONLINE or _whole(_VENUES, w) for w in front[k + 1 : k + 3])
                for k in range(len(front) - 1)
            )
            # "not a word in the drivers' group chat": a chat the whole group reads
            online = online or _into_everyones_chat(words, index + len(silent) - 1)
            effect: EffectClass = "publication" if online else "external_transmission"
            found.append((index, ForbiddenAction(effect, f"{' '.join(silent)} (not a word)", word)))
            continue
        drafts = next((p for p in _IN_DRAFTS if tuple(words[index : index + len(p)]) == p), None)
        if drafts is not None and any(_whole(_STAYING_DRAFT, w) for w in words[max(0, index - 4) : index]):
            found.append((index, ForbiddenAction("external_transmission", f"{' '.join(drafts)} (kept a draft)", word)))
            continue
        # "ставить рано", "Обнародовать его рано": the infinitive's action (a pronoun may stand between), too early
        verb = next((k for k in (index - 1, index - 2) if k >= 0 and words[k].endswith(("ть", "ти"))), None)
        infinitive = action_of(words, verb) if verb is not None and word == "рано" else None
        if verb is not None and infinitive is not None and (verb == index - 1 or words[index - 1] in _PRONOUNS_RU):
            found.append((verb, ForbiddenAction(infinitive, "рано (too early)", words[verb])))
            continue
        on_copy = next((p for p in _ON_A_COPY if tuple(words[index : index + len(p)]) == p), None)
        if on_copy is not None:  # "work on a duplicate", "treat it as read-only", "pracuj na kopii": the original stays
            found.append((index, ForbiddenAction("local_write", f"{' '.join(on_copy)} (the original untouched)", word)))
            continue
        from_me = any(tuple(words[k : k + 2]) in _FROM_ME for k in range(index + 1, index + 5))
        through_me = any(tuple(words[k : k + 2]) in _THROUGH_ME for k in range(index + 1, index + 6))
        if through_me and (word.startswith(_GOING) or word in ("go", "goes")):
            found.append((index, ForbiddenAction("external_transmission", f"{word} … through me (the speaker)", word)))
            continue  # "В головной офис выводы пойдут через меня", "it goes to the board through me"
        if from_me and (_whole(_RECEIVING, word) or _whole(_LEARNING, word)):
            found.append(
                (index, ForbiddenAction("external_transmission", f"{word} … from me (the speaker tells)", word))
            )
            continue  # "dyrekcja dostanie go ode mnie", "załoga dowie się ode mnie", "they'll hear it from me"
        if _whole(_RECEIVING, word) and any(tuple(words[k : k + 2]) in _ONLY_ME for k in range(index - 2, index + 2)):
            found.append((index, ForbiddenAction("external_transmission", f"{word} … only me (confined)", word)))
            continue  # "te notatki dostaję tylko ja", "only I get the drafts", "получаю их только я"
        if tuple(words[index : index + 2]) in _NOT_YOU and index and words[index - 1] == ",":
            start, _ = _clause_span(words, index - 1)
            for j, effect in _actions(words, start, index - 1):
                found.append((j, ForbiddenAction(effect, f"{word} {words[index + 1]} (someone else's)", words[j])))
            continue  # "Публикует графики только отдел кадров, не ты"
        early = next((p for p in _TOO_EARLY if tuple(words[index : index + len(p)]) == p), None)
        taking = word in _TAKING and any(tuple(words[index + 1 : index + 1 + len(p)]) == p for p in _UPON_ONESELF)
        handle = next((p for p in _HANDLE_EN if tuple(words[index : index + len(p)]) == p), None)
        if early is None and not taking and handle is None:
            continue
        start, end = _clause_span(words, index)
        if handle is not None:
            start = index + len(handle)  # what is handled comes after: "I'll handle the sending myself"
        trigger = " ".join(early) + " (too early)" if early else f"{word} (kept by the speaker)"
        actions = [(j, e) for j, e in _actions(words, start, end) if not _is_past(words[j])]
        for j, effect in actions:
            found.append((j, ForbiddenAction(effect, trigger, words[j])))
        knowing = next((k for k in range(start, end) if _whole(_KNOWING, words[k])), None)
        if early and not actions and knowing is not None:
            # "Подрядчику о вариантах знать пока рано": too early for someone to know it, so not to be told
            found.append((knowing, ForbiddenAction("external_transmission", trigger, words[knowing])))
    return found


#: Words that gate or defer what their clause names: "until", "only after", "dopóki", "пока не", "will have to wait".
_GATES = {
    "until", "till", "unless", "once", "dopóki", "aż", "dopiero", "пока", "wait", "waits", "poczekać", "poczekają",
    "poczeka", "czekać", "подождет", "подождут", "подождать", "ждать", "ждет", "ждут",
}  # fmt: skip
_GATE_PAIRS = (
    ["only", "after"], ["tylko", "po"], ["только", "после"], ["not", "before"], ["when", "i"], ["jak", "powiem"],
    ["когда", "я"], ["dopiero", "po"], ["не", "раньше"],
)  # fmt: skip
#: Verbs of getting and receiving: a person who is not to get it is not to be sent it ("the team doesn't get a copy
#: before I OK it", "dostaję tylko ja", "получат только после…").
_RECEIVING = ("=get", "=receive", "dostaj", "dostan", "dostać", "dostac", "otrzym", "получ")
_FROM_ME = {
    ("ode", "mnie"), ("od", "mnie"), ("from", "me"), ("от", "меня"), ("from", "us"), ("od", "nas"), ("от", "нас"),
}  # fmt: skip
#: Through the speaker: "выводы пойдут через меня", "pójdzie przeze mnie", "it goes through me".
_THROUGH_ME = {("через", "меня"), ("через", "нас"), ("przeze", "mnie"), ("przez", "nas"), ("through", "me")}
_GOING = ("пойд", "идут", "идет", "pójd", "pojd", "idzie", "idą", "trafi", "попад")
_ONLY_ME = {("tylko", "ja"), ("only", "i"), ("только", "я"), ("wyłącznie", "ja"), ("лишь", "я")}
#: Outside as the destination: "Наружу перевод пока не выпускай", "nothing leaves for outside".
_OUTSIDE = {"наружу", "вовне", "zewnątrz", "outside"}
#: People a thing reaches: with a negated or gated verb of receiving, they are not to be sent it.
_PEOPLE = (
    "team", "staff", "supplier", "client", "customer", "manager", "parent", "resident", "board", "driver", "crew",
    "zesp", "dostawc", "klient", "kierowni", "rodzic", "zarząd", "załog", "команд", "поставщик", "клиент",
    "руковод", "родител", "начальств", "сотрудник", "бригад",
    # firms and the press: "the security firm gets nothing from you", "agencja nic nie dostaje", "подрядчик"
    "agencj", "wykonawc", "kontrahent", "ubezpieczyc", "подрядчик", "агентств", "журналист", "страхов", "партнер",
    # the heads of an office: "komendant ma je dostać dopiero po odprawie", "директор получит только после…"
    "dyrektor", "komendant", "prezes", "szef", "директор", "начальник", "заведующ", "главврач",
)  # fmt: skip
#: The same, as whole English words ("firm" begins "firmware"): "the security firm", "the agency", "the press".
_PEOPLE_WORDS = (
    "=firm", "=company", "=agency", "=contractor", "=vendor", "=press", "=journalist", "=partner", "=union", "=insurer",
    "=director", "=chief", "=boss", "=principal", "=commander", "=mayor",
)  # fmt: skip


def _n_word_before(words: list[str], start: int, index: int) -> bool:
    """A negative-concord word in [start, index): with a gate before the place too, the clause still negates its own
    verb ("пока главврач не подпишет, ни один вариант не должен появиться на портале")."""
    return any(w in _N_WORDS for w in words[start:index])


#: What may stand between a receiver and its verb: "Drewpol ma dostać", "the client will get", "клиент должен получить".
_RECEIVER_MODALS = {
    "ma", "mają", "musi", "może", "will", "should", "must", "is", "to", "can", "должен", "должна",
    "должно", "должны", "может",
}  # fmt: skip
#: The speaker and the agent, who receive nothing sent out: "dostaniesz ją dopiero", "I get the report only after …".
_NO_RECEIVERS = {"i", "we", "you", "ja", "my", "ty", "wy", "я", "мы", "ты", "вы", "mi", "мне", "nam", "нам"}


def _received_after_gate(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """Someone named as the receiver of a writing, only after a gate: "Drewpol ma dostać ofertę dopiero po mojej
    akceptacji", "Acme gets the quote only after I approve it", "Петров получит смету только после моего одобрения":
    the writing is not to be sent before."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if not _whole(_RECEIVING, word) or _is_past(word):
            continue
        start, end = _clause_span(words, index)
        if not any(_whole(_OUTBOUND_NOUNS, w) for w in words[index + 1 : min(end, index + 4)]):
            continue
        gated = any(w in _GATES for w in words[index + 1 : end]) or any(
            words[k : k + 2] in _GATE_PAIRS for k in range(index + 1, end)
        )
        k = index - 1
        while k > start and words[k] in _RECEIVER_MODALS:
            k -= 1
        if not gated or k < start or words[k] in _RECEIVER_MODALS:
            continue
        if words[k][0].isalpha() and words[k] not in _NO_RECEIVERS and words[k] not in _DETERMINERS:
            found.append((index, ForbiddenAction("external_transmission", f"{words[k]} {word} (gated receiver)", word)))
    return found


#: Copulas: a clause with one describes a state ("the website is down until…").
_DESCRIBING_VERBS = {"is", "are", "was", "were", "it's", "jest", "są", "był", "była", "было", "был", "была"}


def _gated_destination(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """A place or people named in a clause that is negated, gated or deferred, with no action of its own: "Na
    tablicę w dyżurce nic nie idzie, dopóki kierownik nie klepnie", "The intranet gets the final one only after I've
    initialled it", "the website will have to wait for my sister's blessing", "ни один вариант не должен появиться на
    портале", "the team doesn't get a copy before I OK it", "dostaję tylko ja". Not a description ("the website is
    not working", "nie działało"), a question, or talk about it ("don't worry about the website")."""
    found: list[tuple[int, ForbiddenAction]] = []
    n = len(words)
    for index, word in enumerate(words):
        venue = _whole(_VENUES, word)
        people = not venue and (word.startswith(_PEOPLE) or _whole(_PEOPLE_WORDS, word))
        outside = word in _OUTSIDE
        if not (venue or people or outside) or _is_past(word):
            continue
        start, end = _clause_span(words, index)
        # the gate may open the next clause of its sentence: "…, dopóki kierownik tego nie klepnie"
        tail = end
        if end < n and words[end] == "," and end + 1 < n and words[end + 1] in _GATES | {"only", "tylko", "только"}:
            tail = next((k for k in range(end + 1, n) if words[k] in (".", ";", "!", "?")), n)
        clause = words[start:end]
        # the gate's own words are not the clause's action: "nothing on Facebook until we know what's going on"
        # ("пока" is also "for now": "на стенд пока не разворачивай" keeps its action)
        gate_at = next((k for k in range(index + 1, end) if words[k] in _GATES and words[k] != "пока"), end)
        if any(w in _DESCRIBING_VERBS for w in words[start:gate_at]):
            gate_at = end  # "the website is down until the host fixes it": a state described, read whole
        if any(action_of(words, j) is not None for j in range(start, gate_at)):
            continue  # an action in the clause: the chains and the other forms read it
        # talk about the place ("don't worry about the website"), said before it; "when I say so" after it is a gate
        if any(w.startswith(_NOT_HANDLING) for w in words[start:index]) or any(_is_past(w) for w in clause):
            continue
        if any(w in ("ли", "czy", "whether") for w in clause):
            continue  # an indirect question: "проверяй, не упал ли сайт", "sprawdź, czy strona nie leży"
        negated = any(
            (w in _PARTICLES or w in _N_WORDS or w in ("doesnt", "doesn't", "isnt")) and w not in ("no", "без", "bez")
            for w in clause
        )
        described = any(words[k] in ("is", "are", "was", "were", "it's") and words[k + 1 : k + 2] == ["not"]
                        for k in range(start, end - 1))  # fmt: skip
        # the gate comes after what it gates: in "until the board gives its nod" the board is the one who decides
        gated = any(w in _GATES for w in words[index + 1 : tail]) or any(
            words[k : k + 2] in _GATE_PAIRS for k in range(index + 1, tail)
        )
        if any(w in _GATES for w in words[start:index]) and not _n_word_before(words, start, index):
            continue
        receiving = any(_whole(_RECEIVING, w) for w in clause)
        only_me = any(tuple(words[k : k + 2]) in _ONLY_ME for k in range(start, end))
        if people and not ((negated or gated) and receiving) and not (only_me and receiving):
            continue
        if outside:
            if negated and not described:
                found.append((index, ForbiddenAction("external_transmission", f"{word} (not outside)", word)))
            continue
        if venue and not (negated or gated):
            continue
        if described or (venue and negated and not gated and language == "en" and not any(
            w in ("nothing", "never", "no-one", "nobody", "doesnt", "doesn't") for w in clause
        )):  # fmt: skip
            continue
        effect: EffectClass = "publication" if venue else "external_transmission"
        found.append((index, ForbiddenAction(effect, f"{word} (gated destination)", word)))
    return found
