"""The words that mark action items, decisions and open questions in English, Polish and Russian meetings.

A sentence is read as a *commitment* (the speaker takes something on: "I'll", "zrobię", "сделаю"), a *request*
(someone is asked: "can you", "proszę", "пожалуйста"), a *need* (the team must: "we need to", "musimy", "нужно"),
an *action* line ("Action: Alice to..."), an *acknowledgement* ("will do", "dobrze", "хорошо"), a *decision* or an
*open question*. Polite formulas that contain a trigger word but ask nothing ("can you hear me", "proszę bardzo",
"I'll be honest") are removed before matching. Names are matched by stem, so inflected forms ("Piotrze", "Marku",
"Марину") find their participant.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_I = re.IGNORECASE

# Formulas that look like triggers but are not action items; stripped before any trigger is matched.
_NOISE = re.compile(
    r"\b(?:can|could) you (?:all )?(?:hear|see)\b|\bcan everyone (?:hear|see)\b|\bcould you repeat\b|"
    r"\bi(?:'ll| will) (?:be honest|be brief|admit|say|be quick|pass)\b|\blet me (?:know|be clear|say|think)\b|"
    r"\bplease note\b|\bproszę (?:bardzo|państwa|pana|pani)\b|\bdziękuję\b|\bsłychać\b|\bsłyszycie\b|"
    r"\bмне кажется\b|\bслышно\b|\bслышите\b|\bпожалуйста,? (?:говорите|продолжайте)\b|\bне за что\b",
    _I,
)

_COMMIT_EN = (
    r"\bi(?:'ll| will| shall)\b|\bi(?:'m| am) going to\b|\bi can take\b|\blet me\b|\bi (?:need|have) to\b|"
    r"\bi must\b|\bi(?:'m| am) on it\b|\bi(?:'ll| will) take\b|\bleave it (?:to|with) me\b"
)
_COMMIT_PL = (
    r"\b(?:zrobię|przygotuję|wyślę|roześlę|prześlę|sprawdzę|zadzwonię|napiszę|zamówię|podam|ustalę|zajmę|"
    r"wezmę|biorę|przejrzę|zorganizuję|poprawię|dopilnuję|skontaktuję się|zarezerwuję|zmienię|porozmawiam|umówię|"
    r"policzę|zaktualizuję|uzupełnię|dostarczę|przekażę|opracuję|potwierdzę|załatwię|zgłoszę|muszę|postaram się|"
    r"przygotujemy|wyślemy|zajmiemy się)\b"
)
_COMMIT_RU = (
    r"(?<!\w)(?:сделаю|подготовлю|пришлю|отправлю|проверю|закажу|напишу|позвоню|согласую|возьму|организую|"
    r"свяжусь|займусь|посмотрю|разошлю|обновлю|составлю|договорюсь|узнаю|перешлю|забронирую|исправлю|передам|"
    r"оформлю|уточню|соберу|запущу|беру на себя|беру это)(?!\w)"
)
_REQUEST_EN = (
    r"\b(?:can|could|would|will) you\b|\bwould you mind\b|\bplease\b|\bi need you to\b|\byou need to\b|"
    r"\bmake sure you\b|\bi(?:'d| would) like you to\b"
)
_REQUEST_PL = r"\b(?:czy możesz|czy mógłbyś|czy mogłabyś|czy możecie|możesz|mógłbyś|mogłabyś|proszę|poproszę|musisz)\b"
_REQUEST_RU = r"(?<!\w)(?:можешь|можете|не мог бы|не могла бы|не могли бы|пожалуйста|прошу|надо чтобы ты)(?!\w)"
_NEED = (
    r"\b(?:we need to|we have to|we must|we should|we've got to|someone (?:needs|has) to|somebody (?:needs|has) to|"
    r"someone should|musimy|trzeba|należy|powinniśmy|ktoś musi|ktoś powinien)\b|"
    r"(?<!\w)(?:нужно|надо|необходимо|мы должны|следует|придётся|кто-то должен)(?!\w)"
)
_ACTION = r"^\s*(?:action(?: item)?|todo|to-do|zadanie|akcja|задача|поручение)\s*:"
_DECISION = (
    r"\b(?:we(?:'ve| have)? decided|it's agreed|it is agreed|we agreed|we(?:'ll| will) go with|let's go with|"
    r"zdecydowaliśmy|postanowiliśmy|ustaliliśmy|ustalamy|uzgodniliśmy|zgodziliśmy się)\b|"
    r"\b(?:decided|decision|decyzja|postanowienie):|"
    r"(?<!\w)(?:решили|договорились|постановили|утвердили|согласовали)(?!\w)|(?<!\w)решение:"
)
_OPEN = (
    r"\b(?:open question|still open|not decided yet|to be decided|tbd|we don't know yet|not clear yet|unclear|"
    r"otwarta kwestia|kwestia otwarta|otwarte pytanie|do ustalenia|nie wiemy jeszcze|nie wiadomo|nie jest jasne)\b|"
    r"(?<!\w)(?:открытый вопрос|вопрос открыт|пока не ясно|пока неясно|пока непонятно|не решено|не знаем пока)(?!\w)"
)
_ACK_WORDS = frozenset(
    "sure yes yeah ok okay will-do fine noted absolutely certainly "
    "tak dobrze jasne oczywiście ok okej zgoda załatwione "
    "да хорошо ладно конечно ок договорились принято сделаю".split()
)
_ANAPHORA = frozenset("it that this those them to tym tego ją je go nimi это этим этого его её их".split())

COMMIT = re.compile("|".join((_COMMIT_EN, _COMMIT_PL, _COMMIT_RU)), _I)
REQUEST = re.compile("|".join((_REQUEST_EN, _REQUEST_PL, _REQUEST_RU)), _I)
NEED = re.compile(_NEED, _I)
ACTION = re.compile(_ACTION, _I)
DECISION = re.compile(_DECISION, _I)
OPEN = re.compile(_OPEN, _I)
_WORDS = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_SENTENCES = re.compile(r"(?<=[.!?…])\s+")


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased, apostrophes normalised ("I’ll" and "I'll" are one word)."""
    return [w.replace("’", "'").lower() for w in _WORDS.findall(text)]


def sentences(text: str) -> list[str]:
    """`text` split after . ! ? and …, blank pieces dropped."""
    return [s.strip() for s in _SENTENCES.split(text) if s.strip()]


def clean(text: str) -> str:
    """`text` without the polite formulas that only look like action items, with plain apostrophes."""
    return _NOISE.sub(" ", text.replace("’", "'"))


@dataclass(frozen=True)
class Reading:
    """What one sentence says, as far as action items go."""

    commitment: bool
    request: bool
    need: bool
    action: bool
    decision: bool
    open_question: bool
    ack: bool
    anaphoric: bool
    length: int

    @property
    def task(self) -> bool:
        return not (self.decision or self.open_question) and (
            self.commitment or self.request or self.need or self.action
        )


def read_sentence(text: str) -> Reading:
    """Classify one sentence (see the module docstring)."""
    plain = clean(text)
    tokens = words(plain)
    joined = "-".join(tokens[:2])
    first = tokens[0] if tokens else ""
    return Reading(
        commitment=bool(COMMIT.search(plain)),
        request=bool(REQUEST.search(plain)),
        need=bool(NEED.search(plain)),
        action=bool(ACTION.search(plain)),
        decision=bool(DECISION.search(plain)),
        open_question=bool(OPEN.search(plain)),
        ack=first in _ACK_WORDS or joined in _ACK_WORDS,
        anaphoric=any(t in _ANAPHORA for t in tokens),
        length=len(tokens),
    )


def name_stems(name: str) -> list[str]:
    """Stems of a first name that its inflected forms start with: Marek -> mark, Piotr -> piotr, Марина -> марин."""
    first = name.split()[0].lower() if name.split() else ""
    stems = {first}
    if len(first) > 3 and first[-1] in "aeiouyąęóаеёиоуыэюяь":
        stems.add(first[:-1])
    if len(first) > 4 and first[-2] in "eе" and first[-1] not in "aeiouyаеиоуыэюя":
        stems.add(first[:-2] + first[-1])  # a fleeting e: Marek -> Marka, Павел -> Павла
    return sorted(s for s in stems if len(s) >= 3)


def is_name_form(word: str, stems: Sequence[str]) -> bool:
    """Whether `word` (lower case) is an inflected form of a name with these stems."""
    return any(word.startswith(stem) and len(word) - len(stem) <= 3 for stem in stems)
