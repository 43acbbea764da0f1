"""A multilingual reading of forbidden actions from the structure of the sentence: "do not publish", "nie wysyłaj",
"hold off on sending", "отложи отправку", "publish it later, not now", "dopiero jak powiem", "stop before
installation" forbid; "don't forget to send", "nie musisz wstrzymywać publikacji", "не нужно откладывать отправку",
"there is no reason not to send it", "the report was not sent", "did we not publish it?" do not.

    text ─► tokens (lowercased, punctuation kept) ─► sentences (. ; ! ?) ─► clauses (, : — but / ale / но / а …)
         ─► a negated necessity after the action it governs ("отправлять пока не надо", "publikować nie wolno",
             "sending it is not needed", "wysyłanie jest zbędne") is moved before that action, over the negative
             operators and coordinated actions before it in its clause: "откладывать рассылку не нужно" reads as
             "не нужно откладывать рассылку" (lifted, below). Only at the end of its clause, not in a question.
         ─► negation chains: every negative operator opens a scope over the clause it governs, up to the clause's
             end (a comma before a complementizer — "żeby", "чтобы", "that" — does not end it: the complement clause
             is governed too). Operators are the particles (not, don't, never, no, without, nie, bez, не, нет, без…)
             and the verbs that negate what they govern: cessation and deferral (stop, hold off, wait, postpone,
             wstrzymaj się, zaczekaj, odłóż, отложи, подожди), omission (forget, skip, avoid, zapomnij, pomiń,
             забудь, пропусти) and hesitation (hesitate, wahaj się, стесняйся). Walking the scope, every operator
             met flips the polarity once more, until the first action word ends the chain: odd → forbidden,
             even → lifted ("don't forget to send", "no reason not to send", "you don't have to hold off on
             publishing": a negation cancels a negation). Modals (need, have to, musisz, нужно) are transparent.
             Polish and Russian negative concord ("niczego nie", "ничего не") counts once. A non-action verb met
             first spends the negation ("don't use the template…"); a coordinator before any action ends it.
             A negation describes instead of forbidding when it governs a past tense, a passive or past auxiliary
             ("was not sent", "nie został wysłany", "не был отправлен"), a present third person after nie/не
             ("не отвечает"), or stands in an inverted question ("did we not publish it?").
         ─► a device named in a negated command ("не трогай котёл", "don't touch the valves"; not "don't worry
             about the gate") is physical, and so is a list after a negated command: "niczego nie uruchamiaj:
             żadnych syren ani blokowania bram", "don't do anything: no sirens, no boilers" (a calm report, "noc
             spokojna: żadnych syren", commands nothing).
         ─► the governed action of a verbless negated clause: "publish it later, not now", "nie tym razem",
             "не сейчас" negate the nearest action before them (an elliptic clause of only temporal words).
         ─► deferral adverbs: "later / później / позже" in an action's clause forbid it now.
         ─► conditions: "only after / once / when / if…", "dopiero", "tylko po", "только после / когда", an
             "after / po / после" whose clause names the speaker ("after I approve", "po mojej akceptacji", "после
             моего подтверждения"), and an "until / aż / dopóki / пока" under a negative operator ("wait until I
             confirm, then deploy") gate the action they govern — the nearest action before them in the sentence,
             or after the condition clause when it comes first: forbidden now. An "until" or "without" naming the
             speaker ("пока я не одобрю", "dopóki nie zatwierdzę", "без моего одобрения") gates an action negated
             in its own clause ("…, ничего не уходит сотрудникам", where the present tense alone would describe).
             ("Keep sending until I say stop", "send it without my approval" and "email me once I get a ticket"
             gate nothing.)
         ─► stop-before: a stop word (stop, wait, ask, zatrzymaj, zapytaj, остановись, спроси…) and a "before" word
             (before, przed, zanim, перед, до) in one sentence: the action after "before" ("wait for my approval
             before anything goes out").
         ─► structures without a chain (`_structural`): a holding verb with an action or message object and an
             "until" ("hold the reply until…", "придержи ответ до…"; not "hold the door"); idioms of privacy ("keep it
             to yourself", "między nami", "держи при себе", "никому не показывай"): external transmission; touching
             or editing a data object when negated or "without" ("bez ruszania pliku", "журнал не правь"; a device
             stays physical): local write; a fronted "with" action before a negative verb ("С публикацией
             подожди"); a message with a recipient declared not needed ("raport do klienta nie jest potrzebny").
         ─► the forms said without a negation over the action (delegation to oneself, a kept state, confinement,
             draft only, a deferral after its action, an approval condition, a refused venue): `prohibitive`.
         ─► action words → effect classes (publication, external_transmission, installation, physical,
             local_write, code_execution: "run / uruchom / запусти" without a device near, and building, compiling
             or testing software: "no builds", "testy pomiń", "без сборки"), matched by stem
             after stripping Polish/Russian verb prefixes, so "opublikuj", "wysłać",
             "отправляй", "установкой" all match. Some words need their context: a verb of operating is physical
             with a device after it ("trigger the sirens", "lock the gates", "zablokuj bramę", "запусти сирену"), and
             a motion verb says a message leaves ("nothing goes out", "zanim cokolwiek wyjdzie do klienta", "уйдёт
             клиенту"): external transmission, or publication when it goes to everyone ("to staff", "do ludzi",
             "сотрудникам").

Every reading carries the words that made it (the operators and the action word), for the classification record;
lifted readings are kept too (`forbidden.read_actions`, which adds the forms of `prohibitive`), so a prohibition
that was *not* found can be traced as well.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from alicorn.models.intent.cues import QUESTION_TAGS, imperative_form, known_verb
from alicorn.models.intent.urgency import IF_WORDS, WHEN_WORDS
from alicorn.plan.dsl import EffectClass

#: A word, or a domain or number with dots inside it ("Pyszne.pl", "3.5"), or one punctuation mark.
_TOKEN = re.compile(r"[\w']+(?:\.(?=\w)[\w']+)*|[^\w\s]", re.UNICODE)
_SENTENCE_END = {".", ";", "!", "?"}
_CLAUSE_BREAK = {
    ",", ":", ".", ";", "!", "?", "—", "–", "(", ")", "but", "however", "ale", "lecz", "jednak", "но", "однако", "а",
}  # fmt: skip
#: A comma before these opens a complement clause the matrix negation still governs ("nie ma powodu, żeby…").
_COMPLEMENTIZERS = {"that", "żeby", "aby", "by", "że", "чтобы", "что", "żebyś", "żebyście", "abyś", "abyście"}
_CONTINUE = {"or", "nor", "and", "ani", "lub", "albo", "ni", "или", "и", "ни", "i", "też", "&", "/"}
_DISJUNCTIVE = {"or", "nor", "ani", "lub", "albo", "ni", "или", "ни", "/"}
_COORDINATORS = _CONTINUE | {"then", "potem", "następnie", "затем", "потом"}

# fmt: off
#: Negation particles and negative words: each flips the polarity of what it governs.
_PARTICLES = {
    "can't", "cannot", "don't", "dont", "mustn't", "never", "no", "nobody", "none", "not", "nothing", "shouldn't",
    "zero", "without", "won't", "bez", "nie", "без", "запрещается", "запрещено", "нельзя", "не", "нет",
    # forbidding, said by the speaker: "I forbid running…", "zabraniam go uruchamiać", "запрещаю трогать"
    "forbid", "prohibit", "zabraniam", "zakazuję", "запрещаю",
    # a negative determiner: "neither variant may reach the union"
    "neither",
}
#: Polish and Russian negative-concord words: with "nie"/"не" in one chain they make one negation, not two.
_N_WORDS = {
    "nic", "niczego", "nigdy", "nikomu", "nikogo", "nikt", "zadnych", "żaden", "żadna", "żadne", "żadnego",
    "żadnych", "ни", "никаких", "никакие", "никогда", "никого", "никому", "никто", "ничего",
}
#: Verbs whose meaning negates what they govern: cessation, deferral, omission, hesitation. Prefix stems.
_NEGATIVE_VERBS = (
    "avoid", "cease", "defer", "delay", "forget", "hesitat", "neglect", "omit", "paus", "postpon", "refrain", "skip",
    "stop", "wait", "forgo", "forego",
    # letting go of a step: "testy na razie odpuść", "darujmy sobie budowanie", "сборку пока отставить"
    "odpuść", "odpuśc", "odpusc", "odpuszcz", "daruj", "отставить", "отставь",
    "czekaj", "czekać", "czekac", "czekani", "odczek", "odkład", "odłoż", "odłóż", "poczek", "pomiń", "pomin", "pomij",
    "powstrzym", "przestań", "przestan", "przestać", "przestac", "przestaj", "unikaj", "wahaj", "wahani", "wstrzym",
    "zaczek", "zapomin", "zapomn", "zatrzym", "zwlek",
    "воздерж", "дождат", "дождис", "дождит", "дожида", "жди", "ждать", "забуд", "забыв", "забыть", "задерж", "избега",
    "медли", "останов", "отлож", "откладыв", "повремен", "погоди", "подожд", "прекрат", "приостанов",
    # stopping, not "перестановочный" (a permutation) nor "przestaw" (re-set: "Wentylacji nie przestawiaj")
    "перестань", "перестать", "перестанем", "переставай",
    "пропуск", "пропуст", "стесня", "сдержива", "тянуть", "тяни", "затягив", "медлить", "procrastinat",
)
#: Two-word operators: "hold off", "hold back", "put off".
_NEGATIVE_PAIRS = {("hold", "off"), ("hold", "back"), ("put", "off")}
#: "not" describes rather than forbids after these ("did not send", "is not published").
_NOT_DESCRIBES = {
    "am", "are", "been", "did", "does", "had", "has", "have", "is", "it's", "that's", "was", "were",
}
#: Auxiliaries of an inverted question: "did we not publish it?", "have you not sent it?"
_INVERTING = {"did", "do", "does", "had", "has", "have", "is", "are", "was", "were"}
#: Past and passive auxiliaries: a negation governing one describes what happened ("nie został wysłany").
_DESCRIBING_AUX = {
    "been", "was", "were", "był", "była", "było", "były", "byli", "został", "została", "zostało", "zostały",
    "zostali", "zostanie", "zostaną", "был", "была", "было", "были", "будет", "будут",
}
#: "not only", "nie tylko", "не только" add, they do not negate.
_NOT_NEGATING_AFTER = {"only", "just", "tylko", "только", "лишь"}
#: Words that negate the action just before them ("send nothing").
_NEGATE_BEFORE = {"nic", "nothing", "ничего"}
#: The only words a verbless negated clause may hold to be elliptic for the clause before ("not now", "nie teraz").
_ELLIPTIC = {
    "now", "yet", "this", "time", "today", "right", "at", "the", "moment", "just", "please", "though", "tho", "for",
    "week", "month", "tomorrow", "teraz", "jeszcze", "tym", "razem", "dziś", "dzisiaj", "na", "razie", "proszę", "w",
    "tygodniu", "miesiącu", "jutro", "сейчас", "еще", "пока", "этот", "раз", "в", "на", "сегодня", "пожалуйста",
    "этой", "неделе", "месяце", "завтра",
}
#: Deferral adverbs: the action of their clause is for later, not now. Not "afterwards": it orders a step after
#: the request's others ("sum it up, then send it to Ola afterwards"), it does not put the step off.
_LATER = {"later", "później", "pozniej", "позже", "позднее", "попозже", "eventually", "kiedyś", "когда-нибудь"}
#: Conditions: "only" + a subordinator, "dopiero" alone, or a temporal subordinator whose clause names the speaker.
_ONLY = {"only", "tylko", "jedynie", "только", "лишь"}
_CONDITIONAL = {
    "after", "once", "when", "until", "till", "if", "po", "jak", "gdy", "kiedy", "aż", "dopóki", "jeśli", "jeżeli",
    "после", "когда", "пока", "если", "как",
}
#: Subordinators that open a clause of their own, even without a comma ("don't panic if you hear it").
_IF_OR_WHEN = IF_WORDS | WHEN_WORDS
#: "after I approve", "po mojej akceptacji", "после моего подтверждения": the speaker's decision comes first.
_SPEAKER_GATED = {"after", "po", "после"}
#: "until": a gate only under a negative operator ("wait until I confirm, then…", "don't … until"); after an
#: affirmative verb it says how long to go on ("keep sending reminders until I say stop").
_UNTIL = {"until", "till", "aż", "dopóki", "пока"}
_NOT_BEFORE = {"dopiero"}
#: "not before", "no earlier than", "не раньше, чем", "nie wcześniej niż", "not until": a gate after its action.
_NOT_EARLIER: tuple[tuple[str, ...], ...] = (
    ("not", "before"), ("no", "earlier"), ("not", "earlier"), ("no", "sooner"), ("not", "until"), ("не", "раньше"),
    ("не", "ранее"), ("nie", "wcześniej"), ("nie", "wczesniej"), ("nie", "przed"), ("at", "the", "earliest"),
    ("najwcześniej",), ("самое", "раннее"),
)
_FIRST_PERSON = {
    "i", "i've", "i'm", "i'll", "i'd", "me", "my", "myself", "ja", "mnie", "mój", "moja", "moje", "mojej",
    "mojego", "moim", "moją", "mojemu", "я", "меня", "мне", "мной", "мой", "моя", "мое", "моего", "моей", "моему",
    "моим", "мою",
}
#: Polish first persons singular that do not end in -ę ("jak powiem", "gdy dam znać").
_PL_FIRST_PERSON_VERBS = {"powiem", "dam", "wiem", "mam", "zjem", "przyjdę"}
_STOP_WORDS = {
    "ask", "check", "confirm", "czekaj", "halt", "hold", "pause", "poczekaj", "poczekajcie", "potwierdź", "przerwij",
    "stop", "stój", "wait", "wstrzymaj", "zaczekaj", "zaczekajcie", "odczekaj", "zapytaj", "zatrzymaj", "zatrzymać",
    "дождись", "дождитесь", "жди", "ждите", "остановись", "остановитесь", "остановить", "остановиться", "подожди",
    "подождите", "прервись", "согласуй", "спроси", "спросите", "стоп", "уточни",
    # checking first, as the English "check": "zanim wyślesz, sprawdź", "прежде чем ставить, проверь"
    "verify", "sprawdź", "sprawdz", "sprawdźcie", "upewnij", "проверь", "проверьте", "убедись", "убедитесь",
}
#: Asking to be shown first is a stop too: "run it past me before it goes anywhere", "pokaż mi, zanim wyślesz",
#: "покажи мне перед отправкой", "let me see it before".
_SHOW_FIRST: tuple[tuple[str, ...], ...] = (
    ("past", "me"), ("show", "me"), ("let", "me", "see"), ("let", "me", "check"), ("let", "me", "read"),
    ("pokaż", "mi"), ("pokaz", "mi"), ("daj", "mi"), ("dajcie", "mi"), ("покажи", "мне"), ("покажите", "мне"),
    ("дай", "мне"), ("дайте", "мне"), ("пришли", "мне"),
    # the object before the speaker, and the speaker wanting to see it first: "Before you send it, show it to me",
    # "Zanim cokolwiek zawiśnie na tablicy, chcę to zobaczyć", "Прежде чем рассылать, хочу посмотреть"
    ("show", "it", "to", "me"), ("show", "them", "to", "me"), ("i", "want", "to", "see"), ("i", "want", "to", "read"),
    ("i'd", "like", "to", "see"), ("i'd", "like", "to", "read"), ("i", "need", "to", "see"),
    ("chcę", "to", "zobaczyć"), ("chce", "to", "zobaczyc"), ("chcę", "zobaczyć"), ("chcę", "to", "przeczytać"),
    ("muszę", "to", "zobaczyć"), ("хочу", "посмотреть"), ("хочу", "это", "посмотреть"), ("хочу", "увидеть"),
    # the pronoun between: "Zanim pójdzie w świat, chcę go zobaczyć", "хочу его увидеть", "хочу её посмотреть"
    ("chcę", "go", "zobaczyć"), ("chcę", "ją", "zobaczyć"), ("chcę", "je", "zobaczyć"), ("chce", "go", "zobaczyc"),
    ("хочу", "его", "увидеть"), ("хочу", "её", "увидеть"), ("хочу", "ее", "увидеть"), ("хочу", "его", "посмотреть"),
    ("хочу", "её", "посмотреть"), ("хочу", "ее", "посмотреть"),
    ("хочу", "прочитать"),
    # to review or check it first: "Zanim cokolwiek pójdzie do sieci, chcę to mieć do wglądu", "хочу проверить"
    ("do", "wglądu"), ("do", "wgladu"), ("chcę", "to", "sprawdzić"), ("chcę", "sprawdzić"), ("хочу", "проверить"),
    ("хочу", "это", "проверить"), ("i", "want", "to", "look"), ("let", "me", "look"),
)


def _shown_first(words: list[str], index: int) -> bool:
    """ "(run it) past me", "pokaż mi", "покажи мне" at `index` (see `_SHOW_FIRST`)."""
    return any(tuple(words[index : index + len(p)]) == p for p in _SHOW_FIRST)


_BEFORE_WORDS = {
    "before", "prior", "przed", "zanim", "до", "перед", "прежде",
}
#: Negations that stand before the verb they govern ("don't use", "nie używaj", "не используй").
_VERBAL = {
    "not", "don't", "dont", "never", "won't", "can't", "cannot", "mustn't", "shouldn't", "nie", "не", "нельзя",
}
#: Verbs of asking first: negated, they lift a gate ("no need to ask me before sending", "не нужно спрашивать").
_ASKING = (
    "=ask", "=consult", "pytać", "pytac", "pytaj", "zapyta", "spyta", "спрашива", "спроси", "спросить",
    "консульт",
)  # fmt: skip
#: Verbs of starting: a negation passes through them to the action they start ("don't start the installation",
#: "nie zaczynaj wysyłki", "не начинай рассылку"; fronted, "Установку не начинать": `prohibitive`).
_ASPECTUAL = (
    "=start", "=begin", "=proceed", "=commence", "zaczyn", "zacznij", "zaczni", "rozpoczyn", "rozpocznij",
    "rozpoczni", "przystęp", "przystąp", "начин", "начн", "начать", "приступ",
)  # fmt: skip
#: Verbs so light that a negation passes through them to the action ("do not make anything public").
_LIGHT_VERBS = {"make", "do", "let", "get", "keep", "have", "take", "put", "go", "try", "bother", "rush", "hurry"}
#: Verbs that put a thing live ("make it live", "push it live", "switch the page live"): published.
_MAKING_LIVE = {"make", "making", "put", "putting", "push", "pushing", "set", "setting", "switch", "switching", "take"}

# Stems: "=" marks a whole English word (with -s/-ed/-ing/-es endings allowed), "!" a prefix matched without
# stripping verb prefixes ("!ставь": "ставь", not "оставь" or "составь"), otherwise a prefix after any verb prefix.
_ACTIONS: dict[EffectClass, tuple[str, ...]] = {
    "publication": (
        "publish", "publication", "=post", "=repost", "release", "announc", "wywies", "wywieś", "вывеш", "вывес",
        "=go-live", "public", "publik", "ogłos",
        "ogłas", "ogłoś", "oglos", "oglas", "публик", "выклад", "выложи", "выложу", "выложим", "объяв", "обнарод",
        "анонс", "размещ", "размест",
        # hanging it up where people read it: "повешу в сестринской", "повесь график на доску"
        "!повес", "!повеш",
        # posting, the loanword: "В общий чат труппы не постить", "nie postuj tego"
        "=постить", "=пости", "=постим", "=постите", "!запост", "postuj", "postowa", "spostuj",
        # showing it in public, slang: "Запись нигде не светим", "не свети фото"
        "=светим", "=свети", "=светить", "=светите", "!засвет",
),
    "external_transmission": (
        "=send", "=sent", "mail", "email", "forward", "transmit", "upload", "=share", "=reply", "=message", "notify",
        "=cc", "=bcc", "=cc'd", "=cced",
        "=contact", "=text", "=call", "wysył", "wysyl", "wysł", "wysl", "wyśl", "przesył", "przesyl", "prześl",
        "przesl", "przesł", "!podesł", "rozsył", "rozsyl", "rozesł", "rozesl", "roześl", "mail", "udostępn", "udostepn",
        "odpowiad", "odpisz", "odpisyw", "=odpisuj", "=odpisujcie", "=odpisać", "=odpisac", "kontakt", "powiadam",
        "powiadom",
        # handing it on to someone: "Raport przekażemy studiu sami", "передай поставщику", "не передавайте клиенту"
        "przekaż", "przekaz", "передай", "передав", "передать", "передад", "передам", "передаст",
        "dzwoń", "dzwon", "отправ", "отсыл", "отошл", "посыл", "пошли", "пересыл", "перешл", "рассыл", "разошл",
        "подел", "делис", "сообщ", "уведом", "звон", "пиши", "писать", "отвеч", "ответь", "мейл", "письм",
        "разосл", "присл", "!скинь", "!скинуть", "!скидыв", "!podeślij", "!podsył", "!podsyl",
        # contacting: "ни с кем из них не связывайся", "свяжись с поставщиком"
        "свяж", "связыва", "связат",
        # "кинь ссылку тестировщикам": throwing a link is sending it
        "!кидай", "!кидать", "!кинь", "!киньте", "!кинуть",
        # the imperfective of sending: "напрямую туда ничего не шли", "не шлите им черновик"
        "=шли", "=шлите", "!слать", "=шлём", "=шлем", "=шлю",
        # handing out copies: "Distribution to the attendees is not permitted", "dystrybucja protokołu"
        "=distribute", "=distribution", "dystrybu", "распростран", "rozpowszechn",
        # reporting something to someone: "Nie zgłaszaj niczego firmie ochroniarskiej", "zgłoś to do serwisu"
        "zgłasza", "zgłaszaj", "=zgłoś", "zgłosi",
        # involving someone: "don't involve the police yet", "не впутывай полицию", "nie angażuj ochrony"
        "=involve", "!впутыв", "!впутай", "!втягив", "!втяни", "!вмешива", "angażuj", "zaangażuj", "angazuj",
        # speaking up to someone: "Ty się do niej nie odzywaj", "nie odzywaj się do klienta"
        "!odzyw", "!odezw",
        # messages and letters as nouns: "ни писем, ни сообщений", "żadnych wiadomości"
        "=писем", "=wiadomości", "=wiadomosci", "=wiadomość",
        # submitting, circulating and disclosing hand it to others: "don't submit the form", "hold off circulating
        # the minutes", "Сведения разглашению не подлежат", "nie ujawniaj nazwisk"
        "=submit", "circulat", "disclos", "разглаш", "ujawni", "ujawn",
        # carrying it to someone: "Директору я её отнесу сама", "Zaniosę to dyrektorowi", "вручи лично"
        "=отнеси", "=отнесу", "=отнести", "=отнесите", "zanieś", "zanies",
        "zaniosę", "zaniose", "zanieść", "zaniesc", "doręcz", "dorecz", "=вручи", "=вручу", "=вручить",
        # paying sends money out, as ordering does: "don't pay the invoice yet", "Счёт пока не оплачивай"
        "=pay", "=płać", "=zapłać", "=zaplac", "=opłać", "=oplac", "opłacaj", "oplacaj", "=płacić",
        "=placic", "zapłacić", "zaplacic", "opłacić", "oplacic", "оплачива", "=оплати", "=оплатите", "оплатить",
        "=заплати", "=заплатите", "заплатить", "=плати", "=платите", "=платить",
        # informing someone: "Gości nie informuj", "не информируй клиентов", "don't inform the guests"
        "=inform", "informuj", "informowa", "poinformuj", "poinformowa", "информир", "проинформир", "оповещ",
        "оповест",
        # summoning someone: "Пожарных пока не вызывай", "не вызывайте мастера"
        "=вызывай", "=вызывайте", "=вызови", "=вызовите", "=вызывать", "=вызвать",
),
    "installation": (
        "install", "reinstal", "deploy", "redeploy", "upgrade", "downgrad", "=rollout", "rollback", "=roll-back",
        # rolling back said as a Polish or Russian noun: "rollbacku sam nie rób", "откат не делай"
        "откат",
        "instal",
        "wdroż", "wdraż", "wdroz", "wdraz", "aktualiz", "!wgra",
        "!wgryw", "устан", "установ", "инстал", "развер", "развёр", "деплой", "выкат", "выкатыв", "раскат", "обнов",
        "!ставь",
        "!ставит", "!ставл", "!ставим", "=flash", "flashing", "прошив",
        # unfolding onto a server: "на стенд не разворачивай"
        "разворач",
        "!поставь", "!поставит", "!поставл", "выкач",
        # rolling a release back: "откатывать релиз без моей команды нельзя"
        "!откат",
),
    "physical": (
        "unlock", "=actuate", "=dispense", "=power", "=arm", "=disarm", "uzbrój", "uzbroj", "rozbrój", "rozbroj",
        "odblok", "włącz", "wyłącz", "wlacz", "wylacz", "разблок",
        "включ", "выключ", "physical", "fizyczn", "физическ",
        # cutting the power: "щиток не обесточивай"; putting out: "не гаси свет"
        "обесточ", "гаси", "гасит", "погас", "погаш",
        # buying brings goods in, as the labelled splits read it: "don't buy the skis yet", "nic nie kupuj", "не
        # покупай" (ordering from a supplier is read as sending the order, see `_orders`)
        "=buy", "=purchase", "=kupuj", "=kupujcie", "=kupować", "=kupowac", "=kupić", "=kupic", "=kup", "=kupcie",
        "!покупай", "!покупать", "!покупайте", "=купи", "=купите", "=купить", "!закупай", "!закупать", "=закупи",
        "=закупить",
),
    "local_write": (
        "modify", "=change", "=edit", "overwrit", "=delete", "=save", "=write", "zmieni", "zmian", "modyfik",
        # filling in a form or a record: "Ничего пока не заполняй", "nic jeszcze nie wypełniaj", "don't fill it in"
        "заполн", "wypełni", "wypelni", "uzupełni", "uzupelni",
        # altering and amending: "the ledger is not to be altered", "don't amend the signed contract"
        "=alter", "=amend",
        "edytuj", "edyt", "nadpis", "usuw", "usuń", "zapisuj", "zapisz", "измен", "меняй", "менять", "редакт",
        "перезапис", "удал", "сохран", "записыв", "запиш", "!правь", "!править", "!правьте", "!поправь", "!поправит",
        "!правок",
        # removal, moving and fixing, both aspects in pl/ru ("kasuj/skasuj", "przenoś/przenieś", "стирай/сотри")
        "=remove", "=rename", "=erase", "=wipe", "=purge", "=fix", "fixes", "kasuj", "kasow", "!skasuj", "!skasow",
        # correcting records: "don't correct the entries" (the adjective, "is not correct", is kept out by action_of)
        "=correct",
        "=shred", "niszcz", "zniszcz", "уничтож",
        "!przenieś", "!przenies", "!przenoś", "!przenos", "przesuw", "przesuń", "!wymaż", "!wymaz", "napraw",
        "popraw", "!сотри", "!стира", "!стере", "перемещ", "перемест", "переимен", "правк", "исправ",
        # replacing: "oryginału nie podmieniaj", "не подменяй исходник", "don't replace the original"
        "=replace", "podmien", "podmień", "podmieni", "zamien", "zamień", "zamieni", "подмен", "замен",
        # writing into a table or file: "в общую таблицу ничего не вписывай" (not "вписывается", it fits)
        "!впиши", "!вписать", "!вписывай", "!вписывать", "!впишу",
        # entering into a record: "в табель пока ничего не вноси", "изменения не вносите"
        "!вноси", "!внеси", "!внести", "!внесите",
        # adding to a record and rubbing out: "Do tabeli nic nie dopisuj", "не дописывай", "старый прайс не затирай"
        "=dopisuj", "=dopisz", "=dopisać", "=dopisac", "=dopisywać", "=dopisywac", "!дописыв", "!допиши", "!дописать",
        "!затир", "!затри", "!затереть",
        # archiving and cleaning out a record: "Логи не чисти и не архивируй", "nie czyść logów", "don't archive them"
        "=archive", "archiwiz", "zarchiwiz", "архивир", "!чисти", "!почисти", "!очисти", "!вычисти", "!подчисти",
        "!czyść", "!czysc", "!wyczyść", "!wyczysc", "!oczyść", "!oczysc",
),
}
#: By mail: "mailem", "e-mailem", "pocztą".
_BY_MAIL = ("mailem", "e-mailem", "emailem", "pocztą", "poczta")
#: Pronouns that stand for a thing named before: "Nie próbuj go podnosić", "не пытайся его опустить", "don't open it".
_OBJECT_PRONOUNS = {
    "go", "ją", "je", "jej", "ich", "niego", "nią", "его", "её", "ее", "их", "него", "нее", "it", "them",
}  # fmt: skip
#: Words that are physical only with a physical object nearby ("open the door", "otwórz bramę", "lock the gates",
#: "trigger the siren", "zablokuj bramę", "запусти сирену"): operating a device.
_PHYSICAL_OPEN = (
    "open", "=close", "=shut", "=turn", "=switch", "=trigger", "=activate", "=deactivate", "=sound", "=set", "=lock",
    "=block", "=raise", "=lower", "=start", "=run", "=arm", "=disarm", "=engage", "=cut", "=restart", "=reboot",
    "=fire",
    "otwier", "otwór", "otworz", "uruchom", "urucham", "zamyk", "zamkn", "blok", "aktyw", "odpal", "uzbr", "rozbr",
    # switching over: "świateł nie przełączaj", "не переключай освещение"; cycling a device: "задвижки не гоняй"
    "przełącz", "przelacz", "переключ", "!гоня", "!погоня",
    "załącz", "zalacz",
    "podnie", "podnos", "opuść", "opuszcz", "zatrzas",
    "открыв", "открой", "откры", "закрой", "закры", "запир", "запри", "запер", "блок", "запуск", "запуст", "активир",
    "подним", "подними", "подня", "опуск", "опусти", "вруб", "выруб",
    # turning a valve or a tap: "Głównego zaworu nie zakręcaj", "не перекрывай главный вентиль"
    "zakręc", "zakrec", "odkręc", "odkrec", "перекры", "перекро", "откручив", "закручив",
    # steering a device: "nie steruj szlabanem", "don't operate the pumps", "не управляй воротами"
    "sterow", "steruj", "=control", "=operate", "obsługuj", "управля", "управл",
    # resetting, silencing and disabling a device: "don't reset the sensors", "nie wyciszaj czujek", "не отключай"
    "=reset", "=silence", "=mute", "=disable", "=enable", "=acknowledge", "resetuj", "zresetuj", "wycisz",
    "wyciszaj", "сброс", "сбрас", "отключ", "заглуш", "квитир",
    # rebooting and reconfiguring one: "датчики не перезагружать и не перенастраивать", "nie restartuj czujek"
    "перезагр", "перенастр", "restartuj", "zrestartuj",
    # re-setting or adjusting one: "Wentylacji nie przestawiaj", "не переставляй термостат", "don't adjust the oven"
    "przestaw", "переставл", "переставь", "reguluj", "wyreguluj", "регулир", "=adjust",
)
_PHYSICAL_OBJECTS = (
    "door", "gate", "=lock", "window", "valve", "camera", "kamer", "камер", "barrier", "garage", "heating", "light",
    "machine", "pump", "siren", "setpoint", "=setpoints", "nastaw", "уставк",
    # a production line: "Nie zatrzymuj linii zdalnie", "линию не останавливай"
    "=linia", "=linii", "=linię", "=линия", "=линию", "=линии",
    "sprinkler", "boiler", "furnace", "heater", "relay", "lamp", "shutter", "blind", "alarm", "turnstile", "elevator",
    "drzwi", "bram", "zamek", "zamk", "okn", "zawór", "zawor", "szlaban", "garaż", "ogrzewan", "światł", "maszyn",
    "pomp", "syren", "zraszacz", "kocioł", "kotł", "piec", "grzejnik", "grzałk", "przekaźnik", "przekaznik",
    "rolet", "żaluzj", "kołowr", "bramk",
    "двер", "ворот", "замок", "замк", "окн", "клапан", "шлагбаум", "гараж", "отоплен", "свет", "станок", "насос",
    "станк", "сирен", "спринклер", "котел", "котл", "бойлер", "обогреват", "реле", "ламп", "жалюз", "ставн",
    "сигнализац",
    # controllers and switchboards: "nie ruszaj sterownika", "щиток не трогай", "don't touch the PLC"
    "sterownik", "=plc", "controller", "щит", "rozdzielni", "switchboard", "=press", "prasa", "prasy", "пресс",
    "турникет", "лифт", "compressor", "=fan", "conveyor", "sprężark", "sprezark", "wentylator", "taśmociąg",
    "компрессор", "задвижк", "вентилятор", "конвейер", "thermostat", "termostat", "термостат", "ventilation",
    "wentylacj", "вентиляц", "freezer", "fridge", "zamrażark", "chłodziark", "lodówk", "морозильн", "холодильник",
    "klimatyzac", "кондиционер", "=klima", "=klimy", "=klimie",
    # valves by their other names: "główny kurek", "вентиль", "кран подачи воды", "the stopcock"
    "вентил", "кран", "kurek", "kurka", "stopcock",
    # climate devices as families: "the cooling units", "chłodnie", "холодильные камеры", "the vents", "wywietrzniki"
    "cooling", "chłodni", "холодильн", "=vent", "wywietrzn", "форточк",
    # lights by their genitive plural ("świateł nie przełączaj"; "świat" alone is the world)
    "=świateł", "=swiatel",
    # machines and door systems by name: "the washer line", "домофоны", "domofon"
    "washer", "dryer", "=oven", "=mixer", "pralnic", "suszar", "piekarnik", "стиральн", "сушил", "печь", "intercom",
    "domofon", "домофон",
    # the network's boxes: "don't restart the router", "nie resetuj modemu", "роутер не перезагружай"
    "router", "modem", "роутер", "маршрутизатор", "модем",
    # a solar system's inverter: "Falownika nie restartuj", "don't reboot the inverter"
    "inverter", "falownik", "инвертор",
    # alarm and control panels: "don't reset anything on the fire panel", "nie kasuj nic na centrali"
    "=panel", "=panels", "=panelu", "=panelem", "centrali", "centrala", "centralę", "пульт",
    # sensors and detectors: "don't reset the sensors", "czujników nie wyciszaj", "датчики не отключай"
    "sensor", "detector", "czujnik", "czujk", "czujek", "detektor", "датчик", "извещател", "детектор",
    # lifts, cranes, sluices and snow cannons: "windy nie uruchamiaj", "the inlet sluice", "снежные пушки"
    "=lift", "=lifts", "=winda", "=windy", "=windę", "=windzie", "crane", "dźwig", "hoist", "sluice", "śluz", "шлюз",
    "cannon", "armat", "пушк", "escalator",
    # snow guns and cable cars by their everyday names: "the guns on Blue 3", "канатку не останавливай", "the chairlift"
    # (the plural only: "don't jump the gun" is an idiom of haste)
    "guns", "snowgun", "chairlift", "gondol", "канатк", "канатн",
    # a garage's car lifts: "Podnośnika nie opuszczaj", "подъёмник не трогай"
    "podnośnik", "podnosnik", "подъёмник", "подъемник",
    # plant of a cold store or a treatment works: "agregatów nie dotykasz", "zasuw i dmuchaw nie ruszasz"
    "agregat", "агрегат", "zasuw", "dmuchaw", "blower", "aerator", "chiller",
    # an alarm as the device that rings: "тревогу не отключай, пусть звенит"
    "тревог",
    # an alarm system's control panel, a lighting or control console: "na centralce niczego nie przełączaj", "Сам
    # на пульте ничего не переключай"
    "centralk", "пульт",
    # a brewery's or a dairy's vessels and their controls: "the tank", "na tanku nr 4", "в танке", "the fermenters",
    # "sterowanie zostaw w spokoju", "ustawień chłodzenia nie ruszaj", "в контроллер ничего не вбивай"
    "=tank", "=tanks", "=tanku", "=tanki", "=tanków", "=tankach", "=tankiem", "танк", "fermenter", "fermentor",
    "ферментер", "чиллер", "sterowani", "chłodzeni", "chlodzeni", "охлажден", "kontroler", "контроллер",
    # a machine's run by its program: "don't fire off another cycle", "nie puszczaj kolejnego cyklu", "цикл не запускай"
    "=cycle", "=cycles", "cykl", "цикл",
)
#: Nominal negations: "no sirens", "żadnych syren", "никаких сирен", "without locking the doors".
_NOMINAL = {
    "no", "nor", "without", "żadnych", "żadnego", "żaden", "żadna", "żadne", "zadnych", "ani", "bez", "никаких",
    "никакой", "никакого", "никакие", "ни", "без",
}
#: Verbs of doing or touching whose negation forbids handling what they name ("don't touch the boiler").
_DO_VERBS = {
    "touch", "mess", "fiddle", "tamper", "do", "rób", "róbcie", "ruszaj", "ruszajcie", "dotykaj", "dotykajcie",
    "трогай", "трогайте", "делай", "делайте", "касайся", "лезь",
}
#: Verbs of attitude: negated, they reassure ("don't worry", "nie martw się", "не переживай").
_ATTITUDES = (
    "worry", "panic", "mind", "care", "fret", "stress", "martw", "przejmuj", "bój", "obawiaj", "волнуй", "пережива",
    "беспоко", "бойся",
)
#: Verbs of attitude or speech: a device they name is talked about, not operated ("don't worry about the gate").
_NOT_HANDLING = (
    *_ATTITUDES, "think", "wonder", "assume", "expect", "blame", "mention", "talk", "speak", "tell", "say", "myśl",
    "wspomin", "mów", "gadaj", "думай", "парь", "говори", "упомин", "рассказыв",
)
#: Prepositions of a topic: "about the gate", "o bramie", "про ворота".
_ABOUT = {"about", "regarding", "of", "o", "про", "об", "о", "насчет", "temat", "sprawie"}
#: English negations that only command ("don't…", "never…").
_IMPERATIVE_NOT = {"don't", "dont", "never"}
#: Motion verbs that say a message leaves ("nothing goes out", "zanim cokolwiek wyjdzie do…", "ничего не уходит
#: сотрудникам"): English needs "out" after them, Polish and Russian a destination or an indefinite thing before.
_MOTION_EN = {"go", "goes", "going"}
_MOTION = (
    "wyjdzie", "wyjdą", "wyjść", "wyjsc", "wychodz", "pójdzie", "pójdą", "pojdzie", "poleci", "polecą", "trafi",
    "уход", "уйдет", "уйдут", "уйти",
    # carried out: "за пределы этого компьютера ничего не выносить"
    "вынос", "вынес", "вынест",
)
_DESTINATION = {"do", "poza", "zewnątrz", "к", "наружу", "за", "дальше", "dalej"}
#: Bounds a thing is not to pass: "дальше моей почты", "poza moją skrzynkę", "beyond my inbox".
_BEYOND = {"дальше", "dalej", "poza", "beyond", "outside", "за", "пределы"}
#: The speaker's own, as a bound: no one else is to have what stays there.
_SPEAKERS = {
    "my", "me", "mine", "moja", "mojej", "moją", "mój", "mojego", "moich", "mnie", "мой", "моя", "моей", "моего",
    "моих", "меня",
}  # fmt: skip
#: Motion verbs of a thing reaching someone or somewhere: "it should not go to her", "must not end up on our
#: website", "не должен попасть на наш сайт", "nie może trafić na stronę", "не должно дойти до клиентов".
_ARRIVING_EN = {
    "go", "goes", "get", "gets", "reach", "reaches", "land", "lands", "leak", "leaks", "end", "ends", "make", "find",
    "turn", "turns", "turning", "show", "shows", "showing", "pop", "pops", "popping",
}  # fmt: skip
#: English verbs of arriving that need "up" after them: "end up", "turn up", "show up", "pop up".
_ARRIVING_UP = {"end", "ends", "turn", "turns", "turning", "show", "shows", "showing", "pop", "pops", "popping"}
#: English past forms of arriving that a wish uses for what must not happen ("I'd rather nothing went out").
_EN_WISHED_PAST = {
    "went": "go", "got": "get", "reached": "reach", "landed": "land", "leaked": "leak", "ended": "end", "made": "make",
    "found": "find",
}  # fmt: skip
_ARRIVING = (
    "попаст", "попад", "дойт", "дойд", "доход", "утеч", "утек", "просоч", "dostać", "dostanie", "dostaną",
    "wyciek", "dotr", "trafi", "ушл", "уйд", "уйт", "wyszł", "wyjd",
    "pójd", "pojd", "пойд", "пойт", "idzie", "idą", "iść", "isc", "zawisn", "zawiśn", "pojawi", "появ", "poszł",
    # leaking, both aspects: "nic z tego nie może przeciec do firmy", "przecieknie do prasy"
    "przeciek", "przeciec", "wycieknie",
    # hanging and turning up somewhere: "żeby wisiał na fejsie", "чтобы оно оказалось на сайте"
    "wisi", "wisia", "висе", "виси", "оказа", "окаж",
    # landing somewhere: "żeby to wylądowało na kanale #ogólny" (not the folded "wyladow": unloading)
    "wyląd",
)
#: Verbs of entering that say a program reaches a machine only with a machine as the place ("Na tablety wejdzie
#: w maju", "if anything lands on the clubhouse PC"): an installation.
_ENTERING = ("wejd", "wejś", "wchodz", "войд", "зайд", "попад", "trafi", "=land", "=lands", "=get", "=gets", "=go")
#: Intransitive hanging: "zawiśnie w rejestracji", "повисит на проходной": put up for all who pass.
_HANGING = ("zawiśn", "zawisn", "повис")
#: Past motion forms that say a message leaves only as a subjunctive ("чтобы письмо не ушло клиенту").
_MOTION_PAST = ("ушл", "ушел", "wyszł", "wyszl")
#: Personal subjects: "you must not go to the meeting" is about a person moving, not a thing reaching anyone.
_PERSONAL = {
    "i", "you", "we", "he", "she", "me", "us", "please", "and", "or", "then", "so", "don't", "dont", "do", "let's",
}  # fmt: skip
#: What may stand between a thing and its motion verb: "it should not (ever) go", "the note is not to go".
_TO_MOTION = {
    "not", "never", "shouldn't", "mustn't", "won't", "can't", "cannot", "should", "must", "may", "can", "will",
    "ever", "to", "is", "are", "be", "allowed", "supposed", "meant", "under", "any", "circumstances", "up",
}  # fmt: skip
_PREMISES = {
    "building", "office", "company", "house", "team", "department", "premises", "room", "hands", "newsroom", "shop",
    "store", "studio", "clinic", "school", "site", "firm",
    # the machine or the ward the data is on: "patient identifiers don't leave this machine"
    "machine", "computer", "laptop", "ward", "network", "server",
}  # fmt: skip
#: States a place or a machine is left in: "leave the machine on", "leave the office open".
_LEFT_IN = {"on", "off", "open", "alone", "as", "untouched", "running", "unlocked", "locked", "empty", "idle"}
_SOMETHING = {
    "anything", "something", "nothing", "cokolwiek", "coś", "cos", "żadne", "żaden", "żadna", "ничего", "ничто",
    "нибудь", "либо", "то",
}
#: A destination that is everyone: what goes out to them is published ("to staff", "do ludzi", "сотрудникам").
_AUDIENCE = (
    "staff", "employee", "everyone", "everybody", "public", "people", "workforce", "ludzi", "ludzie", "wszystk",
    "pracowni", "publiczn", "załog", "personel", "сотрудник", "всем", "люд", "публичн", "работник", "персонал",
    "коллектив",
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
_PAST_PL = re.compile(r"(?:ł|łe[mś]|ła|ło|łam|łaś|li|ły|łyśmy|liśmy|no)$")
#: A Polish past tense typed without Polish letters, after "nie": "nie naniosl", "nie wyslala", "nie zrobili".
_FOLDED_PAST_PL = re.compile(r"(?:l|la|lo|li|ly|lem|les|lam|las)$")
_PAST_RU = re.compile(r"(?:л|ла|ли|ло|лся|лась|лись)$")
#: How many words a scope runs past the last operator before it gives up.
_REACH = 6

#: A negated necessity after the action it governs ("отправлять не надо", "wysyłać nie trzeba", "sending is not
#: needed"): "не"/"nie" + a modal, "is not" + an adjective of need, "is" + "unnecessary" (`_negated_necessity`).
_NECESSITY_RU = {
    "надо", "нужно", "нужен", "нужна", "нужны", "стоит", "требуется", "следует", "обязательно", "необходимо",
    "должно", "должен", "должна", "должны",
}  # fmt: skip
_NECESSITY_PL = {
    "trzeba", "należy", "wolno", "warto", "potrzeba", "musisz", "musicie", "musimy", "można", "powinieneś",
    "powinnaś", "powinniście", "powinno",
}  # fmt: skip
_NECESSARY_EN = {"needed", "necessary", "required", "advisable", "wanted"}
_NECESSARY_PL = {"potrzebne", "potrzebny", "potrzebna", "konieczne", "konieczny", "konieczna", "wymagane", "wymagany"}
_UNNECESSARY = {"unnecessary", "zbędne", "zbędny", "zbędna", "niepotrzebne", "niepotrzebny", "niepotrzebna", "незачем"}
#: What may follow a postposed negated necessity in its clause: nothing that could be its own verb.
_POSTPOSED_TAIL = _ELLIPTIC | {
    "yet", "for", "anymore", "all", "it", "them", "this", "that", "wcale", "już", "tego", "go", "jej", "ich",
    "вообще", "совсем", "уже", "его", "ее", "их", "это", "никому", "nikomu",
    # how long: "ставить её не надо до конца сезона", "nie trzeba do końca miesiąca", "not needed until May"
    "до", "конца", "сезона", "месяца", "недели", "года", "do", "końca", "konca", "sezonu", "miesiąca", "tygodnia",
    "until", "till", "the", "end", "of", "season", "month", "week",
}  # fmt: skip


# fmt: off
#: Verbs of running code: code execution unless a device is near ("run the pumps" is physical).
_EXECUTING = (
    "=run", "=running", "=rerun", "=execute", "execut", "=launch", "uruchom", "urucham", "odpal", "запуск", "запуст",
    "прогон", "прогнат", "прогони", "перезапус",
    # restarting and rebooting run the service again: "don't restart anything", "restartów nie rób", "не перезагружай"
    "=restart", "=restarts", "=reboot", "restartuj", "zrestartuj", "restartów", "restartow", "!restarty", "перезагру",
)
_RESTARTING = ("restart", "zrestart", "reboot", "перезагру", "перезапус")
#: Building, compiling and testing software run its code (a build runs the project's scripts, a test its code):
#: "skip the build", "no builds", "nie buduj", "testy pomiń", "без сборки", "не тестируй". With a device near, a
#: test operates the device ("test the sirens"); "the building" after a determiner is a house.
_BUILDING = (
    "=build", "=rebuild", "=compile", "=recompile", "=test", "=retest", "buduj", "zbuduj", "przebud", "budowa",
    "zbudowa", "kompil", "skompil", "przekompil", "testy", "testów", "testow", "testuj", "testach", "testami",
    "przetest", "сборк", "пересборк", "пересобер", "пересобир", "билд", "компил", "скомпил", "перекомпил", "тест",
    "протест", "оттест",
)  # fmt: skip
#: Adjective endings: "telefony testowe", "środowisko testowe", "тестовый сервер" name a thing, not a step.
_ADJECTIVE_ENDINGS = (
    "owy", "owa", "owe", "owej", "owego", "owych", "owym", "owymi", "ową", "овый", "овая", "овое", "овой", "овых",
    "овым", "овую", "овые", "ового", "овыми",
)  # fmt: skip
#: Verbs of carrying out that run code only with code as their object ("wykonaj skrypt", "выполнять его"); Russian
#: "собрать" builds only with code as its object ("собери его"), else it gathers ("собери данные").
_EXECUTING_WITH_CODE = (
    "wykon", "выполн", "=trigger", "=start", "puść", "puszcz", "puści", "собер", "собир", "собра", "=restart",
    "restartu", "=kick", "=fire",
)
_CODE_OBJECTS = (
    "script", "=code", "program", "migration", "=job", "=tool", "=it", "=test", "=tests", "skrypt", "=kod", "=kodu",
    "=go", "migracj", "narzędzi", "test", "скрипт", "=код", "=кода", "программ", "миграц", "=его", "=него", "тест",
    "=joba", "=jobie", "=joby", "джоб", "=джоба", "=задание", "=задачу",
    # jobs by what they do, and the services that run them: "don't kick the export off", "не перезапускай сервис"
    "=export", "=exports", "=import", "=imports", "=backup", "=sync", "=pipeline", "=service", "=services",
    "=daemon", "eksport",
    # what runs a service: "bez restartu podów", "don't restart the containers", "не перезапускай поды"
    "=pod", "=pods", "podów", "podow", "=pody", "поды", "подов", "=container", "=containers", "kontener", "контейнер",
    "=worker", "=workers", "воркер", "workera", "=node", "=nodes", "node'ów", "нод",
    # commands: "nie puszczaj żadnych komend", "don't fire any commands", "никаких команд не запускай"
    "komend", "poleceń", "polecen", "=command", "=commands", "команд",
)
#: What an update installs: "no updating the firmware", "don't update the driver", "nie aktualizuj sterowników".
_SOFTWARE = (
    "firmware", "driver", "software", "=app", "=apps", "=os", "sterownik", "oprogramow", "драйвер", "прошивк",
    "=по",
    # a site's plugins and theme: "don't update the theme or any plugins", "wtyczek nie aktualizuj", "плагины"
    "plugin", "=theme", "wtyczk", "плагин",
)
#: Verbs of placing: a publication when the place is a venue everyone reads ("post it on the board").
_PLACING = (
    "=put", "=post", "=upload", "=hang", "=pin", "=place", "=stick", "=drop", "=print", "wrzuc", "wrzuć", "wstaw",
    "umieść", "umiesc", "umieszcz", "powieś", "powies", "вешат", "вешай", "вешаем", "повес", "повеш", "залей", "залить",
    "wiesza", "wieszaj", "przypin", "przypnij", "przyczep", "naklej", "приклеи", "приклей", "прикреп",
    "закин", "закид", "выложи", "выклад", "wystaw", "wpis", "=tack",
    # placing it on a page: "nie zamieszczać na stronie instytutu"
    "zamieszcz", "zamieść", "zamiesc", "zamieści",
)
#: The media, a venue reached by sending to them (not Polish "prasa", also a machine, nor Russian "пресс").
PRESS = ("=media", "=mediów", "=mediow", "=mediach", "=mediom", "сми", "=прессу", "=пресса", "=прессе", "=прессы")
_VENUES = (
    "website", "=site", "=web", "=page", "homepage", "intranet", "intranec", "=board", "noticeboard", "=wiki",
    "portal", "blog",
    # a bulletin is read by all who get it: "not to be printed in the parish newsletter", "w biuletynie gminy"
    "newsletter", "bulletin", "biuletyn", "gazetk", "бюллетен", "стенгазет",
    "stron", "witryn", "tablic", "portal", "=wiki", "сайт", "страниц", "интранет", "доск", "вики", "портал", "блог",
    "стенд", "=stand", "gablot", "gabloc", "corkboard", "=noticeboards", "pinboard",
    # a screen in a shared room shows it to all who pass: "nothing goes up on the cover screen in the staffroom"
    "=screen", "=screens", "ekran", "экран",
    # a shared calendar is read by everyone who has it: "do wspólnego kalendarza zmian nie wpisuj", "не вноси в общий
    # календарь", "don't put it in the team calendar"
    "=calendar", "kalendarz", "календар",
    # on air: "В эфир — только после моего звонка", "na antenę", "nothing on air until I call"
    "эфир", "=antenę", "=antenie", "=air",
    # the media print and broadcast to everyone: "Do mediów nic nie idzie", "В прессу ни слова"
    *PRESS,
    # social media are venues too: "not on the clinic's Facebook page", "в соцсети", "na fanpage'u"
    "facebook", "instagram", "linkedin", "tiktok", "twitter", "youtube", "fanpage", "społecznościow", "соцсет", "fejs",
    "discord",
    "=fb", "olx", "allegro", "otomoto", "авито", "avito", "ebay", "gumtree", "craigslist", "vinted",
    "социальн", "вконтакт", "=vk", "одноклассник",
)
#: The internet as a place a thing goes: "Zanim cokolwiek pójdzie do sieci", "ничего не уходит в сеть", "online".
_ONLINE = ("=sieci", "=sieć", "=internet", "=internetu", "=online", "=интернет", "=сеть")
#: Nowhere and anywhere are every venue: "nigdzie go nie wystawiaj", "don't post it anywhere", "никуда не выкладывай".
_ANYWHERE = {"nowhere", "anywhere", "nigdzie", "gdziekolwiek", "никуда", "нигде", "куда-либо", "куда-нибудь"}
# fmt: on


_CHATS = (
    "=chat",
    "=channel",
    "slack",
    "=teams",
    "=group",
    "whatsapp",
    "telegram",
    "czat",
    "kanał",
    "kanal",
    "grup",
    "чат",
    "канал",
    "групп",
    "телеграм",
)
_SERVERS = (
    "server",
    "=prod",
    # the slang's cases: "na proda", "na prodzie", "на проде"
    "=proda",
    "=prodzie",
    "=проде",
    "production",
    "serwer",
    "produkc",
    "сервер",
    "=прод",
    "продакшн",
    "продакшен",
    # the machines people install on: "the librarians' PCs", "kasy", "рабочие компьютеры", "на кассы"
    "=pc",
    "computer",
    "laptop",
    "=till",
    "komputer",
    "=kasy",
    "=kasach",
    "компьютер",
    "ноутбук",
    "=кассы",
    "=кассах",
    "=кассу",
    # tablets too: "pushing it to the tablets", "na tablety w szatni", "на планшеты"
    "tablet",
    "планшет",
)
#: Storage someone else runs: what goes there leaves the user's machine.
_CLOUDS = ("cloud", "chmur", "облак", "dropbox", "onedrive", "icloud", "=gdrive")
_LOADING = ("загруж", "загрузи", "загрузить", "выгруз", "=sync", "synchroniz", "синхрониз")
_UPDATING = ("=update", "=patch", "=upgrade", "=push")
#: Pushing to a repository sends the code out: "push it to the repo", "в репозиторий не пушь", "nie pushuj na gita",
#: "żadnego pushowania do repo".
_PUSHING = (
    "=push", "pushuj", "spushuj", "pushowa", "spushowa", "=pusha", "=pushy", "wypchn", "wypych", "пуш", "запуш",
)  # fmt: skip
_REPOSITORIES = (
    "repo", "репо", "github", "gitlab", "bitbucket", "=origin", "=remote", "=gita", "=git", "=tag", "=tags",
)  # fmt: skip
#: Merging into a shared branch publishes the code to everyone who works on it.
_MERGING = ("=merge", "=merging", "zmerguj", "mergu", "мерж", "смерж", "вмерж", "слей", "сливай")
_BRANCHES = ("=main", "=master", "=develop", "=trunk", "branch", "gałęzi", "gałąź", "ветк", "мастер")
#: Writing to someone is a message ("don't write to the supplier", "nie pisz do przewoźnika"); writing alone is not.
_WRITING_TO = ("=write", "pisz", "napisz", "pisać", "pisac", "napisać", "napisac")
#: What is written into, not to: "written to the master sheet", "do arkusza", "в таблицу".
_WRITTEN_INTO = (
    "=sheet", "spreadsheet", "=table", "=file", "=files", "folder", "=disk", "=drive", "database", "=log", "=db",
    "master", "arkusz", "tabel", "plik", "dysk", "baz", "katalog", "лист", "таблиц", "файл", "диск", "баз", "журнал",
)  # fmt: skip


def _writes_to_someone(words: list[str], index: int) -> bool:
    """A recipient at `index` that is not a place data is written into ("to the supplier", not "to the sheet")."""
    if not _recipient(words, index, "pl"):
        return False
    # the noun phrase after "to", up to three words: "to the real inventory database" is written into
    after = [w for w in words[index + 1 : index + 5] if w not in _DETERMINERS]
    phrase = list(itertools.takewhile(lambda w: w[0].isalpha() and w not in _PLACE_PREPOSITIONS, after))
    return not any(_whole(_WRITTEN_INTO, w) for w in (phrase or after)[:3])


#: Verbs of writing that write a file when a file is where they write: "write to the doc", "пиши в документ".
_WRITING_INTO = (*_WRITING_TO, "пиш", "напиш", "впиш", "запиш", "допиш")
#: What may stand between writing and where it writes: "write (anything) to the doc", "nie pisz nic do pliku".
_BEFORE_THE_PLACE = {"to", "into", "in", "anything", "nothing", "something", "more", "do", "w", "we", "nic", "niczego",
                     "coś", "в", "во", "ничего", "что-нибудь", "что-то", "сюда"}  # fmt: skip


def _writes_into_a_file(words: list[str], index: int) -> bool:
    """What the writing verb at `index` writes to is a file or a sheet: its first two words name one ("to the doc",
    "to the shared doc", "do arkusza"), or the place is fronted ("В нашу рабочую базу ничего не пиши")."""
    named = [w for w in words[index + 1 : index + 7] if w not in _BEFORE_THE_PLACE and w not in _DETERMINERS]
    if any(_whole(_WRITTEN_INTO, w) or _whole(_FILE_PLACES, w) for w in named[:2]):
        return True
    start = _clause_span(words, index)[0]
    return any(
        words[k] in ("в", "во", "do", "into") and any(_whole(_WRITTEN_INTO, w) for w in words[k + 1 : k + 4])
        for k in range(start, index)
    )


#: Making or dropping files in the user's places: "don't create a doc", "no files in my Notes folder".
_CREATING = (
    "=create", "=drop", "=dump", "utwórz", "utworz", "twórz", "tworz", "создава", "созда", "zakład", "zaklad", "załóż",
    "zaloz",
)  # fmt: skip
_FILE_PLACES = (
    "=doc", "=docs", "document", "=file", "=files", "folder", "director", "plik", "katalog", "dokument", "файл", "папк",
    "документ",
)  # fmt: skip
#: A chat everyone reads: "the all-staff channel", "kanał ogólnofirmowy", "общий канал", "the company-wide chat".
_EVERYONE = (
    "all-staff", "all-hands", "company-wide", "companywide", "=general", "ogólnofirm", "ogolnofirm", "ogóln", "ogoln",
    "общ", "общекорпоратив", "корпоратив", "=everyone", "=staff",
    # a shared channel is everyone's in its team: "the security team's shared channel", "wspólny kanał zespołu"
    "=shared", "wspóln", "wspoln",
    # a group's chat is read by the whole group: "the drivers' group chat", "родительские чаты", "czat grupowy"
    "=group", "группов", "grupow", "родительск", "родител", "=parents", "=parents'", "rodzic",
)  # fmt: skip


#: The public a chat is for, after "for": "в телеграм-канал для клиентов", "kanał dla mieszkańców" (not "в чат
#: клиенту": written to one client).
_PUBLIC_AUDIENCE = (
    "=customers", "=clients", "=public", "=subscribers", "=followers", "=residents", "klientów", "klientow",
    "mieszkańców", "mieszkancow", "subskrybentów", "obserwujących", "клиентов", "подписчиков", "жителей",
)  # fmt: skip
#: A chat named as the public's, right beside it: "the customers' channel", "kanał publiczny", "публичный чат".
_PUBLIC_CHAT = ("=customers'", "=public", "publiczn", "публичн", "открыт", "клиентск")


def _everyone_beside(words: list[str], chats: list[int], start: int, end: int) -> bool:
    """Whether a word of everyone stands right before or after one of the chats at `chats`, or the public it is for
    within three words after it, within [start, end)."""
    if any(_whole(_EVERYONE + _PUBLIC_CHAT, words[j]) for k in chats for j in (k - 1, k + 1) if start <= j < end):
        return True
    return any(
        words[j] in ("for", "dla", "для") and j + 1 < end and _whole(_PUBLIC_AUDIENCE, words[j + 1])
        for k in chats
        for j in range(k + 1, min(end, k + 3))
    )


_INTO = ("in", "into", "on", "to", "w", "na", "do", "в", "во")
#: What a word of sending carries, between it and its place: "send it to …", "nie wysyłaj nic na …", "не кидай это в …".
_CARRIED = {"it", "this", "that", "anything", "nothing", "nic", "niczego", "tego", "ничего", "это", "его", "их"}


def _into_everyones_chat(words: list[str], index: int) -> bool:
    """A chat everyone reads as where the word at `index` sends a thing: right after it ("messages in the all-staff
    channel", "сообщений в общий чат", "wiadomości na kanale ogólnym") or fronted before it in its clause ("в общий
    чат сотрудников не кидай"): a preposition, then the chat within three words."""
    start = max(_clause_span(words, index)[0], index - 10)
    # a second verb shares the first one's place only when nothing of its own stands before it: "в общий канал не
    # выкладывай и не кидай", not "в общий канал не выкладывай и ей не отправляй" (to her: sent)
    joined = next((k for k in range(index - 1, start - 1, -1) if words[k] in _CONTINUE), None)
    if joined is not None and any(w not in _VERBAL and w not in _PARTICLES for w in words[joined + 1 : index]):
        start = joined + 1
    fronted = [k for k in range(start, index) if words[k] in _INTO]
    # the place after the word, past a pronoun or an indefinite thing: "nie wysyłaj nic na czat grupowy"
    after = next((k for k in range(index + 1, min(len(words), index + 3)) if words[k] not in _CARRIED), len(words))
    for at in ([after] if after < len(words) else []) + fronted[:1]:
        if words[at] not in _INTO:
            continue
        place = [w for w in words[at + 1 : min(at + 8, index if at < index else len(words))]
                 if w not in _DETERMINERS and w != "-"][:4]  # fmt: skip
        if _everyone_beside(place, [k for k, w in enumerate(place) if _whole(_CHATS, w)], 0, len(place)):
            return True
    return False


def _venue_near(words: list[str], index: int, venues: tuple[str, ...] = _VENUES, reach: int = 6) -> bool:
    """A venue everyone reads within the clause around `index` ("on the website", "na stronę", "на доску"), or
    another kind of place (`venues`), at most `reach` words after it."""
    start = next(
        (k + 1 for k in range(index - 1, max(-1, index - 8), -1) if words[k] in _CLAUSE_BREAK), max(0, index - 7)
    )
    end = next(
        (k for k in range(index + 1, min(len(words), index + reach)) if words[k] in _CLAUSE_BREAK),
        min(len(words), index + reach),
    )
    return any(_whole(venues, w) for w in words[start:end] if w != words[index])


def _clause_span(words: list[str], index: int) -> tuple[int, int]:
    """[start, end) of the clause `index` is in: between the clause breaks around it."""
    start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
    end = next((k for k in range(index, len(words)) if words[k] in _CLAUSE_BREAK), len(words))
    return start, end


def _anywhere_near(words: list[str], index: int) -> bool:
    """ "nowhere", "anywhere", "nigdzie", "никуда" within four words of `index`, in its clause."""
    for step in (-1, 1):
        for k in range(index + step, index + 5 * step, step):
            if not 0 <= k < len(words) or words[k] in _CLAUSE_BREAK:
                break
            if words[k] in _ANYWHERE:
                return True
    return False


@dataclass(frozen=True, slots=True)
class ForbiddenAction:
    """An effect class the text forbids (or, with `forbids=False`, a reading that lifts it), with the words."""

    effect: EffectClass
    trigger: str
    word: str
    forbids: bool = True


@dataclass(frozen=True, slots=True)
class _Chain:
    """What one negation scope reached: the operators met, the action (index, effect) or None, and the polarity."""

    operators: tuple[str, ...]
    index: int | None
    effect: EffectClass | None
    negations: int
    end: int
    spent: bool = False


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'").replace("ё", "е"))


def _negated_necessity(words: list[str], index: int) -> tuple[int, list[str]] | None:
    """A negated necessity at `index` (how many tokens, the operator to move before its action), or None."""
    word = words[index]
    after = words[index + 1 : index + 4]
    if word in ("не", "nie") and after and after[0] in (_NECESSITY_RU if word == "не" else _NECESSITY_PL):
        return 2, [word, after[0]]
    if word == "nie" and after[:1] == ["ma"] and after[1:2] and after[1] in ("potrzeby", "sensu", "co"):
        return 3, ["nie", "trzeba"]
    if word == "nie" and after[:1] and after[0] in ("jest", "są") and after[1:2] and after[1] in _NECESSARY_PL:
        return 3, ["nie", "trzeba"]
    if word == "нельзя":
        return 1, ["нельзя"]
    if word == "незачем":
        return 1, ["не", "нужно"]
    if word in ("jest", "są") and after[:1] and after[0] in _UNNECESSARY:
        return 2, ["nie", "trzeba"]
    if word in ("is", "are", "it's", "'s") and after[:1] == ["not"] and after[1:2] and after[1] in _NECESSARY_EN:
        return 3, ["no", "need"]
    if word in ("isn't", "aren't") and after[:1] and after[0] in _NECESSARY_EN:
        return 2, ["no", "need"]
    if word in ("is", "are") and after[:1] and after[0] in _UNNECESSARY:
        return 2, ["no", "need"]
    return None


def _front_postposed(words: list[str]) -> list[str]:
    """Move a negated necessity that follows the action it governs before that action: "отправлять пока не нужно"
    reads as "не нужно отправлять", "sending it is not needed" as "no need sending it", and "откладывать рассылку не
    нужно" as "не нужно откладывать рассылку" (a negation of a negative operator: lifted)."""
    sentence = _sentences(words)
    index = 0
    while index < len(words):
        found = _negated_necessity(words, index)
        if found is None:
            index += 1
            continue
        span, operator = found
        end = index + span
        tail_end = next((k for k in range(end, len(words)) if words[k] in _CLAUSE_BREAK), len(words))
        question = sentence[index] in questions_in(words, sentence)
        start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
        target = next((k for k in range(index - 1, start - 1, -1) if action_of(words, k) is not None), None)
        if target is None or question or not all(w in _POSTPOSED_TAIL for w in words[end:tail_end]):
            index = end
            continue
        # extend back over the operators and coordinated actions that the necessity governs with it
        first = target
        k = target - 1
        while k >= start:
            if action_of(words, k) is not None or _operator(words, k) is not None:
                first = k
            elif words[k] in _COORDINATORS:
                if not (k > start and (action_of(words, k - 1) is not None or _operator(words, k - 1) is not None)):
                    break
            elif known_verb(words[k], "en") or known_verb(words[k], "pl") or known_verb(words[k], "ru"):
                break
            k -= 1
        words = [*words[:first], *operator, *words[first:index], *words[end:]]
        index += len(operator)
    return words


def _stem_match(stem: str, word: str) -> bool:
    if stem.startswith("="):
        base = stem[1:]
        if word in (base, base + "s", base + "es", base + "ed", base + "d", base + "ing", base[:-1] + "ing"):
            return True
        if base.endswith(("ite", "ide")) and word == base[:-1] + base[-2] + "en":
            return True  # "overwritten", "rewritten", "hidden"
        # a short verb doubles its last consonant: "putting", "setting", "stopped", "pinned"
        doubled = len(base) <= 4 and base[-1] not in "aeiouwxy"
        return doubled and word in (base + base[-1] + "ing", base + base[-1] + "ed")
    if stem.startswith("!"):
        return word.startswith(stem[1:])
    if word.startswith(stem):
        return True
    return any(word.startswith(p) and word[len(p) :].startswith(stem) for p in _PREFIXES if len(word) > len(p) + 2)


#: Russian imperatives of sending that end like a past plural ("перешли команде", "разошли всем").
_IMPERATIVES_LIKE_PAST = {"перешли", "разошли", "отошли", "перешлите", "разошлите", "отошлите"}


def _is_past(word: str) -> bool:
    cyrillic = any("\u0400" <= ch <= "\u04ff" for ch in word)
    if len(word) <= 4 or word in _IMPERATIVES_LIKE_PAST:
        return False
    return bool(_PAST_RU.search(word)) if cyrillic else bool(_PAST_PL.search(word)) and not word.isascii()


#: Adverbs that begin like an action's stem: "wyłącznie do mnie" (only to me), "do piątku włącznie" (inclusive),
#: "по пятницу включительно", "исключительно мне" name no action.
_NOT_ACTION_WORDS = {
    "wyłącznie", "wylacznie", "włącznie", "wlacznie", "включительно", "исключительно",
    # signing oneself up: "пациенты не могут записаться" (not writing to anyone)
    "записаться", "записываться", "записался", "записалась", "записались",
    # a till's, not deleting: "serwer kasowy", "na drukarce kasowej" (kasować is to delete)
    "kasowy", "kasowa", "kasowe", "kasowym", "kasowej", "kasowego", "kasowych", "kasowymi",
}  # fmt: skip
#: Words that begin like a sending stem and name no sending: "nie przesłodzone" (too sweet), "wysłuchaj" (listen),
#: "przesłuchanie" (a hearing).
_NOT_ACTION_PREFIXES = (
    "przesłodz", "przeslodz", "przesłuch", "przesluch", "wysłuch", "wysluch",
    # "удалёнщики" (remote workers), "удалённо" (remotely), "удалённый доступ": far away, not deleting
    "удаленщ", "удалёнщ", "удаленн", "удалённ",
)  # fmt: skip


def _is_action_stem(word: str) -> bool:
    if word in _NOT_ACTION_WORDS or word.startswith(_NOT_ACTION_PREFIXES):
        return False
    return any(_stem_match(stem, word) for stems in _ACTIONS.values() for stem in stems)


#: English words that are verbs of an effect and nouns too: after a determiner they name a thing.
_VERB_NOUNS = {"text", "call", "message", "reply", "contact", "texts", "calls", "messages", "replies"}


def _puts_it_up(words: list[str], index: int) -> bool:
    """ "put it up", "put the rota up": a short object, then "up" (not "put up with", to bear it)."""
    after = words[index + 1 : index + 5]
    up = next((k for k, w in enumerate(after[:4]) if w == "up"), None)
    if up is None or any(w in _CLAUSE_BREAK for w in after[:up]):
        return False
    return after[up + 1 : up + 2] != ["with"] and (up == 0 or after[0] in ("it", "this", "them", "the", "that"))


#: Forms of "to be" and of seeming, before an adjective that is also a verb ("is correct", "looks correct").
_BEING = {
    "is", "are", "was", "were", "be", "been", "being", "isn't", "aren't", "wasn't", "weren't", "isnt", "arent",
    "wasnt", "werent", "looks", "look", "seems", "seem", "'s", "'re", "quite", "totally", "entirely", "all",
}  # fmt: skip


def action_of(words: list[str], index: int) -> EffectClass | None:
    """The effect class of the action word at `index`, or None (also for a past tense: it describes)."""
    word = words[index]
    if not word[0].isalnum() or word in _NOT_ACTION_WORDS or word.startswith(_NOT_ACTION_PREFIXES):
        return None
    if word == "go" and _polish_pronoun(words, index):
        return None  # "zabraniam go uruchamiać", "nie wysyłaj go": the Polish pronoun, not English "go"
    if _whole(_LAUNCHING, word) and not _is_past(word):
        launched = _launched_action(words, index)
        if launched is not None:
            return launched  # "Отправку не запускай", "nie odpalaj wysyłki": the sending is what starts
    if _whole(_PLACING, word) and _venue_near(words, index, _CHATS):
        # "post it in the team chat", "nie wrzucaj na grupę zespołu", "в общий канал не выкладывай": put up where a
        # group reads it (a message sent to one person is a transmission: "кинь ему в чат")
        return "publication"
    if (_whole(_PLACING, word) or _whole(_LOADING, word)) and _venue_near(words, index, _CLOUDS):
        return "external_transmission"  # "в облако её не загружай", "nie wrzucaj tego do chmury": sent off the machine
    if _whole(_PUSHING, word) and (
        _venue_near(words, index, _REPOSITORIES, 8) or any(_whole(_REPOSITORIES, w) for w in words[:index])
    ):
        return "external_transmission"  # "в репозиторий ничего не пушь", "don't push it to the repo": sent out
    if _whole(_MERGING, word) and _venue_near(words, index, _BRANCHES, 6):
        return "external_transmission"  # "merge в main без меня не делать", "don't merge into master": shared code
    if _whole(_WRITING_INTO, word) and _writes_into_a_file(words, index):
        return "local_write"  # "don't write to the doc", "nie pisz nic do dokumentu", "ничего не пиши в документ"
    if _whole(_WRITING_TO, word) and index + 1 < len(words) and _writes_to_someone(words, index + 1):
        return "external_transmission"  # "nie pisz do przewoźnika", "don't write to the supplier": a message
    if _whole(_WRITING_TO, word) and any(
        words[k] == "do" and _writes_to_someone(words, k) for k in range(max(0, index - 4), index)
    ):
        return "external_transmission"  # "zanim do niej napiszesz", "Do klienta nie pisz": the one written to, fronted
    if _whole(_CREATING, word) and _venue_near(words, index, _FILE_PLACES + _WRITTEN_INTO, 8):
        return "local_write"  # "don't create a doc", "don't drop files into my folder", "na bazie nic nie zakładaj"
    if (_whole(_UPDATING, word) or _whole(_PLACING, word)) and _venue_near(words, index, _SERVERS):
        if _whole(_PLACING, word) and _placed_first_on_a_venue(words, index):
            return "publication"  # "… na serwerach ani nie wrzucaj komunikatu o nowej wersji na stronę urzędu"
        return "installation"  # "update the app on the server", "wrzucę na produkcję"
    if _whole(("=get",), word) and "onto" in words[index + 1 : index + 6] and _venue_near(words, index, _SERVERS, 9):
        return "installation"  # "getting it onto the reception PCs"
    if _whole(_UPDATING, word) and _updates_software(words, index):
        return "installation"  # "no updating the firmware", "the driver: don't update it"
    if word.startswith("zmian") and index and words[index - 1].startswith(_SHIFT_CONTEXT):
        return None  # "kierowników zmian", "trzy zmiany", "nocnej zmiany": work shifts, not changes
    if word == "shared" and index + 1 < len(words) and _whole(_FILE_PLACES + _WRITTEN_INTO + _CHATS, words[index + 1]):
        return None  # "the shared drive", "our shared channel": where things are, not a sharing
    if _whole(_PLACING, word) and _puts_into_files(words, index):
        return "local_write"  # "nie wrzucaj jej do wspólnego folderu", "don't upload it to the drive": a file put
    if word in ("put", "putting", "puts") and _puts_it_up(words, index):
        return "publication"  # "so don't put it up yourself", "don't put the rota up yet": posted for all to read
    if word in ("pay", "paying") and any(w in ("attention", "heed", "mind") for w in words[index + 1 : index + 3]):
        return None  # "don't pay attention to the beeping": heeding, not paying
    if word.startswith("став") and _assigns_shifts(words, index):
        return None  # "больше двух ночных подряд никому не ставь": shifts put on people, not software installed
    if word == "public" and index + 1 < len(words) and words[index + 1][0].isalpha():
        return None  # "public holidays", "public transport": an adjective ("make it public", "go public" publish)
    if (
        word == "correct"
        and index
        and (words[index - 1] in _BEING or (words[index - 1] == "not" and words[index - 2 : index - 1] != ["do"]))
    ):
        return None  # "the totals are not correct", "nothing is correct": the adjective ("don't correct it": the verb)
    if word in _VERB_NOUNS and index and words[index - 1] in ("the", "a", "an", "this", "that", "my", "our", "your"):
        return None  # "just the text", "a call with the client": the noun, not the verb
    if word in ("call", "calls") and index and words[index - 1] in ("on", "-"):
        return None  # "nobody on call the week before their leave", "the on-call rota": a duty, not a phone call
    if index > 1 and words[index - 1] == "-" and words[index - 2] in ("mid", "half"):
        return None  # "we're mid-run till sunday": a state, not the verb
    if _whole(_CLEARING, word) and not _is_past(word):
        start = _clause_span(words, index)[0]
        near = words[max(start, index - 4) : index] + words[index + 1 : index + 4]
        if any(_device(w) for w in near):
            return "physical"  # "Alarmów na hali nie kasuj", "don't clear the alarm on the panel": a device's state
    if (
        word in ("go", "come")
        and words[index + 1 : index + 2] == ["near"]
        and any(_device(w) for w in words[index + 2 : index + 6])
    ):
        return "physical"  # "don't go near the main stopcock yourself": leave the device alone
    if _cuts_a_supply(words, index):
        return "physical"  # "don't shut off the main water", "nie zakręcaj wody", "газ не перекрывай"
    if _changes_a_device(words, index):
        return "physical"  # "don't change the setpoint", "Nie zmieniaj nastawy w chłodni", "Уставку не меняй"
    if _switches_off_a_server(words, index):
        return "code_execution"  # "Серверы не гаси", "nie wyłączaj serwera", "don't shut the servers down"
    if _orders(words, index):
        return "external_transmission"  # "don't order the parts yet", "niczego nie zamawiaj", "не заказывай"
    if _rings_someone(words, index):
        return "external_transmission"  # "don't ring the landlord yet", "never phone her at home": a call
    if _tells_someone(words, index):
        return "external_transmission"  # "don't tell the client yet", "let the supplier know once I approve"
    if _whole(_CONFIRMING, word) and not _is_past(word) and _confirmed_to_someone(words, index):
        return "external_transmission"  # "Grupie jeszcze nic nie potwierdzaj", "don't confirm anything to them"
    if (
        word in ("copy", "copying", "copied")
        and words[index + 1 : index + 2] == ["in"]
        and (word != "copied" or (index and words[index - 1] in ("get", "gets", "be", "being")))
    ):
        return "external_transmission"  # "don't copy the tutors in", "form tutors don't get copied in": a cc
    if word.startswith(("puść", "puszcz", "puści")) and any(
        w.startswith(_BY_MAIL) for w in words[max(_clause_span(words, index)[0], index - 6) : index + 4]
    ):
        return "external_transmission"  # "mailem go jeszcze nie puszczaj", "puść to mailem do klienta": sent
    if any(_stem_match(stem, word) for stem in _ENTERING_INTO) and not _is_past(word):
        places = {effect for _, effect in _places_entered(words, index)}
        if places == {"publication"}:
            return "publication"  # "на доску замен не вноси", "don't write it on the noticeboard": where all read
        if places == {"physical"}:
            return "physical"  # "в контроллер ничего не вбивай", "nic nie wprowadzaj do sterownika": a device set
    for effect, stems in _ACTIONS.items():
        if any(_stem_match(stem, word) for stem in stems):
            if _is_past(word) and not _subjunctive(words, index) and not _impersonal_rule(words, index):
                return None  # "wysłał" tells; "(nie chcę,) żebyś to wysyłał", "чтобы ты это отправлял" wish
            if effect == "external_transmission" and (
                _into_everyones_chat(words, index) or _onto_a_venue(words, index)
            ):
                return "publication"  # "ни сообщений в общий чат", "no messages in the all-staff channel"
            if effect == "installation" and any(_whole(_SETPOINTS, w) for w in words[index + 1 : index + 8]):
                return "physical"  # "Поставь в контроллер новые уставки", "ustaw nastawy": a device is set
            return effect
    # two verbs sharing one object reach it past the second: "don't reset or silence any of the sensors"
    reach = 7 if index + 2 < len(words) and words[index + 1] in _CONTINUE else 5
    window = words[index + 1 : index + reach]
    window = window[: next((k for k, w in enumerate(window) if w in _CLAUSE_BREAK), len(window))]
    # a passive names its object before it: "the gate is not to be closed", "the job must not be restarted"
    passive = bool(index) and words[index - 1] in ("be", "been", "being") and word.endswith("ed")
    if word.startswith(_OPENING) and any(_whole(_EDITING, w) for w in words[max(0, index - 4) : index + 4]):
        return "local_write"  # "файл на редактирование не открывай", "don't open it for editing"
    if any(_stem_match(stem, word) for stem in _PHYSICAL_OPEN):
        # the device after the verb, or fronted before it in its clause ("Ворота не закрывай", "Szlabanem nie steruj",
        # "Alarmów na hali nie kasuj i nie wyciszaj")
        before = words[max(0, index - (6 if passive else 4)) : index]
        if index > 1 and words[index - 1] in _VERBAL and words[index - 2] in _CONTINUE:
            before = words[max(0, index - 8) : index]
        before = before[next((k + 1 for k in range(len(before) - 1, -1, -1) if before[k] in _CLAUSE_BREAK), 0) :]
        # "все двери закрыты" describes, it commands nothing; "Gate stays shut - no opening it" forbids
        negated = passive or (index > 0 and (words[index - 1] in _VERBAL or words[index - 1] == "no"))
        operated = any(_operated_device(words, index + 1 + k) for k in range(len(window)))
        # "Tych skryptów do sterowania pompami nie odpalaj": a script launched is code, whatever it drives
        scripted = any(_whole(_SCRIPTS, w) for w in words[_clause_span(words, index)[0] : index])
        if operated or (negated and any(_device(w) for w in before) and not scripted):
            return "physical"
        if any(w in _OBJECT_PRONOUNS for w in words[max(0, index - 3) : index + 2]) and any(
            _device(w) for w in words[max(0, index - 25) : index]
        ):
            return "physical"  # "Szlaban się zaciął. Nie próbuj go podnosić": the device named before, then "go"
        if word in ("turn", "switch") and window[:1] and window[0] in ("on", "off"):
            return "physical"
    if word in _MAKING_LIVE and "live" in window[:4]:
        return "publication"  # "don't make it live yet", "don't push the post live", "put this live"
    if word in ("roll", "rolls", "rolling", "rolled") and ("out" in window[:3] or "back" in window[:1]):
        return "installation"  # "rolling it out to the server", "nothing gets rolled out to the PCs"
    if (
        word.endswith("ed")
        and _whole(_PLACING, word)
        and any(w in _WISHING for w in words[max(0, index - 4) : index])
        and (_venue_after_placing(words, index) or _put_up(words, index))
    ):
        return "publication"  # an object's participle after a wish: "I don't want (to see) it pinned up on the board"
    if (_is_past(word) or word.endswith("ed") or word.startswith("ran")) and not passive:
        return _motion(words, index)
    if word.startswith("run") and ("past" in window[:3] or window[:2] in (["by", "me"], ["it", "by"])):
        return None  # "run it past me", "run it by me": shown to someone, not executed
    # restarting reaches further back for its device: "Kamer nie ruszaj — żadnego restartowania", "Станки не трогай,
    # ничего не перезапускай" restart the cameras and the machines
    restarting = word.startswith(_RESTARTING)
    if _whole(_EXECUTING, word):
        around = _sentence_range(words, index, max(0, index - (8 if restarting else 4)), index + 5)
        # "no running anything on my machine", "on the controller PC": a computer to run code on, not a device
        device = any(_operated_device(words, k) for k in around)
        if device and any(_whole(_SCRIPTS, w) for w in words[_clause_span(words, index)[0] : index + 5]):
            # "Tych skryptów do sterowania nie odpalaj": a script run is code, whatever device it drives
            return "code_execution"
        if not device:
            return "code_execution"  # "don't run it", "nie odpalaj go", "не запускай": a device makes it physical
        if restarting:
            return "physical"  # a device restarted is operated
    if _whole(_BUILDING, word):
        near = words[max(0, index - 4) : index + 5]
        if any(_device(w) for w in near):
            return "physical" if _whole(("=test", "=retest", "test", "тест", "протест", "przetest"), word) else None
        if word in ("building", "buildings") and index and words[index - 1] in _DETERMINERS:
            return None  # "outside the building", "our building": a house, not a build
        if word.endswith(_ADJECTIVE_ENDINGS):
            return None
        governing = next((w for w in reversed(words[max(0, index - 3) : index]) if w not in _DETERMINERS), None)
        if index and words[index - 1] in _DETERMINERS and governing is not None and _is_action_stem(governing):
            return None  # "install the build", "send the test results": the object of another action
        return "code_execution"
    # letting go ("puść", "puszczę") runs only a named program: "puść joba", not "przejrzę go i puszczę dalej"
    letting = word.startswith(("puść", "puszcz", "puści"))
    # a particle reaches past a quantifier: "don't kick off any of the diagnostic scripts"
    reach_code = 8 if words[index + 1 : index + 2] in (["off"], ["up"]) else 4
    if _whole(_EXECUTING_WITH_CODE, word) and any(
        _whole(_CODE_OBJECTS, w) and not (letting and w in ("go", "it", "его", "него"))
        for w in words[max(0, index - (6 if passive else 3)) : index + reach_code]
    ):
        return "code_execution"  # "wykonaj skrypt", "выполнять его"
    if letting and _on_a_server_or_base(words, index):
        return "code_execution"  # "nie ma mowy o puszczaniu tego na żywej bazie": run against the live database
    if _whole(_PLACING, word) and (
        _venue_after_placing(words, index)
        or _anywhere_near(words, index)
        or _put_up(words, index)
        or _venue_named_before(words, index)
    ):
        return "publication"  # "put it on the website", "wrzuć na stronę", "повешу на доску", "nigdzie nie wystawiaj"
    return _motion(words, index)


#: Programs by name: what is run when they are is code, whatever they drive.
_SCRIPTS = ("script", "skrypt", "скрипт", "=program", "=programs", "program", "программ")


def _on_a_server_or_base(words: list[str], index: int) -> bool:
    """ "na żywej bazie", "na produkcji", "na serwerze" within four words after `index`: where a thing is run."""
    after = words[index + 1 : index + 5]
    return any(
        w == "na" and any(_whole(_SERVERS, x) or x.startswith("baz") for x in after[k + 1 : k + 3])
        for k, w in enumerate(after)
    )


#: Ordering from a supplier sends the order out: the verbs (not the nouns "zamówienie", "заказ", "the orders").
_ORDERING_VERBS = (
    "zamów", "zamow", "zamaw", "заказыв", "закаж", "заказат", "заказал",
    # booking a service or a place: "nie rezerwuj terminu", "не бронируй", "umów serwisanta"
    "rezerwuj", "zarezerwuj", "rezerwowa", "zarezerwowa", "бронир", "заброни", "umawiaj", "umów", "umow",
)  # fmt: skip
_ORDER_NOUNS = ("zamówieni", "zamowieni", "zamówień", "zamowien")
#: Placing an order: "don't place the order", "zamówienia nie składaj", "заказ не оформляй".
_PLACING_ORDER = ("=place", "skład", "sklad", "złóż", "złoz", "zloz", "оформ", "размест")
_ORDERS = ("=order", "zamówieni", "zamowieni", "zamówień", "zamowien", "=заказ", "=заказы")
#: Who an order is placed with: "place it with the wholesaler", "złóż w hurtowni", "размести у поставщика".
_SUPPLIERS = ("=supplier", "=suppliers", "=wholesaler", "=wholesalers", "=vendor", "=vendors", "dostawc", "hurtowni",
              "поставщик", "оптовик")  # fmt: skip
#: Before English "order" as a verb: "I'll order it myself", "please order", "and order the parts".
_ORDERING_SUBJECTS = {"i'll", "ill", "we'll", "will", "i", "we", "you", "please", "and", "or", "then", "just"}


#: Calling by telephone, said with the verbs that are also nouns: "don't ring the landlord", "phone them tomorrow".
_RINGING = {"ring", "rings", "ringing", "phone", "phones", "phoning", "phoned"}
#: What is rung without calling anyone: "ring the bell", "ring a tone".
_RUNG_THINGS = ("=bell", "=chime", "=tone", "=changes", "=number")
_RING_PARTICLES = {"up", "round", "around", "back"}
#: What follows a call with no one named: "ring round for quotes", "phone about the leak", "ring in sick".
_NOT_CALLED = {"for", "about", "in", "at", "on", "with", "from", "if", "when", "sick", "off"}


def _rings_someone(words: list[str], index: int) -> bool:
    """English "ring" or "phone" at `index` used as the agent's verb (after a negation, "to", a coordinator or at a
    clause's start) with someone as its object: "the phone", "phones ringing" name the thing, "ring the bell" or
    "ring the siren" call no one."""
    previous = words[index - 1] if index else "."
    if words[index] not in _RINGING:
        return False
    if previous not in _VERBAL | _CONTINUE | _CLAUSE_BREAK | {"to", "please", "just"}:
        return False
    # past a particle ("ring up the client", "ring round the suppliers"); "ring round for quotes" names no one
    end = min(len(words), index + 5)
    target = next((j for j in range(index + 1, end) if words[j] not in _DETERMINERS | _RING_PARTICLES), None)
    if target is None or not words[target][0].isalpha() or words[target] in _BEING | _INVERTING | _NOT_CALLED:
        return False
    return not _whole(_RUNG_THINGS, words[target]) and not _device(words[target])


#: Telling, letting know and giving feedback: English verbs whose object is who hears it ("don't tell the client",
#: "let the supplier know once I approve", "give her feedback only after I say so").
_TELLING_VERBS = {"tell", "tells", "telling"}
_GIVING_VERBS = {"give", "gives", "giving"}
#: Objects of "tell" that are no one told: the speaker and the agent ("tell me how it holds up"), what is told apart,
#: and what "tell" judges ("tell whether", "tell the difference", "tell the time").
_NOT_TOLD = {
    "me", "us", "myself", "ourselves", "you", "yourself", "whether", "if", "how", "what", "why", "which", "when",
    "where", "who", "apart", "difference", "time", "truth", "story", "stories", "joke", "jokes", "lie", "lies", "from",
    "by", "straight", "so", "it", "this", "that",
}  # fmt: skip
#: Pronouns that name someone told or given something: "tell him", "give them the results".
_TOLD_PRONOUNS = {"him", "her", "them", "everyone", "everybody", "anyone", "anybody", "people", "others", "nobody"}
#: What, given to someone, is a message to them besides the outbound nouns: "give the candidate feedback", "give
#: them the results".
_GIVEN_MESSAGES = ("=results", "=result", "=numbers", "=figures", "=verdict")


def _tells_someone(words: list[str], index: int) -> bool:
    """English "tell X", "let X know" or "give X feedback" at `index`, where X is someone other than the speaker and
    the agent: what X hears is a message sent to them ("tell me how it holds up" asks for the answer)."""
    word = words[index]
    if index and words[index - 1] in ("a", "the"):
        return False  # "a tell": the noun
    following = words[index + 1 : index + 5]
    if not following or not following[0][0].isalpha():
        return False
    if word in _TELLING_VERBS:
        if following[0] in _TOLD_PRONOUNS:
            return True
        told = next((w for w in following if w not in _DETERMINERS), None)
        return told is not None and told[0].isalpha() and told not in _NOT_TOLD and not _device(told)
    if word in ("let", "lets", "letting"):
        # "let the supplier know", "let them know": someone else is to learn it
        rest = following[:3]
        return "know" in rest and rest[0] not in _NOT_TOLD and rest.index("know") >= 1
    if word in _GIVING_VERBS:
        # "give her feedback", "give the candidate the results": a person, then what they are given
        if following[0] in _NOT_TOLD:
            return False
        return any(_whole(_GIVEN_MESSAGES, w) or _whole(_OUTBOUND_NOUNS, w) for w in following[1:4])
    return False


#: Confirming to someone is a message to them (confirming the totals are right is not).
_CONFIRMING = ("=confirm", "potwierdz", "potwierdź", "подтвержд", "подтверди", "подтвердить")


def _confirmed_to_someone(words: list[str], index: int) -> bool:
    """A confirmation at `index` given to someone: a recipient in its clause ("to the group", "им") or an open
    object ("nic", "ничего", "anything") beside it."""
    start, end = _clause_span(words, index)
    near = range(max(start, index - 4), min(end, index + 5))
    return any(words[k] in _SOMETHING or words[k] in _NEGATE_BEFORE or _recipient(words, k) for k in near if k != index)


#: Shifts put on people: "никому не ставь две ночные подряд", "ему выходные не ставь".
_SHIFTS_RU = (
    "смен", "ночн", "дежур", "выходн", "подряд", "график",
    # a day put on someone: "Пете субботу не ставь", "на пятницу никого не ставь"
    "понедельн", "вторник", "сред", "четверг", "пятниц", "суббот", "воскресен", "утро", "утрен", "вечер",
)  # fmt: skip


def _assigns_shifts(words: list[str], index: int) -> bool:
    """ "ставь" at `index` puts shifts on someone: a person in the dative or a shift word in its clause."""
    start, end = _clause_span(words, index)
    clause = words[start:end]
    if any(w.startswith(_INSTALLED_RU) for w in _in_sentence(words, index, 0, len(words))):
        return False  # "Обновление в пятницу не ставь", "Патч, кстати, ставим не раньше субботы": software is put on
    return any(w in ("никому", "ему", "ей", "им", "всем", "кому") or w.startswith(_SHIFTS_RU) for w in clause)


#: What "ставить" installs: "обновление", "патч", "релиз", "версию", "программу", "плагин", "прошивку", "драйвер".
_INSTALLED_RU = ("обновл", "патч", "релиз", "верси", "программ", "плагин", "прошивк", "драйвер", "пакет")


def _orders(words: list[str], index: int) -> bool:
    """The word at `index` orders something (from a supplier) or books a service: an ordering verb, or a verb of
    placing with an order beside it. English "order" and "book" only as verbs, right after a negation or "to" ("no
    orders are going through", "in order to" and "the book" name no ordering)."""
    word = words[index]
    if word.startswith(_ORDERING_VERBS) and not word.startswith(_ORDER_NOUNS):
        return not _is_past(word) or _subjunctive(words, index)
    if word in ("order", "ordering", "book", "booking", "reserve", "reserving"):
        before = words[index - 1] if index else "."
        return before in _VERBAL or before in _ORDERING_SUBJECTS or before in _CLAUSE_BREAK or before == "to"
    if _whole(_PLACING_ORDER, word) and not _is_past(word):
        start, end = _clause_span(words, index)
        if any(_whole(_ORDERS, w) for w in words[max(start, index - 6) : min(end, index + 4)]):
            return True
        if any(_whole(_SUPPLIERS, w) for w in words[index + 1 : min(end, index + 6)]):
            return True  # "Do not place anything with the wholesaler": placed with a supplier, it is ordered
        # "Put together the order for Millers but hold off on actually placing it": the order named before, then
        # its pronoun, in the same sentence
        sentence = _sentences(words)
        pronoun = any(w in ("it", "je", "go", "его", "её", "ее") for w in words[max(0, index - 3) : index + 2])
        return pronoun and any(
            _whole(_ORDERS, words[k]) for k in range(max(0, index - 15), index) if sentence[k] == sentence[index]
        )
    return False


#: Words before "zmiana" that make it a work shift, not a change: its leaders, its count, its time of day.
_SHIFT_CONTEXT = (
    "kierowni", "lider", "brygadzi", "grafik", "harmonogram", "dwie", "trzy", "czter", "pięć", "piec", "obie", "obu",
    "dwóch", "dwoch", "trzech", "nocn", "dzienn", "rann", "popołudniow", "popoludniow", "poranna", "wieczorn", "na",
    "każd", "kazd", "jedn", "drug", "trzeci", "pierwsz", "typ", "rodzaj", "podział", "podzial", "obsad", "układ",
    "cał", "cal",
)  # fmt: skip
#: Places of files a verb of placing may put something into: "do folderu", "to the shared drive", "в папку".
_FILE_DESTINATIONS = (*_FILE_PLACES, "dysk", "=drive", "=drives", "папк", "диск")


def _puts_into_files(words: list[str], index: int) -> bool:
    """A place of files near the verb of placing at `index`, in its clause (after it, or fronted: "в общую папку не
    закидывай"), and no venue everyone reads near it."""
    start, end = _clause_span(words, index)
    fronted = any(_whole(_FILE_DESTINATIONS, w) for w in words[max(start, index - 5) : index])
    # after the verb, a place of files is where it goes only after a preposition ("to the drive", "do folderu"):
    # "upload the file to the customer portal" names the file as what is sent
    after = any(
        _whole(_FILE_DESTINATIONS, words[k]) and any(w in _PLACE_PREPOSITIONS for w in words[max(index, k - 3) : k])
        for k in range(index + 1, min(end, index + 7))
    )
    return (fronted or after) and not _venue_near(words, index)


def _venue_after_placing(words: list[str], index: int) -> bool:
    """A venue near a verb of placing; after one with its particle, which may follow its object ("put the final
    one up on the noticeboard"), it may stand further ("put them up on the team intranet page")."""
    particle = words[index + 1 : index + 5]
    particle = particle[: next((k for k, w in enumerate(particle) if w in _CLAUSE_BREAK), len(particle))]
    # places joined by "or"/"and" are all where it goes: "put it in the brochure or on the website" reaches the second
    end = _clause_span(words, index)[1]
    place = next((k for k in range(index + 1, min(end, index + 7)) if words[k] in _PLACE_PREPOSITIONS), None)
    joined = place is not None and any(w in _CONTINUE for w in words[place + 2 : min(end, place + 6)])
    return _venue_near(words, index, reach=12 if joined else 9 if "up" in particle else 6)


#: Verbs of wanting and seeing, before an object and its participle ("want it pinned up", "see them posted").
_WISHING = {"want", "wants", "see", "need", "needs", "have"}
#: Verbs that put a notice up where people pass: "hang them up by the lockers", "pin it up in the canteen".
_PUTTING_UP = ("=hang", "=pin", "=stick", "=tack")


def _placed_first_on_a_venue(words: list[str], index: int) -> bool:
    """The first place after the verb of placing at `index`, in its clause, is a venue everyone reads: "niczego nie
    instaluj na serwerach ani nie wrzucaj komunikatu na stronę urzędu" puts a notice on a website, not a program on
    the servers named before it ("wrzuć nową wersję strony na serwer" puts it on a server)."""
    end = _clause_span(words, index)[1]
    for k in range(index + 1, min(end, index + 9) - 1):
        if words[k] in _PLACE_PREPOSITIONS and words[k + 1][0].isalpha():
            place = next((w for w in words[k + 1 : k + 4] if _whole(_VENUES + _SERVERS, w)), None)
            if place is not None:
                return _whole(_VENUES, place) and not _whole(_SERVERS, place)
    return False


#: Changing: with a device as its object, the device is operated ("the thermostat settings" are a device's).
_CHANGING = ("=change", "=adjust", "zmień", "zmien", "zmieni", "измен", "меняй", "менять", "поменя")


#: A device's settings: "its settings", "ustawienia", "настройки", "the parameters".
_SETTINGS = ("=setting", "=settings", "=config", "configuration", "ustawie", "konfiguracj", "настройк", "конфигурац",
             "=parameters", "parametr", "параметр")  # fmt: skip


def _changes_a_device(words: list[str], index: int) -> bool:
    """A verb of changing whose object (the four words after it, or the three fronted before it in its clause) is a
    device: "don't change the setpoint", "Уставку температуры не меняй"."""
    if not _whole(_CHANGING, words[index]) or _is_past(words[index]):
        return False
    start, end = _clause_span(words, index)
    near = words[max(start, index - 3) : index] + words[index + 1 : min(end, index + 5)]
    if any(_device(w) for w in near):
        return True
    # a device's settings, the device named before them in the clause: "Канатку не останавливай и настройки не меняй",
    # "the boiler stays on, don't change its settings"
    return any(_whole(_SETTINGS, w) for w in near) and any(_device(w) for w in words[max(start, index - 12) : index])


#: Cutting a supply works a valve or a switch: "shut off the water", "zakręć wodę", "перекрой газ", "cut the power".
_CUTTING = ("=shut", "=cut", "=turn", "zakręc", "zakręć", "zakrec", "odetnij", "odcin", "перекр", "отключ", "выключ")
_SUPPLIES = (
    "=water", "=gas", "=power", "electricity", "=wodę", "=wody", "=wode", "=gaz", "=gazu", "=prąd", "=prądu", "=воду",
    "=газ", "электричеств",
)  # fmt: skip
#: Papers about a supply, not the supply: "the gas bill", "rachunek za prąd" is said otherwise, "счёт за газ".
_SUPPLY_PAPERS = ("=bill", "=bills", "invoice", "=price", "=prices", "=usage", "=meter", "=report", "rachun", "faktur",
                  "счет", "счёт")  # fmt: skip


def _cuts_a_supply(words: list[str], index: int) -> bool:
    """The verb at `index` cuts water, gas or power named within four words of it, in its clause."""
    if not _whole(_CUTTING, words[index]) or _is_past(words[index]):
        return False
    start, end = _clause_span(words, index)
    return any(
        _whole(_SUPPLIES, words[k]) and (k + 1 >= len(words) or not _whole(_SUPPLY_PAPERS, words[k + 1]))
        for k in range(max(start, index - 4), min(end, index + 6))
    )


#: Switching off: with a server as its object it stops a service (as restarting one runs code); "shut" and "power"
#: need "down" or "off".
_SWITCHING_OFF = ("wyłącz", "wylacz", "выключ", "гаси", "гасит", "погас", "погаш", "=shut", "=power")
#: The hardware around a server, switched off physically: its power, its room, its rack.
_SERVER_HARDWARE = (
    "zasilan", "prąd", "prad", "питани", "электричеств", "=power", "=rack", "=racks", "=room", "serwerown", "серверн",
    "стойк", "szaf",
)  # fmt: skip


def _switches_off_a_server(words: list[str], index: int) -> bool:
    word = words[index]
    if not _whole(_SWITCHING_OFF, word) or _is_past(word):
        return False
    if word.startswith(("shut", "power")) and not any(w in ("down", "off") for w in words[index + 1 : index + 5]):
        return False
    start, end = _clause_span(words, index)
    near = words[max(start, index - 4) : min(end, index + 5)]
    servers = [w for w in near if _whole(_SERVERS, w) and not _whole(_SERVER_HARDWARE, w)]
    hardware = any(_device(w) or (w != word and _whole(_SERVER_HARDWARE, w)) for w in near)
    return bool(servers) and not hardware


#: A machine that is someone's computer: "on my machine", "na moim komputerze", "на моей машине".
_COMPUTER_OWNERS = {"my", "your", "our", "his", "her", "moim", "twoim", "naszym", "моей", "твоей", "нашей"}


def _own_computer(words: list[str], index: int) -> bool:
    """The device word at `index` is "machine" after "on my/your/our" ("run it on my machine")."""
    word = words[index]
    return (
        word in ("machine", "machines", "maszynie", "машине")
        and index >= 2
        and words[index - 1] in _COMPUTER_OWNERS
        and words[index - 2] in ("on", "na", "на")
    )


def _names_a_computer(words: list[str], index: int) -> bool:
    """The device word at `index` only says which computer the next word is: "the controller PC", "the CCTV server",
    "the till laptop" (code is run on a computer; the device is not operated)."""
    return index + 1 < len(words) and _whole(_SERVERS, words[index + 1])


def _installs_in_sentence(words: list[str], index: int) -> bool:
    """An installation named in the sentence of `index`: "sterowniki" there are drivers, not controllers."""
    sentence = _sentences(words)
    return any(sentence[k] == sentence[index] and action_of(words, k) == "installation" for k in range(len(words)))


def _in_sentence(words: list[str], index: int, start: int, end: int) -> list[str]:
    """words[start:end] cut to the sentence of `index` ("…the pump station and flag anything odd? Don't restart the
    monitoring scripts": the pump is another sentence's)."""
    cut = _sentence_range(words, index, start, end)
    return words[cut.start : cut.stop]


def _sentence_range(words: list[str], index: int, start: int, end: int) -> range:
    """The positions of `_in_sentence`'s words."""
    begin = next((k + 1 for k in range(index - 1, start - 1, -1) if words[k] in _SENTENCE_END), start)
    finish = next((k for k in range(index + 1, min(end, len(words))) if words[k] in _SENTENCE_END), end)
    return range(begin, min(finish, len(words)))


def _operated_device(words: list[str], index: int) -> bool:
    """The word at `index` names a device that an action near it operates: not "my machine" run on, nor a device
    naming the computer after it ("the controller PC")."""
    return _device(words[index]) and not _own_computer(words, index) and not _names_a_computer(words, index)


def _polish_pronoun(words: list[str], index: int) -> bool:
    """ "go" between a Polish negation or verb of forbidding and an infinitive or imperative: the pronoun."""
    before = words[index - 1] if index else ""
    after = words[index + 1] if index + 1 < len(words) else ""
    return before in ("nie", "zabraniam", "zakazuję") or after.endswith(("ć", "ać", "ić", "eć", "uj", "aj", "ij"))


def _venue_named_before(words: list[str], index: int) -> bool:
    """A verb of placing whose object is a pronoun, with a venue everyone reads named in the twenty words before it:
    "napisz posta na fb …, ale nie wrzucaj go jeszcze", "a notice for the website; don't put it up yet"."""
    if not any(w in _OBJECT_PRONOUNS for w in words[max(0, index - 2) : index + 2]):
        return False
    return any(_whole(_VENUES, w) for w in words[max(0, index - 20) : index])


def _put_up(words: list[str], index: int) -> bool:
    return _whole(_PUTTING_UP, words[index]) and "up" in words[index + 1 : index + 4]


#: Opening a file to edit it writes it: "не открывай файл на редактирование", "nie otwieraj do edycji".
_OPENING = ("open", "otwier", "otwór", "otworz", "открыв", "открой", "откры")
_EDITING = ("=editing", "edycj", "редактирован", "правк")
#: Clearing: a record's deletion (local_write), a device's reset when the thing cleared is a device.
#: Clearing a device's state, read as physical only with a device near ("don't acknowledge or reset anything on the
#: panel", "Alarmów nie kasuj"): a reset password or a cleared list is something else.
_CLEARING = (
    "kasuj", "skasuj", "=clear", "=reset", "=resets", "=acknowledge", "=ack", "resetuj", "zresetuj", "potwierdzaj",
    "сбрасыва", "сброс", "квитир",
)  # fmt: skip


def _updates_software(words: list[str], index: int) -> bool:
    """Software in the clause of an update, or named in the words before a pronoun it updates ("What firmware are
    the controllers on? … no updating them")."""
    if _venue_near(words, index, _SOFTWARE):
        return True
    return words[index + 1 : index + 2] in (["it"], ["them"], ["его"], ["их"], ["go"], ["je"]) and any(
        _whole(_SOFTWARE_NAMED_BEFORE, w) for w in words[max(0, index - 20) : index]
    )


#: What a pronoun after "update" may point back to: software, or a version or a plugin of it ("Lightroom keeps
#: nagging about an update. Check what's new in that version … Don't update it unless I say so").
_SOFTWARE_NAMED_BEFORE = (*_SOFTWARE, "=version", "=plugin", "=plugins", "wersj", "wtyczk", "верси", "плагин")


def _device(word: str) -> bool:
    return any(_stem_match(o, word) for o in _PHYSICAL_OBJECTS)


#: A device's settings: a verb that would install software sets the device instead ("Поставь в контроллер чиллера
#: новые уставки", "wgraj nowe nastawy", "put the new setpoints on the controller").
_SETPOINTS = ("уставк", "nastaw", "setpoint", "=°c", "температур", "temperatur")


#: Changes to software that reach users by being deployed: "no fixes go live", "the patch goes live".
_CODE_CHANGES = (
    "=fix", "=fixes", "=hotfix", "=hotfixes", "=patch", "=patches", "=code", "=release", "=build", "=update",
    "=updates", "=upgrade", "=deploy", "=deployment", "=migration", "=plugin", "=plugins",
)  # fmt: skip


def _motion(words: list[str], index: int) -> EffectClass | None:
    """A motion verb that says a message leaves: external transmission, or publication to everyone."""
    word = words[index]
    after = words[index + 1 : index + 6]
    after = after[: next((k for k, w in enumerate(after) if w in _CLAUSE_BREAK), len(after))]
    place = next((k for k, w in enumerate(after[:3]) if w in _PREMISES), None)
    if word in ("leave", "leaves", "leaving") and place is not None:
        state = after[place + 1] if place + 1 < len(after) else ""
        if state in _LEFT_IN or state.endswith(("ing", "ed")):
            return None  # "don't leave the machine running", "leave the office unlocked": a state it is left in
        # "nothing leaves the building": only with a negation before it does this forbid anything
        return "external_transmission"
    if (
        word in _MOTION_EN
        and after[:1] == ["live"]
        and any(_whole(_CODE_CHANGES, w) for w in words[max(0, index - 3) : index])
    ):
        return "installation"  # "no fixes go live on the site till I've seen them": a deployment, wherever it lands
    if word.startswith(("pójd", "pojd", "idzi", "wyjd", "polec", "pójś")) and after[:2] in (
        ["w", "świat"],
        ["w", "swiat"],
    ):
        return "external_transmission"  # "Zanim pójdzie w świat, chcę go zobaczyć": out into the world, to others
    arriving = _arriving(words, index, after)
    if arriving is not None:
        return arriving
    if word in _MOTION_EN:
        if after[:1] == ["live"]:
            return "publication"  # "nothing goes live until Anna has approved it"
        if after[:1] in (["on"], ["onto"], ["up"]) and _venue_near(words, index):
            return "publication"  # "nothing goes on the intranet"
        if not after or after[0] not in ("out", "anywhere", "outside", "beyond"):
            return None  # "nothing goes out", "before it goes anywhere", "it doesn't go beyond the practice"
    elif any(word.startswith(stem) for stem in _MOTION) or (
        word.startswith(_MOTION_PAST) and _subjunctive(words, index)
    ):
        cyrillic = any("\u0400" <= ch <= "\u04ff" for ch in word)
        destination = bool(after) and (
            after[0] in _DESTINATION
            or after[:2] == ["na", "zewnątrz"]
            or (cyrillic and len(after[0]) > 3 and after[0].endswith(("у", "ю", "ам", "ям", "ому", "ему", "ем", "им")))
        )
        # fronted: "nic do dostawcy nie wychodzi", "к клиентам ничего не уходит"
        before = words[max(_clause_span(words, index)[0], index - 5) : index]
        destination = destination or any(w in _DESTINATION for w in before[:-1])
        if not destination and not any(w in _SOMETHING for w in words[max(0, index - 3) : index]):
            return None
    else:
        return None
    if any(w.startswith(_AUDIENCE) for w in after):
        return "publication"
    if any(_whole(_CHATS, w) for w in after):
        return "publication"  # "before it goes anywhere near the members' WhatsApp": where a group reads it
    if "near" in after and any(_whole(_VENUES, w) for w in after[after.index("near") :]):
        return "publication"  # "before it goes anywhere near the review page"
    return "external_transmission"


def _arriving(words: list[str], index: int, after: list[str]) -> EffectClass | None:
    """A thing that reaches someone or somewhere: publication when the place is a venue ("end up on our website", "не
    должен попасть на наш сайт или в соцсети"), external transmission when it is a person ("it should not go to her",
    "не должно дойти до клиентов", "nie może trafić do prasy"), None for anything else ("попасть в отчёт")."""
    word = words[index]
    if word in _EN_WISHED_PAST and any(w in ("rather", "prefer") for w in words[_clause_span(words, index)[0] : index]):
        word = _EN_WISHED_PAST[word]  # "I'd rather none of it ended up on the board": a wish, not a report
    if word in _ARRIVING_EN:
        k = index - 1
        while k >= 0 and words[k] in _TO_MOTION:
            k -= 1
        if k < 0 or not words[k][0].isalpha() or words[k] in _PERSONAL:
            return None  # "don't go to the office": an imperative, a person moving
        if word in _ARRIVING_UP and after[:1] != ["up"]:
            return None  # "turn the heating off", "show me the list"
        if word in ("make", "find") and after[:1] not in (["it"], ["its"]):
            return None
        rest = after[1:] if word in (*_ARRIVING_UP, "make", "find") else after
        if rest[:1] == ["back"]:
            rest = rest[1:]  # "nothing goes back to her yet"
    elif any(word.startswith(stem) for stem in _ARRIVING) and (not _is_past(word) or _subjunctive(words, index)):
        rest = [w for w in after if w not in ("się", "ни", "в", "коем", "случае")] if word.startswith("dost") else after
    elif _whole(_ENTERING, word) and not _is_past(word):
        return _entering(words, index, after)
    else:
        return None
    # English prepositions only after an English verb: "pójdzie to" is the Polish pronoun, the place fronted before it
    places: tuple[str, ...] = ("do", "na", "в", "на", "к", "до", "poza", "w")
    if word in _ARRIVING_EN:
        places += ("to", "on", "onto", "in", "into")
    place = next((k for k, w in enumerate(rest[:2]) if w in places), None)
    if place is not None and word.startswith(_HANGING) and rest[place] in ("w", "na", "в", "на"):
        return "publication"  # "Wybrany wariant zawiśnie w rejestracji": what is hung up anywhere is put up
    if place is None and word not in _ARRIVING_EN:
        # fronted: "На сайт фермы это попасть не должно", "Do klientów to nie może trafić"
        start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
        before = words[max(start, index - 9) : index]
        front = next((k for k, w in enumerate(before) if w in ("do", "na", "в", "на", "к", "до", "poza", "w")), None)
        if front is not None:
            rest, place = before[front:], 0
    if place is None:
        if word.startswith(("reach", "дойд", "dotr")) and rest[:1] and rest[0][0].isalpha():
            return "external_transmission"  # "must not reach the client"
        return None
    named = [w for w in rest[place + 1 : place + 5] if w not in _DETERMINERS and w[0].isalpha()]
    if any(_whole(_VENUES, w) or _whole(_ONLINE, w) for w in named[:3]):
        return "publication"
    _, end = _clause_span(words, index)
    # the place said after the verb, or fronted before it ("Na grupę rodziców na Messengerze to nie trafia")
    around = words[index + 1 : min(end, index + 10)] + (rest[place + 1 : place + 8] if rest is not after else [])
    chat = [w for w in around if w not in _DETERMINERS and w[0].isalpha()]
    if any(_whole(_CHATS, w) for w in chat):
        return "publication"  # "shouldn't go up on the team's channel": put up where a group reads it
    if rest[place] in ("on", "onto", "na", "на") and any(_whole(_SERVERS, w) for w in named[:3]):
        return "installation"  # "if anything lands on the clubhouse PC", "wejdzie na tablety"
    if rest[place] in ("into", "in", "do", "w", "в") and any(_whole(_RECORDS_INTO, w) for w in named[:3]):
        return "local_write"  # "nothing goes into the HR system", "nic nie trafia do arkusza", "в базу не попадает"
    if any(w.startswith(_AUDIENCE) for w in named[:2]):
        return "publication"
    if rest[place] in ("to", "do", "к", "до", "poza") and named and not named[0].startswith(_TIME_NOUNS):
        return "external_transmission"
    return None


def _entering(words: list[str], index: int, after: list[str]) -> EffectClass | None:
    """A verb of entering whose place is a machine, after it or fronted in its clause: "Na tablety w szatni wejdzie
    w maju", "войдёт на кассы": installation. Any other place ("wejdzie do pokoju") is a person moving: None."""
    start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
    for span in (after[:4], words[max(start, index - 6) : index]):
        place = next((k for k, w in enumerate(span) if w in ("on", "onto", "na", "на")), None)
        if place is not None and any(_whole(_SERVERS, w) for w in span[place + 1 : place + 4]):
            return "installation"
    return None


#: Subordinators of purpose: a past form after them is a subjunctive ("чтобы оно не ушло", "żeby nie wyszło").
_SUBJUNCTIVE = {
    "чтобы", "чтоб", "żeby", "zeby", "aby", "by", "byle", "żebyś", "zebys", "żebyście", "abyś", "abys", "abyście",
    "byś",
}  # fmt: skip


#: "for after", "na po", "на после" with a verb of leaving in the clause: "zostawmy wysyłkę na po zebraniu",
#: "рассылку оставим на после собрания", "leave the sending for after the meeting".
_FOR_AFTER = {("for", "after"), ("na", "po"), ("на", "после")}
_LEAVING = ("=leave", "zostaw", "pozostaw", "остав", "=save")


def _left_for_after(words: list[str], index: int, clause: list[int]) -> bool:
    if not index or (words[index - 1], words[index]) not in _FOR_AFTER:
        return False
    return any(clause[k] == clause[index] and _whole(_LEAVING, w) for k, w in enumerate(words) if k < index)


#: A time to come, opening what a predicate puts the action off to: "is for next week", "to temat na przyszły
#: tydzień", "это на следующей неделе", "a job for tomorrow", "na inny dzień".
_TO_COME = (
    "=next", "=tomorrow", "tomorrow's", "=another", "przyszł", "następn", "nastepn", "jutr", "pojutrze", "inny",
    "innym", "innego", "kiedy", "следующ", "завтра", "послезавтра", "друго", "другу",
)  # fmt: skip
#: Copulas whose subject can be an action ("Sending it is for next week", "Wysyłka to temat na…", "Отправка — это
#: на…"). Polish "to" and Russian "это" and dashes are copulas only before a predicate noun or a preposition of
#: time (so "Opublikuj to jutro", "publish it tomorrow", is not read).
_COPULAS = {"is", "are", "be", "jest", "będzie", "bedzie", "будет"}
_DASHES = {"—", "–", "-"}
_COPULAS_BEFORE_PREDICATE = {"to", "это", *_DASHES}
#: The words that make the time a predicate of the action: a preposition of time or a noun of a matter ("is for
#: next week", "a conversation for", "temat na", "вопрос на"; not "the launch is tomorrow").
_PREDICATE_HEADS = {
    "for", "topic", "conversation", "question", "job", "task", "matter", "problem", "temat", "sprawa", "kwestia",
    "rzecz", "zadanie", "robota", "na", "тема", "вопрос", "дело", "разговор", "задача", "на",
}  # fmt: skip
#: What a predicate of deferral may hold between its copula and the time: "a conversation for", "temat na", "вопрос
#: на", "dopiero na", "уже на": the heads, and articles, adverbs and the words of a talk.
_PREDICATE_FILLERS = _PREDICATE_HEADS | {
    "a", "an", "the", "one", "something", "thing", "on", "we", "can", "talk", "about", "dopiero", "już", "juz", "w",
    "уже", "в", "только",
}  # fmt: skip
#: Verbs of talking it over, in the first person plural or a proposal: "we'll talk about sending it next week",
#: "o wysyłce pogadamy w przyszłym tygodniu", "об отправке поговорим на следующей неделе".
_TALKING_OVER = (
    "=talk", "=discuss", "=chat", "pogadamy", "porozmawiamy", "omówimy", "omowimy", "pomówimy", "поговорим", "обсудим",
    "обговорим", "перетрём",
)  # fmt: skip


def _put_off_by_predicate(
    words: list[str], index: int, clause: list[int], language: str
) -> tuple[int, EffectClass] | None:
    """The action a predicate of time puts off, when `index` opens a time to come after a copula: "Sending it is for
    next week", "Getting it onto the PCs is a conversation for next week", "Wysyłka to temat na przyszły tydzień",
    "Публикация — это на следующей неделе". The action is the copula's subject (the nearest action before it)."""
    if not _whole(_TO_COME, words[index]):
        return None
    k = index - 1
    while k >= 0 and clause[k] == clause[index] and words[k] in _PREDICATE_FILLERS:
        k -= 1
    if k < 1 or index - k > 5 or (clause[k] != clause[index] and words[k] not in _DASHES):
        return None
    if words[k] not in _COPULAS and not (words[k] in _COPULAS_BEFORE_PREDICATE and k + 1 < index):
        return None
    if not any(w in _PREDICATE_HEADS for w in words[k + 1 : index]):
        return None  # "the launch is tomorrow" says when it happens; "it is for tomorrow", "a job for" put it off
    # "Публикация — это на…", "Wysyłka – na przyszły tydzień": a dash stands for the copula, or comes before one
    dash = k if words[k] in _DASHES else k - 1 if k > 0 and words[k - 1] in _DASHES else None
    start = dash if dash is not None else k
    subject = [j for j in range(start) if clause[j] == clause[start - 1]] if start else []
    action = _first_action(words, reversed(subject))
    if action is None:
        return None
    # the nearest action may be a noun ("Rolling out the update … is"); the subject's head opens the clause
    opening = next(j for j in subject if words[j][0].isalpha() and words[j] != "please")
    return None if imperative_form(words[opening], language) else action


def _talked_over_later(words: list[str], index: int, clause: list[int]) -> tuple[int, EffectClass] | None:
    """The action a talk is put off about, when `index` opens a time to come in a clause of talking it over: "we'll
    talk about sending it next week", "o publikacji porozmawiamy jutro". The action follows a word of topic."""
    if not _whole(_TO_COME, words[index]) or not index:
        return None
    same = [j for j in range(len(words)) if clause[j] == clause[index]]
    if not any(_whole(_TALKING_OVER, words[j]) for j in same):
        return None
    for j in same:
        if words[j] in _ABOUT:
            return _first_action(words, (t for t in same if j < t <= j + 3))
    return None


def _first_action(words: list[str], indexes: Iterable[int]) -> tuple[int, EffectClass] | None:
    """The first of `indexes` whose word is an action, with its effect class."""
    for index in indexes:
        effect = action_of(words, index)
        if effect is not None:
            return index, effect
    return None


def _subjunctive(words: list[str], index: int) -> bool:
    return any(w in _SUBJUNCTIVE for w in words[max(0, index - 4) : index])


def _clause_words_before(words: list[str], index: int) -> bool:
    """Whether the clause of `index` holds words before it other than temporal ones ("секретов тут нет": yes;
    ", not now", "ale jeszcze nie", "только не сейчас": no)."""
    k = index
    while k > 0 and words[k - 1] not in _CLAUSE_BREAK:
        k -= 1
    return any(w[0].isalpha() and w not in _ELLIPTIC and w not in _ONLY for w in words[k:index])


#: Phones an app is put on, in a verbless destination ("Инструкторам на телефоны — только после экзаменов").
_PHONES = ("=phone", "=phones", "telefon", "smartfon", "телефон", "смартфон")


def _elliptic_fragment(words: list[str], index: int, sentence: list[int]) -> tuple[int, EffectClass] | None:
    """A verbless destination before an elliptic "not yet" in its sentence: a venue ("Na Facebooka jeszcze nie": its
    publication) or a recipient ("To the director - not yet", "Do kierowników — jeszcze nie", "Бухгалтеру пока
    нет": sending to them). None when the words before it hold a verb or an action."""
    k = index
    while k > 0 and sentence[k - 1] == sentence[index] and words[k - 1] not in (",", ":", ";"):
        k -= 1
    fragment = [j for j in range(k, index) if words[j][0].isalpha()]
    while fragment and words[fragment[-1]] in _ELLIPTIC:
        fragment.pop()  # "… jeszcze nie", "… пока нет": the adverb before the negation
    if not fragment or len(fragment) > 6:
        return None
    if any(action_of(words, j) is not None or known_verb(words[j], "en") for j in fragment[1:]):
        return None
    first = words[fragment[0]]
    on_a_server = next(
        (
            j
            for j in fragment[1:]
            if words[j - 1] in ("on", "onto", "na", "на") and (_whole(_SERVERS, words[j]) or _whole(_PHONES, words[j]))
        ),
        None,
    )
    if on_a_server is not None and first not in ("on", "onto", "na", "на"):
        return on_a_server, "installation"  # "Инструкторам на телефоны — только после экзаменов": put on them
    if first in ("on", "onto", "in", "na", "в", "на") and any(_whole(_VENUES, words[j]) for j in fragment):
        return next(j for j in fragment if _whole(_VENUES, words[j])), "publication"
    if first in ("on", "onto", "to", "na", "на", "в") and any(_whole(_SERVERS, words[j]) for j in fragment):
        return next(j for j in fragment if _whole(_SERVERS, words[j])), "installation"  # "Na proda — nie"
    if first in ("to", "do", "к", "для", "dla") and len(fragment) > 1:
        return fragment[0], "external_transmission"
    cyrillic_dative = any("\u0400" <= ch <= "\u04ff" for ch in first) and first.endswith(
        ("у", "ю", "ам", "ям", "ому", "ему")
    )
    if cyrillic_dative and len(first) > 3 and not first.startswith(_TIME_NOUNS):
        return fragment[0], "external_transmission"
    return None


def _to_audience(words: list[str], index: int) -> bool:
    """A motion verb at `index` whose destination is everyone ("goes out to staff", "уйдёт сотрудникам")."""
    word = words[index]
    motion = word in _MOTION_EN or word in _ARRIVING_EN or word.startswith(_MOTION) or word.startswith(_ARRIVING)
    after = words[index + 1 : index + 6]
    after = after[: next((k for k, w in enumerate(after) if w in _CLAUSE_BREAK), len(after))]
    # "nothing goes on the staff noticeboard", "shouldn't land in the staff group chat": only published
    venue = any(_whole(_VENUES, w) or _whole(_CHATS, w) for w in after)
    return motion and not venue and any(w.startswith(_AUDIENCE) for w in after)


def _describes(word: str, *, plain_polish: bool = True) -> bool:
    """A present-tense third person after "nie"/"не" describes ("nie działa", "не отвечает"), it does not forbid.

    A Polish word in -a/-ą typed without Polish letters counts too ("Klient nie odpowiada"), unless `plain_polish` is
    off: a verb of arriving says where a thing must not go ("Protokół na razie nie trafia na stronę")."""
    if len(word) <= 5:
        return False
    if any("\u0400" <= ch <= "\u04ff" for ch in word):
        return word.endswith(_PRESENT_RU)
    if plain_polish or not word.isascii():
        return word.endswith(_PRESENT_PL)
    return word.endswith(("uje", "ują", "ywa", "iwa"))


def _operator(words: list[str], index: int) -> tuple[str, int] | None:
    """The negative operator at `index` (its words, how many tokens it spans), or None."""
    word = words[index]
    after = words[index + 1] if index + 1 < len(words) else ""
    if word in ("not", "nie", "не") and after in _NOT_NEGATING_AFTER:
        return None
    if word == "ani":
        # "ani mi się waż wieszać tego": don't you dare; the operator spans the idiom up to the verb it governs
        dare = next((k for k in range(index + 1, min(len(words), index + 4)) if words[k] in ("waż", "waz")), None)
        if dare is not None and all(w in ("mi", "się", "sie") for w in words[index + 1 : dare]):
            return "ani się waż", dare - index + 1
    if word in _WISHED_NEGATIONS and _wished(words, index):
        return word, 1  # "I'd rather you didn't email it", "I'd prefer it wasn't sent": a wish, not a report
    if word in ("not", "doesn't", "doesnt") and after in ("need", "needs"):
        return word, 1  # "it doesn't need to go out", "this does not need to be sent"
    if word in ("isn't", "aren't") and _gated_progressive(words, index):
        return word, 1  # "the email isn't leaving the building until the head has signed it off"
    if word == "not":
        if (
            index > 0
            and words[index - 1] in _NOT_DESCRIBES
            and after != "to"
            and not _gated_present(words, index)
            and not (words[index - 1] in _PROGRESSIVE_AUX and _gated_progressive(words, index))
        ):
            return None  # "it was not sent" describes; "you are not to lock any door" forbids
        if index > 1 and words[index - 2] in _INVERTING and words[index - 1].isalpha():
            return None  # "did we not publish it?": an inverted question asks, it does not forbid
    if word in _PARTICLES or word in _N_WORDS:
        return word, 1
    person = index > 0 and words[index - 1] in _OTHER_SUBJECTS  # "He doesn't leave the office before six": a habit
    if word in ("doesn't", "doesnt") and not person and (_gate_after(words, index) or _leaves_bounds(words, index)):
        # "it doesn't go on the tablets until after Easter", "it doesn't go beyond the practice": a rule laid down,
        # as "does not" is
        return word, 1
    if (word, after) in _NEGATIVE_PAIRS:
        return f"{word} {after}", 2
    if any(word.startswith(stem) for stem in _NEGATIVE_VERBS):
        return word, 1
    return None


#: Past negations that a wish before them turns into what must not happen: "I'd rather you didn't send it".
_WISHED_NEGATIONS = {"didn't", "didnt", "not", "wasn't", "wasnt", "weren't", "werent"}


def _wished(words: list[str], index: int) -> bool:
    """ "rather" or "prefer" at most five words before `index`, in its clause, with words between: "I'd rather you
    didn't", "I would prefer that it was not sent" (not "rather not": it negates the wish itself; not "wish": "I wish
    you hadn't sent it" regrets)."""
    start = max(_clause_span(words, index)[0], index - 5)
    wish = next((k for k in range(index - 1, start - 1, -1) if words[k] in ("rather", "prefer")), None)
    return wish is not None and any(w[0].isalpha() for w in words[wish + 1 : index])


def _gated_present(words: list[str], index: int) -> bool:
    """ "it does not go up on the noticeboard till I've had a look": a present "does not" with a gate after it in its
    clause is a rule laid down, not a description ("it does not work since Monday")."""
    if index == 0 or words[index - 1] not in ("does", "do"):
        return False
    return _gate_after(words, index)


#: "is not going out until …": a present progressive of a message's motion with a gate after it is an arrangement
#: laid down; "from you" names the one who must not do it ("it's not going out from you").
_PROGRESSIVE_AUX = {"is", "are", "it's", "'s"}
_PROGRESSIVE_MOTION = {"going", "leaving", "being"}


def _gated_progressive(words: list[str], index: int) -> bool:
    """The negation at `index` is followed by a message's motion ("going", "leaving") and, in its clause, a gate
    or "from you"."""
    if index + 1 >= len(words) or words[index + 1] not in _PROGRESSIVE_MOTION:
        return False
    end = next((k for k in range(index + 1, len(words)) if words[k] in _CLAUSE_BREAK), len(words))
    by_you = any(words[k : k + 2] == ["from", "you"] for k in range(index + 1, end))
    return by_you or _gate_after(words, index)


#: Where a Polish impersonal present states the house rule: "U nas protokołów nie wysyła się nikomu", "Nigdy nie
#: publikuje się cen przed akceptacją".
_HOUSE = {"nas", "nigdy", "zasada", "zasadą", "reguła", "regułą"}
_GATES_PL = {"zanim", "dopóki", "dopoki", "przed", "bez"}


def _impersonal_rule(words: list[str], index: int) -> bool:
    """ "protokołów nie wysyła się nikomu, zanim dyrekcja nie podpisze": a third person present with "się" after it,
    in a sentence that names the house ("u nas", "nigdy", "zasada") or a gate after it, says what is not done here,
    not what does not work ("Mail nie wysyła się od rana")."""
    if words[index + 1 : index + 2] != ["się"] or words[index].endswith(("ł", "ło", "li", "ły", "ała", "iła", "ęła")):
        return False  # a past ("Raport nie wysłał się wczoraj") reports
    sentence = _sentences(words)
    same = [w for k, w in enumerate(words) if sentence[k] == sentence[index]]
    after = [w for k, w in enumerate(words[index + 1 :], index + 1) if sentence[k] == sentence[index]]
    return any(w in _HOUSE for w in same) or any(w in _GATES_PL for w in after)


#: Verbs of launching: with an action noun as object, it is that action that starts ("Отправку не запускай", "nie
#: odpalaj wysyłki", "don't launch the mailing").
_LAUNCHING = ("запуск", "запуст", "uruchom", "urucham", "odpal", "=launch", "=kick")


def _launched_action(words: list[str], index: int) -> EffectClass | None:
    """The effect of the action noun a launching verb at `index` starts, fronted in its clause or right after it,
    when it is not running code: "Отправку не запускай, пока Ирина не одобрит" sends, "nie odpalaj wysyłki" too."""
    start, end = _clause_span(words, index)
    after = next((j for j in range(index + 1, end) if words[j] not in _DETERMINERS), None)
    before = next((j for j in range(index - 1, start - 1, -1) if words[j] not in _LAUNCH_SKIP), None)
    for j in (after, before):
        if j is None or not words[j][0].isalpha():
            continue
        effect = action_of(words, j)
        if effect is not None and effect != "code_execution":
            return effect
    return None


#: What may stand between a fronted action noun and its launching verb: "Отправку пока не запускай".
_LAUNCH_SKIP = {"не", "nie", "not", "don't", "пока", "jeszcze", "ещё", "еще", "yet", "go", "его", "её", "ее"}


def _run_past_me(words: list[str], index: int) -> bool:
    """ "No need to run the emails past me", "don't send it past me first": the action at `index` is a showing to the
    speaker ("past me"), not the effect its verb names."""
    end = _clause_span(words, index)[1]
    return any(words[k : k + 2] == ["past", "me"] for k in range(index + 1, min(end, index + 5)))


def _beyond_me(words: list[str], index: int) -> bool:
    """The motion at `index` is bounded by the speaker's own, in its clause: "дальше моей почты не уходит", "nie
    wychodzi poza moją skrzynkę", "doesn't go beyond my inbox" (not "beyond the team": the team reads it)."""
    start, end = _clause_span(words, index)
    return any(
        words[k] in _BEYOND and any(w in _SPEAKERS for w in words[k + 1 : min(end, k + 3)])
        for k in range(max(start, index - 6), min(end, index + 4))
    )


def _leaves_bounds(words: list[str], index: int) -> bool:
    """ "doesn't go beyond the practice", "doesn't leave the building": a thing's going out of its bounds at
    `index + 1`."""
    after = words[index + 1 : index + 3]
    return tuple(after) in (("go", "beyond"), ("go", "outside"), ("leave", "the"), ("leave", "this"), ("leave", "our"))


def _gate_after(words: list[str], index: int) -> bool:
    """An "until", "till", "unless" or "before" after `index` in its clause."""
    end = next((k for k in range(index, len(words)) if words[k] in _CLAUSE_BREAK), len(words))
    return any(w in ("until", "till", "unless", "before") for w in words[index + 1 : end])


#: Subordinators after which "nie"/"не" belongs to the gate's own verb, not to a command: "dopóki nie przejrzę",
#: "zanim zarząd tego nie podpisze", "пока не посмотрю" (until I have looked).
_GATE_NEGATED = {"dopóki", "dopoki", "póki", "poki", "zanim", "пока"}
#: Russian finite endings of a first or third person: "посмотрю", "согласую", "утвердит", "ответят".
_RU_PERSON_ENDINGS = ("ю", "у", "ем", "им", "ет", "ит", "ут", "ют", "ат", "ят")
#: Verbs of saying the go-ahead: the chain goes on to the action said ("пока не скажу «отправляй»").
_SAYING_GATES = {"powiem", "powie", "napiszę", "dam", "скажу", "скажет", "напишу", "дам"}


def _gate_verb(words: list[str], operator: int, index: int, language: str) -> bool:
    """The word at `index`, right after the "nie"/"не" at `operator`, is the verb of an until-clause: the negation
    is the gate's ("dopóki nie przejrzę wyników testów", "пока не посмотрю результаты тестов") and forbids nothing
    in it. After "пока" only a first or third person is: "пока не отправляй" is a command (an imperative after "for
    now"), and so is "пока не надо отправлять"."""
    if operator == 0 or words[operator] not in ("nie", "не") or words[operator - 1] not in _GATE_NEGATED:
        return False
    word = words[index]
    if not word[0].isalpha() or word in _SAYING_GATES:
        return False  # "dopóki nie powiem „wysyłaj”": the word said is the action gated
    if words[operator - 1] == "пока":
        if _for_now(words, operator - 1):
            return False  # "Счёт поставщику пока не шлём": "for now", after the clause's object
        return word not in _NECESSITY_RU and len(word) > 3 and word.endswith(_RU_PERSON_ENDINGS)
    return word not in _NECESSITY_PL


#: Russian verb endings: a word before "пока" that ends so is a verb, and "пока" after it opens an until-clause.
_RU_VERB_ENDINGS = ("ть", "ешь", "ет", "ем", "им", "ют", "ут", "ат", "ят", "ли", "л", "ла", "ло", "й", "йте", "ь", "и")


def _for_now(words: list[str], index: int) -> bool:
    """ "Заявку пока не отправляем", "Счёт поставщику пока не шлём": a "пока" after a noun of its own clause means
    "for now"; one opening its clause ("…, пока не посмотрю") or after a verb ("не публикуй пока не согласую") opens
    an until-clause."""
    if index == 0 or words[index - 1] in _CLAUSE_BREAK:
        return False
    before = words[index - 1]
    return before.isalpha() and not before.endswith(_RU_VERB_ENDINGS)


def _concord(previous: str, current: str) -> bool:
    """Negative concord: "niczego nie", "nigdy nie", "ничего не" are one negation."""
    concordant = _N_WORDS | {"nie", "не"}
    return previous in concordant and current in concordant and (previous in _N_WORDS or current in _N_WORDS)


#: Objecting: negated ("I don't mind", "I don't care if", "nie mam nic przeciwko", "не возражаю"), it gives leave.
_OBJECTING = {"mind", "care", "object", "przeciwko", "przeciw", "против", "возражаю", "возражаем", "возражать"}


#: A second verb joined to a negated one by "or" shares its negation: "don't file or send anything", "nie drukuj ani
#: wysyłaj", "не печатай или рассылай" ("don't worry and send it" sends).
_SHARING_NEGATION = {"or", "nor", "ani", "albo", "lub", "или", "ни"}


def _walk(words: list[str], start: int, language: str) -> _Chain:
    """Follow one negation scope from the operator at `start` (see the module docstring)."""
    first = _operator(words, start)
    assert first is not None
    operators = [first[0]]
    negations = 1
    i = slot = start + first[1]  # `slot`: where the verb a verbal negation governs stands ("don't [use]")
    if first[0] in ("without", "bez", "без") and _past_clause_before(words, start, language):
        return _Chain(tuple(operators), None, None, 0, i)  # "we shipped it without any tests": it describes
    steps = 0
    while i < len(words) and steps < _REACH:
        word = words[i]
        if word in _CLAUSE_BREAK:
            if word == "," and i + 1 < len(words) and words[i + 1] in _COMPLEMENTIZERS:
                i += 2
                continue
            break
        if word in _COORDINATORS:
            if word in _SHARING_NEGATION and i == slot + 1 and i + 1 < len(words) and _operator(words, i + 1) is None:
                i = slot = i + 1  # "don't file or send anything": the verb after "or" is negated too
                continue
            break
        dash = word in ("-", "–", "—") and i + 1 < len(words) and language != "en"
        if dash and imperative_form(words[i + 1], language):
            break  # "черновик можно не придерживать - отправляй всем": a new command after the dash
        if word in _DESCRIBING_AUX:
            return _Chain(tuple(operators), None, None, 0, i)  # "не был отправлен": it describes
        # "think twice about", "worry too much about": a word between the verb and its topic
        talked = any(w.startswith(_NOT_HANDLING) for w in words[max(start + 1, i - 2) : i])
        if word in _ABOUT and i > start and (_whole(_SHOWING, words[i - 1]) or talked):
            # "nic nie mów o zmianach", "don't tell them about the changes": the topic of speech is not an action
            return _Chain(tuple(operators), None, None, negations, i, spent=True)
        found = _operator(words, i)
        if found is not None and operators[0] in ("without", "bez", "без") and i > start + 1:
            # "Без моего ведома никому её не рассылай", "bez zgody nie publikuj": the prepositional phrase is a
            # condition; the negation after its object commands on its own
            return _Chain(tuple(operators), None, None, negations, i)
        if found is not None:
            if not _concord(operators[-1].split()[-1], found[0]):
                negations += 1
            operators.append(found[0])
            i = slot = i + found[1]
            steps = 0
            continue
        if word in _OBJECTING:
            # "I don't mind if you rerun a test frame", "Nie mam nic przeciwko, żebyś wysłał": a negated objection
            # gives leave
            return _Chain(tuple(operators), None, None, negations, i, spent=True)
        if _whole(_ASKING, word):
            # "no need to ask me before installing", "nie musisz pytać przed wysłaniem": the negation lifts the
            # asking, and the action after "before" is allowed, not forbidden
            return _Chain(tuple(operators), None, None, negations, i, spent=True)
        verbal = i == slot and operators[-1] in _VERBAL
        if verbal and len(operators) == 1 and _gate_verb(words, start, i, language):
            return _Chain(tuple(operators), None, None, 0, i)  # "dopóki nie przejrzę wyników testów": the gate's verb
        past = _is_past(word) and not _subjunctive(words, i) and not _impersonal_rule(words, i)
        # typed without Polish letters: "Naczelnik nie naniosl ani jednej poprawki" (naniósł)
        folded = operators[-1] == "nie" and len(word) > 4 and _FOLDED_PAST_PL.search(word) is not None
        past = past or (folded and not any(w in _SUBJUNCTIVE for w in _in_sentence(words, i, 0, i)))  # not "aby …"
        if verbal and operators[-1] in ("nie", "не") and word[0].isalpha() and past:
            return _Chain(tuple(operators), None, None, 0, i)  # "так и не пришёл, …": a past tense describes
        if _reported_past(words, operators, slot, i, language):
            return _Chain(tuple(operators), None, None, 0, i)  # "last year nobody sent it / ran any tests": a past fact
        if _is_action_stem(word):
            effect = action_of(words, i)
            describes = verbal and operators[-1] in ("nie", "не") and _describes(word) and not _subjunctive(words, i)
            describes = describes and not _impersonal_rule(words, i)
            if effect is None or describes:
                return _Chain(tuple(operators), None, None, 0, i)  # a past tense or a present third person
            after = _operator(words, i + 1) if i + 1 < len(words) else None
            if after is not None and words[i + 1] not in _PARTICLES | _N_WORDS:
                # "не нужно (с) установкой тянуть", fronted from "С установкой тянуть не нужно": the necessity
                # governs the deferral verb after the action, and that verb the action
                return _Chain((*operators, after[0]), i, effect, negations + 1, i + 1 + after[1])
            return _Chain(tuple(operators), i, effect, negations, i)
        effect = action_of(words, i)  # "open the gate": physical only with its object; "goes out": sent
        if effect is not None:
            # "письма не уходят клиентам": it describes; "дальше моей почты не уходит" sets a bound, a rule
            if (
                verbal
                and operators[-1] in ("nie", "не")
                and _describes(word, plain_polish=False)
                and not _beyond_me(words, i)
            ):
                return _Chain(tuple(operators), None, None, 0, i)
            return _Chain(tuple(operators), i, effect, negations, i)
        if i > 0 and _whole(_ASPECTUAL, words[i - 1]) and word.endswith("ing") and not _is_action_stem(word):
            return _Chain(tuple(operators), None, None, negations, i, spent=True)  # "don't start worrying about…"
        light = word in _LIGHT_VERBS or word in _NOUN_CARRIERS
        if verbal and not light and not _whole(_ASPECTUAL, word) and known_verb(word, language):
            return _Chain(tuple(operators), None, None, negations, i, spent=True)  # "don't use the old template"
        i += 1
        steps += 1
    return _Chain(tuple(operators), None, None, negations, i)


#: English past forms of actions that do not end in -ed.
_EN_IRREGULAR_PAST = {
    "sent", "told", "gave", "shown", "wrote", "written", "ran", "rang", "forwarded", "shared", "built", "put", "did",
    "made", "got", "went", "took",
}  # fmt: skip
_EN_SUBJECTS = {"i", "we", "you", "they", "he", "she", "it", "nobody", "someone", "somebody", "everyone", "who"}


def _en_past(word: str) -> bool:
    """An English past form: irregular ("sent", "ran") or in -ed (not "need", "feed")."""
    return word in _EN_IRREGULAR_PAST or (word.endswith("ed") and not word.endswith("eed"))


def _past_clause_before(words: list[str], start: int, language: str, *, subject_reach: int = 1) -> bool:
    """A verb before `start`, in its clause, is a past tense: "we rolled it out without any tests", "wdrożyliśmy bez
    testów", "выкатили без тестов" tell what happened; "ship it without tests" forbids. An English past needs its
    subject at most `subject_reach` words before it ("you asked", with 3 also "you always asked")."""
    for k in range(start - 1, -1, -1):
        word = words[k]
        if word in _CLAUSE_BREAK:
            return False
        if language == "en":
            lead = words[max(0, k - subject_reach) : k]
            lead = lead[next((i + 1 for i in range(len(lead) - 1, -1, -1) if lead[i] in _CLAUSE_BREAK), 0) :]
            if _en_past(word) and any(w in _EN_SUBJECTS for w in lead):
                return True
            # a noun subject after its determiner: "The board approved everything without a single change"
            if _en_past(word) and k >= 2 and words[k - 2] in ("the", "our", "my", "their") and words[k - 1].isalpha():
                return True
        elif _is_past(word) and not _subjunctive(words, k):
            return True
    return False


def _reported_past(words: list[str], operators: list[str], slot: int, index: int, language: str) -> bool:
    """An English past tense after a negative subject or "never": "nobody sent it", "no one published it", "we never
    posted the rota" report what happened ("no reports sent before Monday" is a nominal prohibition: not here)."""
    if language != "en":
        return False
    past = _en_past(words[index]) and not _wished(words, index)  # "I'd rather nobody published it" wishes
    subject = operators[-1] in ("nobody", "never", "no-one", "neither") or (
        operators[-1] == "no" and words[slot : slot + 1] == ["one"]
    )
    return past and subject


def _commands(words: list[str], start: int, end: int, language: str) -> bool:
    """Whether the negation scope [start, end) commands: "don't…", "never…", or a negation before an imperative or a
    verb of doing ("nie ruszaj", "не трогай", "ничего не делай"), not a description ("nic się nie działo")."""
    for j in range(start, min(end + 1, len(words))):
        word = words[j]
        if word in _IMPERATIVE_NOT or (word == "not" and j > 0 and words[j - 1] == "do"):
            return True
        if j > start and words[j - 1] in _VERBAL and word not in _N_WORDS | _VERBAL:
            return word in _DO_VERBS or (language != "en" and imperative_form(word, language))
    return False


def _numbered(words: list[str], breaks: AbstractSet[str]) -> list[int]:
    """The number of the span (clause, sentence) every token is in; a break belongs to the span it closes."""
    numbers: list[int] = []
    current = 0
    for word in words:
        numbers.append(current)
        if word in breaks:
            current += 1
    return numbers


def _clauses(words: list[str]) -> list[int]:
    """The clause number of every token."""
    return _numbered(words, _CLAUSE_BREAK)


def _sentences(words: list[str]) -> list[int]:
    """The sentence number of every token."""
    return _numbered(words, _SENTENCE_END)


def questions_in(words: list[str], sentence: list[int]) -> set[int]:
    """The numbers of the sentences that ask something: those ending in "?", but not a request closed by a tag
    ("Только это пока между нами, ладно?", "Keep it off the website for now, ok?")."""
    asked = set()
    for k, word in enumerate(words):
        if word != "?":
            continue
        tag = k >= 2 and words[k - 1] in QUESTION_TAGS and words[k - 2] in (",", "—", "–", "-")
        if not tag:
            asked.add(sentence[k])
    return asked


def _nearest_action_before(words: list[str], index: int, sentence: list[int], *, back: int = 0) -> int | None:
    """The nearest action word before `index` in its sentence (or up to `back` sentences before it)."""
    for j in range(index - 1, -1, -1):
        if sentence[index] - sentence[j] > back:
            return None
        if action_of(words, j) is not None:
            return j
    return None


def _first_person(words: list[str], start: int, end: int, language: str) -> bool:
    for word in words[start:end]:
        if word in _CLAUSE_BREAK:
            return False
        if word == "i" and language == "pl":
            continue  # Polish "i" is "and"
        if word in _FIRST_PERSON or (language == "en" and word in ("ive", "im")):  # texting: "till ive had a look"
            return True
        if language == "pl" and ((word.endswith("ę") and len(word) > 3) or word in _PL_FIRST_PERSON_VERBS):
            return True
    return False


def _speaker_gate(words: list[str], m: int, language: str) -> bool:
    """A speaker-gated "after": "after I approve", "po mojej akceptacji"."""
    before = words[m - 1] if m else ""
    return words[m] in _SPEAKER_GATED and before not in _ONLY and _first_person(words, m + 1, m + 5, language)


def _negated_until(words: list[str], m: int, sentence: list[int]) -> bool:
    """An "until" under a negative operator of its sentence: "wait until…", "don't … until…"; not under a negated
    necessity, which lifts the wait ("nie musisz czekać, aż to sprawdzę", "no need to wait until I've read it")."""
    if words[m] not in _UNTIL:
        return False
    operators = [j for j in range(m) if sentence[j] == sentence[m] and _operator(words, j)]
    return bool(operators) and not any(_lifted_necessity(words, j) for j in operators)


#: Modals of necessity: negated, they say the action need not wait ("nie musisz czekać", "не нужно ждать").
_NECESSITY = {
    "musisz", "musicie", "musi", "trzeba", "potrzeba", "need", "needs", "have", "has", "нужно", "надо", "обязательно",
    "обязан", "обязана", "требуется",
}  # fmt: skip


def _lifted_necessity(words: list[str], index: int) -> bool:
    """A negation of necessity at `index`: "nie musisz", "не нужно", "don't have to", "no need"."""
    after = words[index + 1 : index + 3]
    return bool(after) and (after[0] in _NECESSITY or (after[0] in ("ma", "need") and words[index] == "nie"))


def _speaker_until(words: list[str], m: int, language: str) -> bool:
    """An "until" or "without" whose clause names the speaker: "пока я не одобрю", "dopóki nie zatwierdzę", "without
    my approval". It gates only an action that is negated in its own clause (`_conditions`), so "keep sending until I
    say stop" and "send it without my approval" gate nothing."""
    if words[m] not in _UNTIL and words[m] not in ("without", "bez", "без"):
        return False
    return _first_person(words, m + 1, m + (5 if words[m] in _UNTIL else 3), language)


def _negated_in_clause(words: list[str], target: int, clause: list[int]) -> bool:
    return any(clause[j] == clause[target] and _operator(words, j) is not None for j in range(target))


def _conditions(words: list[str], language: str) -> list[tuple[int, str, EffectClass | None]]:
    """(index of the gated action, the condition's words, its effect when a verbless destination names it) for every
    condition that gates an action."""
    sentence, clause = _sentences(words), _clauses(words)
    gated: list[tuple[int, str, EffectClass | None]] = []
    for m, word in enumerate(words):
        after = words[m + 1] if m + 1 < len(words) else ""
        own = False  # the gate holds only for an action negated in its own clause
        not_earlier = next((p for p in _NOT_EARLIER if tuple(words[m : m + len(p)]) == p), None)
        if word in _NOT_BEFORE:
            trigger = word
        elif not_earlier is not None:
            trigger = " ".join(not_earlier)
        elif word in _ONLY and after in _CONDITIONAL and (after != "как" or m + 2 < len(words)):
            trigger = f"{word} {after}"
        elif _speaker_gate(words, m, language) or _negated_until(words, m, sentence):
            trigger = word
        elif _speaker_until(words, m, language):
            trigger = word
            own = True
        else:
            continue
        target = _nearest_action_before(words, m, sentence)
        if target is not None and clause[m] - clause[target] > 2:
            target = None
        between = words[target + 1 : m] if target is not None else []
        told = words[target:m] if target is not None else []  # the telling may be the nearest action itself
        if any(_whole(_TELLING, w) for w in told) and any(w in _PARTICLES for w in between):
            continue  # "send Jake a message telling him he's not allowed to push until the review": the message's
        fragment = _elliptic_fragment(words, m, sentence) if target is None and not own else None
        if fragment is not None:
            # "На сайт и на витрину — только после того, как я пересчитаю": the destination stands for its action
            gated.append((fragment[0], f"{trigger} (condition)", fragment[1]))
            continue
        if target is None:  # "Only after I approve, send it": the action after the condition clause
            target = next(
                (
                    j
                    for j in range(m + 1, len(words))
                    if sentence[j] == sentence[m] and clause[j] > clause[m] and action_of(words, j) is not None
                ),
                None,
            )
        if target is not None and own and not _negated_in_clause(words, target, clause):
            target = None
        if target is not None:
            # "Отправь письмо только после…": the verb just before its object is what is gated.
            effect = action_of(words, target)
            for back in (1, 2):
                same = target - back >= 0 and sentence[target - back] == sentence[target]
                if same and action_of(words, target - back) == effect:
                    target -= back
                    break
            gated.append((target, f"{trigger} (condition)", None))
            # "Размещение графика на сайте и его рассылка … только после согласования": every action coordinated
            # with the gated one in its clause waits for the same condition
            # (actions named as nouns or infinitives: in "Write the summary and send it only once I approve" the
            # condition is the second command's alone)
            for j in range(target - 1, max(-1, target - 10), -1):
                if clause[j] != clause[target]:
                    break
                coordinated = any(w in _CONTINUE for w in words[j + 1 : target])
                if coordinated and action_of(words, j) is not None and _nominal_action(words[j], language):
                    gated.append((j, f"{trigger} (condition)", None))
    return gated


def _nominal_action(word: str, language: str) -> bool:
    """An action named as a thing, not commanded: "publishing", "publication", "размещение", "wysyłka",
    "публиковать" (not "publish", "wyślij", "разошли")."""
    if language == "en":
        return word.endswith(("ing", "ion", "ions"))
    return not imperative_form(word, language)


#: "until" in Polish and Russian: the negation of its clause asserts nothing ("пока Тимур не посмотрит").
_UNTIL_EXPLETIVE = {"пока", "dopóki", "dopoki", "aż", "az"}
_QUOTES = {"«", "»", '"', "“", "”", "„"}


def _expletive(words: list[str], index: int) -> bool:
    """ "пока Тимур не посмотрит изменения", "dopóki Tomek nie przejrzy zmian": the "не"/"nie" of an until-clause
    with its own subject negates nothing (the clause is a gate, read by `_conditions`); "пока ничего не отправляй"
    and "пока не публикуй" (for now, don't) keep their negation."""
    if words[index] not in ("не", "nie"):
        return False
    for k in range(index - 1, max(-1, index - 5), -1):
        if words[k] in _CLAUSE_BREAK:
            return False
        if words[k] in _UNTIL_EXPLETIVE:
            between = words[k + 1 : index]
            if not between or any(w in _N_WORDS or w in _PARTICLES for w in between):
                return False
            if index + 1 < len(words) and _imperative_ending(words[index + 1]):
                return False  # "пока её не выкладывай": for now, a command (an until-clause's verb is no imperative)
            # "пока я не скажу «отправляй»": the command the gate waits for is what is held back until then
            end = next((j for j in range(index + 1, len(words)) if words[j] in _CLAUSE_BREAK), len(words))
            return not any(w in _QUOTES for w in words[index + 1 : end])
    return False


def _imperative_ending(word: str) -> bool:
    """A Russian or Polish imperative by its ending ("выкладывай", "отправь", "посмотрите", "wysyłaj", "wrzucajcie"),
    not an infinitive ("отправить", "нести") nor a finite verb ("посмотрит", "przejrzy")."""
    if word.endswith(("ть", "ти", "чь")):
        return False
    return word.endswith(("й", "йте", "ь", "ьте", "и", "ите", "j", "jcie"))


def _coordinated_action(words: list[str], index: int, first: int) -> EffectClass | None:
    """The effect of the action at `index`, coordinated with the one at `first`: a motion verb there shares the
    first verb's subject ("should any of this leave your hands or end up on the intranet"), so it is read in the
    first verb's place."""
    effect = action_of(words, index)
    if effect is None and words[index] in _ARRIVING_EN:
        effect = action_of([*words[:first], *words[index:]], first)
    return effect


#: Where data is kept, that a thing going into is written: "into the HR system", "do arkusza", "в базу".
_RECORDS_INTO = (*_WRITTEN_INTO, "=system", "systemu", "систем", "=tracker", "=crm", "табел", "rejestr", "реестр")
#: A necessity in the past: what was (not) needed is reported, not forbidden ("не пришлось", "nie trzeba było").
_PAST_NECESSITY = {"пришлось", "понадобилось", "потребовалось", "требовалось", "musieliśmy", "musiałem", "musiałam",
                   "musiał"}  # fmt: skip


#: Verbs of telling someone what to do: a negation they govern binds the one told ("I told the guards not to delete
#: the recordings", "kazałem im nie kasować", "попроси Марину не отправлять"), not the agent, unless it is "you".
_TELLING = (
    "=told", "=tell", "=asked", "=ask", "=instructed", "=instruct", "=ordered", "=warned", "=warn", "=reminded",
    "kaza", "każ", "powiedział", "powiedz", "prosił", "poprosił", "popros", "polecił", "ostrzegł", "przypomniał",
    "велел", "велит", "сказал", "скажи", "попросил", "попроси", "просил", "приказал", "предупредил", "предупреди",
    "напомнил", "поручил",
)  # fmt: skip
#: The agent as the one told: "I told you not to send it", "kazałem ci nie wysyłać", "я же просил тебя не трогать".
_TOLD_YOU = {"you", "ci", "cię", "cie", "ciebie", "wam", "was", "тебе", "тебя", "вам", "вас"}
_SO_THAT_NOT = {"żeby", "zeby", "aby", "чтобы", "чтоб"}


def _told_to_another(words: list[str], index: int) -> bool:
    """The negation at `index` is what a verb of telling before it, in its clause (or across the comma before
    "żeby"/"чтобы"), tells someone other than the agent to keep from: "I asked Tom not to send it", "Powiedziałem
    Markowi, żeby nie wysyłał raportu", "Я велел охранникам не удалять записи"."""
    k = index - 1
    while k >= max(0, index - 8):
        word = words[k]
        if word in _CLAUSE_BREAK:
            if not (k + 1 < len(words) and words[k + 1] in _SO_THAT_NOT):
                return False
        elif _whole(_TELLING, word):
            told = words[max(0, k - 2) : index]
            return not any(w in _TOLD_YOU for w in told)
        k -= 1
    return False


def told_to_another_at(words: list[str], position: int) -> bool:
    """The action at `position` is what a negation right before it (at most three words) keeps from someone other
    than the agent: told to them ("I told the interns not to post anything … until the rebrand", see
    `_told_to_another`) or borne by them ("he's not allowed to push", "ей запрещено выкладывать")."""
    for k in range(position - 1, max(-1, position - 4), -1):
        if words[k] in _CLAUSE_BREAK:
            return False
        if (words[k] in _PARTICLES or words[k] in _N_WORDS) and (
            _told_to_another(words, k) or borne_by_another(words, k)
        ):
            return True
    return False


#: Who bears a prohibition said right before it, when it is not the agent: a third person as its subject ("he's not
#: allowed", "они не должны") or, before an impersonal one, in the dative ("ей запрещено", "jej nie wolno"); "you are
#: not allowed", "тебе запрещено" are the agent's, and a dative before a command is its recipient ("ей не отправляй").
_OTHER_SUBJECTS = {"he", "she", "they", "he's", "she's", "they're", "он", "она", "они", "ona", "on", "oni"}
_OTHER_DATIVES = {"jemu", "jej", "im", "mu", "ему", "ей", "им"}
#: Impersonal prohibitions whose bearer stands before them in the dative: "подрядчику запрещено ставить".
_IMPERSONAL_FORBIDDING = {"запрещено", "запрещается", "нельзя", "недопустимо", "zabronione", "niedozwolone"}


#: Before Polish "on" (he) as a subject: its clause's start or a conjunction; English "on" ends a phrasal verb ("hang
#: on — nothing gets renamed", "from now on").
_BEFORE_POLISH_ON = {"i", "a", "ale", "bo", "że", "ze", "więc", "wiec", "to"}


def _third_person(words: list[str], k: int) -> bool:
    """Whether `words[k]` is a third person's pronoun as a subject (`_OTHER_SUBJECTS`)."""
    if words[k] not in _OTHER_SUBJECTS:
        return False
    return words[k] != "on" or k == 0 or words[k - 1] in _CLAUSE_BREAK or words[k - 1] in _BEFORE_POLISH_ON


def borne_by_another(words: list[str], index: int) -> bool:
    """The prohibition at `index` is borne by someone other than the agent: a third person right before it ("he's
    not allowed", "они не должны", "ей запрещено") or, before an impersonal one, a noun in the dative ("подрядчику
    запрещено ставить своё ПО")."""
    before = words[max(0, index - 2) : index]
    if any(_third_person(words, k) for k in range(max(0, index - 2), index)):
        return True
    if words[index] not in _IMPERSONAL_FORBIDDING:
        return False
    noun = before[-1] if before else ""
    dative = len(noun) > 3 and noun.isalpha() and noun.endswith(("у", "ю", "ам", "ям", "owi", "om"))
    return dative or any(w in _OTHER_DATIVES for w in before)


def _reported_necessity(words: list[str], index: int) -> bool:
    """A past necessity in the clause of the action at `index` ("не пришлось", "trzeba było", "had to")."""
    start, end = _clause_span(words, index)
    clause = words[start:end]
    if "had" in clause or "needed" in clause:
        return any(w in ("to", "be") for w in clause)  # "nothing had to be restarted", "we never needed to send it"
    if "było" in clause or "bylo" in clause:
        return "trzeba" in clause  # "nie trzeba było", not any "było" ("nie było czasu, nie wysyłaj")
    return any(w in _PAST_NECESSITY for w in clause)


#: Verbs of touching, whose negation leaves alone the action noun that opens their clause ("Aktualizacji nie ruszaj").
_TOUCHING_STEMS = ("rusz", "трога", "tknij", "dotyk")
#: Verbs that only carry an action named by a noun: "nie rób restartów", "не делай перезапуск", "don't do it".
_NOUN_CARRIERS = {"rób", "róbcie", "rob", "robić", "robic", "zrób", "zrob", "делай", "делайте", "делать", "сделай"}
#: Prepositions of a place: "on the intranet", "na stronę", "в чат".
_PLACE_PREPOSITIONS = {"on", "onto", "to", "into", "in", "na", "do", "w", "we", "на", "в", "во", "к"}


def _second_destination(words: list[str], verb: int) -> tuple[int, EffectClass] | None:
    """A second place for the verb at `verb` after a disjunction in its clause, with no verb of its own ("don't put
    it in the folder or on the website", "nie wrzucaj go do folderu ani na kanał", "не клади в папку или на сайт"):
    the verb's effect with that place, read as if the place came right after the verb."""
    _, end = _clause_span(words, verb)
    for k in range(verb + 2, min(end, verb + 10)):
        if words[k] in _DISJUNCTIVE and k + 1 < end and words[k + 1] in _PLACE_PREPOSITIONS:
            effect = action_of([*words[: verb + 1], *words[k + 1 : end]], verb)
            return (k + 1, effect) if effect is not None else None
    return None


#: Verbs that enter a thing into a place: written or put there, it is wherever the place is read ("не вноси в
#: журнал и на доску", "don't write it in the log or on the noticeboard", "nie wpisuj do dziennika ani na tablicę").
_ENTERING_INTO = (
    *_WRITING_INTO, "!вноси", "!внеси", "!внести", "!внесите", "!впиши", "!вписать", "!вписывай", "!запиши",
    "!записывай", "!записать", "wpis", "dopis", "zapisz", "zapisuj",
    # keying values in: "в контроллер ничего не вбивай", "nic nie wbijaj do sterownika", "не вводи уставки в пульт"
    "!вбив", "!вбей", "!вбить", "!вводи", "!введи", "!ввести", "wbij", "wprowadź", "wprowadz", "=enter", "=key",
)  # fmt: skip
#: Records a thing is entered into: what is entered there is written locally ("в журнал", "do arkusza").
_RECORDS = (*_RECORDS_INTO, "=register", "=logbook")


def _places_entered(words: list[str], verb: int, *, sent: bool = False) -> list[tuple[int, EffectClass]]:
    """The places of the entering verb at `verb`, after it or fronted in its clause, each with the effect of entering
    a thing there: a venue everyone reads is a publication, a record a local write ("В электронный журнал и на доску
    замен не вноси" forbids both). With `sent`, the places after a word of sending ("no messages on the website")."""
    entering = any(_stem_match(stem, words[verb]) for stem in _ENTERING_INTO) or _whole(_PLACING, words[verb])
    if not entering and not sent:
        return []
    start, end = _clause_span(words, verb)
    if sent:
        start = verb + 1
    found: list[tuple[int, EffectClass]] = []
    for k in range(start, end):
        if words[k] not in _PLACE_PREPOSITIONS or words[k] in ("to", "к") or k == verb:
            continue  # "write to the board": to people
        stop = min(end, k + 4, verb if k < verb else end)
        named = next((j for j in range(k + 1, stop) if words[j] not in _DETERMINERS), None)
        if named is None:
            continue
        phrase = range(named, min(stop, named + 2))  # "на доску замен", "в электронный журнал"
        if any(_whole(_VENUES, words[j]) for j in phrase):
            found.append((named, "publication"))
        elif any(_whole(_RECORDS, words[j]) for j in phrase):
            found.append((named, "local_write"))
        elif any(_device(words[j]) for j in phrase):
            found.append((named, "physical"))
    return found


#: Who a thing is sent to, in the clause after a word of sending: "to the parents", "do klienta", "ему".
_SENT_TO = {"to", "к", "do", "him", "her", "them", "ему", "ей", "им", "jemu", "jej", "im", "mu"}


def _onto_a_venue(words: list[str], index: int) -> bool:
    """The word of sending at `index` puts its message on venues only, to no one: "никаких сообщений на сайт",
    "żadnych wiadomości na stronę szkoły", "no messages on the website"."""
    places = _places_entered(words, index, sent=True)
    end = _clause_span(words, index)[1]
    # the first place right after the word, past a thing carried ("Don't message the parents on Facebook": to them)
    first = next((k for k in range(index + 1, end) if words[k] not in _CARRIED and words[k] not in _DETERMINERS), end)
    return (
        bool(places)
        and first < end
        and words[first] in _PLACE_PREPOSITIONS
        and all(effect == "publication" for _, effect in places)
        and not any(w in _SENT_TO for w in words[index + 1 : end])
    )


def names_in(text: str) -> frozenset[str]:
    """The words `text` writes capitalized inside a sentence, lowercased as `tokens` gives them ("Na stronę wrzuci je
    Marek" → marek), and a capitalized first word followed by "will" ("Kasia will post it"); not "I", not a word
    written all in capitals ("HR", "PDF")."""
    raw = _TOKEN.findall(text.replace("’", "'").replace("ё", "е").replace("Ё", "Е"))
    found: set[str] = set()
    for k, token in enumerate(raw):
        if not token[:1].isupper() or token.isupper() or token == "I":
            continue
        opening = k == 0 or raw[k - 1] in _SENTENCE_END or raw[k - 1] in ("!", "?", ":", "\n")
        if not opening or raw[k + 1 : k + 2] in (["will"], ["'ll"]):
            found.add(token.lower())
    return frozenset(found)


def words_of(text: str) -> list[str]:
    """The tokens of `text` as the readers walk them: a negated necessity after its action moved before it."""
    return _front_postposed(tokens(text))


def chain_readings(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """The readings found by negation chains, conditions, stop-before and the structures without a chain, each at
    the position of its action word (unsorted; `alicorn.models.intent.forbidden` adds the prohibitive forms)."""
    sentence, clause = _sentences(words), _clauses(words)
    found: list[tuple[int, ForbiddenAction]] = []
    consumed: set[int] = set()
    commands: list[tuple[int, int]] = []  # (sentence, clause) of every negated command: context for a list after it
    for index, word in enumerate(words):
        if word in _NEGATE_BEFORE and index > 0:
            effect = action_of(words, index - 1)
            if effect is not None:
                found.append((index - 1, ForbiddenAction(effect, word, words[index - 1])))
        if index in consumed or _operator(words, index) is None or _expletive(words, index):
            continue
        chain = _walk(words, index, language)
        consumed.update(range(index, chain.end))
        if chain.index is not None:
            # a negative-concord word after the negated verb, in its clause, is an argument of that one negation
            # ("nie wysyłaj nikomu wyników wdrożenia", "не отправляй никому отчёт об установке"), not a new one
            for j in range(chain.index + 1, len(words)):
                if words[j] in _CLAUSE_BREAK or words[j] in _COORDINATORS:
                    break
                if words[j] in _N_WORDS:
                    consumed.add(j)
        trigger = " … ".join(chain.operators)
        if chain.index is None and chain.negations % 2 == 1 and not chain.spent:
            # "publish it later, not now": a verbless negated clause of temporal words is elliptic for the clause
            # before it; its action is the nearest one before.
            rest = [w for w in words[index + 1 : chain.end] if w not in _CLAUSE_BREAK]
            closes = chain.end >= len(words) or words[chain.end] in _CLAUSE_BREAK
            if closes and all(w in _ELLIPTIC for w in rest) and words[index] in ("not", "no", "nie", "не", "нет"):
                target = _nearest_action_before(words, index, sentence, back=1)
                effect = action_of(words, target) if target is not None else None
                fragment = _elliptic_fragment(words, index, sentence)
                if fragment is not None and (effect is None or fragment[1] in ("publication", "installation")):
                    target, effect = fragment  # "Na Facebooka jeszcze nie", "To the director - not yet"
                elif fragment is None and _clause_words_before(words, index):
                    target = None  # "секретов тут нет", "no problem": a negated noun, not an elided action
                if target is not None and effect is not None:
                    elliptic = " ".join(words[index : chain.end])
                    found.append((target, ForbiddenAction(effect, f"{elliptic} (elliptic)", words[target])))
        hits: list[tuple[int, EffectClass]] = []
        if chain.index is not None and chain.effect is not None and not _run_past_me(words, chain.index):
            hits.append((chain.index, chain.effect))
        elif chain.negations % 2 == 1 and index + 1 < len(words) and words[index + 1] in _NOUN_CARRIERS:
            # "Restartów nie rób", "Перезапусков не делай": the action is the noun fronted before "do", with those
            # coordinated before it in its clause ("merge в main и deploy без меня не делать")
            start = _clause_span(words, index)[0]
            fronted = next(
                ((j, e) for j in range(index - 1, max(start, index - 6) - 1, -1) if (e := action_of(words, j))), None
            )
            if fronted is not None:
                hits.append(fronted)
                for j in range(fronted[0] - 1, max(start, fronted[0] - 6) - 1, -1):
                    effect = action_of(words, j)
                    if effect is not None and any(w in _CONTINUE for w in words[j + 1 : fronted[0]]):
                        hits.append((j, effect))
        elif chain.negations % 2 == 1 and index + 1 < len(words) and words[index + 1].startswith(_TOUCHING_STEMS):
            # "Aktualizacji wtyczki na komputerach wolałabym na razie nie ruszać", "Рассылку пока не трогай": an
            # action noun opening the clause is what is not to be touched
            start = _clause_span(words, index)[0]
            effect = action_of(words, start) if index - start <= 12 else None
            if effect is not None and not _is_past(words[start]):
                hits.append((start, effect))
        command = chain.negations % 2 == 1 and (
            chain.spent or chain.index is not None or _commands(words, index, chain.end, language)
        )
        if command:
            commands.append((sentence[index], clause[index]))
        if chain.index is None and not chain.spent and command:
            # "не трогай котёл", "don't touch the valves": the device named in a negated command is operated
            device = next((j for j in range(index + 1, chain.end) if _device(words[j])), None)
            handling = not any(w.startswith(_NOT_HANDLING) for w in words[index + 1 : device]) and not any(
                w in _ABOUT for w in words[index + 1 : device]
            )
            software = device is not None and _whole(_SOFTWARE, words[device]) and _installs_in_sentence(words, device)
            if device is not None and handling and not software:
                hits.append((device, "physical"))  # not "nie instaluj ani nie cofaj sterowników" (drivers)
        # "do not publish it or email it": one more action after "or" / "ani" / "или", within a few words (a
        # disjunction also past a longer object: "don't update the app on the server or put the notice up"); after
        # a non-action verb only a disjunction carries the negation ("don't copy or send it").
        position = chain.index if chain.index is not None else (chain.end if chain.spent else None)
        while position is not None:
            follow = next(
                (
                    i
                    for i in range(position + 1, min(len(words), position + 8))
                    if words[i] in _DISJUNCTIVE or (words[i] in _CONTINUE and i < position + 4)
                ),
                None,
            )
            if follow is None or any(words[i] in _CLAUSE_BREAK for i in range(position + 1, follow)):
                break
            if chain.index is None and words[follow] not in _DISJUNCTIVE:
                break
            nxt = next(
                (
                    i
                    for i in range(follow + 1, min(len(words), follow + 4))
                    if words[i] not in _CLAUSE_BREAK and _coordinated_action(words, i, position) is not None
                ),
                None,
            )
            if nxt is None or any(words[i] in _CLAUSE_BREAK for i in range(follow, nxt)):
                break
            if _operator(words, nxt - 1) is not None:
                break  # "не отправлять и не выкладывать": the second has its own negation
            effect = _coordinated_action(words, nxt, position)
            assert effect is not None
            hits.append((nxt, effect))
            consumed.update(range(follow, nxt + 1))
            position = nxt
        if chain.index is not None and chain.effect is not None:
            second = _second_destination(words, chain.index)
            if second is not None and second[1] != chain.effect:
                hits.append(second)  # "nie wrzucaj go do folderu ani na stronę": the same verb, another place
            # "В журнал и на доску не вноси": one verb of entering, each of its places read for itself
            hits.extend(item for item in _places_entered(words, chain.index) if item[1] != chain.effect)
        for position, effect in list(hits):
            if effect == "external_transmission" and _beyond_me(words, position):
                # "дальше моей почты не уходит", "it doesn't go beyond my inbox": no one else has it, so neither sent
                # nor published
                hits.append((position, "publication"))
            if effect == "publication" and _to_audience(words, position):
                # "nothing goes to the staff until…": mailed to all of them or put up for all of them, both forbidden
                hits.append((position, "external_transmission"))
        if hits and _reported_necessity(words, hits[0][0]):
            hits = []  # "ничего перезапускать не пришлось", "nothing had to be restarted": a report of what was done
        for position, effect in hits:
            forbids = chain.negations % 2 == 1
            found.append((position, ForbiddenAction(effect, trigger, words[position], forbids)))
    # a list after a negated command: "niczego nie uruchamiaj: żadnych syren ani blokowania bram"
    for index, word in enumerate(words):
        if word not in _NOMINAL or not any(s == sentence[index] and c < clause[index] for s, c in commands):
            continue
        for j in range(index + 1, min(len(words), index + 4)):
            if words[j] in _CLAUSE_BREAK or words[j] in _COORDINATORS:
                break
            effect = "physical" if _device(words[j]) else action_of(words, j)
            if effect is not None:
                found.append((j, ForbiddenAction(effect, f"{word} (listed)", words[j])))
                break
    # deferral adverbs: "publish it later", "opublikuj później", "опубликуй позже"
    for index, word in enumerate(words):
        put_off = _put_off_by_predicate(words, index, clause, language)
        if put_off is None:
            put_off = _talked_over_later(words, index, clause)
        if put_off is not None:
            target, effect = put_off
            found.append((target, ForbiddenAction(effect, f"{word} (put off)", words[target])))
            continue
        left = _left_for_after(words, index, clause)
        if word not in _LATER and not left:
            continue
        same = [j for j in range(len(words)) if clause[j] == clause[index] and j != index]
        # what is left for after is the clause's topic, fronted: "Wysyłkę do dowódców zmian zostawmy na po…"
        before = [j for j in same if j < index] if left else [j for j in reversed(same) if j < index]
        target = next((j for j in before if action_of(words, j) is not None), None)
        if target is None:
            target = next((j for j in same if j > index and action_of(words, j) is not None), None)
        effect = action_of(words, target) if target is not None else None
        if target is not None and effect is not None:
            found.append((target, ForbiddenAction(effect, f"{word} (deferred)", words[target])))
    # conditions: "only after I say so", "dopiero jak powiem", "только после моего подтверждения"
    for target, trigger, fragment_effect in _conditions(words, language):
        effect = fragment_effect or action_of(words, target)
        if effect is not None:
            found.append((target, ForbiddenAction(effect, trigger, words[target])))
            if effect == "publication" and _to_audience(words, target):
                found.append((target, ForbiddenAction("external_transmission", trigger, words[target])))
    # "keep them unpublished", "niech zostaną nieopublikowane", "оставь неотправленным": the negated adjective
    for index, word in enumerate(words):
        for stem, adjective in _NEGATED_ADJECTIVES:
            if word.startswith(stem):
                found.append((index, ForbiddenAction(adjective, word, word)))
    # stop-before: "stop before installation", "przed instalacją zatrzymaj się", "спроси перед отправкой"
    members: list[int] = []
    for index, word in enumerate([*words, "."]):
        if word not in _SENTENCE_END:
            members.append(index)
            continue
        # "you don't have to wait for me before you email": a negated stop word stops nothing
        stops = [i for i in members if words[i] in _STOP_WORDS or _shown_first(words, i)]
        # "Zanim cokolwiek zainstalujesz – czy ta wersja obsługuje nasze drukarki?": a question opened by "before
        # you …" is the check to make first
        asked_first = word == "?" and bool(members) and words[members[0]] in _BEFORE_WORDS
        if asked_first or any(not any(words[k] in _PARTICLES for k in range(max(0, i - 4), i)) for i in stops):
            for i in members:
                if words[i] in _BEFORE_WORDS:
                    hit = _scan(words, i + 1, 4)
                    while hit is not None:
                        found.append((hit[0], ForbiddenAction(hit[1], f"{words[i]} (stop before)", words[hit[0]])))
                        follow = next((k for k in range(hit[0] + 1, min(len(words), hit[0] + 4)) if words[k] in
                                       _DISJUNCTIVE or words[k] in ("and", "i", "и")), None)  # fmt: skip
                        hit = _scan(words, follow + 1, 3) if follow is not None else None
        members = []
    found.extend(_structural(words, language))
    return found


# fmt: off
#: Nouns of a message that goes to someone ("a report to the client", "raport do klienta", "отчёт клиенту", "hold
#: the reply"). "=" marks a whole word (with its plural), otherwise a prefix.
_OUTBOUND_NOUNS = (
    "=report", "=letter", "=email", "=e-mail", "=mail", "=message", "=reply", "replies", "=answer", "=notice",
    # what a candidate or a supplier hears back: "she gets feedback only once I say so"
    "=feedback",
    "=memo", "=update", "=summary", "summaries", "=newsletter", "=invitation", "=invite", "=offer", "=quote",
    "raport", "=list", "=listu", "=listy", "wiadomoś", "wiadomos", "odpowiedź", "=odpowiedzi", "odpowiedzią",
    "=mail", "=maila", "=maile", "=oferta", "=ofertę", "=oferty", "zaproszeni", "podsumowani", "newsletter",
    "отчет", "=ответ", "=ответа", "=ответы", "=ответом", "письм", "сообщени", "=рассылка", "=рассылку",
    "предложени", "приглашени", "сводк", "=уведомление",
    # a costing made for a client: "the estimate", "wycena", "смета"
    "=estimate", "wycen", "kosztorys", "смет",
)
#: Holding verbs: with an action or a message as object and an "until" after it they defer it ("hold the reply until
#: I've read it", "wstrzymaj odpowiedź do jutra", "придержи ответ до понедельника").
_HOLDING = (
    "=hold", "=keep", "=withhold", "wstrzymaj", "wstrzymajcie", "przytrzymaj", "zatrzymaj", "trzymaj", "zachowaj",
    "придерж", "попридерж", "держи", "задержи", "повремени",
)
_HOLD_UNTIL = {"until", "till", "do", "aż", "dopóki", "póki", "до", "пока"}
#: What may stand between a verb and its object: articles, demonstratives, possessives, a pronoun.
_DETERMINERS = {
    "the", "a", "an", "this", "that", "these", "those", "my", "your", "our", "their", "his", "her", "its", "it",
    "them", "any", "all", "ten", "ta", "to", "tę", "te", "tego", "tej", "moją", "moje", "mój", "twoją", "twoje",
    "naszą", "nasze", "swoją", "swoje", "go", "ją", "je", "wszystko", "этот", "эту", "это", "эти", "мой", "мою",
    "твой", "твою", "наш", "нашу", "свой", "свою", "его", "ее", "их", "все", "всё",
}
#: The mark of a reading of keeping something private in its trigger: no one else is to have it, so it is neither
#: sent nor published (`forbidden` adds the publication unless the sentence withholds a letter from its addressee).
KEPT_PRIVATE = "kept private"
#: Idioms of keeping something private (after a verb of keeping, staying or leaving, with at most a pronoun between):
#: they forbid passing it on ("keep it to yourself", "niech zostanie między nami", "держи при себе").
_PRIVATE_PHRASES: tuple[tuple[str, ...], ...] = (
    ("to", "yourself"), ("to", "yourselves"), ("between", "us"), ("between", "ourselves"), ("between", "you", "and",
    "me"), ("under", "wraps"), ("under", "your", "hat"), ("in", "confidence"), ("confidential",), ("secret",),
    ("dla", "siebie"), ("między", "nami"), ("miedzy", "nami"), ("w", "tajemnicy"), ("poufne",),
    ("при", "себе"), ("между", "нами"), ("в", "тайне"), ("в", "секрете"),
)
_KEEPING = (
    "=keep", "=stay", "=remain", "=leave", "=let", "=hold",
    "zachowaj", "zachowajcie", "zatrzymaj", "trzymaj", "zostaw", "zostanie", "zostań", "zostaje", "pozostanie",
    "=zostać", "=zostac", "=pozostać", "=pozostac", "=остаться", "остается", "остаётся",
    "pozostaw", "niech", "держи", "держите", "оставь", "оставьте", "останется", "сохрани", "сохраните", "пусть",
)
#: Idioms that say so without a verb: "for your eyes only", "tylko do twojej wiadomości", "только для твоих глаз".
_PRIVATE_ALONE: tuple[tuple[str, ...], ...] = (
    ("for", "your", "eyes", "only"), ("tylko", "do", "twojej", "wiadomości"), ("tylko", "dla", "twoich", "oczu"),
    ("только", "для", "твоих", "глаз"), ("только", "для", "тебя"),
    # a discourse marker of confidence: "Between you and me: the supplier must never…", "Между нами: …"
    ("between", "you", "and", "me", ":"), ("między", "nami", ":"), ("между", "нами", ":"),
    ("between", "you", "and", "me", ","), ("między", "nami", ","), ("между", "нами", ","),
)
#: "between us" ending a clause said of a thing: "Только это пока между нами, ладно?", "This stays between us",
#: "To na razie między nami." (not "split the tips between us and the kitchen", "между нами говоря").
_BETWEEN_US = {("between", "us"), ("между", "нами"), ("między", "nami"), ("miedzy", "nami")}
_BETWEEN_US_ENDS = QUESTION_TAGS | {"да", "please"}
#: Dividing or choosing between people: "split the tips between us", "podziel między nami", "раздели между нами".
_DIVIDING = ("=split", "=divide", "=share", "=shared", "podziel", "dziel", "раздел", "подел", "распредел", "rozdziel")


def _private_said_of_a_thing(words: list[str], index: int) -> bool:
    """ "between us" at `index` closes its clause (a comma, an end, "ladno"/"ok") and nothing in the clause divides
    something between people: the thing the clause is about stays private."""
    after = words[index + 2 : index + 3]
    if after and after[0] not in _SENTENCE_END and after[0] not in _CLAUSE_BREAK and after[0] not in _BETWEEN_US_ENDS:
        return False
    start = _clause_span(words, index)[0]
    if start == index:
        return False  # "Między nami: …", "Between us, …": a marker of confidence opening its clause (_PRIVATE_ALONE)
    return not any(_whole(_DIVIDING, w) for w in words[start:index])


#: Verbs of showing or telling: negated with nobody as the recipient they forbid passing it on ("никому не
#: показывай", "nikomu nie mów", "don't show it to anyone").
_SHOWING = (
    "=show", "=tell", "=give", "=pass", "=leak", "=reveal", "=disclose", "pokazuj", "pokaż", "mów", "mow", "powiedz",
    "dawaj", "daj", "przekazuj", "przekaż", "zdradź", "zdradzaj", "показыв", "покажи", "показать", "говори",
    "скажи", "рассказыв", "расскажи", "давай", "дай", "передава", "передай", "раскрыва",
)
_NOBODY = {"nikomu", "nikogo", "никому", "nobody", "anyone", "anybody", "no-one"}
#: What points at the thing itself after a verb of seeing ("see it", "hears about this", "lay eyes on our…").
_POINTING = {
    "it", "this", "that", "them", "these", "those", "about", "on", "of", "from", "tego", "go", "ją", "je", "ich",
    "o", "tym", "te", "tych",
    "его", "ее", "их", "это", "об", "о", "про", "эти", "этих", "эту", "этот",
}  # fmt: skip
#: Verbs of seeing and learning: negated, with someone else as the subject, the thing is not to reach them.
#: Verbs of hearing and learning: someone who is to hear it "from me" hears it from the speaker, not from us.
_LEARNING = ("=hear", "dowie", "dowiedz", "usłysz", "узна", "услыш")
_PERCEIVING = ("=see", "=learn", "=lay", "zobacz", "увид", "видет", "видят", "widzie", "widzia", *_LEARNING)
#: Idioms of learning: "catch wind of it", "get wind of it", "find out about it".
_LEARNING_IDIOMS = {("catch", "wind"), ("get", "wind"), ("gets", "wind"), ("catches", "wind"), ("find", "out")}
#: Touching or editing a data object in a negated or "without" clause writes to it ("without touching the
#: spreadsheet", "nie ruszaj arkusza", "журнал не правь"); a device stays physical ("не трогай котёл").
_TOUCHING = (
    "=touch", "=modify", "=edit", "=alter", "=change", "=mess", "=tamper", "rusz", "zmieni", "zmienia", "edyt",
    "modyfik", "dotyk", "grzeb", "трог", "правь", "править", "правьте", "правка", "правки", "=меняй", "=меняйте",
    "менять",
    "измен", "редакт", "касай", "касаться", "лезь",
    # rearranging it in place: "don't tidy or re-sort the sheet", "nie sortuj arkusza", "таблицу не пересортировывай"
    "=tidy", "=sort", "=resort", "=reorder", "=rearrange", "=reformat", "sortuj", "posortuj", "przesortuj",
    "porządkuj", "uporządkuj", "sortowa", "сортир", "пересортир", "отсортир", "упорядоч",
)
_DATA_OBJECTS = (
    "=file", "=spreadsheet", "=sheet", "=log", "=logfile", "=table", "=database", "=db", "=records", "=ledger",
    "=register", "=registers",
    "plik", "arkusz", "dziennik", "=logu", "=logi", "tabel", "baz", "rejestr",
    "файл", "таблиц", "журнал", "=лог", "=логи", "логов", "баз", "реестр", "document", "dokument", "документ",
    "=original", "orygina", "оригинал", "исходник", "=sources", "źródłow", "zrodlow", "protok", "протокол", "=copy",
    "=master", "=folder", "folder", "katalog", "папк", "каталог", "выгрузк", "eksport", "=export",
    "magazynow", "=inventory", "=stock", "остатк",
    # diminutives: "исходную табличку не трогай", "tabelki nie ruszaj"
    "табличк", "tabelk",
    # trackers and registers people keep: "the candidate tracker stays as it is", "табель", "ewidencja"
    "=tracker", "=crm", "табел", "ewidencj", "kartotek",
    # the books: "without touching anything in the accounts", "nie ruszaj księgowości", "бухгалтерию не трогай"
    "=accounts", "=books", "=bookkeeping", "księgow", "ksiegow", "бухгалтер",
    # a spreadsheet by its program: "stary harmonogram w excelu", "the old schedule in Excel", "таблица в экселе"
    "=excel", "excelu", "excela", "экселе", "эксел", "excell",
    # a spreadsheet's workbook: "I'd rather you didn't touch the workbook", "skoroszytu nie ruszaj"
    "=workbook", "=workbooks", "skoroszyt",
    # backups and templates: "The backups — don't touch them", "Бэкапы не трогай", "Остальные шаблоны не трогай"
    "backup", "бэкап", "бекап", "резервн", "=kopia", "=kopie", "=kopii", "=kopię", "=template", "=templates",
    "szablon", "шаблон",
    # a spreadsheet's columns: "Kolumny z cenami nie ruszaj", "don't touch the price column", "колонку с ценами"
    "=column", "=columns", "kolumn", "колонк", "столбец", "столбц",
)
#: Schedules are data only when touching them is forbidden ("leave the roster alone", "grafiku nie ruszaj", "график
#: не трогай"): "the rota stays as it is" describes, and the schedule a request makes is its product, not data.
_SCHEDULE_OBJECTS = ("=roster", "=rota", "=schedule", "grafik", "график")
_TOUCH_NEGATIONS = {
    "not", "don't", "dont", "never", "without", "mustn't", "shouldn't", "no", "nie", "bez", "не", "без", "нельзя",
}
#: Fronted "with" phrases: "Z instalacją poczekaj", "С публикацией подожди", "With the installation, wait".
_WITH = {"with", "z", "ze", "с", "со"}
_FILLERS = {"please", "proszę", "jeszcze", "się", "na", "razie", "пока", "еще", "пожалуйста", "just"}
#: "do jutra", "к понедельнику": a time, not a recipient.
_TIME_NOUNS = (
    "jutr", "poniedział", "wtork", "środ", "czwartk", "piątk", "sobot", "niedziel", "końca", "wieczor", "ran",
    "połud", "godzin", "tygodni", "miesi", "завтр", "понедельн", "вторник", "сред", "четверг", "пятниц", "суббот",
    "воскресень", "конц", "вечер", "утр", "недел", "месяц", "tomorrow", "monday", "friday", "end", "next",
)
# fmt: on


def _whole(stems: tuple[str, ...], word: str) -> bool:
    """`word` matches one of `stems`: "=" a whole word (with an English -s/-ed/-ing ending), else a prefix."""
    return any(_stem_match(stem, word) if stem.startswith("=") else word.startswith(stem) for stem in stems)


def _recipient(words: list[str], index: int, language: str = "") -> bool:
    """A recipient at `index`: "to the client", "do klienta", a Russian dative ("клиенту", "всем"), a Polish one
    ("kierowcom", "szefowi", "wszystkim") when the message is Polish."""
    word = words[index]
    after = [w for w in words[index + 1 : index + 3] if w not in _DETERMINERS][:1]
    if word in ("to", "do", "для", "dla"):
        return bool(after) and after[0][0].isalpha() and not after[0].startswith(_TIME_NOUNS)
    if language == "pl" and (
        word in ("im", "mu", "jej", "wszystkim") or (len(word) > 4 and word.endswith(("om", "owi")))
    ):
        return not word.startswith(_TIME_NOUNS) and (not index or words[index - 1] not in ("w", "na", "po", "o"))
    cyrillic = any("\u0400" <= ch <= "\u04ff" for ch in word)
    previous = words[index - 1] if index else ""
    dative = word in ("всем", "ему", "ей", "им") or (
        len(word) > 3 and word.endswith(("у", "ю", "ам", "ям", "ому", "ему")) and not word.startswith(_TIME_NOUNS)
    )
    return cyrillic and dative and previous not in ("к", "до", "по", "в", "на")


def _touch_negation(words: list[str], index: int) -> str | None:
    """The negation over the touching verb at `index`: in the two words before it, or over the verb it is joined to
    ("don't tidy or re-sort the sheet", "nie zmieniaj ani nie sortuj": the negation before the first verb)."""
    k = index
    if k > 1 and words[k - 1] == "-" and words[k - 2] == "re":
        k -= 2  # "re-sort", "re-order": the prefix written apart
    negation = next((w for w in reversed(words[max(0, k - 2) : k]) if w in _TOUCH_NEGATIONS), None)
    if negation is None and k > 1 and words[k - 1] in _CONTINUE and _whole(_TOUCHING, words[k - 2]):
        return _touch_negation(words, k - 2)
    return negation


def _object_after(words: list[str], index: int, end: int) -> int | None:
    """The first word after `index` (before `end`) that is not a determiner."""
    return next((j for j in range(index + 1, end) if words[j] not in _DETERMINERS), None)


def _opening_manner(words: list[str], index: int) -> bool:
    """`index` is in a clause that opens its sentence and says how the agent goes about it, a question after it:
    "Without touching anything in the accounts, how much did we spend…?", "Не трогая пока базу — подскажи, почему…?",
    "Nie ruszając arkusza, powiedz…?": the manner binds the agent whatever the question asks."""
    start, end = _clause_span(words, index)
    if start and words[start - 1] not in _SENTENCE_END:
        return False
    first = words[start] if start < len(words) else ""
    if first in ("without", "bez", "без"):
        return True
    gerund = words[start + 1] if start + 1 < end else ""
    return first in ("не", "nie") and gerund.endswith(("я", "ая", "яя", "ąc", "ac"))


def _structural(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """Prohibitions that the negation chains do not read: holding an action until later, keeping something private,
    touching a data object, an action fronted before a negative verb, an outbound message declared not needed."""
    sentence = _sentences(words)
    found: list[tuple[int, ForbiddenAction]] = []
    n = len(words)
    question = questions_in(words, sentence)

    def clause_end(k: int) -> int:
        return next((j for j in range(k, n) if words[j] in _CLAUSE_BREAK), n)

    for index, word in enumerate(words):
        if (sentence[index] in question and not _opening_manner(words, index)) or not word[0].isalpha():
            continue
        end = clause_end(index)
        # 1. "hold the reply until I've read it": a holding verb, an action or message as object, an "until"
        if _whole(_HOLDING, word):
            target = _object_after(words, index, min(end, index + 4))
            if target is not None and not (word.startswith("keep") and words[target].endswith("ing")):
                effect = action_of(words, target)
                if effect is None and _whole(_OUTBOUND_NOUNS, words[target]):
                    effect = "external_transmission"
                until = any(words[j] in _HOLD_UNTIL for j in range(target + 1, min(end, target + 5)))
                if effect is not None and until:
                    found.append((target, ForbiddenAction(effect, f"{word} … until (held)", words[target])))
        # 2. "keep it to yourself", "niech zostanie między nami", "держи при себе": kept private
        # ("no reason to keep it under wraps", "nie musisz trzymać tego w tajemnicy": a negated keeping lifts it)
        clause_start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
        lifted = any(
            words[k] in _TOUCH_NEGATIONS or words[k] in ("нет", "незачем", "нечего")
            for k in range(max(clause_start, index - 5), index)
        )
        if _whole(_KEEPING, word) and not lifted:
            for j in range(index + 1, min(end, index + 6)):
                phrase = next((p for p in _PRIVATE_PHRASES if tuple(words[j : j + len(p)]) == p), None)
                if phrase is not None:
                    trigger = f"{word} {' '.join(phrase)} ({KEPT_PRIVATE})"
                    found.append((index, ForbiddenAction("external_transmission", trigger, word)))
                    break
                if j - index > 3 and words[j] not in _DETERMINERS and not _whole(_KEEPING, words[j]):
                    break  # "keep the findings to yourself": a short object may stand between
        for alone in _PRIVATE_ALONE:
            if tuple(words[index : index + len(alone)]) == alone:
                # a discourse marker opening its clause ("Between you and me: …") confides what follows and keeps
                # nothing unpublished; said of a thing ("Это пока строго между нами, …") it keeps that thing private
                opens = index == 0 or words[index - 1] in _CLAUSE_BREAK or words[index - 1] in _SENTENCE_END
                marker = "" if alone[-1] in (":", ",") and opens else f" ({KEPT_PRIVATE})"
                found.append((index, ForbiddenAction("external_transmission", f"{' '.join(alone)}{marker}", word)))
        if tuple(words[index : index + 2]) in _BETWEEN_US and _private_said_of_a_thing(words, index):
            trigger = f"{' '.join(words[index : index + 2])} ({KEPT_PRIVATE})"
            found.append((index, ForbiddenAction("external_transmission", trigger, word)))
        # "никому не показывай", "nikomu nie mów", "don't show it to anyone": nobody is to see it
        if _whole(_SHOWING, word) and not _is_past(word):
            start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
            # "no need to show me first", "nie musisz mi pokazywać": a need denied, no one kept from seeing it
            negated = any(
                words[k] in _TOUCH_NEGATIONS and not _lifted_necessity(words, k)
                for k in range(max(start, index - 3), index)
            )
            nobody = any(words[k] in _NOBODY for k in range(start, end)) or (
                "one" in words[index:end] and "no" in words[index:end]
            )
            told = negated and any(_recipient(words, k, language) for k in range(start, end) if k != index)
            if (negated and (nobody or told)) or any(words[k : k + 2] == ["no", "one"] for k in range(index, end)):
                found.append((index, ForbiddenAction("external_transmission", f"{word} (to nobody)", word)))
        # "the supplier must never lay eyes on it", "not a single driver hears about this", "nikt się nie dowie",
        # "никто не должен увидеть": someone else is not to see or learn it
        idiom = tuple(words[index : index + 2]) in _LEARNING_IDIOMS
        if (_whole(_PERCEIVING, word) or idiom) and not _is_past(word):
            start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
            # a condition opens a clause of its own: "don't panic if you hear it" does not negate the hearing
            start = next((k + 1 for k in range(index - 1, start - 1, -1) if words[k] in _IF_OR_WHEN), start)
            before = words[max(start, index - 5) : index]
            negated = any(
                w in _TOUCH_NEGATIONS or w in _NOBODY or w in ("никто", "nikt", "single", "doesnt", "doesn't", "won't")
                for w in before
            )
            # postposed: "Франчайзи эти цифры видеть не должны"
            negated = negated or (index + 1 < n and (post := _negated_necessity(words, index + 1)) is not None
                                  and post[1][0] in ("nie", "не"))  # fmt: skip
            last = index + 1 if idiom else index  # what they learn follows the idiom: "catch wind of the price rise"
            # the speaker who will not see it ("I won't see it", "my nie zobaczymy"; English "my partner" is not one)
            speaker = any(w in ("i", "we", "я", "мы", "ja") or (w == "my" and language == "pl") for w in before)
            pointing = any(w in _POINTING for w in [*before[-3:], *words[last + 1 : min(end, last + 4)]])
            # "dopóki księgowa tego nie zobaczy", "пока бухгалтер это не увидит": the negation of an until-clause
            # waits for someone to see it, it keeps nothing from them
            opening = next((k for k in range(start, index) if words[k] in _UNTIL_EXPLETIVE), None)
            # ("пока никто не должен это увидеть": for now, nobody is to see it)
            until = opening is not None and not any(w in _NOBODY or w in _N_WORDS for w in words[opening:index])
            if negated and not speaker and not until and start < index and pointing:
                found.append((index, ForbiddenAction("external_transmission", f"{word} (not to see it)", word)))
        # 3. "without touching the spreadsheet", "nie ruszaj arkusza", "журнал не правь": a data object is written
        if _whole(_TOUCHING, word) and not _is_past(word):
            negation = _touch_negation(words, index)
            describes = negation in ("nie", "не") and _describes(word)
            start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
            near = [k for k in range(max(start, index - 4), min(end, index + 5)) if k != index]
            # a schedule counts only in the clause of the touching ("grafiku nie ruszaj"), not named before it ("three
            # variants of the schedule, and do not publish changes": the changes are published, not touched)
            objects: tuple[str, ...] = _DATA_OBJECTS + _SCHEDULE_OBJECTS
            if negation is not None and start and not any(_whole(objects, words[k]) or _device(words[k]) for k in near):
                objects = _DATA_OBJECTS
                # what is not to be touched named before the clause: "Zawory — bez ruszania", "Arkusz zleceń jest u
                # nas jak relikwia: patrzymy, nie dotykamy" (back to the sentence's start, at most twelve words)
                first = max(next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _SENTENCE_END), 0), index - 12)
                near = [k for k in range(first, start) if words[k][0].isalpha()]
            data = next((k for k in near if _whole(objects, words[k])), None)
            device = any(_device(words[k]) for k in near)
            if negation is not None and not describes and data is not None and not device:
                found.append((index, ForbiddenAction("local_write", f"{negation} {word}", words[data])))
            elif negation in ("without", "bez", "без") and device and data is None:
                # "Bramy i syreny - bez ruszania", "without touching the valves": the devices are not operated
                device_at = next(k for k in near if _device(words[k]))
                found.append((index, ForbiddenAction("physical", f"{negation} {word}", words[device_at])))
        # 4. "Z instalacją poczekaj na Tomka", "С публикацией подожди", "With the installation, wait for Tom"
        if word in _WITH and (index == 0 or words[index - 1] in _SENTENCE_END or words[index - 1] in _CLAUSE_BREAK):
            target = _object_after(words, index, min(n, index + 4))
            effect = action_of(words, target) if target is not None else None
            if target is not None and effect is None:
                # "С распечаткой на стенд у служебного входа погоди": a thing taken to a venue, then a deferral
                venue = next((k for k in range(target + 1, min(end, target + 4)) if _whole(_VENUES, words[k])), None)
                wait = next((k for k in range(target + 1, min(end, target + 8)) if _operator(words, k)), None)
                if venue is not None and wait is not None and words[wait] not in _PARTICLES | _N_WORDS:
                    found.append((venue, ForbiddenAction("publication", f"{word} … {words[wait]}", words[venue])))
            if target is not None and effect is not None:
                j = target + 1
                if j < n and words[j] == ",":
                    j += 1
                elif j + 1 < n and words[j][0].isalpha() and _operator(words, j) is None and _operator(words, j + 1):
                    j += 1  # "С отправкой отчёта подожди": the action's own object, with no comma after it
                while j < n and words[j] in _FILLERS:
                    j += 1
                operator = _operator(words, j) if j < n else None
                if operator is not None and words[j] not in _PARTICLES | _N_WORDS:
                    found.append((target, ForbiddenAction(effect, f"{word} … {operator[0]}", words[target])))
        # 5. "a report to the client is not needed", "raport do klienta nie jest potrzebny", "отчёт клиенту не нужен"
        if _whole(_OUTBOUND_NOUNS, word):
            recipient = next((j for j in range(index + 1, min(end, index + 5)) if _recipient(words, j, language)), None)
            if recipient is not None:
                needless = any(
                    (found_ := _negated_necessity(words, k)) is not None and found_[1][0] in ("no", "nie", "не")
                    for k in range(recipient + 1, min(end, recipient + 7))
                )
                after = words[recipient : min(end, recipient + 3)]
                effect = "publication" if any(w.startswith(_AUDIENCE) for w in after) else "external_transmission"
                if needless:
                    found.append((index, ForbiddenAction(effect, "not needed", word)))
    return found


def _scan(words: list[str], start: int, limit: int) -> tuple[int, EffectClass] | None:
    limit += sum(1 for w in words[start : start + limit] if w == "-")
    for index in range(start, min(len(words), start + limit)):
        if words[index] in _CLAUSE_BREAK:
            return None
        if _is_action_stem(words[index]) and _is_past(words[index]):
            return None
        effect = action_of(words, index)
        if effect is not None:
            return index, effect
    return None
