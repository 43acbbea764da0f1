"""Surface cues for the kind of an utterance, in English, Polish and Russian.

    recurrence ("every Monday", "codziennie", "каждую пятницу", "from now on"), unless
      the sentence asks about it ("what do we do every Monday?")                        → process
    an emergency happening now (`urgency`: a danger word not negated, someone forcing
      their way in, water pouring out…), unless it is a request about past events
      ("analyse yesterday's alarms"), a past report or a question                       → alarm
    a report that all is well ("the night was quiet, no alarms", `urgency`)             → conversation
    a greeting, thanks or small talk with no request in it                              → conversation
    a polite request ("could you…", "can u…", "czy możesz…", "можешь…")                 → task
    a question, then a request to be told ("What is RAID? Explain it.")                 → question
    a question word first, or a question mark at the end                                → question
    an imperative first ("prepare", "przygotuj", "подготовь"), also negated ("nie
      publikuj", "не забудь…") or after a leading phrase ("On Monday prepare…"); read
      in the first sentence only                                                        → task
    a bare phrase with a courtesy word ("roster for feb pls", "grafik na marzec proszę") → task

Strong cues decide on their own; weak ones only break ties (see `classifier`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Literal

from alicorn.models.intent.langid import identify
from alicorn.models.intent.urgency import MEDICAL, going_on_now, read_situation

Kind = Literal["conversation", "question", "task", "process", "alarm"]
KINDS: tuple[Kind, ...] = ("conversation", "question", "task", "process", "alarm")

_DAYS = (
    r"(?:day|morning|evening|night|week|month|hour|quarter|year|time|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday|weekday|shift|\d+\s+\w+)"
)
_RECURRENCE = re.compile(
    rf"\b(?:every|each)\s+{_DAYS}|\b(?:daily|weekly|monthly|hourly|nightly|regularly|continuously)\b"
    # "Whenever a CV arrives, score it" opens its clause; "it crashes whenever…", "whenever you get to it" do not
    r"|(?:^|[.;:!?,—–]\s*)whenever\b(?! you (?:get|have|can|are|'re|find)\b)"
    r"|\bfrom now on\b|(?:^|[.;:!?,—–]\s*)going forward\b|\buntil further notice\b"
    r"|\bon (?:mondays|tuesdays|wednesdays|thursdays"
    r"|fridays|weekends)\b|\bkeep (?:monitoring|watching|checking|an eye)"
    r"|\bcodziennie\b|\bco\s+(?:dzień|dzien|tydzień|tydzien|miesiąc|miesiac|rano|wieczór|noc|godzinę|kwartał|roku"
    r"|poniedziałek|wtorek|środę|czwartek|piątek|sobotę|niedzielę|zmianę|\d+)|\bkażd(?:ego|y|ą|e|ym)\s+"
    r"(?:dnia|ranka|rana|wieczora|tygodnia|miesiąca|poniedziałek|wtorek|środę|czwartek|piątek|razem|dzień|rano)"
    r"|\bw każd\w+\b|\bpo (?:każd|kazd)\w+\b|\bafter (?:every|each)\b"
    r"|\bod (?:teraz|dziś|dzisiaj|jutra)\b|\bregularnie\b|\bcyklicznie\b|\bna bieżąco\b|\bstale\b"
    r"|\bzawsze,? (?:gdy|kiedy)\b|\btygodniowo\b|\bmiesięcznie\b"
    # "каждый понедельник", "каждые 3 часа", "после каждой еженедельной планёрки": each of a time or a meeting;
    # "опиши каждый шаг", "по каждой позиции" count things, not times
    r"|(?<!\w)кажд(?:ый|ую|ое|ые|ого|ой|ом)\s+(?:\w+(?:ой|ую|юю|ый|ий|ее|ие|ые|его|ого|ая|яя|ей)\s+)?(?:\d|дн|день|утр|вечер|ноч|недел"
    r"|месяц|год|час|квартал|понедельник|вторник|сред|четверг|пятниц|суббот|воскресень|раз(?!\w)|смен|числ|выходн"
    r"|планёрк|планерк|оперативк|совещани|встреч|собрани|релиз|спринт)"
    r"|(?<!\w)ежедневно|(?<!\w)еженедельно|(?<!\w)ежемесячно|(?<!\w)после кажд\w+"
    r"|(?<!\w)ежечасно|с этого (?:момента|дня)|с сегодняшнего дня|(?<!\w)всякий раз|(?<!\w)регулярно"
    r"|(?<!\w)постоянно|(?<!\w)по (?:понедельникам|вторникам|средам|четвергам|пятницам|субботам|воскресеньям|утрам"
    r"|вечерам|ночам|выходным)|(?<!\w)впредь|(?<!\w)отныне|(?<!\w)всегда,? когда",
    re.IGNORECASE,
)
_URGENCY = re.compile(
    r"!|\b(?:urgent(?:ly)?|asap|immediately|right now|now)\b|\b(?:pilne|pilnie|natychmiast|teraz|właśnie)\b"
    r"|(?<!\w)(?:срочно|немедленно|сейчас|прямо сейчас)(?!\w)",
    re.IGNORECASE,
)
#: A request marked urgent in words ("URGENT", "pilne", "срочно"), not by an exclamation mark alone.
_URGENT_WORD = re.compile(r"\b(?:urgent(?:ly)?|asap|pilne|pilnie)\b|(?<!\w)срочно(?!\w)", re.IGNORECASE)
#: What may end a plea: "now", "right now", "teraz", "сейчас", then its question mark or the end.
_PLEA_CLOSES = re.compile(r"\s*(?:right now|now|teraz|сейчас|прямо сейчас)?\s*(?:[?!.]|$)", re.IGNORECASE)
#: A plea for what to do: beside an emergency, and with no command opening the text ("Составь памятку, что делать,
#: если…" is work about one), it is urgent: "co robić?", "что делать?", "what do we do?".
_PLEA = re.compile(
    r"\bwhat (?:do|should) (?:we|i) do\b|\bco (?:robić|robimy|mam robić|mamy robić|robic)\b"
    r"|(?<!\w)что (?:делать|нам делать|мне делать)(?!\w)",
    re.IGNORECASE,
)
#: Asking why: "why does it keep stopping", "dlaczego", "czemu", "почему", "jakie mogą być przyczyny", "в чём причина".
_WHY = re.compile(
    r"\b(?:why|what (?:could|might|can) (?:be )?caus\w*|dlaczego|czemu|przyczyn\w*)\b"
    r"|(?<!\w)(?:почему|отчего|причин\w*)(?!\w)"
)
_PAST = re.compile(
    r"\b(?:yesterday|last (?:week|night|month|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|wczoraj\w*|zeszł\w+|ubiegł\w+)|(?<!\w)(?:вчера\w*|прошл\w+)"
)
#: Danger words that are praise in slang ("отзывы огонь", "the set was fire").
_SLANG_PRAISE = {"огонь", "fire"}
#: "Last time" recalls an earlier occasion beside the present one: "w zeszłym razem", "в прошлый раз".
_LAST_TIME = re.compile(r"\b(?:zeszł|ubiegł)\w* raz\w*|(?<!\w)(?:в )?прошл\w* раз\w*")
_GREETING = re.compile(
    r"^(?:hi|hello|hey|good (?:morning|afternoon|evening|night)|thanks|thank you|cheers|bye|goodbye|see you|nice"
    r"|great|cool|ok|okay|lol|haha|cześć|czesc|hej|siema|dzień dobry|dobry wieczór|dobranoc|dzięki|dziękuję"
    r"|do widzenia|do zobaczenia|na razie|super|świetnie|привет|здравствуй\w*|добрый (?:день|вечер)|доброе утро"
    r"|спасибо|пока|до свидания|отлично|круто|спокойной ночи)(?!\w)",
    re.IGNORECASE,
)
_THANKS_WORDS = r"(?:thanks|thank you|cheers|dzięki|dzieki|dziękuję|dziekuje|спасибо|благодарю)(?!\w)"
#: Thanks opening the message, and thanks anywhere in it.
_THANKS = re.compile("^" + _THANKS_WORDS, re.IGNORECASE)
_THANKS_ANYWHERE = re.compile(r"(?<!\w)" + _THANKS_WORDS, re.IGNORECASE)
#: Praise of work done: "the head teacher really liked the minutes you did", "grafik bardzo się podobał", "протокол
#: всем понравился".
_PRAISE = re.compile(
    r"\b(?:liked|loved|enjoyed|was spot on|were spot on|went down well)\b|\bpodoba(?:ł|ła|ło|li|ły)\b"
    r"|(?<!\w)понравил\w*",
    re.IGNORECASE,
)
#: A past tense, roughly: English -ed and a few irregulars, Polish -ł/-ła/-li, Russian -л/-ла/-ли (longer words).
_PAST_TENSE = re.compile(
    r"\b\w{3,}ed\b|\b(?:was|were|went|made|did|got|came|ran)\b|\w{3,}(?:ł|ła|ło|li|ły)(?!\w)|(?<!\w)[а-я]{3,}(?:ла|ли|ло|л)(?!\w)"
)
_REMARK = re.compile(
    r"^(?:just )?(?:wanted to (?:say|let you know)|chciał(?:em|am) (?:tylko )?powiedzieć"
    r"|хотел(?:а)? (?:просто )?сказать)",
    re.IGNORECASE,
)
#: A remark that says it asks for nothing: "Just venting, no action needed", "FYI only", "nic nie trzeba robić",
#: "ничего делать не надо".
_NO_ACTION = re.compile(
    r"\bno action (?:needed|required)\b|\bjust venting\b|\bfyi only\b|\bnothing (?:for you )?to do\b"
    r"|\bnic nie (?:trzeba|musisz) robić\b|\bnic nie trzeba robic\b|\btylko się żalę\b"
    r"|(?<!\w)ничего делать не (?:надо|нужно)(?!\w)|(?<!\w)ничего не (?:надо|нужно) делать(?!\w)"
    r"|(?<!\w)просто жалуюсь(?!\w)",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"\bhow are you\b|\bhow's it going\b|\bhow was your\b|\bjak się masz\b|\bco słychać\b|\bjak leci\b"
    r"|(?<!\w)как дела|(?<!\w)как ты(?!\w)|(?<!\w)как поживаешь|(?<!\w)как жизнь|(?<!\w)как настроение"
    r"|\bjak humor\b|\bhow's your day\b",
    re.IGNORECASE,
)
_POLITE = re.compile(
    r"^(?:(?:please|pls|plz),? )?(?:can|could|would|will) (?:you|u|ya)\b"
    r"|^(?:czy )?(?:możesz|mógłbyś|mogłabyś|moglibyście|możecie|proszę)\b"
    r"|^(?:ты )?(?:можешь|можете|не мог(?:ла|ли)? бы|пожалуйста)(?!\w)",
    re.IGNORECASE,
)
#: A Russian yes-no question: its verb, then "ли" ("Отправили ли мы уже отчёт?").
_LI = re.compile(r"^\w+ ли\b")
_AUX_QUESTION = re.compile(
    r"^(?:do|does|did|is|are|was|were|can|could|will|would|should|have|has)\s+"
    r"(?:you|we|they|i|it|he|she|the|this|that|there|anyone|someone|our|my)\b"
)
_QUESTION_WORDS = set(
    "what why how when where who whom whose which is are was were do does did has have should shall may "
    "co czy dlaczego czemu jak jaki jaka jakie jakich kiedy gdzie kto który która które ile skąd dokąd "
    "jaką jakiego jakiej jakim jakimi którą którego której których którym "
    "что почему зачем как какой какая какое какие какую какого каким каких когда где кто который которая "
    "которое которые которую которого которой каком сколько ли куда откуда разве чей чья чьё чье чьи "
    # contracted: "What's the difference between a fire door and a smoke door?"
    "what's whats how's where's who's when's why's isn't aren't doesn't don't didn't".split()
)
_EN_VERBS = set(
    "prepare find build analyse analyze create write make check compile draft summarise summarize generate list "
    "fix remove show send give get plan schedule organise organize review translate compare calculate count "
    "collect gather sort filter merge update add delete clean design test run deploy install set book order "
    "publish post notify call email reply answer read look search investigate explain describe outline propose "
    "estimate measure monitor track record note tell help put move copy rename archive convert extract export "
    "import print edit rewrite format split group rank pick choose select identify detect verify validate "
    "assess evaluate reconcile produce turn stop start open close keep take bring do remember forget hesitate wait "
    "hold postpone delay avoid skip go figure triage pull drop spin dig grab fetch ping sync rerun debug jot scan "
    "tidy whip sum chase crunch dump restart reboot remind log raise bump tweak swap replace revoke".split()
)
_PL_VERBS = set(
    "rób rob róbcie "
    "przygotuj zrób zrob znajdź znajdz sprawdź sprawdz pokaż pokaz napisz zbuduj stwórz stworz usuń usun wyślij "
    "przeanalizuj podsumuj porównaj porownaj policz oblicz zaplanuj opracuj uporządkuj uporzadkuj przetłumacz "
    "wygeneruj zestaw ustaw dodaj daj weź wez zapisz przejrzyj wypisz wymień wymien zbierz zanalizuj zweryfikuj "
    "popraw napraw uruchom zatrzymaj otwórz otworz zamknij przenieś przenies skopiuj wyszukaj poszukaj zadzwoń "
    "odpowiedz opisz wyjaśnij wyjasnij oceń ocen sporządź sporzadz zaproponuj zrób przypomnij ustal pomiń "
    "powiedz wskaż wskaz zgaś zgas włącz wlacz wyłącz wylacz zapal podlej nakarm zmień zmien podmień podmien wymień "
    "wymien przesuń przesun".split()
)
_RU_VERBS = set(
    "подготовь найди проверь покажи напиши собери создай удали отправь проанализируй составь сравни посчитай "
    "переведи сгенерируй сделай дай запусти исправь открой закрой добавь сохрани перечисли опиши объясни оцени "
    "предложи спланируй запланируй упорядочь разбери просмотри выпиши выбери определи уточни подсчитай убери "
    "включи отключи выключи погаси покорми получи поручи изучи глянь "
    "подготовьте найдите проверьте покажите напишите соберите сделайте составьте сравните переведите".split()
)
_PL_ENDINGS = ("uj", "aj", "ij", "yj", "ź", "ż", "rz", "sz", "cz", "dź", "ów", "ujcie", "ajcie", "ijcie")
_PL_NOT_VERBS = set(
    "wczoraj dzisiaj tutaj kraj jaj maj mój twój swój jej raz już też jeż tusz nasz wasz ich aż dzień dwaj obaj trzej "
    "czterej".split()
)
#: Prepositions that open a leading phrase before the verb: "Z transkrypcji … wyciągnij", "Из записи … вытащи".
_OPENING_PREPOSITIONS = {"z", "ze", "na", "do", "po", "od", "dla", "według", "из", "по", "на", "для", "от", "с", "со"}
#: Endings only an imperative has among the words of a request (the others, "-ей", "-ни", are also nouns' cases).
_PL_SURE_ENDINGS = ("uj", "aj", "ij", "yj", "ujcie", "ajcie", "ijcie")
_RU_SURE_ENDINGS = ("уй", "яй", "йте", "ите", "ай")
_RU_ENDINGS = (
    "уй", "ай", "ей", "яй", "ди", "ри", "жи", "ши", "ни", "ви", "ти", "зи", "вь", "рь", "нь", "ерь", "йте",
    "ите", "дь", "йся", "ись",
)  # fmt: skip
_RU_NOT_VERBS = set(
    "мой твой свой какой такой другой этой той всей ней ей привет кто они ты мы вы и или ли не ни что где "
    "пожалуйста сегодня здесь теперь почти очень пусть дверь теперь время день тень осень жизнь лень пень конь "
    "огонь камень ремень уровень рублей людей дней гостей детей вещи ночи речи врачи мыши наши ваши чьи "
    "хороши люди дети кстати".split()
)
#: A courtesy word that makes a bare phrase a request ("roster for feb pls", "grafik na marzec proszę").
_COURTESY = re.compile(
    r"(?<!\w)(?:please|pls|plz|plis|pliz|proszę|prosze|poproszę|пожалуйста|пжл|пжлст|плиз|плз)(?!\w)",
    re.IGNORECASE,
)
#: Verbs that ask to be told ("explain it", "wyjaśnij", "объясни"): after a question they ask for information too.
_TELL = set(
    "explain describe clarify elaborate tell define help advise recommend suggest "
    "wyjaśnij wyjasnij objaśnij wytłumacz opisz powiedz doradź poradź podpowiedz pomóż "
    "объясни поясни растолкуй расскажи опиши скажи подскажи посоветуй помоги "
    # the polite plural: "Подскажите, сколько лет хранятся журналы?", "Podpowiedzcie, ile…"
    "объясните поясните расскажите скажите подскажите посоветуйте помогите podpowiedzcie powiedzcie "
    # being answered: "просто ответь", "just answer"
    "answer ответь ответьте "
    # reminding the asker is telling: "Напомни, из-за чего стояла линия?", "Przypomnij mi, kiedy…"
    "remind напомни przypomnij".split()
)
_REQUEST = re.compile(
    r"\b(?:i need|i want|i'd like|i would like|we need|please)\b|\b(?:potrzebuję|potrzebuje|chcę|chce|proszę o"
    r"|poproszę)\b|(?<!\w)(?:мне нужн\w*|нужно|хочу|надо|прошу)(?!\w)"
    # "Нужны хронология и отчёт", "Potrzebne są trzy warianty": what is needed, said as a need
    r"|(?:^|[.!?]\s+)(?:нужн[ыа]|нужен|potrzebn(?:e|y|a)(?: (?:są|jest))?)(?!\w)",
    re.IGNORECASE,
)
#: Words that may open a command before its verb: "please", "so", and leave to act ("Just tell me the formula", "więc
#: śmiało usuń duplikaty", "просто скажи").
_LEAD = set(
    "please ok okay now so and then proszę dobrze teraz więc пожалуйста хорошо теперь итак just simply kindly śmiało "
    "smialo смело просто а ты вы пока ty слушай слушайте słuchaj sluchaj słuchajcie".split()
)
#: A negation before the imperative it governs ("Nie publikuj…", "Не забудь…", "Never delete…").
#: Words that may stand before a question's question word: "Roughly how much…", "A tak właściwie, ile…", "Примерно
#: сколько…".
_QUESTION_LEAD = {
    "roughly", "approximately", "so", "and", "but", "ok", "okay", "just", "btw", "also", "honestly", "quick",
    "question", "mniej", "więcej", "wiecej", "tak", "właściwie", "wlasciwie", "a", "i", "to", "ну", "а", "и",
    "примерно", "так", "кстати", "приблизительно",
    # a preposition before the question word: "С каким моментом затягивать…?", "Z jakim…?", "At what…?"
    "с", "со", "в", "на", "по", "до", "за", "о", "об", "z", "ze", "w", "na", "po", "do", "o", "at", "in", "on", "for",
    "with", "from", "by",
}  # fmt: skip
_ONLY = {"just", "only", "simply", "tylko", "jedynie", "po", "prostu", "только", "просто", "лишь"}
_FORGET = ("forget", "zapomnij", "zapominaj", "забудь", "забывай")
_NEGATED_LEAD = {"don't", "dont", "never", "nie", "nigdy", "не", "никогда"}
#: An English request may open with a phrase of time or place before its verb ("On Monday prepare…").
#: Verbs that command only with their particle ("work out", "draw up"); "Work was fine" is no request.
_PHRASAL = {"work", "draw", "line", "round", "sort", "set", "pull", "put", "write", "look", "type", "map", "ring"}
_PARTICLES = {"out", "up", "together", "down", "through"}
#: "…, just list the invoices", "…, then send": an adverb before the verb of the second clause.
_ADVERBS = {"just", "then", "simply", "only", "also", "and", "please"}
_EN_LEAD_PHRASE = set("on in at by for from after before during next this tomorrow today tonight first".split())
_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)


@dataclass(frozen=True, slots=True)
class KindCue:
    """A kind suggested by surface cues; `strong` cues decide on their own."""

    kind: Kind
    strong: bool
    evidence: str


def first_word(text: str) -> str:
    words = [str(w).lower() for w in _WORD.findall(text)]
    for word in words:
        if word not in _LEAD:
            return word
    return ""


def known_verb(word: str, language: str) -> bool:
    """Whether `word` is one of the known imperative verbs of `language`."""
    known = _EN_VERBS if language == "en" else _PL_VERBS if language == "pl" else _RU_VERBS
    return word in known


def imperative_form(word: str, language: str) -> bool:
    """Whether `word` looks like an imperative of `language` (a known one, or by its ending in Polish and Russian)."""
    return _imperative(word, language, True)


def _imperative(word: str, language: str, first: bool) -> bool:
    if language == "ru":
        if word in _RU_VERBS:
            return True
        return first and word not in _RU_NOT_VERBS and len(word) > 3 and word.endswith(_RU_ENDINGS)
    if language == "pl":
        if word in _PL_VERBS:
            return True
        return first and word not in _PL_NOT_VERBS and len(word) > 3 and word.endswith(_PL_ENDINGS)
    return first and word in _EN_VERBS


def _manner_adverb(word: str) -> bool:
    """An adverb of manner opening a request before its verb ("Кратко перескажи…", "Szybko sprawdź…")."""
    return len(word) > 4 and word.endswith(("ко", "ро", "но", "ko", "nie")) and word not in _PL_NOT_VERBS


#: Before an English verb these make it no command: a subject, a modal, "to" ("we need", "can't do", "to check").
_EN_NOT_IMPERATIVE_BEFORE = {
    "i", "we", "you", "they", "he", "she", "it", "who", "can", "can't", "cannot", "could", "will", "won't", "would",
    "should", "must", "to", "don't", "doesn't", "didn't", "not", "never", "'ll", "i'll", "we'll", "people",
}  # fmt: skip


#: Where a sentence or a clause ends ("9:15" and "9.15" are times, not ends).
_SENTENCE_MARKS = re.compile(r"[!?\n]|(?<!\d)\.|\.(?!\d)")
_CLAUSE_MARKS = re.compile(r"[!?\n;—–]|(?<!\d)[.:,]|[.:,](?!\d)")


def clause_commands(text: str, position: int, language: str | None = None) -> bool:
    """Whether the clause of `text` around `position` gives a command: it opens with one (see `imperative_start`),
    or, in Polish and Russian, a word of it has an imperative's form. A clause of three words or fewer ("On Mondays,
    send me the list") is read with the rest of its sentence. "We need two people on Saturdays" and "По субботам у
    нас работает один кассир, составь график" describe the work; "W soboty rób kopię" commands."""
    language = language or identify(text).language

    def around(boundary: re.Pattern[str]) -> str:
        marks = [m.start() for m in boundary.finditer(text)]
        start = max((m + 1 for m in marks if m < position), default=0)
        end = min((m for m in marks if m >= position), default=len(text))
        return text[start:end]

    clause = around(_CLAUSE_MARKS)
    if len(_WORD.findall(clause)) <= 3:
        clause = around(_SENTENCE_MARKS)
    if any(imperative_start(part, language) for part in re.split(r"[,;:—–]", clause) if part.strip()):
        return True
    words = [w.lower() for w in _WORD.findall(clause)]
    if language == "en":  # "On Mondays and Thursdays at 9:15 check the logs": a known verb with no subject before it
        return any(
            w in _EN_VERBS and (k == 0 or words[k - 1] not in _EN_NOT_IMPERATIVE_BEFORE) for k, w in enumerate(words)
        )
    return any(_imperative(w, language, True) for w in words)


def imperative_start(text: str, language: str | None = None) -> bool:
    """Whether the first clause is a command: an imperative first, or a known imperative within the first five
    words ("From the conversation, prepare…", "Na podstawie rozmowy przygotuj…")."""
    language = language or identify(text).language
    # Only the first sentence: "Co to jest cron? Wyjaśnij." opens with a question, not with "wyjaśnij".
    first_sentence = re.split(r"(?<=\w)\s*[?!.]+(?:\s|$)", text.strip(" \t\n.!?,;:"), maxsplit=1)[0]
    words = [w.lower() for w in _WORD.findall(first_sentence) if w.lower() not in _LEAD][:8]
    negated = bool(words) and words[0] in _NEGATED_LEAD
    while words and words[0] in _NEGATED_LEAD:
        words = words[1:]
    if negated and language == "en" and words and words[0].isalpha() and words[0] not in _EN_SUBJECT_PRONOUNS:
        # "Don't retry the job anymore": a negated command, whatever its verb ("Don't we have one?" asks)
        opening = re.split(r"(?<=[?!.])\s+", text.strip(), maxsplit=1)[0]
        return not opening.rstrip().endswith("?") or words[0] in _EN_VERBS
    adverb = language in ("pl", "ru") and len(words) > 1 and _manner_adverb(words[0])
    if adverb and _imperative(words[1], language, True):
        return True  # "Кратко перескажи статью", "Szybko sprawdź logi": the verb right after its adverb
    if language in ("pl", "ru") and words and words[0] in _OPENING_PREPOSITIONS:
        # "Z transkrypcji rozmowy z zarządem wyciągnij decyzje", "Из записи созвона вытащи задачи": the verb after a
        # leading phrase, known or by an ending only an imperative has
        endings = _PL_SURE_ENDINGS if language == "pl" else _RU_SURE_ENDINGS
        not_verbs = _PL_NOT_VERBS if language == "pl" else _RU_NOT_VERBS
        if any(_imperative(w, language, False) or (w.endswith(endings) and w not in not_verbs) for w in words[1:7]):
            return True
    words = words[:5]
    if not words:
        return False
    if words[0] in ("do", "does", "did") and words[1:2] and words[1] in ("you", "we", "i", "they", "he", "she", "it"):
        return False  # "Do you know which days…?", "Do I need to log that?": a question, not a command opened by "do"
    if _imperative(words[0], language, True):
        return True
    if language == "en" and words[0] in _PHRASAL and words[1:2] and words[1] in _PARTICLES:
        return True  # "Work out two rota options", "Draw up a schedule of payments"
    known = _EN_VERBS if language == "en" else _PL_VERBS if language == "pl" else _RU_VERBS
    # after a subject the verb is the subject's: "Before I answer the client: can we…?" asks
    subject = len(words) > 1 and words[1] in _EN_SUBJECT_PRONOUNS
    if language == "en" and words[0] in _EN_LEAD_PHRASE and not subject and any(w in known for w in words[1:5]):
        return True  # "On Monday prepare the schedule", "Tomorrow send the notes"
    if language == "en":
        # "From the conversation, prepare…": an English verb after a leading phrase, but not a noun like "report".
        head = re.split(r"[,:;]", first_sentence, maxsplit=1)
        lead = [w.lower() for w in _WORD.findall(head[0])]
        if not lead or lead[0] in _EN_SUBJECT_PRONOUNS or len(lead) > 8:
            return False  # "We haven't deleted anything since 2021 (…, just tell me)": a statement, not a lead-in
        after = [w.lower() for w in _WORD.findall(head[1]) if w.lower() not in _ADVERBS][:1] if len(head) > 1 else []
        return bool(after) and after[0] in known
    return any(w in known for w in words[1:])


_DETERMINERS = {"the", "a", "an", "our", "my", "your", "this", "that", "today's", "their", "his", "her"}
#: Subjects that open a statement, not a lead-in phrase before a command.
_EN_SUBJECT_PRONOUNS = {"i", "we", "you", "they", "he", "she", "it", "i'm", "we're", "it's", "there", "we've", "i've"}


#: Relative pronouns: a frequency inside their clause describes the noun before them ("Skrypt, który co noc generuje
#: miniatury…", "the script that runs every night", "отчёт, который каждое утро приходит").
_RELATIVE_PRONOUNS = {
    "that", "which", "who", "który", "która", "które", "którzy", "ktory", "ktora", "ktore", "который", "которая",
    "которое", "которые", "что",
}  # fmt: skip


def in_a_relative_clause(text: str, position: int) -> bool:
    """Whether `position` stands early in a relative clause ("Skrypt, który co noc generuje…", "the job that every
    night exports…"): what is said there describes the noun before it."""
    clause = re.split(r"[,;:.!?—–]", text[:position])[-1].lower().split()
    return bool(clause) and clause[0] in _RELATIVE_PRONOUNS and len(clause) <= 3


#: Runs a frequency word names: "nightly render batch", "daily backup", "weekly report".
_RUNS = {
    "render", "renders", "batch", "job", "jobs", "build", "builds", "backup", "backups", "report", "reports", "export",
    "exports", "import", "sync", "run", "runs", "digest", "cron", "standup", "meeting",
}  # fmt: skip


def describes_a_noun(text: str, start: int, end: int) -> bool:
    """Whether the frequency word at [start, end) ("daily", "nightly") describes a noun: after a determiner ("the
    daily report") or before a run it names ("nightly render batch: 6h10m last night")."""
    before = text[:start].split()[-1:]
    after = text[end:].split()[:1]
    return (bool(before) and before[0].lower() in _DETERMINERS) or (
        bool(after) and after[0].strip(":,.").lower() in _RUNS
    )


def _adjective(text: str, match: re.Match[str]) -> bool:
    """ "the daily report", "a weekly summary": a frequency word after a determiner describes a noun, and so does one
    in a relative clause ("Skrypt, który co noc generuje miniatury, zaczął się wlec"); "at least six on every shift",
    "two people per each shift": a count over shifts, not a time to act."""
    before = text[: match.start()].split()[-1:]
    if match.group(0).endswith("ly") and describes_a_noun(text, match.start(), match.end()):
        return True
    if in_a_relative_clause(text, match.start()):
        return True
    return match.group(0).endswith("shift") and bool(before) and before[0] in ("on", "in", "per", "for", "at")


#: A need of the speaker's denied: "Na razie nic nowego nie potrzebuję", "I don't want anything else", "ничего не
#: хочу" (not "не нужно откладывать", which asks to act now).
_NEED_DENIED = {"nie", "не", "nothing", "not", "don't", "dont"}
_FIRST_PERSON_NEEDS = ("potrzebuj", "chcę", "chce", "хочу", "i need", "i want", "we need")


def _requests(lowered: str) -> bool:
    """Whether the text states a need or a request (`_REQUEST`) that is not the speaker's need denied ("nic nowego
    nie potrzebuję")."""
    for match in _REQUEST.finditer(lowered):
        before = lowered[: match.start()].split()[-2:]
        denied = match.group(0).startswith(_FIRST_PERSON_NEEDS) and any(w in _NEED_DENIED for w in before)
        if not denied:
            return True
    return False


#: Looking, said with "only" after a question: it asks for the answer, not for work.
_ONLY_LOOKING = {"list", "check", "look", "sprawdź", "sprawdz", "zerknij", "wypisz", "посмотри", "проверь", "глянь",
                 "перечисли"}  # fmt: skip


def _telling(sentence: str) -> bool:
    """Whether `sentence` opens with a verb of telling, after an adverb ("Just tell me", "Tylko powiedz", "Na razie
    tylko doradź", "For now just advise"), or with only a look ("Just list them", "Tylko sprawdź", "Только
    посмотри"): the answer to the question before it."""
    lowered = [w for w in _WORD.findall(sentence.lower()) if w not in ("please", "proszę", "пожалуйста")]
    if len(lowered) > 1 and lowered[0] in _ONLY and lowered[1] in _ONLY_LOOKING:
        return True
    words = [w for w in lowered if w not in _LEAD and w not in _ONLY]
    while words[:2] in (["na", "razie"], ["for", "now"]):
        words = words[2:]
    return bool(words) and words[0] in _TELL


#: Verbs that ask only to be told (not "describe it in a report" or "help me write"): explaining, telling, advising.
_EXPLAINING = set(
    "explain clarify define tell advise wyjaśnij wyjasnij objaśnij objasnij wytłumacz wytlumacz powiedz doradź doradz "
    "poradź poradz объясни обьясни поясни растолкуй скажи подскажи посоветуй".split()
)


def _asks_after_context(sentences: list[str], language: str) -> bool:
    """A question asked after sentences of context: a later sentence asks (a question word or an auxiliary and a
    question mark, "Możesz wyjaśnić…?", or a verb of explaining: "Объясни, что такое LUFS"), the sentences before
    it only state, and none asks for work (a prohibition or a remark may follow: "Pytam z ciekawości, więc nie
    ruszaj logu")."""
    asked = None
    for position, sentence in enumerate(sentences[1:], start=1):
        part = sentence.strip()
        words = [w for w in _WORD.findall(part.lower()) if w not in _LEAD]
        if not words:
            continue
        polite = _POLITE.search(part.lower())
        after = _WORD.findall(part.lower()[polite.end() :])[:1] if polite is not None else []
        # "Możesz wyjaśnić, jak to działa?", "Объясни, пожалуйста, что такое LUFS" (not "Just tell me the corrected
        # formula", "Объясни, что делает скрипт": work on the user's own things)
        explaining = bool(after) and (after[0] in _EXPLAINING or after[0].startswith(_EXPLAINING_STEMS))
        explaining = explaining or (words[0] in _EXPLAINING and _DEFINING.search(part.lower()) is not None)
        question = part.endswith("?") and (words[0] in _QUESTION_WORDS or bool(_AUX_QUESTION.match(part.lower())))
        # "Które z nich ktoś powinien sprawdzić?", "Which of these need a human?": choosing among the given data
        question = question and not (words[0] in _SELECTING and any(w in _PARTITIVE for w in words[1:4]))
        work = _polite_work(part) and not explaining
        if (explaining or question) and not work:
            asked = position
            break
    if asked is None:
        return False
    for sentence in sentences[:asked]:
        if imperative_start(sentence, language) or _POLITE.search(sentence) or sentence.strip().endswith("?"):
            return False  # a command or another question before it: not context
    for sentence in sentences[asked + 1 :]:
        part = sentence.strip()
        commands = imperative_start(part, language) and not _prohibition(part) and not _telling(part)
        if commands or _polite_work(part):
            return False  # work asked after the question: "Why did renders slow down? Test three hypotheses."
    return True


#: What a definition asks: "what is", "co to jest", "czym jest", "что такое", "what's the difference".
_DEFINING = re.compile(
    r"\bwhat(?: is|'s| are)\b|\bco to (?:jest|są)\b|\bczym (?:jest|są|się różni)|(?<!\w)что так(?:ое|ие)(?!\w)"
    r"|(?<!\w)чем отлича",
)
#: Words that open a choice among given things ("which of these", "które z nich", "какие из них").
_SELECTING = {"which", "które", "który", "która", "których", "ktore", "ktory", "какие", "какой", "какая", "которые"}
_PARTITIVE = {"of", "z", "ze", "spośród", "sposrod", "из", "среди"}
#: Infinitives of explaining after "can you": "Możesz wyjaśnić…?", "Можешь объяснить…?", "Could you explain…".
_EXPLAINING_STEMS = ("wyjaśni", "wyjasni", "wytłumacz", "wytlumacz", "объясни", "обьясни", "поясни", "explain")


def _alternative(sentence: str) -> bool:
    """An alternative question ("Zasilacz czy firmware?", "Power or firmware?", "Питание или прошивка?"): it asks
    which, whatever its first word looks like."""
    words = _WORD.findall(sentence.lower())
    return sentence.rstrip().endswith("?") and any(w in ("or", "czy", "или", "albo") for w in words[1:])


def _later_imperative(text: str) -> str | None:
    """The imperative that opens a later clause of a sentence ("…wzrósł, przetestuj…", "Вот лог: найди…"), or None."""
    language = identify(text).language
    sentences = re.split(r"(?<=[?!.])\s+", text.strip())
    clauses = [part for sentence in sentences for part in re.split(r"\s*[,;:—–]\s*", sentence)[1:]]
    for part in clauses:
        words = [str(w).lower() for w in _WORD.findall(part) if str(w).lower() not in _LEAD]
        if _prohibition(part):
            continue  # "…, so don't restart anything": a later prohibition asks for no work ("don't forget to" does)
        while words and words[0] in _NEGATED_LEAD:
            words = words[1:]
        if words[:2] == ["так", "что"]:
            words = words[2:]  # "Копию я сделал, так что смело удаляй дубли": "so" before the command
        if words and _imperative(words[0], language, True):
            return words[0]
    return None


#: A sentence about the next time ("Next time there's no need to wait for me, just post them", "Następnym razem
#: wrzuć od razu", "В следующий раз сразу выкладывай") asks for nothing now.
_NEXT_TIME = re.compile(r"^\W*(?:next time|następnym razem|nastepnym razem|в следующий раз)\b", re.IGNORECASE)


#: Lead words before a polite request: "ok so can you…", "so, could you…", "dobra, możesz…", "так, можешь…".
_LEADING = re.compile(r"^(?:(?:ok|okay|so|and|well|um|uh|dobra|dobrze|więc|no|так|ну|итак|и)\b[\s,]*)+")


def _prohibition(sentence: str) -> bool:
    """A sentence that opens with a negated command ("Nie aktualizuj niczego, chcę tylko wiedzieć…", "Don't change
    anything"): it asks for no work ("don't forget to…" does)."""
    words = [str(w).lower() for w in _WORD.findall(sentence) if str(w).lower() not in _LEAD]
    return bool(words) and words[0] in _NEGATED_LEAD and not (len(words) > 1 and words[1].startswith(_FORGET))


#: Auxiliaries that open an English yes-no question: "is Signal or WhatsApp better …?".
_AUX = {"do", "does", "did", "is", "are", "was", "were", "should", "would", "could", "can", "will", "shall"}


def _asked_after_a_lead(sentence: str) -> bool:
    """ "Quick q: for a small NGO with 12 volunteers, is Signal or WhatsApp better for coordinating shifts?": a
    question whose auxiliary opens its last clause, or whose question word follows a colon, after a lead-in."""
    if not sentence.rstrip().endswith("?"):
        return False
    parts = [part for part in re.split(r"[,:;—–]", sentence) if part.strip()]
    words = _WORD.findall(parts[-1].lower()) if len(parts) > 1 else []
    if bool(words) and words[0] in _AUX and len(words) > 2:
        return True
    # "Before I decide anything: how would you go about updating the firmware?": a question word after a colon
    asked = _WORD.findall(sentence.rsplit(":", 1)[1].lower())[:1] if ":" in sentence else []
    return bool(asked) and (asked[0] in _QUESTION_WORDS or asked[0] in _AUX)


def _polite_work(clause: str) -> bool:
    """A later clause that asks for work politely ("…, can you dig through the export"), not to be told ("…, can
    you tell me what I owe them?" asks a question)."""
    found = _POLITE.search(clause)
    if found is None:
        return False
    following = _WORD.findall(clause[found.end() :].lower())[:1]
    return not (following and following[0] in _TELL)


#: Days named in the plural with no "every" ("on Saturdays", "по субботам"): a recurrence only where their sentence
#: commands; in a description they are a constraint of the work ("we need two people on Saturdays").
_PLURAL_DAYS_ONLY = re.compile(r"(?:on |по )\w+", re.IGNORECASE)


#: A quantity of work right before a period makes it a rate: "48h tygodniowo", "40 hours a week", "40 часов в неделю",
#: "5 dyżurów miesięcznie".
_RATE_BEFORE = re.compile(
    r"\d+\s*(?:h|hrs?|hours?|godz\w*|ч|час\w*|dni|days?|zmian\w*|shifts?|смен\w*|dyżur\w*|дежурств\w*)\s*$",
    re.IGNORECASE,
)


#: A staffing level before a period in its clause: "at least two RNs every night", "co najmniej dwie osoby każdej
#: nocy", "минимум двое каждую ночь", "минимум трое должны быть на месте каждый день".
_STAFFED_BEFORE = re.compile(
    r"(?:at least|minimum|min\.?|no fewer than|co najmniej|minimum|przynajmniej|не менее|минимум|как минимум)"
    r"\s+\S+(?:\s+[^\s,.;:!?]+){0,5}\s*$",
    re.IGNORECASE,
)


#: A count of people on a post before a period: "two on the till every Saturday", "трое на смене по субботам",
#: "dwie osoby na sali w soboty"; or a person's availability: "Оксана работает только по будням", "Tom can only do
#: mornings", "Ola pracuje tylko w weekendy".
_STAFF_COUNT_BEFORE = re.compile(
    r"(?:\b(?:one|two|three|four|five|\d+)\s+(?:people\s+|staff\s+)?on\s+(?:the\s+)?(?:tills?|shift|call|duty|"
    r"floor|desk|counter|door|bar|reception)\b|\b(?:двое|трое|четверо|пятеро|"
    r"dwie\s+osoby|dwóch|trzech|czterech|dwoje|troje)\b)(?:\s+[^\s,.;:!?]+){0,4}\s*$"
    r"|\b(?:works?|working|работает|работают|pracuje|pracują|can\s+(?:only\s+)?(?:do|work))"
    r"(?:\s+(?:only|just|только|лишь|tylko))?\s*$",
    re.IGNORECASE,
)


def a_quantity_before(text: str, position: int) -> bool:
    """Whether a rate ("każdy max 48h tygodniowo"), a staffing level ("at least two RNs every night", "two on the till
    every Saturday") or a person's availability ("работает только по будням") stands right before `position`: the
    period there says how much work, or who works then, not when to act."""
    before = text[:position]
    return any(p.search(before) is not None for p in (_RATE_BEFORE, _STAFFED_BEFORE, _STAFF_COUNT_BEFORE))


#: A staffing level right after a period: "w piątki muszą być dwie osoby", "on Fridays we need two people", "по
#: субботам нужно минимум трое".
_STAFFED_AFTER = re.compile(
    r"^\s*(?:(?:we\s+)?(?:muszą|musi|powinn\w*|potrzeb\w*|needs?|must|should|нужн\w*|должн\w*|требу\w*)\s+"
    r"(?:być\s+|be\s+|быть\s+|have\s+)?)?(?:co najmniej\s+|przynajmniej\s+|at least\s+|минимум\s+|не менее\s+)?"
    r"(?:(?:\d+|one|two|three|four|dwie|trzy|два|две|три)\s+(?:osob\w*|os\.|people|persons|staff|of us|человек\w*"
    r"|люд\w*|сотрудник\w*|pracownik\w*)|dwóch|dwoje|trzech|troje|двое|трое|четверо)(?!\w)",
    re.IGNORECASE,
)


def a_quantity_after(text: str, end: int) -> bool:
    """Whether a staffing level follows the period ending at `end`: it says who works then, not when to act."""
    return _STAFFED_AFTER.search(text[end:]) is not None


#: "od jutra", "od dziś": when something starts; a recurrence only with a verb of doing it again and again.
_STARTING = re.compile(r"od (?:teraz|dziś|dzisiaj|jutra)")
#: Polish imperfective imperatives, the aspect of a habit: "wysyłaj", "sprawdzaj", "pilnuj", "zapisujcie".
_HABITUAL_IMPERATIVE = re.compile(r"\b\w+(?:aj|uj|ajcie|ujcie)\b")
_NOT_IMPERATIVES = {"dzisiaj", "tutaj", "wczoraj", "zwykle", "przedwczoraj", "kraj", "rodzaj", "zwyczaj", "maj"}


def _start_of_one_change(text: str, match: re.Match[str]) -> bool:
    """ "Piwowar chce zejść do 12°C od jutra. Rozpisz mu plan": a start date for one change, not a habit (that would
    be said with an imperfective imperative: "od jutra sprawdzaj temperatury co rano")."""
    habitual = [w for w in _HABITUAL_IMPERATIVE.findall(text) if w not in _NOT_IMPERATIVES]
    return _STARTING.fullmatch(match.group(0)) is not None and not habitual


def _constraint(text: str, match: re.Match[str]) -> bool:
    """Days in the plural in a clause that does not command, or a period after a quantity of work (a rate: "48h
    tygodniowo") or of staff ("at least two RNs every night")."""
    if a_quantity_before(text, match.start()) or a_quantity_after(text, match.end()):
        return True  # "at least two RNs every night", "каждый день минимум двое": who works then
    return bool(_PLURAL_DAYS_ONLY.fullmatch(match.group(0))) and not clause_commands(text, match.start())


#: Tags that end a request with a question mark without asking anything: "Only between us, ok?", "ладно?".
QUESTION_TAGS = frozenset({
    "ok", "okay", "right", "yeah", "alright", "deal", "agreed", "dobrze", "jasne", "zgoda", "okej", "ладно",
    "хорошо", "договорились", "идет", "идёт", "окей",
})  # fmt: skip
_TAGS = "|".join(sorted(QUESTION_TAGS, key=len, reverse=True))
_TAG_AT_END = re.compile(r"\s*[,—–-]\s*(" + _TAGS + r")\s*\?\s*$", re.IGNORECASE)


def kind_cue(text: str) -> KindCue | None:
    """The kind the surface of `text` suggests, or None when it says nothing clear (as empty text says)."""
    # "Только это пока между нами, ладно?": a request closed by a tag asks nothing; its sentence ends there
    stripped = _TAG_AT_END.sub(".", text.strip(), count=1)
    if not stripped:
        return None
    lowered = stripped.lower()
    words = _WORD.findall(lowered)
    first = first_word(stripped)
    greeting = _GREETING.match(lowered)
    imperative = imperative_start(_GREETING.sub("", stripped.lower(), count=1) if greeting else stripped)
    # "Can you…" opening the request, after a greeting ("hi there, can you build…") or opening a later clause or
    # sentence ("Page loads crept up. Can you dig through the export?"): a polite request
    body = _GREETING.sub("", lowered, count=1).lstrip(" ,!.") if greeting else lowered
    body = _LEADING.sub("", body)  # "ok so can you put together the rota": the request after its lead words
    clauses = re.split(r"[,;:.!?—–]\s*", body)
    polite = bool(_POLITE.search(body)) or any(_polite_work(part) for part in clauses[1:])
    # "What do we do every Monday?", "Was there smoke yesterday?" ask; they neither start a process nor raise one.
    # The question may open the text and a remark follow it ("What caused the outage on the 14th? I'm not sure.");
    # a verb of telling opening it asks too ("Напомни, из-за чего стояла линия?").
    sentences = [part for part in re.split(r"(?<=[?!.])\s+", stripped) if part.strip()]
    opening_sentence = sentences[0] if sentences else ""
    asks = (
        (stripped.endswith("?") or opening_sentence.endswith("?"))
        and (not imperative or first in _TELL)
        and not polite
        and (
            bool(_AUX_QUESTION.match(lowered))
            or first in _QUESTION_WORDS
            or first in _TELL
            or _LI.match(lowered)
            or _asked_after_a_lead(opening_sentence)
        )
    )
    recurrence = next(
        (
            m
            for m in _RECURRENCE.finditer(lowered)
            if not _adjective(lowered, m) and not _constraint(lowered, m) and not _start_of_one_change(lowered, m)
        ),
        None,
    )
    if recurrence and not asks:
        return KindCue("process", True, f"recurrence: {recurrence.group(0)!r}")
    situation = read_situation(stripped)
    emergency = situation.evidence if situation is not None and situation.kind == "emergency" else None
    if emergency is not None and emergency.lower() in _SLANG_PRAISE and _THANKS_ANYWHERE.search(lowered):
        emergency = None  # "релиз вышел, отзывы огонь, спасибо": praise in slang, thanked for
    # a person in danger is urgent whatever follows ("…isn't responding, help"): the help is the alarm's
    commands = imperative_form(first, identify(stripped).language)  # "Write a first-aid plan for when…"
    urgent = _URGENCY.search(stripped) or (emergency is not None and MEDICAL.search(emergency) and not commands)
    urgent = urgent or (emergency is not None and going_on_now(stripped))  # "лежит уже 20 минут": now, still
    plea = _PLEA.search(stripped)
    urgent = urgent or (emergency is not None and plea is not None and not commands)
    past = _PAST.search(_LAST_TIME.sub(" ", lowered))  # "в прошлый раз штраф влепили" recalls, it dates nothing
    # An emergency stated first and a request after it ("The siren is wailing, check the feed") raises an alarm; a
    # command opening the request ("Write a plan for when a fire…") is work about one.
    # "Nie wiem, czemu pompa co chwilę staje. Jakie mogą być przyczyny?": asking why a fault recurs is a diagnosis
    diagnosis = _WHY.search(lowered) is not None and "?" in stripped and not urgent
    closing = plea is not None and _PLEA_CLOSES.match(stripped[plea.end() :]) is not None
    if emergency is None and not commands and _URGENT_WORD.search(stripped) and plea is not None and closing:
        # "URGENT the premiere livestream just dropped for everyone … what do I do??": a plea marked urgent (not
        # "Urgent question: what do we do about VAT?", which asks about something)
        return KindCue("alarm", True, f"an urgent plea: {plea.group(0)!r}")
    if (
        emergency
        and not (imperative and past)
        and not ((asks or past or diagnosis) and not urgent)
        and (urgent or not commands)
    ):
        return KindCue("alarm", True, f"emergency: {emergency!r}")
    if situation is not None and situation.kind == "calm" and not imperative and not polite:
        parts = [part for part in re.split(r"[,.!;?]", stripped) if part.strip()]
        # a question after the report is what is asked: "Плановая проверка … прошла, всё работает. Нужно ли …?"
        if not any(imperative_start(part) for part in parts) and not asks and "?" not in stripped:
            return KindCue("conversation", True, f"a report that all is well: {situation.evidence!r}")
    if _SMALL_TALK.search(lowered):
        return KindCue("conversation", True, "small talk")
    if _NO_ACTION.search(lowered) and not imperative and not polite:
        return KindCue("conversation", True, "a remark that asks for nothing")
    # thanks, however long, with no request in it: "Thanks a lot, the rota worked perfectly - not one complaint"
    # a remark: thanks or praise anywhere, "Just wanted to say the rota worked a treat … Cheers!"
    # (thanks for what went well: a past tense beside them; "Rota for March with vacations, thanks." asks)
    praised = _THANKS_ANYWHERE.search(lowered) is not None or _PRAISE.search(lowered) is not None
    remark = (praised and _PAST_TENSE.search(lowered) is not None) or _REMARK.match(lowered) is not None
    if remark and not imperative and not _requests(lowered) and not _COURTESY.search(lowered):
        now = " ".join(sentence for sentence in sentences if not _NEXT_TIME.match(sentence))
        parts = [part for part in re.split(r"[,.!;?]", now) if part.strip()]
        if not stripped.endswith("?") and not any(imperative_start(part) for part in parts) and "?" not in stripped:
            return KindCue("conversation", True, "thanks or a remark, without a request")
    thanks = greeting is not None and _THANKS.match(lowered) is not None and not _requests(lowered)
    thanks = thanks and not _COURTESY.search(lowered) and not stripped.endswith("?")
    if greeting and not imperative and (len(words) <= 12 or thanks) and not polite:
        rest = _GREETING.sub("", lowered, count=1)
        if not any(imperative_start(part) for part in re.split(r"[,.!;]", rest) if part.strip()):
            return KindCue("conversation", True, "greeting or thanks")
    # A later sentence is read in the language of the whole request ("Zweryfikuj dwie hipotezy" alone looks English).
    language = identify(stripped).language
    if not imperative and _asks_after_context(sentences, language):
        # "A client asked whether… What's the difference between…? I just want to understand it.": the question
        # after its context is what is asked; a prohibition or a remark after it asks for no work
        return KindCue("question", True, "a question after its context")
    if polite:
        return KindCue("task", True, "polite request")
    commanded = [part for part in sentences[1:] if imperative_start(part, language) and not _alternative(part)]
    # a question however it opens: "Срок подачи ведь 30 апреля, или перенесли? … просто ответь", "Подскажите, …?"
    opens_question = sentences[0].rstrip().endswith("?") and (
        bool(_AUX_QUESTION.match(lowered)) or first in _QUESTION_WORDS or first in _TELL or not imperative
    )
    if opens_question:
        # "Ile trwa wgranie oprogramowania? Nie aktualizuj niczego, chcę tylko wiedzieć": a prohibition after a
        # question asks for no work
        commanded = [part for part in commanded if not _prohibition(part)]
    later = commanded[0] if commanded else None
    if later is not None and not imperative and opens_question and _telling(later):
        # "What is RAID? Explain it.": being told is the information the question asks for.
        return KindCue("question", True, f"a question, then {first_word(later)!r}")
    if imperative and first in _TELL and opening_sentence.endswith("?") and later is None:
        # "Напомни, из-за чего стояла линия? Вроде датчик.": being told what the question asks
        return KindCue("question", True, f"a question opened by {first!r}")
    if later is not None and not imperative:
        # "Why did renders get slower? Test three hypotheses." asks for work after the question.
        return KindCue("task", True, f"a request after the question: {first_word(later)!r}")
    clause = _later_imperative(stripped) if not imperative and not stripped.endswith("?") else None
    if clause is not None and opens_question and clause in _TELL:
        # "Сколько длится обновление? Ничего не обновляй, просто скажи.": being told is what the question asks
        return KindCue("question", True, f"a question, then {clause!r}")
    if clause is not None:
        # "Czas renderowania wzrósł, przetestuj cztery hipotezy": a statement, then the request in its own clause.
        return KindCue("task", True, f"a request after the statement: {clause!r}")
    told = [part for part in sentences[1:] if _POLITE.search(part.strip()) and not _polite_work(part.strip())]
    if told and not imperative and later is None and clause is None:
        # "The VLOOKUP returns #N/A. Can you tell me what's wrong?": a later request to be told asks
        return KindCue("question", True, "a request to be told")
    after_it = [part for sentence in sentences[1:] for part in re.split(r"[,;—–]\s*", sentence) if part.strip()]
    answered = any(_telling(part) or _prohibition(part) for part in after_it)
    if (asks or (opens_question and not imperative and later is None and answered)) and not stripped.endswith("?"):
        # "Отправили ли мы уже отчёт? Не помню, кто этим занимался.", "Срок подачи ведь 30 апреля, или перенесли?
        # Декларации пока не отправляй, просто ответь.": the question, then a remark or a prohibition
        return KindCue("question", True, "a question, then a remark")
    # "Do the work on the farm" is an order, "Do the reports match?" a question: a bare "do" needs its "?".
    if _AUX_QUESTION.match(lowered) and (first != "do" or stripped.endswith("?")):
        return KindCue("question", True, "auxiliary-verb question")
    if first in _QUESTION_WORDS and not imperative:
        return KindCue("question", True, f"question word {first!r}")
    opening = sentences[0].rstrip()
    opening_words = _WORD.findall(opening.lower())
    lead = list(itertools.takewhile(lambda w: w in _QUESTION_LEAD, opening_words))
    asked = opening_words[len(lead) : len(lead) + 1]
    if opening.endswith("?") and lead and asked and asked[0] in _QUESTION_WORDS and not imperative and later is None:
        # "Roughly how much would a flight cost? Just a ballpark.": the question opens after an adverb
        return KindCue("question", True, f"question word {asked[0]!r}")
    if stripped.endswith("?"):
        # "Help me choose: which camera should I buy?": a request to be told is a question.
        advice = first in _TELL and any(w in _QUESTION_WORDS - {"is", "are", "do", "does"} for w in words[1:])
        return KindCue("question", not imperative or advice, "question mark")
    if imperative:
        return KindCue("task", True, f"imperative {first!r}")
    courtesy = _COURTESY.search(lowered)
    if courtesy is not None:
        # "roster for feb pls": a bare phrase with a courtesy word asks for it.
        return KindCue("task", True, f"a request: {courtesy.group(0)!r}")
    if emergency and not past:
        return KindCue("alarm", False, f"emergency: {emergency!r}")
    if _requests(lowered):
        return KindCue("task", False, "a stated need or request")
    return KindCue("conversation", False, "a statement without a request")


#: Questions whose answer is a fact, not a template's work: about what happened ("Didn't we already publish it?",
#: "Czy wysłaliśmy…?", "Мы уже опубликовали…?") or what something is ("What's the difference between…?", "Czym się
#: różni…?", "Чем отличается…?"). "Can you…", "Czy możesz…" and "Which alarms need a human?" ask for work.
_FACT_QUESTION = re.compile(
    r"^(?:did|didn't|didnt|do|don't|does|doesn't|is|isn't|are|aren't|was|wasn't|were|weren't|have|haven't|has|"
    r"hasn't|had|hadn't)\b"
    r"|^(?:what(?:'s| is| are| does| do)|how (?:does|do|is|are)|why)\b"
    r"|difference between|różnic\w* między|разниц\w* между"
    r"|^(?:co to jest|czym|dlaczego|czemu)\b|^czy (?:nie )?\w+(?:ł|ła|ło|li|ły|liśmy|łem|łam|łeś)\b"
    r"|^czy (?:jest|są|był|była|było|były)\b"
    r"|^(?:что такое|чем|почему|зачем|разве)\b|\b\w+(?:ли|ла|ло|л) ли\b"
    # how long the work usually takes, and what the assistant is able to do: "How long does a review of the alarms
    # usually take?", "Ile czasu zajmuje…?", "Сколько времени у вас обычно занимает разбор тревог?", "Какие форматы
    # ты умеешь читать?"
    r"|^how (?:long|much time)\b|^ile (?:czasu|trwa)\b|^сколько (?:времени|длится|занимает)\b"
    r"|\b(?:are you able to|potrafisz|potraficie|умеешь|умеете)\b"
)


def asks_for_a_fact(text: str) -> bool:
    """Whether a question asks for a fact (see `_FACT_QUESTION`), so that no template's work answers it."""
    lowered = " ".join(text.lower().replace("ё", "е").replace("’", "'").split())
    return text.strip().endswith("?") and bool(_FACT_QUESTION.search(lowered))
