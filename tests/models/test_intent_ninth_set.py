"""Prohibitions by form, ninth set, in en/pl/ru (issue 11, point 10): the forms heldout25 showed, in phrasings of my
own.

- a wish that something not happen: "I'd rather you didn't email it", "I'd prefer it wasn't posted", "Nie chcę,
  żebyś to wysyłał", "Я бы предпочёл, чтобы ты это не публиковал" (a past form after "żebyś"/"чтобы" is a
  subjunctive, not a report); a regret ("I wish you hadn't…") and a plain past stay reports;
- the verb of an until-clause is the gate's, never forbidden: "dopóki nie przejrzę wyników testów", "пока не
  посмотрю результаты тестов"; "пока не отправляй" (for now, don't send) still forbids;
- after "nie", a Polish present third person typed without Polish letters describes ("Serwer nie odpowiada");
- ordering from a supplier sends the order out ("don't order the parts", "niczego nie zamawiaj", "zamówienia nie
  składaj", "заказ не оформляй"), while the nouns ("no orders are going through", "in order to") order nothing;
- turning a valve is physical ("zaworu nie zakręcaj", "не перекрывай вентиль");
- "goes live", "make it live" publish;
- "I'll" typed as "ill" with "myself" keeps the action for the speaker;
- a chat everyone reads, fronted before the verb, is published to ("в общий чат не кидай");
- "only a draft" yields to the prohibition its sentence names ("only a draft, so don't put it up on the board").

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import json

import pytest

from alicorn.core.select import WorkflowSelector
from alicorn.models.intent.forbidden import forbidden_effects
from alicorn.models.recorder import ModelClient
from alicorn.packs.catalog import bundled_workflows
from tests.core.support import PROFILE, scripted
from tests.models.support import INST, C, F, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a wish that something not happen
        ("The letter is ready to print. I'd rather you didn't email it to them.", [X]),
        ("I would prefer that the summary was not posted on the intranet.", [P]),
        ("I'd rather nobody forwarded this to the vendor.", [X]),
        ("Nie chcę, żebyś to wysyłał do hurtowni.", [X]),
        ("Wolałabym, żebyś tego nie publikowała na stronie szkoły.", [P]),
        ("Я бы предпочёл, чтобы ты это не публиковал на сайте.", [P]),
        ("Не хочу, чтобы ты отправлял это подрядчику.", [X]),
        # "for now, don't": an imperative after "пока" is a command
        ("Пока не рассылай протокол, я его ещё читаю.", [X]),
        ("Пока не надо публиковать расписание, оно черновое.", [P]),
        # ordering from a supplier
        ("Don't order the replacement filters yet.", [X]),
        ("Please do not place the order with the printer until the proof is signed.", [X]),
        ("Niczego jeszcze nie zamawiaj u hurtownika.", [X]),
        ("Zamówienia w hurtowni na razie nie składaj.", [X]),
        ("Бумагу пока не заказывай, склад ещё считает остатки.", [X]),
        ("Заказ у поставщика пока не оформляй.", [X]),
        # turning a valve
        ("Zaworu przy kotle nie zakręcaj, serwisant już jedzie.", [F]),
        ("Вентиль на стояке не перекрывай, сантехник уже в пути.", [F]),
        # going live
        ("Nothing goes live on the shop until Maria approves the prices.", [P]),
        ("Draft the banner text but don't make it live yet.", [P]),
        # "ill … myself"
        ("draft the reply to the landlord pls, ill email it myself tonight", [X]),
        # a chat everyone reads, fronted; a second verb with its own recipient sends
        ("В общий канал компании ничего не выкладывай и не кидай.", [P]),
        ("На общий канал не выкладывай, а директору не пересылай.", [X, P]),
        ("В общий чат не пиши и ему ничего не отправляй.", [X, P]),
        # "only a draft" yields to what its sentence names
        ("It's only a draft, so don't pin it on the staff noticeboard yet.", [P]),
        ("Только черновик: на сайт не выкладывай.", [P]),
        # and holds when its sentence names nothing
        ("Just a draft for now.", [X, P]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a regret and a plain past report
        ("I wish you hadn't sent it yesterday, the numbers were wrong.", []),
        ("I wish you didn't send it so early, but it is done.", []),
        ("Nobody published it last year either.", []),
        # the verb of an until-clause is the gate's
        ("Nie instaluj niczego, dopóki nie przejrzę wyników testów.", [INST]),
        ("Не ставь обновление, пока не посмотрю результаты тестов.", [INST]),
        ("Nie publikuj, dopóki nie wyślę tego klientowi.", [P]),
        ("Не публикуй, пока не отправлю клиенту.", [P]),
        # a present third person typed without Polish letters describes
        ("Serwer magazynowy nie odpowiada od 10 minut, pomocy!", []),
        ("Klient nie odpowiada na maile od tygodnia, przygotuj przypomnienie.", []),
        # orders as nouns order nothing
        ("No orders are going through since ten, check the payment logs.", []),
        ("In order to save time, prepare only the summary.", []),
        ("System zamówień nie działa od rana.", []),
        # a verb tapping a screen is no valve
        ("Don't tap the screen while it updates the report.", []),
        # running tests before a gate is still code ("nie puszczaj testów, dopóki…")
        ("Nie puszczaj testów, dopóki nie wrócę.", [C]),
    ],
)
def test_forms_that_do_not_or_only_partly(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "template"),
    [
        # a subject word of one template beats a single word of other senses of another
        ("Put together the cleaners' rota for April in two versions, one without weekend shifts.", "schedule"),
        ("Ułóż grafik sprzątania na kwiecień w dwóch wersjach.", "schedule"),
        ("Prepare the notes from the meeting about the demo build.", "notes"),
    ],
)
def test_a_subject_word_decides_against_one_word_of_other_senses(text: str, template: str) -> None:
    selection = WorkflowSelector(bundled_workflows()).select(text, None)
    assert selection.workflow == template, selection


@pytest.mark.parametrize(
    "text",
    [
        # two words of other senses of one template ("grafik", "warianty") against one subject word of another
        # ("narady"): the subject word alone does not decide
        "Po naradzie przygotuj trzy warianty grafiku magazynierów na maj.",
        "После совещания подготовь два варианта графика охраны на май.",
    ],
)
def test_a_subject_word_does_not_beat_two_words_of_another_template(text: str) -> None:
    selection = WorkflowSelector(bundled_workflows()).select(text, None)
    assert selection.workflow != "notes", selection


def test_a_model_that_picks_the_other_template_makes_it_a_question() -> None:
    """The subject word decides only when the model, if one is asked, does not pick another template."""
    _, provider = scripted([json.dumps({"workflow": "candidate", "confidence": 0.8})])
    text = "Put together the cleaners' rota for April in two versions, one without weekend shifts."
    selection = WorkflowSelector(bundled_workflows()).select(text, ModelClient(PROFILE, provider))
    assert selection.workflow is None and selection.decided_by == "ambiguous", selection
