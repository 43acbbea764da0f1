"""Whether an utterance describes an emergency happening now, or reports that all is well, from the structure of
its clauses rather than from an alarm keyword alone.

    clauses      split at , ; : . ! ? — and "but / ale / но / а"
    emergency    a danger word not negated ("fire", "smoke", "pożar", "dym", "пожар", "is down", "nie działa"), or an
                 event happening now that names no alarm at all:
                   an unknown person (someone, ktoś, кто-то…) doing something by force (breaking, forcing,
                   włamuje się, wyważa, ломится, выламывает…) or trying to get in (trying to get in, próbuje wejść,
                   пытается войти) — "someone is breaking into the warehouse", "кто-то ломится на склад"; or
                   having just done it (a past tense with "just", "właśnie", "przed chwilą", "только что": a crime
                   in progress) — "someone just smashed the window", "кто-то только что разбил окно";
                   a substance (water, gas, steam, sparks, woda, gaz, вода, газ…) coming out, pouring or dripping in
                   the present tense — "water is dripping from the ceiling", "z sufitu kapie woda", "с потолка
                   капает вода";
                   fire, gas, an injury, someone trapped or a birth by its family of words ("flames", "ogień",
                   "пахнет газом", "hit her head … and bleeding", "przygniotło", "придавило", "zaczęła rodzić");
                   a fire drill, fire safety or a fire inspection is no fire, a training evacuation ("учебная
                   эвакуация", "ewakuacja próbna") no evacuation;
                   an explicitly unknown person (a stranger, nieznajomy, посторонний…) seen right now ("right now",
                   "właśnie teraz", "прямо сейчас", "!") — "камера фиксирует постороннего прямо сейчас!"
                 a device sounding now ("the siren is wailing", "czujka piszczy", "датчик пищит"); a fault lasting
                 until now ("returning 502 for the last 10 min", "strona leży od kwadransa", "41 градус и растёт")
    not events   a danger word that only names what a record or a device is about ("the outage report", "raport z
                 awarii", "czujki dymu", "отчёт по аварии") unless the text says it happens now; one in a condition
                 ("jeśli padły", "if it crashes")
    not now      a danger word under a nominal negation ("no smoke", "no alarms", "żadnych alarmów", "bez dymu",
                 "дыма нет", "тревог не было") is no emergency; past events ("yesterday's alarms") are for the caller
                 (`cues`) to weigh against the request around them
    calm         a report that all is well: a negated danger or alarm word, or a calm state ("quiet", "all good",
                 "nothing to report", "spokojnie", "w porządku", "спокойно", "в норме", "без происшествий")

The reading names its words, for the classification record.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Literal

#: Danger words: an emergency on their own when not negated.
EMERGENCY = re.compile(
    # a fire drill, fire safety or a fire inspection is no fire; a training evacuation is no evacuation
    r"\b(?:fire(?!\s+(?:drill|exercise|safety|extinguisher|door|regulation|inspect\w*|officer|certificate|brigade"
    r"|department|station|fighter\w*|service|escape|exit|insurance|marshal"
    # the verb: "don't fire off another cycle", "fire up the kettle", "fire the intern", "fire him"
    r"|off|up|away|back|(?:the|an?|him|her|them|me|us|people|staff|someone|somebody|anyone|anybody) \w))"
    r"|flames|smell(?:s|ing)? (?:of )?gas"
    r"|smoke|flood(?:ing)?|leak(?:ing)?|intruder|break-in|burglar|explosion|emergency|evacuate|outage"
    r"|(?:is|went|are|has been|have been) down|crashed|not responding|breach(?:ed)?|alarm:|alert:|help!"
    # a machine stuck now: "the lift is stuck between floors", "the crane got stuck with a load"
    r"|(?:is|are|got|has got|'s) (?:stuck|jammed)"
    # a sensor set off just now; someone trying a lock; pressure falling: "the motion sensor just went off", "the
    # camera shows someone trying the lock", "the boiler pressure is dropping"
    r"|just went off|(?:someone|somebody)\b[\w\s]{0,20}?\btrying (?:the|to open the) (?:lock|door|handle|window)s?"
    r"|pressure (?:is )?(?:dropping|falling)"
    # a machine overheating or grinding now: "the motor is overheating", "making a grinding noise"; a smell of
    # burning: "it smells of burning", "czuć spaleniznę", "пахнет гарью"
    r"|(?:is |are )?overheating|grinding noise|smells? (?:of|like) burning|burning smell"
    r"|czuć spalenizn\w*|czuc spalenizn\w*|swąd\w*|пахнет гарью|запах гари|гарью пахнет"
    # a fault thrown now, a reading falling fast: "the dosing pump is throwing a fault", "the residual is dropping
    # fast", "ciśnienie szybko spada", "уровень быстро падает"
    r"|(?:throwing|showing|shows|throws) (?:an? )?(?:\w+ ){0,2}fault"
    r"|(?:dropping|falling) fast|szybko spada|быстро падает"
    # a chemical smell, tills or terminals gone dead: "Strong chlorine smell in the plant room", "the card terminals
    # went dead five minutes ago"
    r"|(?:chlorine|ammonia|chemical|acid) smell|smell of (?:chlorine|ammonia|chemicals|acid)|czuć chlor\w*"
    r"|zapach chloru|czuć kwas\w*|zapach kwasu|запах хлора|пахнет хлором|запах кислоты|пахнет кислот\w*"
    # carbon monoxide: "the CO alarm … carbon monoxide", "czujnik czadu", "угарный газ"
    r"|carbon monoxide|czad\w*|tlen\w* węgla|угарн\w* газ\w*"
    r"|(?:terminals?|tills?|registers?|system|server|network|site|scanners?) (?:\w+ ){0,4}"
    r"(?:went|have gone|has gone|are|is) (?:both |all )?dead\b(?! (?:weight|end|link|zone|simple|easy|on))"
    # data being destroyed now: "someone's sync client is deleting everything", "Кто-то удаляет виртуалки", "pliki
    # znikają z dysku"
    r"|\bsomeone(?:'s| is)? (?:\w+ ){0,3}(?:deleting|wiping)\b|\b(?:files|data) (?:are|is) (?:vanishing|disappearing)"
    r"|\bktoś (?:kasuje|usuwa)\b|\bpliki znikają\b|(?<!\w)кто-то удаляет(?!\w)"
    r"|(?<!\w)файлы (?:пропадают|исчезают)(?!\w)"
    # movement on a camera right now: "the camera shows movement right now", "камера прямо сейчас показывает
    # движение", "kamera właśnie pokazuje ruch"
    r"|(?:right now|now) shows movement|shows movement (?:right )?now|(?:прямо )?сейчас показывает движение"
    r"|показывает движение (?:прямо )?сейчас|(?:teraz|właśnie) pokazuje ruch|pokazuje ruch (?:teraz|właśnie)"
    # a machine stopping again and again now: "line 3 keeps stopping", "the breaker keeps tripping" (not an app that
    # "keeps crashing whenever someone sets a repeat": a bug to look into)
    r"|keeps? (?:stopping|shutting down|cutting out|tripping)"
    # a machine that stopped in the middle of its work: "the oven shut off halfway through the bake", "piec wyłączył
    # się w połowie wypieku", "печь выключилась посреди выпечки"
    r"|(?:shut|switched|cut|turned) (?:itself )?(?:off|down|out) (?:mid-|in the middle of|halfway through)"
    r"|(?:wyłączył\w*|zgasł\w*|stan(?:ął|ęła|ęło)|zatrzymał\w*)(?: się)? w (?:połowie|trakcie|środku)"
    r"|(?:выключил|отключил|заглох|остановил|встал)\w* (?:посреди|посередине|в середине|на середине)"
    # water where it must not be: "a pipe burst", "the water is ankle-deep"
    r"|(?:pipe|main)s? (?:has |have |just )?burst|burst (?:a |the )?(?:water )?(?:pipe|main)|(?:ankle|knee)[- ]deep)"
    r"|\b(?:ogień|ognia|płomieni\w*|płonie|płoną|czuć gaz\w*|zapach gazu|śmierdzi gazem"
    r"|pożar\w*|dym\w*|zalan\w*|wyciek\w*|włam\w*|intruz\w*|wybuch\w*|awari\w*|padł\w*|nie działa(?![łl])"
    r"|(?<!próbna )(?<!próbnej )ewakuac\w*(?!\w)(?! próbn)"
    r"|nie odpowiada|naruszeni\w*|pękł\w* rur\w*|rur\w* pękł\w*|woda\b[\w\s]{0,24}?\bpo (?:kostki|kolana)|zalewa\w*"
    # stuck now: "szlaban zaciął się w połowie", "winda utknęła między piętrami"
    r"|zaci(?:ął|ęła|ęło|ęły|eli) się|się zaci(?:ął|ęła|ęło|ęły|eli)|utkn(?:ął|ęła|ęło|ęły|eli|ęli)|zablokował\w* się"
    # gas typed without Polish letters, falling pressure, a cold store reading out of range: "czuc gaz", "ciśnienie
    # spada", "Chłodnia pokazuje +9°C zamiast +2"
    r"|czuc gaz\w*|ciśnienie spada|spada ciśnienie|cisnienie spada"
    # a system down ("prod leży", "serwer leży od rana"), a machine overheating or grinding ("silnik się grzeje")
    r"|(?:prod|produkcj\w*|serwer\w*|stron\w*|sklep\w*|system\w*|aplikacj\w*|api|baz\w*) (?:\w+ )?leż[yą]\b"
    r"|przegrzewa\w*|(?:silnik|motor)\w* (?:się )?grzeje|grzeje się (?:silnik|motor)|zgrzyta\w*"
    r"|(?:pokazuje|wskazuje|ma) [+-]?\s*\d+(?:\s*[.,]\s*\d+)?\s*(?:°\s*c?|stopni\w*) zamiast"
    # failing again and again now: "linia staje co kilka minut", "sprężarka co chwilę się wyłącza"
    r"|(?:staje|stają|wyłącza się|wyłączają się|zatrzymuje się|wywala się|pada|padają|się wyłącza|się zatrzymuje)"
    r" (?:co (?:kilka|parę|\d+) (?:minut|sekund)|co chwil[ęe]|ciągle|bez przerwy)"
    r"|(?:co chwil[ęe]|ciągle|raz po raz) (?:staje|stają|pada|padają|się wyłącza|się zatrzymuje|wyłącza się))"
    # a machine that will not stop: "the press won't stop", "prasa nie chce stanąć", "станок не останавливается"
    r"|\b(?:won't|will not|doesn't|does not|can't|cannot) (?:stop|shut down|switch off)\b"
    r"|\bnie (?:chce(?: się)?|da się|można|możemy) (?:stanąć|zatrzymać|wyłączyć|przestać)"
    r"|(?<!\w)(?:не останавливается|не выключается|не можем остановить|не удаётся остановить|не удается остановить)"
    r"|(?<!\w)(?:огонь|огня|пламя|пламени|загорел\w*|возгорани\w*|запах газа|пахнет газом"
    r"|пожар(?!\w*\s+учени)\w*|дым\w*|затоп\w*|протечк\w*|утечк\w*|взлом\w*|проникновени\w*|взрыв\w*|авари\w*"
    r"|(?<!учебная )(?<!учебную )(?<!учебной )эвакуац\w*"
    r"|упал[аио]?|не работает|не отвечает|недоступ\w*|тревога|заклинил\w*"
    # stuck, but not a driver held at the border or in traffic ("застрял на таможне" delays, "застрял в лифте" is
    # an emergency)
    r"|застрял\w*\b(?! на таможне| на границе| в пробке| в аэропорту| в командировке)"
    # falling pressure, a reading out of range: "падает давление", "холодильник показывает +9° вместо +2"
    r"|падает давление|давление падает"
    # a system down ("прод лежит"), a machine overheating or grinding ("мотор греется", "скрежещет")
    r"|(?:прод|сервер\w*|сайт\w*|магазин\w*|систем\w*|баз\w*|api|касс\w*|терминал\w*) (?:\w+ )?"
    r"(?:лежит|лежат|легл[аио]?)"
    # the verb first: "В салоне лёг сервер онлайн-записи"
    r"|(?<!\w)(?:лег|легл[аио]|упал[аио]?) (?:\w+ )?(?:сервер|сайт|систем|касс|терминал|прод|баз)\w*"
    r"|перегрева\w*|(?:мотор|двигател)\w* (?:\w+ )?греется|скрежещ\w*|скрежет\w*"
    r"|показывает [+-]?\s*\d+(?:\s*[.,]\s*\d+)?\s*(?:°\s*c?|градус\w*) вместо"
    # failing again and again now: "линия встаёт каждые пять минут", "компрессор то и дело отключается"
    r"|(?:вста[её]т|встают|останавливается|выключается|отключается|вырубается|падает)"
    r" (?:каждые (?:\w+ )?(?:минут|секунд)|постоянно|то и дело)"
    r"|(?:постоянно|то и дело|каждые (?:\w+ )?минут\w*) (?:вста[её]т|встают|останавливается|выключается|отключается"
    r"|вырубается|падает)"
    r"|прорвал\w* труб\w*|труб\w* прорвал\w*|прорыв\w* труб\w*|вода\b[\w\s]{0,24}?\bпо (?:щиколотку|колено)|заливает)",
    re.IGNORECASE,
)
#: A person in danger now, said without any alarm word: collapsed, unconscious, not breathing, bleeding, a seizure
#: ("Mr Kowalski just collapsed and isn't responding", "Uczeń zemdlał i nie reaguje", "он без сознания").
MEDICAL = re.compile(
    r"\b(?:collaps\w*|unconscious|unresponsive|(?:isn't|is not|not|stopped) (?:breathing|responding|moving)"
    r"|fainted|passed out|seizure\w*|convuls\w*|(?:is|are|he's|she's) bleeding|choking|heart attack"
    r"|can't (?:breathe|get up)|cannot (?:breathe|get up)|turned blue"
    # injuries, being trapped, a birth: "hit her head … bleeding", "pinned under a pallet", "went into labour"
    r"|hit (?:his|her|their) head|and bleeding|pinned (?:under|by)|trapped under|crushed by|(?:went|is) into labou?r"
    # an electric shock: "got an electric shock from the panel", "poraził go prąd", "ударило током"
    r"|electric shock|electrocuted|got a shock from"
    r"|waters? (?:has |have )?broken)\b"
    r"|\b(?:zemdla\w*|zemdlał\w*|zasłab\w*|nieprzytomn\w*|stracił\w* przytomność|nie oddycha|nie reaguje"
    r"|krwawi\w*|drgawk\w*|dusi się|nie może wstać|zawał\w*|posinia\w*|sini\w* się|słabnie|mdleje"
    r"|przygniot\w*|przygniecion\w*|uderzył\w* się w głowę|zaczęła rodzić|rodzi(?!\w)|odeszły (?:jej )?wody"
    r"|poraził\w* (?:go |ją |ich )?prąd\w*|porażeni\w* prądem|kopnął (?:go |ją )?prąd)"
    r"|(?<!\w)(?:без сознания|потерял\w* сознание|не дышит|почти не дышит|судорог\w*|посинел\w*|кровотечени\w*"
    r"|истекает кровью|задыха\w*|стало плохо|не реагирует|не может встать|инфаркт\w*|инсульт\w*"
    r"|придавил\w*|зажало|рожает|начались роды|отошли воды|ударил\w* головой|не может вытащить"
    # a burn: "обжёг руку о печь, ожог сильный", "poparzył się", "badly burned his hand"
    r"|обж[её]г\w*|ожог\w*|poparzy\w*|oparzeni\w*|oparzył\w*"
    r"|ударил\w* током|удар\w* током|поражени\w* током|шибанул\w* током"
    # a head injury, first aid given now: "разбил голову, тренер оказывает первую помощь"
    r"|разбил\w* (?:себе )?голову|оказыва\w* первую помо[щш]ь|делают искусственное дыхание|реанимир\w*)"
    r"|\b(?:badly |severely )?burn(?:ed|t) (?:his|her|their|my) (?:hand|arm|face|leg)\b",
    re.IGNORECASE,
)
#: Someone who should not be there is inside, or is crossing a fence: "кто-то есть внутри", "ktoś jest w środku",
#: "someone is climbing over the fence", "ktoś przechodzi przez płot".
_INSIDE = re.compile(
    r"\b(?:someone|somebody|ktoś|ktos)\b[\w\s]{0,20}?\b(?:inside|in there|w środku|wewnątrz)\b"
    r"|(?<!\w)(?:внутри кто-то|кто-то (?:есть )?внутри|внутри кто-то есть)(?!\w)"
    r"|\b(?:over|przez|через)\s+(?:the\s+)?(?:fence|wall|gate|płot|ogrodzeni\w*|mur|забор|ограждени\w*|стену)",
    re.IGNORECASE,
)
#: A word that denies the danger phrase right after it: "no pipes burst", "żadna rura nie pękła" is read per word.
_NO = {"no", "never", "без"}
_NOBODY = {"nobody", "no", "not", "never", "nikt", "nikomu", "nie", "никто", "никому", "не", "ни"}
#: Alarm words that are no emergency themselves but, negated, report calm ("no alarms", "тревог не было").
_ALARM_WORDS = re.compile(r"^(?:alarms?|alerts?|incidents?|alarm\w*|incydent\w*|zdarze\w*|тревог\w*|происшестви\w*"
                          r"|инцидент\w*|проблем\w*|problem\w*)$")  # fmt: skip
_CALM = re.compile(
    r"\b(?:quiet|calm|uneventful|all (?:good|fine|clear|ok|quiet)|everything(?:'s| is) (?:fine|ok|okay|normal)"
    r"|nothing to report|no incidents|all cameras fine)\b"
    r"|\b(?:spokojn\w*|w porządku|w normie|bez zdarzeń|bez incydentów|nic do zgłoszenia|wszystko gra)"
    r"|(?<!\w)(?:спокойн\w*|в норме|в порядке|без происшествий|всё хорошо|все хорошо|штатно)",
    re.IGNORECASE,
)
#: A word, a number with its decimal comma or point ("1,2%" is one reading, not a clause break), or a sign.
_WORD = re.compile(r"\d+[.,]\d+|[\w'-]+|[^\w\s]", re.UNICODE)
_RELATIVE = {"who", "which", "that", "który", "która", "którzy", "które", "ktory", "ktora", "который", "которая",
             "которые", "кто"}  # fmt: skip
_BREAKS = {",", ";", ":", ".", "!", "?", "—", "–", "but", "ale", "lecz", "но", "а", "однако"}
#: Nominal negations: "no smoke", "bez dymu", "żadnych alarmów", "brak dymu", "никаких тревог".
_NEGATE_NOUN_BEFORE = {"no", "without", "zero", "bez", "brak", "żadnych", "żadnego", "żaden", "żadna", "zadnych",
                       "без", "никаких", "никакого", "никакой", "ни"}  # fmt: skip
#: … and after the noun: "дыма нет", "тревог не было", "alarmów nie było".
_NEGATE_NOUN_AFTER = (("нет",), ("не", "было"), ("не", "были"), ("nie", "było"), ("nie", "ma"), ("none",))
_AGENTS = {
    "someone",
    "somebody",
    "stranger",
    "strangers",
    "intruders",
    "unknown",
    "ktoś",
    "ktos",
    "nieznajomy",
    "obcy",
    "nieznany",
    "кто-то",
    "кто-нибудь",
    "посторонний",
    "посторонние",
    "неизвестный",
    "неизвестные",
    "какой-то",
    "guy",
    "guys",
    "man",
    "men",
    "person",
    "facet",
    "gość",
    "mężczyzna",
    "ludzie",
    "jacyś",
    "jakiś",
    "мужик",
    "парень",
    "человек",
    "какие-то",
    "люди",
    "people",
    "kogoś",
    "kogos",
    "typ",
    "typa",
    "typek",
    "koleś",
    "kolesia",
    "gościa",
    "faceta",
    "mężczyznę",
    "кого-то",
    "мужика",
    "типа",
}
#: Verbs of force or entry (prefix stems).
_FORCE = (
    "break", "forc", "smash", "kick", "climb", "pry", "prying", "jimm", "tamper", "ram",
    "włam", "wlam", "wyważ", "wywaz", "wyłam", "wylam", "forsuj", "sforsow", "wybij", "rozbij", "wspina", "dobija",
    "przeskak", "lom", "лом", "взлам", "вламыв", "выламыв", "вскрыв", "лез", "перелез", "выбив", "разбив",
    # past forms ("broke", "wybił", "разбил"): an emergency only with a word saying it just happened (`_JUST`)
    "broke", "wybił", "wybiła", "wybili", "rozbił", "rozbiła", "rozbili", "wdarł", "wdarli", "staranow",
    "разбил", "выбил", "взлом", "слома", "вылома", "вскрыл", "пролез", "залез", "ворвал", "протаран",
)  # fmt: skip
#: A deed that just happened: a past tense with one of these is going on now ("someone just smashed…").
_JUST = re.compile(
    r"\bjust\b|\bright now\b|\bmoments? ago\b|\ba (?:minute|second) ago\b|\bwłaśnie\b|\bprzed chwilą\b"
    r"|\bdopiero co\b|\bchwilę temu\b|\bw tej chwili\b|(?<!\w)только что(?!\w)|(?<!\w)сейчас(?!\w)"
    r"|(?<!\w)минуту назад(?!\w)|(?<!\w)прямо сейчас(?!\w)"
    # seen on a camera now: "на камере видно человека у стеллажей", "na kamerze widać kogoś"
    r"|(?<!\w)на камере видно(?!\w)|\bna kamerze widać\b|\bthe camera shows\b",
    re.IGNORECASE,
)
#: Someone seen on a camera now: what set a device off is still there ("Сработала сигнализация…, на камере кто-то
#: ходит", "na kamerze ktoś chodzi", "someone's on the camera").
_SEEN_NOW = re.compile(
    r"(?<!\w)на камер\w* (?:кто-то|видно)(?!\w)|\bna kamerze (?:ktoś|widać)\b|\bsomeone(?:'s| is) on (?:the )?camera\b"
    r"|\bthe camera shows\b",
    re.IGNORECASE,
)
#: Stems of words for a person who should not be there, in any case form ("постороннего", "nieznajomego").
_UNKNOWN_PERSON = (
    "stranger", "intruder", "trespass", "nieznajom", "obcego", "obcy", "intruz", "посторонн", "неизвестн", "чужак",
    "нарушител",
)  # fmt: skip
_NOW = re.compile(
    r"!|\bright now\b|\bwłaśnie teraz\b|\bw tej chwili\b|(?<!\w)прямо сейчас(?!\w)|(?<!\w)в данный момент"
    r"|\bi (?:can )?see\b|\bwidzę\b|(?<!\w)вижу(?!\w)",
    re.IGNORECASE,
)
_RECENT_WORDS = {
    "just", "has", "have", "now", "właśnie", "przed", "chwilą", "dopiero", "co", "się", "sie", "только", "что",
    "сейчас", "прямо",
}  # fmt: skip
_TRYING = (
    ("trying", "to"),
    ("próbuje",),
    ("probuje",),
    ("usiłuje",),
    ("пытается",),
    ("пытаются",),
    ("пробует",),
)
_ENTRY = ("get", "enter", "open", "cut", "climb", "wejść", "wejsc", "dostać", "otworzyć", "przeciąć", "przeciac",
          "przeskoczyć", "sforsować", "войти", "проникнуть", "открыть", "залезть", "перерезать", "перелезть",
          "вскрыть")  # fmt: skip
_SUBSTANCES = (
    "water",
    "gas",
    "steam",
    "sparks",
    "flames",
    "oil",
    "woda",
    "wody",
    "gaz",
    "para",
    "iskry",
    "płomienie",
    "olej",
    "вода",
    "воды",
    "газ",
    "пар",
    "искры",
    "пламя",
    "масло",
    # a liquid of any kind: "из-под шкафа течёт какая-то жидкость", "z maszyny cieknie płyn"
    "liquid",
    "ciecz",
    "płyn",
    "жидкость",
)
#: Verbs of a substance coming out, in a form that says it is happening (prefix stems).
_EMISSION = (
    "pour", "leak", "drip", "gush", "spray", "spread", "seep", "escap", "com", "fill", "ris", "hiss", "flood",
    "kap", "ciek", "leje", "lej", "leci", "płyn", "plyn", "tryska", "wyciek", "sącz", "ulatnia", "wydobyw", "unosi",
    "rozprzestrz", "zalew", "iskrz", "syczy", "buch",
    "капа", "течет", "льет", "льется", "хлещ", "идет", "валит", "сочит", "бьет", "выход", "поднима",
    "распростран", "залива", "искрит", "шипит", "вырыва", "прорва",
)  # fmt: skip
_PRESENT_RU = ("ет", "ит", "ют", "ят", "ут", "ат", "ется", "ится", "ются", "ятся", "утся", "атся")
_PROGRESSIVE_AUX = {"is", "are", "'s", "keeps", "keep", "still"}


#: Nouns of a record or a device that a danger word may only qualify (stems): "outage report", "czujka dymu".
_RECORDS = (
    "report", "log", "postmortem", "post-mortem", "analys", "summar", "timeline", "review", "transcript", "detector",
    "sensor", "drill", "raport", "analiz", "podsumowan", "protok", "czujk", "czujek", "czujnik", "detektor",
    "sprawozdan",
    "отчет", "отчёт", "лог", "журнал", "анализ", "разбор", "сводк", "хронолог", "датчик", "извещател", "срабатыван",
    "учени", "протокол",
    # papers and counts about them: "the fire alarm inspection certificate", "w podziale na pożary", "статистика
    # пожаров"
    "certificat", "inspection", "statistic", "zestawieni", "statysty", "podział", "podzial", "статистик", "сертификат",
)  # fmt: skip
#: Words that may stand between a record's noun and the danger word it is about: prepositions and "and".
_LINKS = {
    "of", "on", "about", "from", "the", "by", "into", "z", "ze", "o", "po", "i", "oraz", "na", "по", "об", "о", "с",
    "и", "за", "на",
}  # fmt: skip
#: Words that open a condition: what follows them is supposed, not happening ("if it crashes", "jeśli padły", "если
#: упадёт"). The readers of prohibitions add their own ("whenever", "should", "when").
IF_WORDS = frozenset({"if", "jeśli", "jeżeli", "jesli", "jezeli", "gdyby", "если", "коли", "ежели"})
#: Words that open a clause of time, a condition too when what they name is a fault: "doesn't start when the VPN is
#: down".
WHEN_WORDS = frozenset({"when", "whenever", "gdy", "kiedy", "когда"})
#: Alarm devices, and the verbs of their sounding (stems), present forms only count (`_ongoing`).
_DEVICES = ("alarm", "siren", "detector", "sensor", "syren", "czujk", "czujnik", "alarm", "сирен", "датчик",
            "сигнализац", "извещател")  # fmt: skip
#: Appliances that beep only when something is wrong (a freezer too warm, a UPS on battery), and how they sound:
#: "the walk-in freezer is beeping", "zamrażarka piszczy", "ИБП пищит" (not "the fridge is going back to the shop").
_APPLIANCES = ("freezer", "fridge", "zamrażar", "zamrazar", "chłodni", "chlodni", "lodówk", "lodowk", "морозил",
               "холодильн", "ибп")  # fmt: skip
_APPLIANCE_WORDS = {"ups", "upses"}
_BEEPING = ("beep", "piszcz", "пищ", "buczy", "гудит")
_SOUNDS = ("wail", "blar", "beep", "ring", "howl", "scream", "going", "piszcz", "wyj", "wyje", "dzwoni", "buczy",
           "пищ", "во", "звен", "орет", "орёт", "орут", "гудит", "гудят", "срабатыва")  # fmt: skip
#: A device's going off, in the past: an emergency only with a word saying it just happened (`_JUST`).
_WENT_OFF = (
    "сработал", "zadziałał", "zadzialal", "triggered", "tripped",
    # switched itself on: "włączył się czujnik czadu", "включилась сирена"
    "włączył", "wlaczyl", "uruchomił", "uruchomil", "включил",
)  # fmt: skip
#: A request marked urgent: a device that went off is going off now ("Pilne! Włączył się czujnik czadu").
_URGENT_MARK = re.compile(r"\b(?:urgent|pilne|pilnie)\b|(?<!\w)срочно(?!\w)", re.IGNORECASE)
#: Words that put a past event in this very moment ("right now", "прямо сейчас"); a bare "just" may only soften.
_RIGHT_NOW = re.compile(
    r"\bright now\b|\bjust now\b|\bmoments? ago\b|\ba (?:minute|second) ago\b|\bwłaśnie\b|\bprzed chwilą\b"
    r"|\bw tej chwili\b|(?<!\w)(?:прямо сейчас|только что|сейчас)(?!\w)",
    re.IGNORECASE,
)
#: This very moment, said emphatically (a bare "сейчас", "now" or "właśnie" dates a question or a plan as well):
#: "Касса прямо сейчас виснет", "the reader is failing right now", "w tej chwili nie działa".
_AT_THIS_MOMENT = re.compile(
    r"\bright now\b|\bas we speak\b|\bw tej chwili\b|\bwłaśnie teraz\b|(?<!\w)(?:прямо сейчас|в данный момент)(?!\w)",
    re.IGNORECASE,
)
#: A problem lasting until now: "for the last ~10 min", "od kwadransa", "od 5 minut", "уже полчаса", "и растёт".
_GOING_ON_FOR = re.compile(
    r"\bfor the (?:last|past) (?:~|about |few |couple of )?\d*\s*(?:min\w*|hours?|seconds?)\b"
    r"|\b(?:and|still) (?:rising|climbing|growing|getting worse)\b"
    r"|\bod (?:~?\d+ ?(?:min\w*|godzin\w*|sekund\w*)|kwadransa|godziny|pół godziny|paru minut|kilku minut)"
    r"|\bi (?:ciągle |wciąż )?rośnie\b"
    r"|(?<!\w)(?:уже|последние) (?:~?\d+ ?(?:мин\w*|час\w*)|полчаса|час|несколько минут|пару минут)"
    r"|(?<!\w)за последни[йе] (?:час|полчаса|\d+ ?мин\w*)"
    # since a time of today, with no end: "throwing 502s since 10:42", "od 10:40"
    r"|\bsince \d{1,2}[:.]\d{2}\b(?! ?(?:to|until|till|-))|\bod \d{1,2}[:.]\d{2}\b(?! ?(?:do|-))"
    # since an hour said loosely, or within the last minutes: "since about 2pm", "50 new rows in the last 10 min"
    r"|\bsince (?:about |around |roughly )?\d{1,2} ?(?:am|pm)\b|\bin the (?:last|past) \d+ ?min\w*"
    r"|(?<!\w)и (?:всё |все |продолжает )?раст[её]т(?!\w)",
    re.IGNORECASE,
)
#: What is failing while it lasts: errors, a service down, complaints, a reading rising.
_FAILING = re.compile(
    r"\b(?:returning|throwing|giving) (?:\d{3}s?|errors?)\b|\b5\d\d(?:s)?\b|\btiming out\b|\btimeouts?\b"
    r"|\bfailing\b|\bcomplaining\b|\b(?:and|still) (?:rising|climbing)\b"
    r"|\b(?:leży|leżą|lezy|sypie się|wywala\w*|błęd\w*|dzwonią|nie da się|przecina\w*|przeciąć|rośnie)"
    r"|(?<!\w)(?:лежит|лежат|падает|ошибк\w*|раст[её]т|не открывается|звонят|жалуются)"
    # a line or a machine standing still while it lasts: "Linia pakująca stoi od 10 minut", "конвейер стоит уже
    # полчаса", "the line has been stopped for the last 20 min"
    r"|\b(?:stopped|standing still|at a standstill)\b|\b(?:stoi|stoją|stoja)\b"
    r"|(?<!\w)(?:стоит|стоят|встал[аио]?)(?!\w)"
    # a till, a printer or an app that stops doing its job while it lasts: "nie drukuje paragonów", "виснет на
    # каждой оплате", "keeps freezing", "monitoring has gone mental"
    r"|\b(?:nie (?:drukuje|drukują|działa|działają|dziala|dzialaja|odpowiada|odpowiadają|łączy|laczy|ładuje|laduje"
    r"|przyjmuje|przyjmują)|zawiesza się|wiesza się|zawiesił\w* się)\b"
    # (the third person only: "не работаю в пятницу" is a person's day off, "зависит от" depends)
    r"|(?<!\w)(?:не (?:печата(?:ет|ют)|работа(?:ет|ют)|отвеча(?:ет|ют)|грузит(?:ся)?|принима(?:ет|ют)|проход(?:ит|ят))"
    r"|висн(?:ет|ут)|завис(?:ает|ают|ла|ло|ли)?|глючит)(?!\w)"
    r"|\b(?:is|are|isn't|aren't|has|have|hasn't|haven't)(?: not)?(?: been)? (?:printing|working|loading|responding"
    r"|taking payments)\b"
    r"|\bkeeps? (?:freezing|crashing|hanging)\b"
    r"|\bgone (?:mental|haywire|crazy|nuts|mad)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Situation:
    """An emergency happening now, or a report that all is well, with the words that show it."""

    kind: Literal["emergency", "calm"]
    evidence: str


def _clauses(text: str) -> list[list[str]]:
    clauses: list[list[str]] = [[]]
    words = _WORD.findall(text.lower().replace("’", "'").replace("ё", "е"))
    for position, word in enumerate(words):
        if word in _BREAKS:
            following = words[position + 1] if position + 1 < len(words) else ""
            if word == "," and following in _RELATIVE:
                continue  # "jakiegoś typa, który próbuje…": a relative clause goes on about its noun
            if clauses[-1]:
                clauses.append([])
            continue
        clauses[-1].append(word)
    return [c for c in clauses if c]


def _noun_negated(words: list[str], index: int) -> bool:
    before = words[max(0, index - 2) : index]
    if any(w in _NEGATE_NOUN_BEFORE for w in before) or before[-2:] == ["nie", "ma"]:
        return True
    after = tuple(words[index + 1 : index + 3])
    return any(after[: len(n)] == n for n in _NEGATE_NOUN_AFTER)


def _ongoing(word: str, previous: str) -> bool:
    """A verb form that says the event is going on now: an English progressive, a Russian or Polish present."""
    if word.endswith("ing"):
        return previous in _PROGRESSIVE_AUX or previous.endswith("'s") or previous in ("someone", "somebody")
    if any("\u0400" <= ch <= "\u04ff" for ch in word):
        return word.endswith(_PRESENT_RU)
    if word.endswith(("ł", "ła", "ło", "li", "ły")):
        return False  # a Polish past tense
    return not word.isascii() or word.endswith(("a", "e", "i", "y"))


def _intrusion(words: list[str], now: bool = False) -> str | None:
    """Someone unknown forcing or trying a way in now; a past deed counts when the clause, or with `now` the text,
    says it just happened ("Ktoś wybił szybę…, włączył się alarm i ochrona już jedzie")."""
    agent = next((i for i, w in enumerate(words) if w in _AGENTS), None)
    if agent is None:
        return None
    while agent + 1 < len(words) and words[agent + 1] in _AGENTS:
        agent += 1  # "jacyś ludzie", "какие-то люди": the noun after the determiner
    just = now or _JUST.search(" ".join(words)) is not None
    for i in range(agent + 1, min(len(words), agent + 6)):
        word, previous = words[i], words[i - 1]
        # a past deed counts only right after the agent and the words saying it just happened
        recent = just and all(w in _RECENT_WORDS for w in words[agent + 1 : i])
        if any(word.startswith(stem) for stem in _FORCE) and (
            _ongoing(word, previous) or previous in ("się", "sie") or word.endswith(("ся", "się")) or recent
        ):
            return f"{words[agent]} … {word}"
        for trying in _TRYING:
            if tuple(words[i : i + len(trying)]) == trying:
                rest = words[i + len(trying) : i + len(trying) + 3]
                if any(any(w.startswith(e) for e in _ENTRY) for w in rest):
                    return f"{words[agent]} … {' '.join(trying)}"
    return None


def _emission(words: list[str]) -> str | None:
    for i, word in enumerate(words):
        if not any(word == s or (len(s) > 3 and word.startswith(s)) for s in _SUBSTANCES) or _noun_negated(words, i):
            continue
        for j in range(max(0, i - 4), min(len(words), i + 5)):
            verb, previous = words[j], words[j - 1] if j else ""
            reduced = j == i + 1 and verb.endswith("ing")  # "water coming through the ceiling": going on
            if j != i and any(verb.startswith(stem) for stem in _EMISSION) and (reduced or _ongoing(verb, previous)):
                return f"{word} … {verb}" if j > i else f"{verb} … {word}"
    return None


def _named_by_a_record(words: list[str], index: int) -> bool:
    """Whether the danger word at `index` names what a record or a device is about, not an event: "the outage
    report", "smoke detectors", "raport z awarii", "czujki dymu", "отчёт по аварии", "лог датчиков дыма и протечки"."""
    compound = list(itertools.takewhile(lambda w: w.isalpha() and w not in _LINKS, words[index + 1 : index + 4]))
    if any(w.startswith(_RECORDS) for w in compound) and words[index].isascii():
        return True  # an English compound: the danger word before the noun it qualifies ("fire alarm certificate")
    j = index - 1
    while j >= 0 and index - j <= 3 and (words[j] in _LINKS or EMERGENCY.fullmatch(words[j])):
        j -= 1
    return j >= 0 and index - j <= 3 and words[j].startswith(_RECORDS)


def _conditional(words: list[str], index: int) -> bool:
    """A danger word in a condition: "jeśli padły" (if any were said), "if it crashes", "если упадёт", "doesn't start
    when the VPN is down"."""
    return any(w in IF_WORDS for w in words[max(0, index - 2) : index]) or any(
        w in WHEN_WORDS for w in words[max(0, index - 4) : index]
    )


def _sounding(words: list[str], now: bool = False) -> str | None:
    """A device sounding now: "the siren is wailing", "czujka piszczy bez przerwy", "датчик пищит"."""
    for i, word in enumerate(words):
        appliance = word.startswith(_APPLIANCES) or word in _APPLIANCE_WORDS
        if not (appliance or word.startswith(_DEVICES)):
            continue
        sounds = _BEEPING if appliance else _SOUNDS
        for j in range(max(0, i - 4), min(len(words), i + 10)):  # "Датчик CO2 в погребе показывает 1,2% и пищит"
            if j == i:
                continue
            sounding = words[j].startswith(sounds) and _ongoing(words[j], words[j - 1] if j else "")
            if sounding or (now and words[j].startswith(_WENT_OFF)):
                # "сработали датчики" just now, "the siren is wailing"
                return f"{word} … {words[j]}" if j > i else f"{words[j]} … {word}"
    return None


def going_on_now(text: str) -> bool:
    """Whether `text` says something has been going on until now ("for the last 10 min", "od kwadransa", "уже 20
    минут", "and rising"): a past mentioned beside it ("в прошлый раз") does not make the situation a past one."""
    return _GOING_ON_FOR.search(text) is not None


#: Help already on its way says the deed before it is happening now: "ochrona już jedzie", "охрана уже едет",
#: "police are on their way".
_ON_THE_WAY = re.compile(
    r"\bjuż (?:jedzie|jadą|biegnie)\b|(?<!\w)уже (?:едет|едут|в пути)(?!\w)|\bon (?:their|the|his|her) way\b",
    re.IGNORECASE,
)
#: An alarm that is only being tested: "the fire alarm test is at noon", "test alarmu pożarowego o 12", "próbny
#: alarm", "учебная тревога", "проверка пожарной сигнализации в 12:00". Its clause is calm, like a false alarm's.
_ALARM_TEST = re.compile(
    r"\b(?:fire )?alarm (?:test|tests|testing|drill|check)\b|\btest(?:ing)? (?:of )?the (?:fire )?alarm"
    r"|\b(?:test|próba|proba|testowanie|sprawdzenie) (?:\w+ )?(?:alarmu|syren\w*|sygnalizacji)\b|\bpróbn\w* alarm\w*"
    r"|(?<!\w)учебн\w* тревог\w*|(?<!\w)(?:проверк\w*|тестировани\w*) (?:\w+ )?(?:сигнализаци\w*|сирен\w*)",
    re.IGNORECASE,
)
#: An alarm that turned out false: "ночная тревога оказалась ложной", "it was a false alarm", "fałszywy alarm".
_FALSE_ALARM = re.compile(
    r"\bfalse alarm|\bfałszyw\w* alarm\w*|\balarm\w* (?:był\w* )?fałszyw\w*|(?<!\w)ложн\w* тревог\w*"
    r"|(?<!\w)тревог\w* (?:оказал\w* )?ложн\w*",
    re.IGNORECASE,
)


def read_situation(text: str) -> Situation | None:
    """An emergency happening now, a calm report, or None (see the module docstring)."""
    calm: list[str] = []
    just = _JUST.search(text) is not None  # "прямо сейчас сыпятся тревоги с датчиков протечки": happening now
    on_the_way = _ON_THE_WAY.search(text) is not None
    # whole-text readings, the same for every clause
    sounding_now = any(p.search(text) is not None for p in (_RIGHT_NOW, _SEEN_NOW, _URGENT_MARK))
    now = _NOW.search(text)
    for words in _clauses(text):
        joined = " ".join(words)
        false_alarm = _FALSE_ALARM.search(joined) or _ALARM_TEST.search(joined)
        if false_alarm is not None:
            # "ночная тревога оказалась ложной": that alarm is no emergency (another clause may still hold one)
            calm.append(false_alarm.group(0))
            continue
        for match in EMERGENCY.finditer(joined):
            index = len(joined[: match.start()].split())
            single = " " not in match.group(0).strip()
            if (single and _noun_negated(words, index)) or (not single and index and words[index - 1] in _NO):
                # "no smoke", "no pipes burst this winter": the danger is denied
                calm.append(" ".join(words[max(0, index - 2) : index + 3]))
                continue
            if (single and _named_by_a_record(words, index) and not just) or _conditional(words, index):
                continue  # "the outage report", "датчики дыма", "raport z awarii"; "if any were said (jeśli padły)"
            return Situation("emergency", match.group(0))
        found = _intrusion(words, on_the_way) or _emission(words) or _sounding(words, sounding_now)
        if found is not None:
            return Situation("emergency", found)
        medical = MEDICAL.search(joined)
        before = joined[: medical.start()].split()[-3:] if medical is not None else []
        if medical is not None and not any(w in _NOBODY for w in before):
            return Situation("emergency", medical.group(0))
        inside = _INSIDE.search(joined)
        if inside is not None and (
            just or now is not None or "кто-то" in joined or "ktoś" in joined or "someone" in joined
        ):
            return Situation("emergency", inside.group(0))
        unknown = next((w for w in words if w.startswith(_UNKNOWN_PERSON)), None)
        if unknown is not None and now is not None:
            return Situation("emergency", f"{unknown} … {now.group(0)}")
        for index, word in enumerate(words):
            if _ALARM_WORDS.match(word) and _noun_negated(words, index):
                calm.append(" ".join(words[max(0, index - 2) : index + 3]))
        quiet = _CALM.search(joined)
        if quiet is not None:
            calm.append(quiet.group(0))
    going_on = _GOING_ON_FOR.search(text) or _AT_THIS_MOMENT.search(text) or _URGENT_MARK.search(text)
    failing = _FAILING.search(text)
    if going_on is not None and failing is not None:
        # "checkout returning 502 for the last 10 min", "strona leży od kwadransa", "41 градус и растёт", "Касса
        # прямо сейчас виснет", "Срочно! Линия розлива встала": a fault lasting until now, or said to be now
        return Situation("emergency", f"{failing.group(0)} … {going_on.group(0)}")
    return Situation("calm", "; ".join(calm)) if calm else None
